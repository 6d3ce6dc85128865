package display

import (
	"reflect"
	"testing"
	"time"

	cardpkg "github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau"
)

// In a shoe that never ends the table keeps its newest
// tableau.MaxShoeResults results and sums up the rest; ViewRoads gives the
// statistics of every coup, as BuildRoads of the whole list does.
func TestViewRoadsNeverEndingShoe(t *testing.T) {
	tb, err := tableau.NewTable(tableau.TableConfig{Table: "T1"})
	if err != nil {
		t.Fatal(err)
	}
	var all []tableau.CoupResult
	var outs []tableau.Output
	for i := range 6000 {
		c := tableau.Card{Rank: cardpkg.RankAce + tableau.Rank((i*7)%13), Suit: cardpkg.Spades + tableau.Suit((i/13)%4)}
		outs = tb.Apply(uint64(i+1), time.Unix(int64(i), 0), tableau.Input{Kind: tableau.InputCard, Card: c}, outs[:0])
		for _, o := range outs {
			if o.Kind == tableau.OutputCoup {
				e := o.Event.Coup
				all = append(all, tableau.CoupResult{Coup: e.Coup, Winner: e.Winner, Natural: e.Natural, PlayerPair: e.PlayerPair, BankerPair: e.BankerPair})
			}
		}
	}
	v := tb.View()
	if v.ResultsDropped.Coups == 0 || len(v.Results) != tableau.MaxShoeResults {
		t.Fatalf("%d coups, %d kept, %d dropped", len(all), len(v.Results), v.ResultsDropped.Coups)
	}
	got := ViewRoads(v)
	want := BuildRoads(RoadsInput{Shoe: v.Shoe, Results: all, CardsLeft: -1, Coup: v.Coup, LastCoup: v.LastCoup})
	got.Stats.CardsLeft, got.Stats.CoupsLeft = nil, nil
	if !reflect.DeepEqual(got.Stats, want.Stats) || got.DroppedCoups != want.DroppedCoups || got.BeadPlate != want.BeadPlate {
		t.Fatalf("view roads stats %+v dropped %d\nwhole shoe    %+v dropped %d", got.Stats, got.DroppedCoups, want.Stats, want.DroppedCoups)
	}
	if want.Stats.Coups != len(all) || want.Stats.LongestBanker == 0 {
		t.Fatalf("whole-shoe stats %+v for %d coups", want.Stats, len(all))
	}
}
