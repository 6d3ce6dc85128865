package display_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	cardpkg "github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// BenchmarkBuildRoads: the roads of a whole 8-deck shoe (84 coups), as
// built after every coup for MQTT and the board.
func BenchmarkBuildRoads(b *testing.B) {
	rs := results(strings.Repeat("BPPBTBBPBPPPBBPBTPBB", 5)[:84])
	b.ReportAllocs()
	for b.Loop() {
		rd := display.BuildRoads(display.RoadsInput{Results: rs, CardsLeft: 10})
		if len(rd.BeadPlate) != 84 {
			b.Fatal(len(rd.BeadPlate))
		}
	}
}

// BenchmarkBuildRoadsJSON adds the encoding, for the full MaxRoadCoups.
func BenchmarkBuildRoadsJSON(b *testing.B) {
	rs := results(strings.Repeat("BPPBTBBPBPPPBBPBTPBB", 7)[:display.MaxRoadCoups])
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(display.BuildRoads(display.RoadsInput{Results: rs, CardsLeft: 10})); err != nil {
			b.Fatal(err)
		}
	}
}

// CardsPerCoup is the mean number of cards in a coup: worked out here by
// dealing every sequence of card values through the tableau (baccarat.Coup)
// from an infinite shoe (values 1–9 each 1/13, 0 for tens and court cards
// 4/13). An 8-deck shoe differs in the third decimal.
func TestCardsPerCoup(t *testing.T) {
	ranks := []tableau.Rank{cardpkg.Rank10, cardpkg.RankAce, cardpkg.Rank2, cardpkg.Rank3, cardpkg.Rank4,
		cardpkg.Rank5, cardpkg.Rank6, cardpkg.Rank7, cardpkg.Rank8, cardpkg.Rank9}
	var mean func(c baccarat.Coup, p float64) float64
	mean = func(c baccarat.Coup, p float64) float64 {
		if c.Complete() {
			return p * float64(c.Cards())
		}
		sum := 0.0
		for v, r := range ranks {
			w := 1.0 / 13
			if v == 0 {
				w = 4.0 / 13
			}
			next := c
			next.Deal(tableau.Card{Rank: r})
			sum += mean(next, p*w)
		}
		return sum
	}
	got := mean(baccarat.Coup{}, 1)
	t.Logf("mean cards per coup, infinite shoe: %.5f", got)
	if math.Abs(got-display.CardsPerCoup) > 0.005 {
		t.Errorf("mean cards per coup %.5f, CardsPerCoup %.2f", got, display.CardsPerCoup)
	}
}
