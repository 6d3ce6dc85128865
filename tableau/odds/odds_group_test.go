package odds

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
)

// randomComposition is any shoe of 6 to about 100 cards, not only a
// depleted deck: each rank's count is drawn on its own (often 0, so whole
// value classes go missing, and a rank may be richer than a deck holds).
func randomComposition(t *rapid.T) baccarat.RankCounts {
	var rc baccarat.RankCounts
	hi := rapid.IntRange(0, 8).Draw(t, "hi")
	for i := range rc {
		if rapid.IntRange(0, 3).Draw(t, "zero") == 0 {
			continue
		}
		rc[i] = rapid.IntRange(0, hi).Draw(t, "count")
	}
	for rc.Total() < 6 {
		rc[rapid.IntRange(0, card.NumRanks-1).Draw(t, "add")]++
	}
	return rc
}

// TestOddsRandomCompositions: AnalyzeOdds (the totals-and-moments engine
// of analyzeValues) equals the rank-by-rank reference in every count on
// random compositions, down to six cards and with value classes missing,
// for punto banco and for random fixed tables.
func TestOddsRandomCompositions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rc := randomComposition(t)
		o, err := AnalyzeOdds(&rc)
		if err != nil {
			t.Fatal(err)
		}
		if want := referenceOdds(rc); o != want {
			t.Fatalf("shoe %v:\n engine    %+v\n reference %+v", rc, o, want)
		}
		tab := randomFixedTable(t)
		if err := o.AnalyzeTable(&rc, &tab); err != nil {
			t.Fatal(err)
		}
		if want := referenceTable(rc, &tab); o != want {
			t.Fatalf("shoe %v table %+v:\n engine    %+v\n reference %+v", rc, tab, o, want)
		}
	})
}

// TestOddsLargestShoesMatchReference: at the largest shoe the engine
// accepts (MaxOddsCards, where the six-card counts come closest to 2^64 and
// the engine's intermediate sums wrap), and on lopsided shoes of that size,
// every count equals the reference's.
func TestOddsLargestShoesMatchReference(t *testing.T) {
	shoes := []baccarat.RankCounts{
		baccarat.FullShoe(baccarat.MaxOddsCards / 52),
		{400, 0, 0, 0, 0, 0, 0, 300, 300, 140, 140, 140, 140}, // aces, 8s, 9s and tens only
		{1, 1, 1, 1, 1, 1, 1, 1, 1, 388, 388, 388, 387},       // almost all tens
	}
	for _, rc := range shoes {
		if rc.Total() != baccarat.MaxOddsCards {
			t.Fatalf("shoe %v has %d cards, want %d", rc, rc.Total(), baccarat.MaxOddsCards)
		}
		o, err := AnalyzeOdds(&rc)
		if err != nil {
			t.Fatal(err)
		}
		if want := referenceOdds(rc); o != want {
			t.Errorf("shoe %v:\n engine    %+v\n reference %+v", rc, o, want)
		}
	}
}
