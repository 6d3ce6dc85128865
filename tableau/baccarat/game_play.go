package baccarat

import (
	"encoding/json"
	"fmt"

	"github.com/sabot-table/sabot/tableau/card"
)

// coupPlay is what a game's coup engine implements: how the cards of one
// coup go to its hands and when it is complete. The Coup holds the state
// (hands, turn, options, dead); the engine holds only the game's rules (a
// pointer into a table built once). Engines are called through engine's
// switch, statically: an interface call would make every Coup it is given
// escape to the heap (a Coup held in a local would then allocate at each
// Need), and feeding a Coup must not allocate. A new game adds an
// engineKind and its case to each method of engine.
type coupPlay interface {
	// need is what the coup needs next (NeedNone: complete or dead).
	need(c *Coup) Need
	// deal adds card to the hand whose turn it is (recording a draw at an
	// option) and reports true, or false if no hand takes it (extra).
	deal(c *Coup, card card.Card) bool
	// decision is the decision point the coup is at, if any (the first
	// hand from c.turn on whose decision is pending).
	decision(c *Coup) (Decision, bool)
	// natural is what Coup.Natural reports.
	natural(c *Coup) bool
	// twoHands: the coup is player (punter) against banker, compared and
	// settled as punto banco is (Coup.fillEvent's common path); false:
	// event writes the coup line.
	twoHands() bool
	// event writes the coup line of the complete coup c into e, settled
	// under r if settle (games that are not twoHands).
	event(c *Coup, e *CoupEvent, r Rules, shoe, coup int, settle bool)
}

var (
	_ coupPlay = twoHandPlay{}
	_ coupPlay = banquePlay{}
)

// engineKind selects a Coup's engine.
type engineKind uint8

const (
	enginePuntoBanco engineKind = iota // the Coup's own fast path (punto banco, Super 6, EZ)
	engineTwoHand                      // twoHandPlay over engine.tab (chemin de fer)
	engineBanque                       // banquePlay
)

// engine is a Coup's engine: its kind and, for two-hand games, its
// drawing rules.
type engine struct {
	kind engineKind
	tab  *DrawTable
}

func (e engine) need(c *Coup) Need {
	switch e.kind {
	case engineTwoHand:
		return twoHandPlay{e.tab}.need(c)
	case engineBanque:
		return banquePlay{}.need(c)
	}
	return c.need()
}

func (e engine) deal(c *Coup, card card.Card) bool {
	switch e.kind {
	case engineTwoHand:
		return twoHandPlay{e.tab}.deal(c, card)
	case engineBanque:
		return banquePlay{}.deal(c, card)
	}
	return false
}

func (e engine) decision(c *Coup) (Decision, bool) {
	switch e.kind {
	case engineTwoHand:
		return twoHandPlay{e.tab}.decision(c)
	case engineBanque:
		return banquePlay{}.decision(c)
	}
	return twoHandPlay{&PuntoBanco}.decision(c)
}

func (e engine) natural(c *Coup) bool {
	switch e.kind {
	case engineBanque:
		return banquePlay{}.natural(c)
	}
	return twoHandPlay{e.tab}.natural(c)
}

func (e engine) twoHands() bool { return e.kind != engineBanque }

func (e engine) event(c *Coup, ev *CoupEvent, r Rules, shoe, coup int, settle bool) {
	switch e.kind {
	case engineBanque:
		banquePlay{}.event(c, ev, r, shoe, coup, settle)
	}
}

// twoHandPlay is the coup engine of the games of two hands, punter
// (player) and banker, dealt P B P B, in which a natural on either side
// ends the coup and each hand draws at most one third card by a
// DrawTable: punto banco (for Decision: its cards go through Coup's fast
// path), chemin de fer.
type twoHandPlay struct{ t *DrawTable }

func (twoHandPlay) twoHands() bool { return true }

func (twoHandPlay) natural(c *Coup) bool {
	if c.Player.N < 2 || c.Banker.N < 2 {
		return false
	}
	return twoCardTotal(&c.Player) >= 8 || twoCardTotal(&c.Banker) >= 8
}

func (p twoHandPlay) event(c *Coup, e *CoupEvent, r Rules, shoe, coup int, settle bool) {}

// rule returns the decision of hand i (0 punter, 1 banker) of a coup past
// its first four cards and without a natural; ok false when the hand has
// drawn already.
func (p twoHandPlay) rule(c *Coup, i int) (Decision, bool) {
	if i == 0 {
		if c.Player.N != 2 {
			return Decision{}, false
		}
		t := twoCardTotal(&c.Player)
		return Decision{Hand: PositionPlayer, Total: t, PunterThird: NoThirdCard, Rule: p.t.PunterRule(t), index: 0}, true
	}
	if c.Banker.N != 2 {
		return Decision{}, false
	}
	third := NoThirdCard
	if c.Player.N == 3 {
		third = c.Player.Cards[2].Value()
	}
	t := twoCardTotal(&c.Banker)
	return Decision{Hand: PositionBanker, Total: t, PunterThird: third, Rule: p.t.BankerRule(t, third), index: 1}, true
}

// from is the first hand whose decision may be pending: past the turn,
// and past any hand that drew.
func (p twoHandPlay) from(c *Coup) int {
	i := int(c.turn)
	if c.Player.N == 3 {
		i = max(i, 1)
	}
	if c.Banker.N == 3 {
		i = 2
	}
	return i
}

func (p twoHandPlay) decision(c *Coup) (Decision, bool) {
	if c.Player.N+c.Banker.N < 4 || p.natural(c) {
		return Decision{}, false
	}
	for i := p.from(c); i < 2; i++ {
		d, ok := p.rule(c, i)
		if !ok {
			continue
		}
		if d.Rule != MustStand {
			return d, true
		}
		// A forced stand is the turn until a stand passes it; but when
		// every later hand stands too the coup is complete.
		for j := i + 1; j < 2; j++ {
			if e, ok := p.rule(c, j); ok && e.Rule != MustStand {
				return d, true
			}
		}
		return Decision{}, false
	}
	return Decision{}, false
}

// drawer is the first hand from the turn on that may draw (its rule a
// draw or an option), the one a card goes to.
func (p twoHandPlay) drawer(c *Coup) (Decision, bool) {
	for i := p.from(c); i < 2; i++ {
		if d, ok := p.rule(c, i); ok && d.Rule != MustStand {
			return d, true
		}
	}
	return Decision{}, false
}

func (p twoHandPlay) need(c *Coup) Need {
	np, nb := c.Player.N, c.Banker.N
	if c.dead {
		return NeedNone
	}
	if np+nb < 4 {
		if np == nb {
			return NeedPlayer
		}
		return NeedBanker
	}
	if p.natural(c) {
		return NeedNone
	}
	d, ok := p.drawer(c)
	switch {
	case !ok:
		return NeedNone
	case d.index == 0:
		return NeedPlayerThird
	}
	return NeedBankerThird
}

func (p twoHandPlay) deal(c *Coup, card card.Card) bool {
	switch p.need(c) {
	case NeedPlayer:
		return c.Player.add(card)
	case NeedBanker:
		return c.Banker.add(card)
	case NeedNone:
		return false
	}
	d, _ := p.drawer(c)
	if d.Rule == Option {
		c.record(d, MustDraw)
	}
	c.turn = uint8(d.index + 1)
	if d.index == 0 {
		return c.Player.add(card)
	}
	return c.Banker.add(card)
}

// MaxOptions is the most option choices one coup can record: one per
// hand (banque's three).
const MaxOptions = 3

// OptionHand is the hand of an option choice in one byte (its Position
// names it): OptionPlayer (the punter), OptionBanker, OptionRight and
// OptionLeft (banque's tableaux).
type OptionHand uint8

// The option hands.
const (
	OptionPlayer OptionHand = iota
	OptionBanker
	OptionRight
	OptionLeft
)

var optionHandPositions = [...]Position{PositionPlayer, PositionBanker, PositionRight, PositionLeft}

// Position returns the hand's position ("player", "banker", "right",
// "left"), PositionNone for an invalid value.
func (h OptionHand) Position() Position {
	if int(h) < len(optionHandPositions) {
		return optionHandPositions[h]
	}
	return PositionNone
}

// optionHandOf is the OptionHand of position p.
func optionHandOf(p Position) OptionHand {
	for i, q := range optionHandPositions {
		if q == p {
			return OptionHand(i)
		}
	}
	return OptionPlayer
}

// OptionChoice is one choice made at an option point: the hand, its
// two-card total (0–7), the punter's third card's value (0–9) where the
// banker's rule depends on it (NoThirdCard otherwise), and the choice
// (MustDraw: "draw", MustStand: "stand"). Four bytes: a coup line holds
// MaxOptions of them in place.
//
// In JSON: {"hand":"banker","total":3,"player_third":9,"choice":"stand"};
// "player_third" is omitted when the punter stood (or in banque).
type OptionChoice struct {
	Hand        OptionHand
	Total       int8
	PunterThird int8 // NoThirdCard: none
	Choice      Rule
}

type optionChoiceJSON struct {
	Hand        Position `json:"hand"`
	Total       int      `json:"total"`
	PlayerThird *int     `json:"player_third,omitempty"`
	Choice      string   `json:"choice"`
}

// MarshalJSON encodes the choice (see OptionChoice).
func (o OptionChoice) MarshalJSON() ([]byte, error) {
	if o.Choice != MustDraw && o.Choice != MustStand || o.Hand.Position() == PositionNone {
		return nil, fmt.Errorf("tableau: option choice %s by hand %d (want draw or stand)", o.Choice, o.Hand)
	}
	v := optionChoiceJSON{Hand: o.Hand.Position(), Total: int(o.Total), Choice: o.Choice.String()}
	if o.PunterThird != NoThirdCard {
		t := int(o.PunterThird)
		v.PlayerThird = &t
	}
	return json.Marshal(v)
}

// UnmarshalJSON decodes a choice.
func (o *OptionChoice) UnmarshalJSON(b []byte) error {
	var v optionChoiceJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("tableau: option: %w", err)
	}
	r, err := ParseRule(v.Choice)
	if err != nil || r == Option {
		return fmt.Errorf("tableau: option choice %q (want draw or stand)", v.Choice)
	}
	if v.Total < 0 || v.Total > 9 || v.PlayerThird != nil && (*v.PlayerThird < 0 || *v.PlayerThird > 9) {
		return fmt.Errorf("tableau: option total %d or punter's third card out of range", v.Total)
	}
	if h := optionHandOf(v.Hand); h.Position() != v.Hand {
		return fmt.Errorf("tableau: option hand %q (want player, banker, right or left)", v.Hand)
	}
	*o = OptionChoice{Hand: optionHandOf(v.Hand), Total: int8(v.Total), PunterThird: NoThirdCard, Choice: r}
	if v.PlayerThird != nil {
		o.PunterThird = int8(*v.PlayerThird)
	}
	return nil
}

// OptionList is the choices made at a coup's option points, in order, in a
// fixed array (no allocation). Kept says the game has options: its coup
// lines carry the list, even empty; in the other games the list is always
// empty and left out of JSON (IsZero).
type OptionList struct {
	Kept bool
	N    uint8
	List [MaxOptions]OptionChoice
}

// Slice returns the choices (aliasing the list; nil when empty).
func (l *OptionList) Slice() []OptionChoice {
	if l.N == 0 {
		return nil
	}
	return l.List[:l.N]
}

func (l *OptionList) add(o OptionChoice) {
	if int(l.N) < MaxOptions { // one decision per hand: never full
		l.List[l.N] = o
		l.N++
	}
}

// IsZero reports whether the list is left out of JSON: the game has no
// options.
func (l OptionList) IsZero() bool { return !l.Kept && l.N == 0 }

// MarshalJSON encodes the choices as an array ([] when none).
func (l OptionList) MarshalJSON() ([]byte, error) {
	if int(l.N) > MaxOptions {
		return nil, fmt.Errorf("tableau: %d options (at most %d)", l.N, MaxOptions)
	}
	return json.Marshal(l.List[:l.N])
}

// UnmarshalJSON decodes an array of at most MaxOptions choices.
func (l *OptionList) UnmarshalJSON(b []byte) error {
	var v []OptionChoice
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if len(v) > MaxOptions {
		return fmt.Errorf("tableau: %d options (at most %d)", len(v), MaxOptions)
	}
	*l = OptionList{Kept: true}
	l.N = uint8(copy(l.List[:], v))
	return nil
}
