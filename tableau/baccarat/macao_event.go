package baccarat

import (
	"github.com/sabot-table/sabot/tableau/card"
)

// MacaoCoupEvent is a completed Macao or Victoria coup: the "coup" line of
// `sabot check --game macao|victoria`. Shoe and Coup are numbered as for
// punto banco. Seats are in seat order; a seat's Pays is its net result
// per unit staked (MacaoSeatResult.Net: +3, +2 or +1 for a win, 0 for a
// push, -1 for a loss).
//
// Example line:
//
//	{"type":"coup","game":"macao","shoe":1,"coup":1,"seats":[{"seat":1,"cards":["9C"],"total":9,"natural":true,"result":"win","pays":3}],"banker":{"cards":["2S","5C"],"total":7,"natural":false}}
//
// "bust" appears (true) on a hand busted under bust counting; "refused"
// lists the tens and court cards refused, in the order they were, when
// there are any (as {"hand":"seat1","card":"KD"}, "banker" for the
// banker's); "aside" counts the cards set aside past MaxMacaoHandCards,
// when there are any.
type MacaoCoupEvent struct {
	Type    EventKind        `json:"type"` // always EventCoup
	Game    string           `json:"game"` // "macao" or "victoria"
	Shoe    int              `json:"shoe"`
	Coup    int              `json:"coup"`
	Seats   []MacaoSeatEvent `json:"seats"`
	Banker  MacaoHandEvent   `json:"banker"`
	Refused []MacaoRefusal   `json:"refused,omitempty"`
	Aside   int              `json:"aside,omitempty"`
	// Dealer is the dealer signed in when the coup was complete, as
	// CoupEvent.Dealer.
	Dealer string `json:"dealer,omitempty"`
}

// MacaoRefusal is a card refused: the hand ("seat1" to "seat9", or
// "banker") and the card.
type MacaoRefusal struct {
	Hand string    `json:"hand"`
	Card card.Card `json:"card"`
}

// MacaoHandEvent is a hand of a MacaoCoupEvent: the banker's, or a seat's
// cards and totals (see MacaoHand).
type MacaoHandEvent struct {
	Cards   []card.Card `json:"cards"`
	Total   int         `json:"total"`
	Natural bool        `json:"natural"`
	Bust    bool        `json:"bust,omitempty"`
}

// MacaoSeatEvent is one seat of a MacaoCoupEvent: its number (1-based),
// its hand, and its settlement against the banker.
type MacaoSeatEvent struct {
	Seat int `json:"seat"`
	MacaoHandEvent
	Result Outcome `json:"result"`
	Pays   int     `json:"pays"`
}

func macaoHandEvent(h *MacaoHand) MacaoHandEvent {
	return MacaoHandEvent{
		Cards:   append([]card.Card{}, h.Slice()...),
		Total:   h.Total,
		Natural: h.Natural,
		Bust:    h.Bust,
	}
}

// macaoHandNames are the hands' names in "refused".
var macaoHandNames = [...]string{"seat1", "seat2", "seat3", "seat4", "seat5", "seat6", "seat7", "seat8", "seat9"}

// Event returns the coup line of the complete coup c as coup number coup
// of shoe shoe, or nil if c is not complete. It allocates the line (Macao
// and Victoria are `sabot check` games; the hot path is punto banco's).
func (c *MacaoCoup) Event(shoe, coup int) *MacaoCoupEvent {
	if !c.Complete() {
		return nil
	}
	e := &MacaoCoupEvent{
		Type:   EventCoup,
		Game:   c.rules.Name(),
		Shoe:   shoe,
		Coup:   coup,
		Seats:  make([]MacaoSeatEvent, 0, c.n-1),
		Banker: macaoHandEvent(c.Banker()),
		Aside:  c.aside,
	}
	for i := 0; i < c.n; i++ {
		name := "banker"
		if i < c.n-1 {
			r := c.Result(i)
			e.Seats = append(e.Seats, MacaoSeatEvent{Seat: i + 1, MacaoHandEvent: macaoHandEvent(&c.hands[i]), Result: r.Outcome, Pays: r.Net})
			name = macaoHandNames[i]
		}
		for _, card := range c.hands[i].RefusedSlice() {
			e.Refused = append(e.Refused, MacaoRefusal{Hand: name, Card: card})
		}
	}
	return e
}
