package tableau

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// Game recall (GLI-29-style): the last coups with every card, its time,
// the totals, the result and the alerts, built from a Table's outputs.

// MaxRecall is the most coups a Recall keeps and a recall asks for (the
// oldest are dropped first). sabotd keeps a smaller number across
// restarts (cmd/sabotd: recallKept).
const MaxRecall = 1000

// Per-coup bounds: a coup that never completes (a misdealing shoe that
// keeps giving cards, a flood of alerts) keeps the first ones and counts
// the rest in CardsDropped / AlertsDropped.
const (
	maxRecallCards  = 16
	maxRecallAlerts = 16
)

// RecallCard is one card of a recalled coup.
type RecallCard struct {
	Card     Card              `json:"card"`
	Position baccarat.Position `json:"position"` // player, banker, burn or none (an extra card)
	Index    int               `json:"index"`    // its place in the hand (1–3)
	Time     time.Time         `json:"time"`     // when it was drawn (journal time, UTC)
	Seq      uint64            `json:"seq"`      // its journal record
}

// RecallAlert is one alert raised during a recalled coup.
type RecallAlert struct {
	ID   string             `json:"id"`
	Code baccarat.AlertCode `json:"code"`
	Text string             `json:"text"`
	Card Card               `json:"card,omitzero"`
	Time time.Time          `json:"time"`
	Seq  uint64             `json:"seq"`
}

// RecallCoup is one recalled coup. Result is "player", "banker" or "tie"
// once the coup has its result, "void" if it was voided (also after a
// result), "" while it is still being dealt.
type RecallCoup struct {
	Shoe         int           `json:"shoe"`
	ShoeID       string        `json:"shoe_id"`
	Coup         int           `json:"coup"`
	Cards        []RecallCard  `json:"cards"`
	CardsDropped int           `json:"cards_dropped,omitempty"`
	PlayerTotal  int           `json:"player_total"`
	BankerTotal  int           `json:"banker_total"`
	Result       string        `json:"result"`
	Natural      bool          `json:"natural"`
	PlayerPair   bool          `json:"player_pair"`
	BankerPair   bool          `json:"banker_pair"`
	ResultID     string        `json:"result_id,omitempty"` // the coup (or void) output's id
	Alerts       []RecallAlert `json:"alerts"`
	// AlertsDropped counts alerts past the per-coup bound.
	AlertsDropped int `json:"alerts_dropped,omitempty"`
	// Dealer is the dealer the coup's result (or void) is attributed to
	// (CoupEvent.Dealer); empty while in progress or with no dealer.
	Dealer string `json:"dealer,omitempty"`
}

// Recall keeps the last coups of a Table's outputs (Add), at most its
// capacity (≤ MaxRecall). The zero value is not usable: see NewRecall.
type Recall struct {
	capacity int
	coups    []RecallCoup // oldest first; the last may be in progress
}

// NewRecall returns a Recall keeping the last capacity coups (1 to
// MaxRecall; out of range is clamped).
func NewRecall(capacity int) *Recall {
	return &Recall{capacity: min(max(capacity, 1), MaxRecall)}
}

// Add takes the outputs of one input, in order.
func (r *Recall) Add(outs []Output) {
	for i := range outs {
		o := &outs[i]
		switch o.Kind {
		case OutputCard:
			if o.Card.Position == baccarat.PositionBurn {
				continue // the burn is no coup's
			}
			c := r.coup(o.ShoeID, o.Shoe, o.Coup)
			if len(c.Cards) >= maxRecallCards {
				c.CardsDropped++
				continue
			}
			c.Cards = append(c.Cards, RecallCard{Card: o.Card.Card, Position: o.Card.Position, Index: o.Card.Index,
				Time: o.Time.UTC(), Seq: o.Seq})
			c.PlayerTotal, c.BankerTotal = o.Card.PlayerTotal, o.Card.BankerTotal
		case OutputCoup:
			ev := o.Event.Coup
			c := r.coup(o.ShoeID, o.Shoe, o.Coup)
			c.PlayerTotal, c.BankerTotal = ev.PlayerTotal, ev.BankerTotal
			c.Result, c.Natural, c.PlayerPair, c.BankerPair = ev.Winner.String(), ev.Natural, ev.PlayerPair, ev.BankerPair
			c.ResultID, c.Dealer = o.ID, ev.Dealer
		case OutputVoid:
			c := r.coup(o.ShoeID, o.Shoe, o.Coup)
			c.Result, c.ResultID, c.Dealer = "void", o.ID, o.Event.Void.Dealer
		case OutputAlert:
			if o.Coup == 0 {
				continue // the burn's
			}
			c := r.coup(o.ShoeID, o.Shoe, o.Coup)
			if len(c.Alerts) >= maxRecallAlerts {
				c.AlertsDropped++
				continue
			}
			c.Alerts = append(c.Alerts, RecallAlert{ID: o.ID, Code: o.Event.Alert.Code, Text: o.Alert.Text,
				Card: o.Event.Alert.Card, Time: o.Time.UTC(), Seq: o.Seq})
		}
	}
}

// coup returns the entry of the coup (shoeID, coup), adding it as the
// newest if it is not among the last two (an alert can arrive for the
// previous coup after the next one has begun).
func (r *Recall) coup(shoeID string, shoe, coup int) *RecallCoup {
	for i := len(r.coups) - 1; i >= 0 && i >= len(r.coups)-2; i-- {
		if c := &r.coups[i]; c.ShoeID == shoeID && c.Shoe == shoe && c.Coup == coup {
			return c
		}
	}
	if len(r.coups) >= r.capacity {
		n := copy(r.coups, r.coups[len(r.coups)-r.capacity+1:])
		clear(r.coups[n:])
		r.coups = r.coups[:n]
	}
	r.coups = append(r.coups, RecallCoup{Shoe: shoe, ShoeID: shoeID, Coup: coup, Cards: []RecallCard{}, Alerts: []RecallAlert{}})
	return &r.coups[len(r.coups)-1]
}

// Last returns copies of the last n coups, oldest first (n is clamped to
// what is kept). A coup still being dealt is included, with Result "".
func (r *Recall) Last(n int) []RecallCoup {
	n = min(max(n, 0), len(r.coups))
	out := make([]RecallCoup, n)
	for i, c := range r.coups[len(r.coups)-n:] {
		c.Cards = append([]RecallCard{}, c.Cards...)
		c.Alerts = append([]RecallAlert{}, c.Alerts...)
		out[i] = c
	}
	return out
}

// Len is the number of coups kept.
func (r *Recall) Len() int { return len(r.coups) }

// recallJSON is a Recall's encoded form (a daemon snapshot carries it).
type recallJSON struct {
	V     int          `json:"v"`
	Coups []RecallCoup `json:"coups"`
}

// MarshalJSON encodes the coups kept (version 1).
func (r *Recall) MarshalJSON() ([]byte, error) {
	return json.Marshal(recallJSON{V: 1, Coups: r.coups})
}

// UnmarshalJSON restores coups encoded by MarshalJSON, keeping the last
// capacity of them (MaxRecall if the Recall is the zero value).
func (r *Recall) UnmarshalJSON(b []byte) error {
	var v recallJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v.V != 1 {
		return errors.New("tableau: recall of another version")
	}
	if r.capacity == 0 {
		r.capacity = MaxRecall
	}
	if len(v.Coups) > r.capacity {
		v.Coups = v.Coups[len(v.Coups)-r.capacity:]
	}
	r.coups = v.Coups
	return nil
}

// Clone returns a deep copy.
func (r *Recall) Clone() *Recall {
	c := &Recall{capacity: r.capacity, coups: r.Last(len(r.coups))}
	return c
}

// RecallText is the human-readable form of recalled coups: per coup a
// heading (shoe, shoe id, coup, result, totals), one line per card (its
// time, hand and place, card) and one per alert.
func RecallText(coups []RecallCoup) string {
	var b []byte
	for i, c := range coups {
		if i > 0 {
			b = append(b, '\n')
		}
		result := c.Result
		if result == "" {
			result = "in progress"
		}
		b = fmt.Appendf(b, "shoe %d (%s) coup %d: %s, player %d, banker %d", c.Shoe, c.ShoeID, c.Coup, result, c.PlayerTotal, c.BankerTotal)
		if c.Dealer != "" {
			b = append(b, ", dealer "+c.Dealer...)
		}
		for _, f := range []struct {
			on   bool
			name string
		}{{c.Natural, "natural"}, {c.PlayerPair, "player pair"}, {c.BankerPair, "banker pair"}} {
			if f.on {
				b = append(b, ", "+f.name...)
			}
		}
		b = append(b, '\n')
		for _, k := range c.Cards {
			where := string(k.Position)
			if k.Position == baccarat.PositionPlayer || k.Position == baccarat.PositionBanker {
				where += " " + strconv.Itoa(k.Index)
			}
			b = fmt.Appendf(b, "  %s  %-8s %s  (record %d)\n", k.Time.UTC().Format(recallTime), where, k.Card, k.Seq)
		}
		if c.CardsDropped > 0 {
			b = fmt.Appendf(b, "  ... %d more cards not kept\n", c.CardsDropped)
		}
		for _, a := range c.Alerts {
			b = fmt.Appendf(b, "  %s  alert    %s: %s  (record %d)\n", a.Time.UTC().Format(recallTime), a.Code, a.Text, a.Seq)
		}
		if c.AlertsDropped > 0 {
			b = fmt.Appendf(b, "  ... %d more alerts not kept\n", c.AlertsDropped)
		}
	}
	return string(b)
}

// recallTime is the time format of RecallText: UTC, milliseconds.
const recallTime = "2006-01-02T15:04:05.000Z"
