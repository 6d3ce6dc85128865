package baccarat

import (
	"errors"
	"fmt"
	"math"

	"github.com/sabot-table/sabot/tableau/card"
)

// MaxDecks is the largest shoe Sabot models (eight 52-card decks).
const MaxDecks = 8

// DefaultDecks is the number of decks when none is configured.
const DefaultDecks = 8

// ErrDecks is wrapped when a deck count is outside 1–MaxDecks.
var ErrDecks = errors.New("tableau: bad number of decks")

// Composition tracks what a shoe of Decks 52-card decks has given out, per
// rank and per rank+suit. It is a value type (no allocation). Rank-only
// cards (SuitUnknown) count only against their rank.
//
// Counts are of cards drawn, so Remaining can go negative when a card the
// shoe could not contain was drawn anyway; Draw reports exactly those
// cards (the composition alert). The per-rank and per-card counts saturate
// at math.MaxInt16 (a shoe that never ends), so they never wrap round.
type Composition struct {
	decks  int
	drawn  int
	rank   [card.NumRanks + 1]int16
	suited [card.NumRanks + 1][card.NumSuits + 1]int16
}

// NewComposition returns the composition of a full shoe of decks decks
// (1–8). Errors wrap ErrDecks.
func NewComposition(decks int) (Composition, error) {
	if decks < 1 || decks > MaxDecks {
		return Composition{}, fmt.Errorf("%w: %d (want 1–%d)", ErrDecks, decks, MaxDecks)
	}
	return Composition{decks: decks}, nil
}

// Decks is the number of decks in the shoe.
func (c Composition) Decks() int { return c.decks }

// Draw records card as drawn and reports whether the shoe could contain it:
// false if it is one more of its rank (4 × decks) or of its rank and suit
// (decks) than the shoe holds. The card is recorded either way. An invalid
// card is not recorded and reports false.
func (c *Composition) Draw(cd card.Card) bool {
	if !cd.Valid() {
		return false
	}
	if c.drawn < math.MaxInt {
		c.drawn++
	}
	if c.rank[cd.Rank] < math.MaxInt16 { // bound: saturates, never wraps
		c.rank[cd.Rank]++
	}
	ok := int(c.rank[cd.Rank]) <= card.NumSuits*c.decks
	if cd.Suit != card.SuitUnknown {
		if c.suited[cd.Rank][cd.Suit] < math.MaxInt16 {
			c.suited[cd.Rank][cd.Suit]++
		}
		if int(c.suited[cd.Rank][cd.Suit]) > c.decks {
			ok = false
		}
	}
	return ok
}

// Drawn is the number of cards drawn so far.
func (c Composition) Drawn() int { return c.drawn }

// Remaining is the number of cards left in the shoe (52 × decks − drawn);
// negative after impossible draws.
func (c Composition) Remaining() int { return 52*c.decks - c.drawn }

// RemainingRank is how many cards of rank r are left (4 × decks − drawn of
// r); negative after impossible draws; 0 for an invalid rank.
func (c Composition) RemainingRank(r card.Rank) int {
	if !r.Valid() {
		return 0
	}
	return card.NumSuits*c.decks - int(c.rank[r])
}

// RemainingCard is how many cards of rank r and suit s are left (decks −
// drawn of that rank and suit, counting only suited reads); 0 for an
// invalid rank or SuitUnknown.
func (c Composition) RemainingCard(r card.Rank, s card.Suit) int {
	if !r.Valid() || s == card.SuitUnknown || !s.Valid() {
		return 0
	}
	return c.decks - int(c.suited[r][s])
}

// CompositionState is the whole state of a Composition, as a table
// snapshot keeps it: the decks, the cards drawn, and the drawn counts of
// each rank (Rank[r-1] for rank r) and of each rank and suit
// (Suited[r-1][s-1]; rank-only reads count in Rank alone).
type CompositionState struct {
	Decks  int
	Drawn  int
	Rank   [card.NumRanks]int16
	Suited [card.NumRanks][card.NumSuits]int16
}

// State returns c's whole state (see CompositionState).
func (c *Composition) State() CompositionState {
	s := CompositionState{Decks: c.decks, Drawn: c.drawn}
	copy(s.Rank[:], c.rank[1:])
	for r := range s.Suited {
		copy(s.Suited[r][:], c.suited[r+1][1:])
	}
	return s
}

// SetState sets c to the state s (the inverse of State). It does not check
// s: a snapshot's restore does.
func (c *Composition) SetState(s CompositionState) {
	c.decks, c.drawn = s.Decks, s.Drawn
	copy(c.rank[1:], s.Rank[:])
	for r := range s.Suited {
		copy(c.suited[r+1][1:], s.Suited[r][:])
	}
}
