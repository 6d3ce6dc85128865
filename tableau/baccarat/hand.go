package baccarat

import (
	"encoding/json"
	"fmt"

	"github.com/sabot-table/sabot/tableau/card"
)

// MaxHandCards is the most cards a punto banco hand can hold: two dealt
// plus one third card.
const MaxHandCards = 3

// Hand is the player's or the banker's hand: up to three cards in the order
// they were dealt. It is a value type (no allocation); the zero value is an
// empty hand. Only Cards[:N] are meaningful.
//
// In JSON a hand is an array of canonical card strings, as in ["7H","3C"].
type Hand struct {
	Cards [MaxHandCards]card.Card
	N     int
}

// Len is the number of cards in the hand (0–3).
func (h Hand) Len() int { return h.N }

// Card returns the i-th card dealt to the hand (0-based). It returns the
// zero Card if i is out of range.
func (h Hand) Card(i int) card.Card {
	if i < 0 || i >= h.N {
		return card.Card{}
	}
	return h.Cards[i]
}

// Slice returns the cards of the hand as a slice aliasing h.Cards.
func (h *Hand) Slice() []card.Card { return h.Cards[:h.N] }

// add appends c; it reports false if the hand already holds three cards.
func (h *Hand) add(c card.Card) bool {
	if h.N >= MaxHandCards {
		return false
	}
	h.Cards[h.N] = c
	h.N++
	return true
}

// Total is the hand's point total: the sum of the card values modulo 10
// (0–9). An empty hand totals 0.
func (h Hand) Total() int {
	t := 0
	for i := 0; i < h.N; i++ {
		t += h.Cards[i].Value()
	}
	return t % 10
}

// Pair reports whether the first two cards of the hand share a rank (suits
// may differ; a ten and a king are not a pair). This is the player pair /
// banker pair side-bet condition.
func (h Hand) Pair() bool {
	return h.N >= 2 && h.Cards[0].Rank == h.Cards[1].Rank
}

// String formats the hand as its cards separated by spaces, e.g. "7H 3C".
func (h Hand) String() string {
	b := make([]byte, 0, 9)
	for i := 0; i < h.N; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, h.Cards[i].String()...)
	}
	return string(b)
}

// MarshalJSON encodes the hand as a JSON array of canonical card strings.
func (h Hand) MarshalJSON() ([]byte, error) {
	b, err := h.AppendJSON(make([]byte, 0, 2+MaxHandCards*5))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// AppendJSON appends the hand's JSON form (see MarshalJSON) to dst. A hand
// of more than MaxHandCards cards, or with an invalid card, is an error;
// dst is then returned with part of the hand appended, for the caller to
// discard.
func (h *Hand) AppendJSON(dst []byte) ([]byte, error) {
	if h.N < 0 || h.N > MaxHandCards {
		return dst, fmt.Errorf("tableau: hand with %d cards", h.N)
	}
	dst = append(dst, '[')
	for i := 0; i < h.N; i++ {
		c := h.Cards[i]
		if !c.Valid() {
			return dst, fmt.Errorf("%w: rank %d suit %d in hand", card.ErrBadCard, c.Rank, c.Suit)
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, c.String()...)
		dst = append(dst, '"')
	}
	return append(dst, ']'), nil
}

// UnmarshalJSON decodes a JSON array of at most three card strings.
func (h *Hand) UnmarshalJSON(b []byte) error {
	var cs []card.Card
	if err := json.Unmarshal(b, &cs); err != nil {
		return fmt.Errorf("tableau: hand: %w", err)
	}
	if len(cs) > MaxHandCards {
		return fmt.Errorf("tableau: hand with %d cards (at most %d)", len(cs), MaxHandCards)
	}
	*h = Hand{}
	for _, c := range cs {
		h.add(c)
	}
	return nil
}
