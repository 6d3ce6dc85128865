package tableau

import "fmt"

// Need is what a coup needs next. The zero value, NeedPlayer, is what an
// empty coup needs.
type Need uint8

// What a coup can need next. The first four cards are dealt P1, B1, P2, B2
// (NeedPlayer, NeedBanker alternately); then the tableau decides.
const (
	NeedPlayer      Need = iota // one of the player's first two cards
	NeedBanker                  // one of the banker's first two cards
	NeedPlayerThird             // the player's third card (the tableau says draw)
	NeedBankerThird             // the banker's third card (the tableau says draw)
	NeedNone                    // nothing: the coup is complete
)

// String returns "player", "banker", "player-third", "banker-third" or
// "complete".
func (n Need) String() string {
	switch n {
	case NeedPlayer:
		return "player"
	case NeedBanker:
		return "banker"
	case NeedPlayerThird:
		return "player-third"
	case NeedBankerThird:
		return "banker-third"
	case NeedNone:
		return "complete"
	}
	return fmt.Sprintf("Need(%d)", uint8(n))
}

// Winner is the result of a complete coup.
type Winner uint8

// The results. WinnerNone is the zero value: the coup is not complete (or
// has no result: voided, missing a card).
const (
	WinnerNone Winner = iota
	WinnerPlayer
	WinnerBanker
	WinnerTie
)

// String returns "player", "banker", "tie", or "" for WinnerNone.
func (w Winner) String() string {
	switch w {
	case WinnerPlayer:
		return "player"
	case WinnerBanker:
		return "banker"
	case WinnerTie:
		return "tie"
	}
	return ""
}

// MarshalText encodes "player", "banker" or "tie"; WinnerNone is an error.
func (w Winner) MarshalText() ([]byte, error) {
	if w < WinnerPlayer || w > WinnerTie {
		return nil, fmt.Errorf("tableau: no winner to encode (Winner(%d))", uint8(w))
	}
	return []byte(w.String()), nil
}

// UnmarshalText decodes "player", "banker" or "tie".
func (w *Winner) UnmarshalText(b []byte) error {
	switch string(b) {
	case "player":
		*w = WinnerPlayer
	case "banker":
		*w = WinnerBanker
	case "tie":
		*w = WinnerTie
	default:
		return fmt.Errorf("tableau: unknown winner %q", b)
	}
	return nil
}

// Coup is the coup state machine: one coup of punto banco, fed one card at a
// time in the order the dealer draws them (P1, B1, P2, B2, then any third
// cards, player's first). After each card, Need says what the tableau
// requires next. The zero value is an empty coup; Coup is a value type and
// feeding it never allocates.
//
// A card offered after the coup is complete is not added: Deal reports
// AlertExtraCard. Closing an incomplete coup reports AlertMissingCard.
type Coup struct {
	Player Hand
	Banker Hand
}

// Cards is the number of cards dealt into the coup (0–6; 4–6 when complete).
func (c Coup) Cards() int { return c.Player.N + c.Banker.N }

// PlayerTotal is the player's total over the cards dealt so far (0–9).
func (c Coup) PlayerTotal() int { return c.Player.Total() }

// BankerTotal is the banker's total over the cards dealt so far (0–9).
func (c Coup) BankerTotal() int { return c.Banker.Total() }

// twoCardTotal is the total of the first two cards of h.
func twoCardTotal(h *Hand) int {
	return (h.Cards[0].Value() + h.Cards[1].Value()) % 10
}

// Natural reports whether either hand totals 8 or 9 on its first two cards
// (both hands must have two cards). A natural ends the coup: both stand.
func (c Coup) Natural() bool {
	if c.Player.N < 2 || c.Banker.N < 2 {
		return false
	}
	return twoCardTotal(&c.Player) >= 8 || twoCardTotal(&c.Banker) >= 8
}

// Need returns what the coup needs next under the tableau.
func (c Coup) Need() Need { return c.need() }

// need is Need without copying the coup.
func (c *Coup) need() Need {
	np, nb := c.Player.N, c.Banker.N
	if np+nb < 4 {
		if np == nb {
			return NeedPlayer
		}
		return NeedBanker
	}
	pt, bt := twoCardTotal(&c.Player), twoCardTotal(&c.Banker)
	if pt >= 8 || bt >= 8 { // a natural: both stand
		return NeedNone
	}
	if np == 2 && PlayerDraws(pt) {
		return NeedPlayerThird
	}
	if nb == 3 {
		return NeedNone
	}
	third := NoThirdCard
	if np == 3 {
		third = c.Player.Cards[2].Value()
	}
	if BankerDraws(bt, third) {
		return NeedBankerThird
	}
	return NeedNone
}

// Complete reports whether the tableau is complete: no card is needed.
func (c Coup) Complete() bool { return c.Need() == NeedNone }

// Deal adds the next card drawn and returns what the coup needs after it.
// It returns AlertExtraCard (and does not add the card) if the coup was
// already complete, and AlertUnreadableCard (card not added) if card is not
// a valid card. Otherwise the alert is "".
func (c *Coup) Deal(card Card) (Need, AlertCode) {
	if !card.Valid() {
		return c.need(), AlertUnreadableCard
	}
	switch c.need() {
	case NeedPlayer, NeedPlayerThird:
		c.Player.add(card)
	case NeedBanker, NeedBankerThird:
		c.Banker.add(card)
	default:
		return NeedNone, AlertExtraCard
	}
	return c.need(), ""
}

// Close is the dealer ending the coup (the coup button, "|"). It returns
// AlertMissingCard if cards have been dealt but the tableau is not
// complete, else "". Close does not change the coup.
func (c Coup) Close() AlertCode {
	if c.Cards() > 0 && !c.Complete() {
		return AlertMissingCard
	}
	return ""
}

// Reset empties the coup for the next one.
func (c *Coup) Reset() { *c = Coup{} }

// Winner returns the result of a complete coup (higher total wins, equal
// totals tie), or WinnerNone if the coup is not complete.
func (c Coup) Winner() Winner {
	if !c.Complete() {
		return WinnerNone
	}
	p, b := c.Player.Total(), c.Banker.Total()
	switch {
	case p > b:
		return WinnerPlayer
	case b > p:
		return WinnerBanker
	}
	return WinnerTie
}

// PlayerPair reports whether the player's first two cards share a rank.
func (c Coup) PlayerPair() bool { return c.Player.Pair() }

// BankerPair reports whether the banker's first two cards share a rank.
func (c Coup) BankerPair() bool { return c.Banker.Pair() }

// Dragon7 reports whether the banker won with a three-card 7 (EZ Baccarat's
// Dragon 7; under EZ rules banker bets push on it).
func (c Coup) Dragon7() bool {
	return c.Banker.N == 3 && c.Banker.Total() == 7 && c.Winner() == WinnerBanker
}

// Panda8 reports whether the player won with a three-card 8 (EZ Baccarat's
// Panda 8).
func (c Coup) Panda8() bool {
	return c.Player.N == 3 && c.Player.Total() == 8 && c.Winner() == WinnerPlayer
}

// BankerWinsOn6 reports whether the banker won with a total of 6 (two or
// three cards): the case Super 6 pays 1:2 on banker bets.
func (c Coup) BankerWinsOn6() bool {
	return c.Banker.Total() == 6 && c.Winner() == WinnerBanker
}

// Event returns the coup's output event (the "coup" line of `sabot check`)
// for shoe number shoe and coup number coup. The coup should be complete;
// otherwise Winner is WinnerNone and the event does not encode.
func (c Coup) Event(shoe, coup int) CoupEvent {
	f := c.facts()
	return CoupEvent{
		Type:          EventCoup,
		Shoe:          shoe,
		Coup:          coup,
		Player:        c.Player,
		Banker:        c.Banker,
		PlayerTotal:   f.playerTotal,
		BankerTotal:   f.bankerTotal,
		Winner:        f.winner,
		Natural:       c.Natural(),
		PlayerPair:    f.playerPair,
		BankerPair:    f.bankerPair,
		Dragon7:       f.dragon7,
		Panda8:        f.panda8,
		BankerWinsOn6: f.bankerWinsOn6,
		Cards:         c.Cards(),
	}
}

// settledEvent writes into e the coup line of the complete coup c, settled
// under r (valid: the fold validated it), with one tableau decision for
// both: the fold's hot path.
func (c *Coup) settledEvent(e *CoupEvent, r Rules, shoe, coup int) {
	f := c.facts()
	*e = CoupEvent{
		Type:          EventCoup,
		Shoe:          shoe,
		Coup:          coup,
		Player:        c.Player,
		Banker:        c.Banker,
		PlayerTotal:   f.playerTotal,
		BankerTotal:   f.bankerTotal,
		Winner:        f.winner,
		Natural:       c.Natural(),
		PlayerPair:    f.playerPair,
		BankerPair:    f.bankerPair,
		Dragon7:       f.dragon7,
		Panda8:        f.panda8,
		BankerWinsOn6: f.bankerWinsOn6,
		Cards:         c.Cards(),
	}
	if f.winner != WinnerNone {
		s := &e.Settlement
		dst := [...]*Payout{&s.Player, &s.Banker, &s.Tie, &s.PlayerPair, &s.BankerPair, &s.Dragon7, &s.Panda8}
		for i, b := range Bets {
			if r.Offers(b) {
				*dst[i] = r.settle(&f, b)
			}
		}
		r.settleSides(c, &f, s)
	}
}

// coupFacts are what the coup line and the settlement say about a coup,
// computed once (the tableau decision behind Winner is the costly part):
// each field is what the Coup method of the same name returns.
type coupFacts struct {
	winner                   Winner
	playerTotal, bankerTotal int
	playerPair, bankerPair   bool
	dragon7, panda8          bool
	bankerWinsOn6            bool
}

func (c *Coup) facts() coupFacts {
	f := coupFacts{
		winner:      WinnerNone,
		playerTotal: c.Player.Total(),
		bankerTotal: c.Banker.Total(),
		playerPair:  c.Player.Pair(),
		bankerPair:  c.Banker.Pair(),
	}
	if c.need() == NeedNone {
		switch {
		case f.playerTotal > f.bankerTotal:
			f.winner = WinnerPlayer
		case f.bankerTotal > f.playerTotal:
			f.winner = WinnerBanker
		default:
			f.winner = WinnerTie
		}
	}
	f.dragon7 = c.Banker.N == 3 && f.bankerTotal == 7 && f.winner == WinnerBanker
	f.panda8 = c.Player.N == 3 && f.playerTotal == 8 && f.winner == WinnerPlayer
	f.bankerWinsOn6 = f.bankerTotal == 6 && f.winner == WinnerBanker
	return f
}
