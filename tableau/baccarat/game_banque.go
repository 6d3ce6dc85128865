package baccarat

import (
	"github.com/sabot-table/sabot/tableau/card"
)

// Baccarat banque: a banker against two tableaux, right and left, dealt
// from a 3-deck shoe (Scarne's rules of the game as dealt in French
// casinos). In a Coup the right tableau is Player, the left one Left.
//
//   - Deal: right, left, banker, right, left, banker.
//   - A banker's natural (8 or 9 on two cards) ends the coup: both
//     tableaux are compared with it. A tableau with a natural draws no
//     card and has no turn: it is turned over at once, and a "stand"
//     belongs to the next hand with a decision. When both tableaux have
//     naturals the banker has no turn either: the coup is complete.
//   - Otherwise the right tableau decides, then the left, then the
//     banker. Each tableau follows PunterRule (0–4 draw, 5 option,
//     6–7 stand); the banker's draw is always an option (he plays one
//     hand against both sides).
//   - Each tableau is compared with the banker on its own (higher total
//     wins, equal totals tie): right_winner, left_winner.
//   - Settlement per side: 1:1, a tie pushes; a bet à cheval (on both
//     sides, half each) is settled as its two halves.

// banqueGame is baccarat banque (no parameters).
type banqueGame struct{}

func (banqueGame) name() string      { return "banque" }
func (banqueGame) play() engine      { return engine{kind: engineBanque} }
func (banqueGame) table() *DrawTable { return nil }
func (banqueGame) params() []string  { return nil }

// GameBanque is baccarat banque.
var GameBanque = Game{banqueGame{}}

func init() {
	registerGame(GameInfo{
		Name:         "banque",
		Title:        "Baccarat banque",
		Summary:      "baccarat banque: a banker against two tableaux, right and left, each settled on its own",
		DefaultDecks: 3,
		build:        func([]string) (Game, error) { return GameBanque, nil },
	})
}

// The banque bets (settled in CoupEvent.Settlement's Right, Left and
// ACheval; offered only under GameBanque).
const (
	BetRight   Bet = iota + BetLucky6 + 1 // the right tableau beats the banker; 1:1, a tie pushes
	BetLeft                               // the left tableau beats the banker; 1:1, a tie pushes
	BetACheval                            // à cheval: half on each tableau
)

// banquePlay is banque's coup engine. Hands in deal and decision order: 0
// right (Coup.Player), 1 left (Coup.Left), 2 banker.
type banquePlay struct{}

func (banquePlay) twoHands() bool { return false }

func (banquePlay) hand(c *Coup, i int) *Hand {
	switch i {
	case 0:
		return &c.Player
	case 1:
		return &c.Left
	}
	return &c.Banker
}

var banquePositions = [3]Position{PositionRight, PositionLeft, PositionBanker}

func (p banquePlay) natural(c *Coup) bool {
	return c.Banker.N >= 2 && twoCardTotal(&c.Banker) >= 8
}

// rule is hand i's decision, ok false once it has drawn, and for a hand
// that has no turn: a tableau with a natural (it is turned over at once
// and takes no decision, so a "stand" or a card goes to the next hand
// with one), and the banker when both tableaux have naturals (a natural
// ends its side's play, as in chemin de fer, and he has no one left to
// play against: the coup is complete after the deal).
func (p banquePlay) rule(c *Coup, i int) (Decision, bool) {
	h := p.hand(c, i)
	if h.N != 2 {
		return Decision{}, false
	}
	if (i < 2 && h.Natural()) || (i == 2 && c.Player.Natural() && c.Left.Natural()) {
		return Decision{}, false
	}
	t := twoCardTotal(h)
	r := Option // the banker
	if i < 2 {
		r = PunterRule(t) // a natural (8–9) stands
	}
	return Decision{Hand: banquePositions[i], Total: t, PunterThird: NoThirdCard, Rule: r, index: i}, true
}

func (p banquePlay) from(c *Coup) int {
	i := int(c.turn)
	for j := 0; j < 3; j++ {
		if p.hand(c, j).N == 3 {
			i = max(i, j+1)
		}
	}
	return i
}

func (p banquePlay) decision(c *Coup) (Decision, bool) {
	if c.Cards() < 6 || p.natural(c) {
		return Decision{}, false
	}
	for i := p.from(c); i < 3; i++ {
		if d, ok := p.rule(c, i); ok {
			// The banker always has an option, so a tableau's forced
			// stand is a turn a "stand" passes.
			return d, true
		}
	}
	return Decision{}, false
}

func (p banquePlay) drawer(c *Coup) (Decision, bool) {
	for i := p.from(c); i < 3; i++ {
		if d, ok := p.rule(c, i); ok && d.Rule != MustStand {
			return d, true
		}
	}
	return Decision{}, false
}

var banqueFirst = [3]Need{NeedPlayer, NeedLeft, NeedBanker}
var banqueThird = [3]Need{NeedPlayerThird, NeedLeftThird, NeedBankerThird}

func (p banquePlay) need(c *Coup) Need {
	if c.dead {
		return NeedNone
	}
	if n := c.Cards(); n < 6 {
		return banqueFirst[n%3]
	}
	if p.natural(c) {
		return NeedNone
	}
	if d, ok := p.drawer(c); ok {
		return banqueThird[d.index]
	}
	return NeedNone
}

func (p banquePlay) deal(c *Coup, card card.Card) bool {
	if n := c.Cards(); n < 6 {
		return p.hand(c, n%3).add(card)
	}
	if p.natural(c) {
		return false
	}
	d, ok := p.drawer(c)
	if !ok {
		return false
	}
	if d.Rule == Option {
		c.record(d, MustDraw)
	}
	c.turn = uint8(d.index + 1)
	return p.hand(c, d.index).add(card)
}

// SideWinners returns, for a complete banque coup, the result of the right
// and of the left tableau against the banker (WinnerPlayer: the tableau
// wins); WinnerNone, WinnerNone for a coup not complete or not banque.
func (c Coup) SideWinners() (right, left Winner) {
	if c.eng.kind != engineBanque || !c.Complete() {
		return WinnerNone, WinnerNone
	}
	b := c.Banker.Total()
	return compareTotals(c.Player.Total(), b), compareTotals(c.Left.Total(), b)
}

func (p banquePlay) event(c *Coup, e *CoupEvent, r Rules, shoe, coup int, settle bool) {
	rw, lw := c.SideWinners()
	*e = CoupEvent{
		Type: EventCoup, Game: c.game, Shoe: shoe, Coup: coup,
		Player: c.Player, Banker: c.Banker, Left: c.Left,
		PlayerTotal: c.Player.Total(), BankerTotal: c.Banker.Total(), LeftTotal: c.Left.Total(),
		RightWinner: rw, LeftWinner: lw,
		Natural:    p.natural(c),
		Naturals:   [3]bool{c.Player.Natural(), c.Left.Natural(), c.Banker.Natural()},
		PlayerPair: c.Player.Pair(), BankerPair: c.Banker.Pair(),
		Cards:   c.Cards(),
		Options: c.opts,
	}
	if settle && rw != WinnerNone {
		s := &e.Settlement
		s.Right, s.Left = sidePayout(rw), sidePayout(lw)
		s.ACheval = aCheval(s.Right, s.Left)
	}
}

// sidePayout settles a bet on the player's side (punto banco's player bet,
// a banque side bet on its tableau) on that side's result.
func sidePayout(w Winner) Payout {
	switch w {
	case WinnerPlayer:
		return win(1)
	case WinnerTie:
		return push
	}
	return lose
}

// aCheval settles a bet on both sides, half on each: the mean of the two
// halves' nets (win +1, push 0 when one half wins and the other loses…).
func aCheval(r, l Payout) Payout {
	net := (r.Net + l.Net) / 2
	switch {
	case net > 0:
		return win(net)
	case net < 0:
		return Payout{Lose, net}
	}
	return push
}

// Naturals reports, for a banque coup, whether the right tableau, the
// left one and the banker have a natural (8 or 9 on two cards).
func (c Coup) Naturals() [3]bool {
	return [3]bool{c.Player.Natural(), c.Left.Natural(), c.Banker.Natural()}
}

// Natural reports whether the hand's first two cards total 8 or 9.
func (h Hand) Natural() bool { return h.N >= 2 && twoCardTotal(&h) >= 8 }
