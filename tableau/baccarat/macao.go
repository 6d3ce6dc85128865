package baccarat

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/enum"
)

// Macao and Victoria are the historical members of the baccarat family in
// which every punter's seat plays its own hand against the banker and
// every hand draws as many cards as it likes. Macao deals one card to each
// hand, Victoria two. They are `sabot check` games only: casinos do not
// deal them from a smart shoe, so the daemon does not run them.
//
// The rules engine here is MacaoCoup, the state machine of one coup:
//
//   - Deal: round by round, one card to each seat in turn (seat 1 first),
//     then one to the banker; Macao deals one round, Victoria two.
//   - A hand whose initial cards total 8 or 9 is a natural and draws no
//     card. Under bust counting, initial cards over 9 bust the hand on
//     the deal (it has no turn and loses).
//   - Then each seat in turn, and last the banker, draws cards one at a
//     time until it says "stand". A ten or a face card just drawn may be
//     refused ("refuse", where MacaoRules.NoRefuse is off): it is set aside,
//     counts for no hand, and the hand may draw again.
//   - Counting: modulo 10 (MacaoModulo), or MacaoBust, where a total over 9
//     busts the hand at once: its turn ends and it loses.
//   - Each seat against the banker (CompareMacao): a busted seat loses; a
//     busted banker loses to every seat that did not bust; otherwise the
//     higher total wins, equal totals the hand with fewer cards, equal
//     totals and cards the banker (or a push under MacaoEqualPush).
//   - A winning seat is paid (MacaoPays): a natural 9 3:1 (2:1 under
//     MacaoPays21) unless the banker also has a natural 9, a natural 8 2:1
//     (1:1), any other win 1:1; in Victoria a natural made of a pair pays
//     only 1:1.

// Bounds of the Macao and Victoria engine.
const (
	// MaxMacaoSeats is the most punters' seats at a Macao or Victoria
	// table; MinMacaoSeats the fewest.
	MaxMacaoSeats = 9
	MinMacaoSeats = 1
	// DefaultMacaoSeats is the seat count when MacaoRules.Seats is 0: one
	// punter against the banker.
	DefaultMacaoSeats = 1
	// DefaultMacaoDecks is the deck count of a Macao or Victoria shoe when
	// none is given.
	DefaultMacaoDecks = 2
	// MaxMacaoHandCards is the most cards one hand holds (dealt and drawn,
	// refused cards not counted). Under modulo counting a hand may draw
	// for ever; a card past this bound raises hand-limit, is set aside
	// and ends the hand's turn. No real hand comes near it: 12 cards of
	// which none is a ten or court card.
	MaxMacaoHandCards = 12
	// MaxMacaoRefusals is the most cards one hand refuses in a coup; a
	// refusal past it raises hand-limit and is ignored (the card stays in
	// the hand).
	MaxMacaoRefusals = 12
	// MaxMacaoCoupCards bounds the cards a coup takes before it is
	// complete: each hand holds at most MaxMacaoHandCards, refuses at most
	// MaxMacaoRefusals and has one card set aside past the bound.
	MaxMacaoCoupCards = (MaxMacaoSeats + 1) * (MaxMacaoHandCards + MaxMacaoRefusals + 1)
)

// ErrMacaoRules is wrapped by every error about Macao or Victoria rules.
var ErrMacaoRules = errors.New("tableau: bad macao rules")

// MacaoCount is how a Macao or Victoria hand counts its points.
type MacaoCount uint8

// The counting rules. MacaoModulo is the zero value and the default.
const (
	// MacaoModulo: the total is the sum of the card values modulo 10, as
	// in every baccarat game.
	MacaoModulo MacaoCount = iota
	// MacaoBust: the early rule: the total is the plain sum, and a hand
	// going over 9 busts at once (its turn ends; it loses).
	MacaoBust
)

// String returns "modulo" or "bust".
func (c MacaoCount) String() string { return macaoCountNames.Name(c) }

var macaoCountNames = enum.Names[MacaoCount]{Type: "MacaoCount", Words: []string{MacaoModulo: "modulo", MacaoBust: "bust"}}

// ParseMacaoCount parses "modulo" or "bust" (case-insensitive). Errors
// wrap ErrMacaoRules.
func ParseMacaoCount(s string) (MacaoCount, error) {
	if c, ok := macaoCountNames.Lookup(strings.ToLower(s)); ok {
		return c, nil
	}
	return 0, fmt.Errorf("%w: count %q (want modulo or bust)", ErrMacaoRules, s)
}

// MacaoEqual is who takes a seat's coup when the seat and the banker have
// equal totals and equal numbers of cards.
type MacaoEqual uint8

// The equal-hand rules. MacaoEqualBanker is the zero value and the default.
const (
	MacaoEqualBanker MacaoEqual = iota // the banker wins
	MacaoEqualPush                     // the seat's stake is returned
)

// String returns "banker" or "push".
func (e MacaoEqual) String() string { return macaoEqualNames.Name(e) }

var macaoEqualNames = enum.Names[MacaoEqual]{Type: "MacaoEqual", Words: []string{MacaoEqualBanker: "banker", MacaoEqualPush: "push"}}

// ParseMacaoEqual parses "banker" or "push" (case-insensitive). Errors
// wrap ErrMacaoRules.
func ParseMacaoEqual(s string) (MacaoEqual, error) {
	if e, ok := macaoEqualNames.Lookup(strings.ToLower(s)); ok {
		return e, nil
	}
	return 0, fmt.Errorf("%w: equal %q (want banker or push)", ErrMacaoRules, s)
}

// MacaoPayTable is what a winning natural pays.
type MacaoPayTable uint8

// The pay tables. MacaoPays32 is the zero value and the default.
const (
	// MacaoPays32: a natural 9 pays 3:1, a natural 8 2:1 ("3-2").
	MacaoPays32 MacaoPayTable = iota
	// MacaoPays21: a natural 9 pays 2:1, a natural 8 1:1 ("2-1").
	MacaoPays21
)

// String returns "3-2" or "2-1".
func (p MacaoPayTable) String() string { return macaoPayNames.Name(p) }

var macaoPayNames = enum.Names[MacaoPayTable]{Type: "MacaoPayTable", Words: []string{MacaoPays32: "3-2", MacaoPays21: "2-1"}}

// ParseMacaoPayTable parses "3-2" or "2-1". Errors wrap ErrMacaoRules.
func ParseMacaoPayTable(s string) (MacaoPayTable, error) {
	if p, ok := macaoPayNames.Lookup(s); ok {
		return p, nil
	}
	return 0, fmt.Errorf("%w: pays %q (want 3-2 or 2-1)", ErrMacaoRules, s)
}

// MacaoRules are the rules of a Macao or Victoria table. The zero value is
// Macao with one seat, modulo counting, tens refusable, equal hands to the
// banker and naturals paying 3:1 and 2:1.
type MacaoRules struct {
	Victoria bool // two initial cards per hand (Victoria), not one (Macao)
	// Seats is the number of punters' seats, MinMacaoSeats–MaxMacaoSeats;
	// 0 means DefaultMacaoSeats.
	Seats    int
	Count    MacaoCount
	NoRefuse bool // a ten or court card drawn may not be refused
	Equal    MacaoEqual
	Pays     MacaoPayTable
}

// Validate checks the rules. Errors wrap ErrMacaoRules.
func (r MacaoRules) Validate() error {
	if s := r.seats(); s < MinMacaoSeats || s > MaxMacaoSeats {
		return fmt.Errorf("%w: %d seats (want %d–%d)", ErrMacaoRules, s, MinMacaoSeats, MaxMacaoSeats)
	}
	if r.Count > MacaoBust {
		return fmt.Errorf("%w: invalid count %d", ErrMacaoRules, uint8(r.Count))
	}
	if r.Equal > MacaoEqualPush {
		return fmt.Errorf("%w: invalid equal rule %d", ErrMacaoRules, uint8(r.Equal))
	}
	if r.Pays > MacaoPays21 {
		return fmt.Errorf("%w: invalid pay table %d", ErrMacaoRules, uint8(r.Pays))
	}
	return nil
}

// Name returns the game's name: "macao" or "victoria".
func (r MacaoRules) Name() string {
	if r.Victoria {
		return "victoria"
	}
	return "macao"
}

// seats returns the effective seat count.
func (r MacaoRules) seats() int {
	if r.Seats == 0 {
		return DefaultMacaoSeats
	}
	return r.Seats
}

// initialCards is the number of cards dealt to each hand: 1 or 2.
func (r MacaoRules) initialCards() int {
	if r.Victoria {
		return 2
	}
	return 1
}

// MacaoHand is one hand of a Macao or Victoria coup: a seat's or the
// banker's. Only Cards[:N] and Refused[:NRefused] are meaningful.
type MacaoHand struct {
	Cards    [MaxMacaoHandCards]card.Card
	N        int
	Refused  [MaxMacaoRefusals]card.Card // tens and court cards drawn and refused, in order
	NRefused int
	// Total is the hand's points: modulo 10 (0–9) under MacaoModulo, the
	// plain sum under MacaoBust (over 9 only when Bust).
	Total   int
	Natural bool // the initial cards total 8 or 9: the hand draws no card
	Bust    bool // MacaoBust only: the total went over 9
}

// Slice returns the hand's cards, aliasing h.Cards.
func (h *MacaoHand) Slice() []card.Card { return h.Cards[:h.N] }

// RefusedSlice returns the hand's refused cards, aliasing h.Refused.
func (h *MacaoHand) RefusedSlice() []card.Card { return h.Refused[:h.NRefused] }

// Pair reports whether the hand's first two cards share a rank (Victoria's
// pair, which makes a natural pay only 1:1).
func (h *MacaoHand) Pair() bool { return h.N >= 2 && h.Cards[0].Rank == h.Cards[1].Rank }

// add appends c and counts it under count. The caller checks the bound.
func (h *MacaoHand) add(c card.Card, count MacaoCount) {
	h.Cards[h.N] = c
	h.N++
	h.Total += c.Value()
	if count == MacaoModulo {
		h.Total %= 10
	} else if h.Total > 9 {
		h.Bust = true
	}
}

// CompareMacao is the outcome of a seat's hand against the banker's under
// the equal rule eq, for the seat's stake: a busted seat loses (whatever
// the banker has); a busted banker loses to a seat that did not bust; the
// higher total wins; on equal totals the hand with fewer cards wins; on
// equal totals and cards the banker wins (MacaoEqualBanker) or the seat
// pushes (MacaoEqualPush). Refused cards do not count.
func CompareMacao(seat, banker *MacaoHand, eq MacaoEqual) Outcome {
	switch {
	case seat.Bust:
		return Lose
	case banker.Bust:
		return Win
	case seat.Total > banker.Total:
		return Win
	case seat.Total < banker.Total:
		return Lose
	case seat.N < banker.N:
		return Win
	case seat.N > banker.N:
		return Lose
	case eq == MacaoEqualPush:
		return Push
	}
	return Lose
}

// MacaoWinPays is what a seat's winning hand pays, to 1, under r: a
// natural 9 pays 3 (2 under MacaoPays21) unless the banker also has a
// natural 9, when it pays 1; a natural 8 pays 2 (1); any other win 1; in
// Victoria a natural made of a pair (4-4, 9-9) pays 1.
func MacaoWinPays(seat, banker *MacaoHand, r MacaoRules) int {
	if !seat.Natural || (r.Victoria && seat.Pair()) {
		return 1
	}
	nine, eight := 3, 2
	if r.Pays == MacaoPays21 {
		nine, eight = 2, 1
	}
	if seat.Total == 9 {
		if banker.Natural && banker.Total == 9 {
			return 1
		}
		return nine
	}
	return eight
}

// MacaoSeatResult is a seat's settled coup: the outcome for the seat's
// stake and the net result per unit staked (a win +MacaoWinPays, a push 0,
// a loss -1).
type MacaoSeatResult struct {
	Outcome Outcome
	Net     int
}

// MacaoMisfit is why a token does not fit a Macao or Victoria coup, or
// MacaoFits. Each misfit but MacaoFits is raised as an alert (its Code);
// the token changes nothing unless said otherwise.
type MacaoMisfit uint8

// The misfits.
const (
	MacaoFits MacaoMisfit = iota
	// MacaoStandInDeal: "stand" while the initial cards are being dealt
	// (no hand has a turn yet).
	MacaoStandInDeal
	// MacaoStandComplete: "stand" after the coup is complete (every hand
	// has had its turn).
	MacaoStandComplete
	// MacaoRefuseOff: "refuse" where refusing tens is not allowed.
	MacaoRefuseOff
	// MacaoRefuseNoCard: "refuse" with no card just drawn by the hand whose
	// turn it is (during the deal, at the start of a turn, twice, after the
	// coup is complete, or after the card that busted the last hand).
	MacaoRefuseNoCard
	// MacaoRefuseNotTen: "refuse" after a card that is not a ten or a court
	// card.
	MacaoRefuseNotTen
	// MacaoRefuseLimit: a refusal past MaxMacaoRefusals in one hand; the
	// card stays in the hand.
	MacaoRefuseLimit
	// MacaoHandLimit: a card past MaxMacaoHandCards in one hand: it is set
	// aside (no hand holds it) and the hand's turn ends.
	MacaoHandLimit
	// MacaoCardComplete: a card after the coup is complete: it belongs to
	// no hand (extra-card).
	MacaoCardComplete
	// MacaoStandNoCoup: "stand" with no coup in progress (during the burn,
	// between coups); raised by MacaoFold.
	MacaoStandNoCoup
	// MacaoRefuseNoCoup: "refuse" with no coup in progress; raised by
	// MacaoFold.
	MacaoRefuseNoCoup
)

var macaoMisfitText = [...]string{
	MacaoFits:          "",
	MacaoStandInDeal:   "stand while the initial cards are being dealt: no hand has a turn yet",
	MacaoStandComplete: "stand after the coup is complete: every hand has had its turn",
	MacaoRefuseOff:     "refuse: refusing tens is off (--refuse-tens off)",
	MacaoRefuseNoCard:  "refuse with no card just drawn by the hand whose turn it is",
	MacaoRefuseNotTen:  "refuse after a card that is not a ten or a court card",
	MacaoRefuseLimit:   fmt.Sprintf("refuse: the hand has already refused %d cards, the most allowed", MaxMacaoRefusals),
	MacaoHandLimit:     fmt.Sprintf("card past the %d a hand may hold: set aside, the hand's turn ends", MaxMacaoHandCards),
	MacaoCardComplete:  "card after the coup is complete: it belongs to no hand",
	MacaoStandNoCoup:   "stand with no coup in progress (during the burn or between coups)",
	MacaoRefuseNoCoup:  "refuse with no coup in progress (during the burn or between coups)",
}

// String explains the misfit in a few words ("" for MacaoFits).
func (m MacaoMisfit) String() string {
	if int(m) < len(macaoMisfitText) {
		return macaoMisfitText[m]
	}
	return fmt.Sprintf("MacaoMisfit(%d)", uint8(m))
}

// Code is the alert a misfit raises: extra-card for a card after the coup
// is complete, hand-limit past a hand's bounds, misplaced-token for a
// "stand" or "refuse" that does not fit; "" for MacaoFits.
func (m MacaoMisfit) Code() AlertCode {
	switch m {
	case MacaoFits:
		return ""
	case MacaoCardComplete:
		return AlertExtraCard
	case MacaoHandLimit, MacaoRefuseLimit:
		return AlertHandLimit
	}
	return AlertMisplacedToken
}

// MacaoCoup is the state machine of one Macao or Victoria coup: it takes
// the coup's cards, "stand" and "refuse" one at a time, in the order the
// rules deal and draw them (see the package comment above MaxMacaoSeats),
// and settles every seat once the coup is complete. It is a value (no
// allocation; about 4 KiB); the zero value is not usable: use NewMacaoCoup.
// Nothing panics on any input sequence, and a coup is complete after at
// most MaxMacaoCoupCards cards, whatever the tokens.
type MacaoCoup struct {
	rules MacaoRules
	hands [MaxMacaoSeats + 1]MacaoHand // seats 0..n-2, the banker n-1
	n     int                          // hands in play: seats + banker
	dealt int                          // initial cards dealt so far
	turn  int                          // the hand whose turn it is, after the deal; n once complete
	drawn bool                         // hands[turn] just drew a card (it may be refused)
	aside int                          // cards set aside past MaxMacaoHandCards
}

// NewMacaoCoup returns an empty coup under r. Errors: invalid rules
// (ErrMacaoRules).
func NewMacaoCoup(r MacaoRules) (MacaoCoup, error) {
	if err := r.Validate(); err != nil {
		return MacaoCoup{}, err
	}
	r.Seats = r.seats()
	return MacaoCoup{rules: r, n: r.Seats + 1}, nil
}

// Rules returns the coup's rules (Seats filled in).
func (c *MacaoCoup) Rules() MacaoRules { return c.rules }

// Reset empties the coup for the next one, keeping its rules. It clears
// only the cards held (Cards[N:] and Refused[NRefused:] are always zero),
// not the whole 6 KiB.
func (c *MacaoCoup) Reset() {
	for i := 0; i < c.n; i++ {
		h := &c.hands[i]
		clear(h.Cards[:h.N])
		clear(h.Refused[:h.NRefused])
		h.N, h.NRefused, h.Total, h.Natural, h.Bust = 0, 0, 0, false, false
	}
	c.dealt, c.turn, c.drawn, c.aside = 0, 0, false, 0
}

// Started reports whether the coup has taken a card.
func (c *MacaoCoup) Started() bool { return c.dealt > 0 }

// Dealing reports whether the initial cards are still being dealt (the
// coup has started).
func (c *MacaoCoup) Dealing() bool { return c.dealt > 0 && c.dealt < c.n*c.rules.initialCards() }

// Complete reports whether every hand has had its turn: the coup's result
// is known.
func (c *MacaoCoup) Complete() bool { return c.n > 0 && c.turn >= c.n }

// Turn returns the hand whose turn it is to draw or stand (0-based: seats
// 0 to Seats-1, the banker Seats), and false while dealing or once the
// coup is complete.
func (c *MacaoCoup) Turn() (int, bool) {
	if c.dealt < c.n*c.rules.initialCards() || c.Complete() {
		return 0, false
	}
	return c.turn, true
}

// Seat returns seat i's hand (0-based), or nil if there is no such seat.
func (c *MacaoCoup) Seat(i int) *MacaoHand {
	if i < 0 || i >= c.n-1 {
		return nil
	}
	return &c.hands[i]
}

// Banker returns the banker's hand.
func (c *MacaoCoup) Banker() *MacaoHand {
	if c.n == 0 {
		return &c.hands[0]
	}
	return &c.hands[c.n-1]
}

// Aside is the number of cards set aside past MaxMacaoHandCards.
func (c *MacaoCoup) Aside() int { return c.aside }

// Cards is the number of cards the coup has taken: held, refused and set
// aside.
func (c *MacaoCoup) Cards() int {
	k := c.aside
	for i := 0; i < c.n; i++ {
		k += c.hands[i].N + c.hands[i].NRefused
	}
	return k
}

// Card takes the next card: an initial card while dealing, then a draw by
// the hand whose turn it is. A card after the coup is complete is
// MacaoCardComplete (it belongs to no hand), one past MaxMacaoHandCards
// MacaoHandLimit.
func (c *MacaoCoup) Card(card card.Card) MacaoMisfit {
	if c.n == 0 || c.Complete() {
		return MacaoCardComplete
	}
	deal := c.n * c.rules.initialCards()
	if c.dealt < deal {
		h := &c.hands[c.dealt%c.n]
		h.add(card, c.rules.Count)
		c.dealt++
		if c.dealt == deal {
			c.endDeal()
		}
		return MacaoFits
	}
	h := &c.hands[c.turn]
	if h.N >= MaxMacaoHandCards {
		c.aside++
		c.next()
		return MacaoHandLimit
	}
	h.add(card, c.rules.Count)
	c.drawn = true
	if h.Bust {
		c.next()
	}
	return MacaoFits
}

// endDeal marks the naturals (and, under bust counting, hands busted by
// their initial cards) and gives the first turn.
func (c *MacaoCoup) endDeal() {
	for i := 0; i < c.n; i++ {
		h := &c.hands[i]
		h.Natural = !h.Bust && (h.Total == 8 || h.Total == 9)
	}
	c.turn = -1
	c.next()
}

// next ends the current turn and gives the next one to the first hand
// after it that is neither a natural nor busted (the banker last); the coup
// is complete when there is none.
func (c *MacaoCoup) next() {
	c.drawn = false
	for c.turn++; c.turn < c.n; c.turn++ {
		if h := &c.hands[c.turn]; !h.Natural && !h.Bust {
			return
		}
	}
}

// Stand ends the turn of the hand whose turn it is.
func (c *MacaoCoup) Stand() MacaoMisfit {
	switch {
	case c.Complete():
		return MacaoStandComplete
	case c.dealt < c.n*c.rules.initialCards():
		return MacaoStandInDeal
	}
	c.next()
	return MacaoFits
}

// StandAll ends the coup at the dealer's coup button ("|"): after the
// deal every remaining turn is an option, so every hand still to play
// stands and the coup is complete. It reports false, changing nothing,
// while the initial cards are still being dealt (a card is owed: the
// caller raises missing-card) or once the coup is complete.
func (c *MacaoCoup) StandAll() bool {
	if c.Complete() || c.dealt < c.n*c.rules.initialCards() {
		return false
	}
	c.turn, c.drawn = c.n, false
	return true
}

// Refuse sets aside the ten or court card the hand whose turn it is has
// just drawn; the hand keeps its turn.
func (c *MacaoCoup) Refuse() MacaoMisfit {
	if c.rules.NoRefuse {
		return MacaoRefuseOff
	}
	if !c.drawn || c.Complete() {
		return MacaoRefuseNoCard
	}
	h := &c.hands[c.turn]
	last := h.Cards[h.N-1]
	if last.Value() != 0 {
		return MacaoRefuseNotTen
	}
	if h.NRefused >= MaxMacaoRefusals {
		return MacaoRefuseLimit
	}
	h.N--
	h.Cards[h.N] = card.Card{}
	h.Refused[h.NRefused] = last
	h.NRefused++
	c.drawn = false // a ten counts 0 under both countings: the total stands
	return MacaoFits
}

// Result settles seat i (0-based) of a complete coup; the zero result for
// an incomplete coup or a seat that does not exist.
func (c *MacaoCoup) Result(i int) MacaoSeatResult {
	s := c.Seat(i)
	if s == nil || !c.Complete() {
		return MacaoSeatResult{}
	}
	b := c.Banker()
	switch o := CompareMacao(s, b, c.rules.Equal); o {
	case Win:
		return MacaoSeatResult{Win, MacaoWinPays(s, b, c.rules)}
	case Push:
		return MacaoSeatResult{Push, 0}
	default:
		return MacaoSeatResult{Lose, -1}
	}
}
