package baccarat

import (
	"fmt"

	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/enum"
)

// Need is what a coup needs next. The zero value, NeedPlayer, is what an
// empty coup needs.
type Need uint8

// What a coup can need next. The first four cards are dealt P1, B1, P2, B2
// (NeedPlayer, NeedBanker alternately); then the tableau decides. At an
// option the need is the third card of the hand whose turn it is (a card
// there is its draw; Coup.Decision tells an option from a forced draw).
// In banque NeedPlayer and NeedPlayerThird are the right tableau's.
const (
	NeedPlayer      Need = iota // one of the player's first two cards
	NeedBanker                  // one of the banker's first two cards
	NeedPlayerThird             // the player's third card (the tableau says draw)
	NeedBankerThird             // the banker's third card (the tableau says draw)
	NeedNone                    // nothing: the coup is complete
	NeedLeft                    // banque: one of the left tableau's first two cards
	NeedLeftThird               // banque: the left tableau's third card (a draw or an option)
)

// String returns "player", "banker", "player-third", "banker-third",
// "complete", "left" or "left-third".
func (n Need) String() string { return needNames.Name(n) }

var needNames = enum.Names[Need]{Type: "Need", Words: []string{
	NeedPlayer: "player", NeedBanker: "banker", NeedPlayerThird: "player-third", NeedBankerThird: "banker-third",
	NeedNone: "complete", NeedLeft: "left", NeedLeftThird: "left-third",
}}

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

// Letter returns the scoreboard's and the transcript's letter for w: 'P',
// 'B' or 'T' (the bead plate's cells, a "declare" token's result); 0 for
// WinnerNone.
func (w Winner) Letter() byte {
	switch w {
	case WinnerPlayer:
		return 'P'
	case WinnerBanker:
		return 'B'
	case WinnerTie:
		return 'T'
	}
	return 0
}

// String returns "player", "banker", "tie", or "" for WinnerNone.
func (w Winner) String() string { return winnerNames.Word(w) }

var winnerNames = enum.Names[Winner]{Words: []string{WinnerPlayer: "player", WinnerBanker: "banker", WinnerTie: "tie"}}

// MarshalText encodes "player", "banker" or "tie"; WinnerNone is an error.
func (w Winner) MarshalText() ([]byte, error) {
	return winnerNames.Encode(w, func() error { return fmt.Errorf("tableau: no winner to encode (Winner(%d))", uint8(w)) })
}

// UnmarshalText decodes "player", "banker" or "tie".
func (w *Winner) UnmarshalText(b []byte) error {
	return winnerNames.Decode(w, b, "winner")
}

// Coup is the coup state machine: one coup of its game, fed one card at a
// time in the order the dealer draws them, and the "stand" of the hand
// whose turn it is. The zero value is an empty coup of punto banco; NewCoup
// makes one of any game. Coup is a value type and feeding it never
// allocates.
//
// Punto banco (and Super 6, EZ, chemin de fer): P1, B1, P2, B2, then any
// third cards, player's (the punter's) first. Baccarat banque: right,
// left, banker, right, left, banker (Player holds the right tableau, Left
// the left one), then the third cards in that order. After each card,
// Need says what the tableau requires next and Decision whose turn it is
// and under which rule.
//
// A card offered after the coup is complete is not added: Deal reports
// AlertExtraCard. Closing an incomplete coup reports AlertMissingCard.
// A card at a decision point is always a draw by the hand whose turn it
// is (at an option it records the choice "draw"); Stand is that hand
// declining: accepted at a forced stand, recorded at an option, and
// AlertMissingCard at a forced draw (the coup then has no result).
type Coup struct {
	Player Hand // the player (punto banco), the punter (chemin de fer), the right tableau (banque)
	Banker Hand
	Left   Hand // banque: the left tableau; empty in the other games

	game Game
	eng  engine // game.def.play(), cached; the zero engine: the punto banco deal
	// turn is the first hand (in decision order) whose decision may
	// still be pending: stands move it on; cards move it past the hand
	// that drew.
	turn uint8
	// dead: a stand at a forced draw; the coup has no result.
	dead bool
	opts OptionList
}

// NewCoup returns an empty coup of game g.
func NewCoup(g Game) Coup {
	c := Coup{game: g}
	if g.def != nil {
		c.eng = g.def.play()
	}
	c.opts.Kept = g.HasOptions()
	return c
}

// Game is the coup's game.
func (c *Coup) Game() Game { return c.game }

// Turn is the first hand, in decision order, whose decision may still be
// pending (stands move it on, cards past the hand that drew): with Dead
// and Options, the
// state a table snapshot keeps beyond the hands.
func (c *Coup) Turn() int { return int(c.turn) }

// Restore sets the state a table snapshot keeps beyond the hands and the
// game: the turn (0–MaxOptions), whether the coup is dead (a stand at a
// forced draw) and the options chosen (at most MaxOptions, the rest
// dropped). The snapshot checks the values; Restore does not.
func (c *Coup) Restore(turn int, dead bool, opts []OptionChoice) {
	c.turn, c.dead = uint8(turn), dead
	c.opts.N = uint8(copy(c.opts.List[:], opts))
}

// Cards is the number of cards dealt into the coup (0–6 in two-hand games,
// 4–6 when complete; 0–9 in banque).
func (c Coup) Cards() int { return c.Player.N + c.Banker.N + c.Left.N }

// PlayerTotal is the player's total over the cards dealt so far (0–9).
func (c Coup) PlayerTotal() int { return c.Player.Total() }

// BankerTotal is the banker's total over the cards dealt so far (0–9).
func (c Coup) BankerTotal() int { return c.Banker.Total() }

// LeftTotal is the left tableau's total (banque; 0 otherwise).
func (c Coup) LeftTotal() int { return c.Left.Total() }

// Options returns the choices made at option points so far, in order
// (nil in games without options).
func (c *Coup) Options() []OptionChoice { return c.opts.Slice() }

// twoCardTotal is the total of the first two cards of h.
func twoCardTotal(h *Hand) int {
	return (h.Cards[0].Value() + h.Cards[1].Value()) % 10
}

// Natural reports whether either hand totals 8 or 9 on its first two cards
// (both hands must have two cards). A natural ends the coup: both stand.
// In banque it reports the banker's natural (which ends the coup); see
// Naturals for each hand's.
func (c Coup) Natural() bool {
	if c.eng.kind != enginePuntoBanco {
		return c.eng.natural(&c)
	}
	if c.Player.N < 2 || c.Banker.N < 2 {
		return false
	}
	return twoCardTotal(&c.Player) >= 8 || twoCardTotal(&c.Banker) >= 8
}

// Need returns what the coup needs next under the tableau.
func (c Coup) Need() Need { return c.need() }

// need is Need without copying the coup.
func (c *Coup) need() Need {
	if c.eng.kind != enginePuntoBanco {
		return c.eng.need(c)
	}
	np, nb := c.Player.N, c.Banker.N
	if np+nb < 4 {
		if c.dead {
			return NeedNone
		}
		if np == nb {
			return NeedPlayer
		}
		return NeedBanker
	}
	pt, bt := twoCardTotal(&c.Player), twoCardTotal(&c.Banker)
	if pt >= 8 || bt >= 8 || c.dead { // a natural: both stand
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

// Complete reports whether the tableau is complete: no card is needed and
// the coup has a result (a coup a stand left without its forced card is
// not complete: Dead).
func (c Coup) Complete() bool { return !c.dead && c.need() == NeedNone }

// Dead reports whether a stand at a forced draw ended the coup without a
// result.
func (c Coup) Dead() bool { return c.dead }

// Deal adds the next card drawn and returns what the coup needs after it.
// It returns AlertExtraCard (and does not add the card) if the coup was
// already complete (or dead), and AlertUnreadableCard (card not added) if
// card is not a valid card. Otherwise the alert is "".
func (c *Coup) Deal(card card.Card) (Need, AlertCode) {
	if !card.Valid() {
		return c.need(), AlertUnreadableCard
	}
	if c.eng.kind != enginePuntoBanco {
		if c.dead || !c.eng.deal(c, card) {
			return c.need(), AlertExtraCard
		}
		return c.need(), ""
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

// Stand is the hand whose turn it is declining a card (the "stand" token,
// the dealer's "non"). At a forced stand, or once the coup is complete,
// it is accepted and changes nothing (but whose turn it is: the next
// hand's); at an option it records the choice "stand"; at a forced draw
// (also during the first cards) it returns AlertMissingCard and the coup
// is dead: no result. It returns what the coup needs after it.
func (c *Coup) Stand() (Need, AlertCode) {
	if c.dead {
		return NeedNone, ""
	}
	d, ok := c.Decision()
	if !ok {
		if c.need() == NeedNone {
			return NeedNone, "" // complete: every hand stands
		}
		c.dead = true // the first cards are never optional
		return NeedNone, AlertMissingCard
	}
	switch d.Rule {
	case MustDraw:
		c.dead = true
		return NeedNone, AlertMissingCard
	case Option:
		c.record(d, MustStand)
	}
	c.turn = uint8(d.index + 1)
	return c.need(), ""
}

// Decision is a decision point of a coup: the hand whose turn it is, its
// two-card total, the punter's third card where the rule depends on it
// (NoThirdCard otherwise), and the rule there.
type Decision struct {
	Hand  Position
	Total int
	// PunterThird is the value (0–9) of the punter's third card at a
	// chemin de fer or punto banco banker decision, NoThirdCard when the
	// punter stood or the rule does not depend on it.
	PunterThird int
	Rule        Rule
	index       int // the hand's place in decision order
}

// Decision returns the decision point the coup is at — the hand whose turn
// it is and its rule — and true; false during the first cards, once the
// coup is complete, or dead. A forced stand is a decision point too (a
// "stand" passes it to the next hand; a card goes to the next hand that
// may draw).
func (c *Coup) Decision() (Decision, bool) {
	if c.dead {
		return Decision{}, false
	}
	if c.eng.kind == enginePuntoBanco {
		return twoHandPlay{&PuntoBanco}.decision(c)
	}
	return c.eng.decision(c)
}

// record adds the choice at option d.
func (c *Coup) record(d Decision, choice Rule) {
	c.opts.add(OptionChoice{Hand: optionHandOf(d.Hand), Total: int8(d.Total), PunterThird: int8(d.PunterThird), Choice: choice})
}

// Close is the dealer ending the coup (the coup button, "|"). It returns
// AlertMissingCard if cards have been dealt but the tableau is not
// complete, else "". Close does not change the coup (see Fold.Marker for
// "|" at an option, which stands there first).
func (c Coup) Close() AlertCode {
	if c.Cards() > 0 && !c.Complete() && !c.dead {
		return AlertMissingCard
	}
	return ""
}

// Reset empties the coup for the next one.
func (c *Coup) Reset() {
	*c = Coup{game: c.game, eng: c.eng, opts: OptionList{Kept: c.opts.Kept}}
}

// Winner returns the result of a complete coup (higher total wins, equal
// totals tie), or WinnerNone if the coup is not complete. In banque, where
// each tableau is settled against the banker on its own, it is WinnerNone:
// see SideWinners.
func (c Coup) Winner() Winner {
	if !c.Complete() {
		return WinnerNone
	}
	if !c.eng.twoHands() {
		return WinnerNone
	}
	return compareTotals(c.Player.Total(), c.Banker.Total())
}

// compareTotals is the punto banco comparison: higher total wins, equal
// totals tie (WinnerPlayer: the first total's side).
func compareTotals(p, b int) Winner {
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
// for shoe number shoe and coup number coup, without settlement. The coup
// should be complete; otherwise Winner is WinnerNone and the event does
// not encode.
func (c Coup) Event(shoe, coup int) CoupEvent {
	var e CoupEvent
	c.fillEvent(&e, Rules{Game: c.game}, shoe, coup, false)
	return e
}

// SettledEvent writes into e the coup line of the complete coup c, settled
// under r (valid: the fold validated it), with one tableau decision for
// both: the fold's hot path.
func (c *Coup) SettledEvent(e *CoupEvent, r Rules, shoe, coup int) {
	c.fillEvent(e, r, shoe, coup, true)
}

// fillEvent writes the coup line into e, settled under r if settle.
func (c *Coup) fillEvent(e *CoupEvent, r Rules, shoe, coup int, settle bool) {
	if !c.eng.twoHands() {
		c.eng.event(c, e, r, shoe, coup, settle)
		return
	}
	f := c.facts()
	*e = CoupEvent{
		Type:          EventCoup,
		Game:          c.game,
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
		Options:       c.opts,
	}
	if !c.game.DealsPuntoBanco() {
		// Chemin de fer: the punto banco side-bet facts mean nothing
		// there (its line leaves them out, see cheminLine).
		e.Dragon7, e.Panda8, e.BankerWinsOn6 = false, false, false
	}
	if settle && f.winner != WinnerNone {
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
	playerSuit, bankerSuit   pairSuit // whether each pair is suited (settle.go)
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
		playerSuit:  pairSuitOf(&c.Player),
		bankerSuit:  pairSuitOf(&c.Banker),
	}
	if !c.dead && c.need() == NeedNone {
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
