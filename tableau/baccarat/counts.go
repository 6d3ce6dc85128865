package baccarat

import (
	"errors"
	"fmt"

	"github.com/sabot-table/sabot/tableau/card"
)

// MaxOddsCards is the largest shoe the odds engine accepts: N(N−1)…(N−5)
// must fit in a uint64 (1,560 cards = 30 decks does).
const MaxOddsCards = 1560

// ErrOddsShoe is wrapped by every error about a shoe the odds engine cannot
// analyse (negative counts, too many cards, fewer than six cards, removing
// a card the shoe no longer holds).
var ErrOddsShoe = errors.New("tableau: odds")

// RankCounts is the remaining shoe as counts per rank: RankCounts[r-1] is
// the number of cards of Rank r left (index 0 aces … 12 kings). Suits do not
// matter to any bet the engine values.
type RankCounts [card.NumRanks]int

// FullShoe returns the counts of a fresh shoe of the given number of
// 52-card decks (4·decks of each rank). It does not validate decks (the
// engine itself takes up to MaxOddsCards cards); see NewRankCounts.
func FullShoe(decks int) RankCounts {
	var rc RankCounts
	for i := range rc {
		rc[i] = 4 * decks
	}
	return rc
}

// NewRankCounts returns the shoe of decks 52-card decks (1..MaxDecks) with
// the given cards removed (drawn, burned or seen). Removing a card the shoe
// no longer holds is an error wrapping ErrOddsShoe that names the card and
// its position in removed (0-based).
func NewRankCounts(decks int, removed []card.Card) (RankCounts, error) {
	if decks < 1 || decks > MaxDecks {
		return RankCounts{}, fmt.Errorf("%w: decks %d out of range 1..%d", ErrOddsShoe, decks, MaxDecks)
	}
	rc := FullShoe(decks)
	for i, c := range removed {
		if err := rc.Remove(c); err != nil {
			return RankCounts{}, fmt.Errorf("%w (card %d of %d removed)", err, i+1, len(removed))
		}
	}
	return rc, nil
}

// Remove takes one card out of the shoe. It fails, leaving rc unchanged, if
// the card's rank is invalid or no card of that rank is left.
func (rc *RankCounts) Remove(c card.Card) error {
	if !c.Rank.Valid() {
		return fmt.Errorf("%w: invalid card %s", ErrOddsShoe, c)
	}
	if rc[c.Rank-1] <= 0 {
		return fmt.Errorf("%w: cannot remove %s: no %s left in the shoe", ErrOddsShoe, c, c.Rank)
	}
	rc[c.Rank-1]--
	return nil
}

// RemainingRanks returns what is left of the shoe per rank, for the odds
// engine: 4·decks minus the cards of each rank drawn so far (burn and
// surplus cards included), never below 0 — a rank drawn more often than
// the shoe holds (a composition alert) counts as exhausted.
func (c *Composition) RemainingRanks() RankCounts {
	var rc RankCounts
	for i := range rc {
		rc[i] = max(c.RemainingRank(card.Rank(i+1)), 0)
	}
	return rc
}

// Total is the number of cards left.
func (rc *RankCounts) Total() int {
	n := 0
	for _, v := range rc {
		n += v
	}
	return n
}

// CardCounts is the remaining shoe per rank and suit: CardCounts[r-1][s-1]
// cards of Rank r and Suit s (Spades … Clubs) are left.
type CardCounts [card.NumRanks][card.NumSuits]int

// FullCardShoe returns a fresh shoe of decks decks by rank and suit.
func FullCardShoe(decks int) CardCounts {
	var cc CardCounts
	for r := range cc {
		for s := range cc[r] {
			cc[r][s] = decks
		}
	}
	return cc
}

// Ranks sums the counts over suits.
func (cc *CardCounts) Ranks() RankCounts {
	var rc RankCounts
	for r, row := range cc {
		for _, v := range row {
			rc[r] += v
		}
	}
	return rc
}

// RemainingCards returns what is left of the shoe per rank and suit, and
// whether that is known: false when a rank-only card was drawn (its suit,
// and so the suits left, are unknown) or a card was drawn more often than
// the shoe holds. Counts never go below 0.
func (c *Composition) RemainingCards() (CardCounts, bool) {
	var cc CardCounts
	known := true
	for r := range card.NumRanks {
		sum := 0
		for s := range card.NumSuits {
			v := c.RemainingCard(card.Rank(r+1), card.Suit(s+1))
			if v < 0 {
				known = false
				v = 0
			}
			cc[r][s] = v
			sum += int(c.suited[r+1][s+1])
		}
		if sum != int(c.rank[r+1]) {
			known = false
		}
	}
	return cc, known
}
