// Package dealtest holds the test helpers the tests of tableau's layers
// share: parsing and dealing cards, the tableau written by hand, the
// payouts of a settled coup. Only tests import it.
package dealtest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
)

// Cards parses a space-separated list of cards; it fails the test on a bad
// card.
func Cards(t testing.TB, s string) []card.Card {
	t.Helper()
	var out []card.Card
	for _, f := range strings.Fields(s) {
		c, err := card.ParseCard(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// Total is the baccarat total (sum of the point values mod 10) of h.
func Total(h []card.Card) int {
	t := 0
	for _, c := range h {
		t += c.Rank.Value()
	}
	return t % 10
}

// DealAll deals the cards of s (a space-separated list) into a punto
// banco coup (the zero Coup); it fails the test on a card the coup refuses
// with an alert.
func DealAll(t testing.TB, s string) baccarat.Coup {
	t.Helper()
	var c baccarat.Coup
	for _, cd := range Cards(t, s) {
		if _, a := c.Deal(cd); a != "" {
			t.Fatalf("%s: %s at %s", s, a, cd)
		}
	}
	return c
}

// DealCoup deals cards (transcript syntax) into a new coup of game g; it
// fails the test on a bad card or on a card the coup refuses with an alert.
func DealCoup(t *testing.T, g baccarat.Game, cards []string) baccarat.Coup {
	t.Helper()
	c := baccarat.NewCoup(g)
	for _, s := range cards {
		cd, err := card.ParseCard(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, a := c.Deal(cd); a != "" {
			t.Fatalf("%v: %s dealing %s", cards, a, s)
		}
	}
	return c
}

// Payouts formats a settlement as "player:win+1 banker:lose-1 ..." for the
// bets the rules offer.
func Payouts(t *testing.T, r baccarat.Rules, c baccarat.Coup) string {
	t.Helper()
	var parts []string
	for _, b := range baccarat.Bets {
		p, err := r.Settle(c, b)
		if !r.Offers(b) {
			if !errors.Is(err, baccarat.ErrBetNotOffered) {
				t.Errorf("%s %s: err %v, want ErrBetNotOffered", r, b, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s %s: %v", r, b, err)
		}
		parts = append(parts, fmt.Sprintf("%s:%s%+g", b, p.Outcome, p.Net))
	}
	return strings.Join(parts, " ")
}

// BankerDrawsByThirdCard is the banker's tableau written the other way
// round, by the rank of the player's third card: 2–3 → banker draws on
// 0–4; 4–5 → 0–5; 6–7 → 0–6; 8 → 0–2; A, 9, 10, J, Q, K → 0–3.
func BankerDrawsByThirdCard(bankerTotal int, third card.Rank) bool {
	var upTo int
	switch third {
	case card.Rank2, card.Rank3:
		upTo = 4
	case card.Rank4, card.Rank5:
		upTo = 5
	case card.Rank6, card.Rank7:
		upTo = 6
	case card.Rank8:
		upTo = 2
	case card.RankAce, card.Rank9, card.Rank10, card.RankJack, card.RankQueen, card.RankKing:
		upTo = 3
	default:
		panic(fmt.Sprintf("bad rank %d", third))
	}
	return bankerTotal <= upTo
}

// RandomShoe draws a shoe of 6 to max cards from 1–2 decks (rank counts),
// for the property tests of the odds engine and the chemin de fer solver.
func RandomShoe(t *rapid.T, max int) baccarat.RankCounts {
	rc := baccarat.FullShoe(rapid.IntRange(1, 2).Draw(t, "decks"))
	left := rapid.IntRange(6, max).Draw(t, "left")
	for rc.Total() > left {
		i := rapid.IntRange(0, card.NumRanks-1).Draw(t, "rank")
		if rc[i] > 0 {
			rc[i]--
		}
	}
	return rc
}
