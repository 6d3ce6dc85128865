package display_test

import (
	"encoding/json"
	"testing"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// BuildRoads never panics, whatever the results (winners out of range
// included) and numbers, and its JSON stays under MaxRoadsJSON.
func FuzzBuildRoads(f *testing.F) {
	f.Add([]byte("\x02\x02\x01\x03\x02\x01\x01"), 100, 3, 0, 0)
	f.Add([]byte{0, 7, 255, 3, 3, 3}, -1, -5, 1<<30, -1)
	f.Fuzz(func(t *testing.T, b []byte, cardsLeft, dropped, coup, lastCoup int) {
		rs := make([]tableau.CoupResult, len(b))
		for i, x := range b {
			rs[i] = tableau.CoupResult{Coup: i + 1, Winner: baccarat.Winner(x & 0x0f), PlayerPair: x&0x10 != 0,
				BankerPair: x&0x20 != 0, Natural: x&0x40 != 0}
		}
		rd := display.BuildRoads(display.RoadsInput{Results: rs, CardsLeft: cardsLeft, Dropped: dropped, Coup: coup, LastCoup: lastCoup})
		out, err := json.Marshal(rd)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) >= display.MaxRoadsJSON {
			t.Fatalf("%d bytes", len(out))
		}
		if len(rd.BeadPlate) > display.MaxRoadCoups || rd.DroppedCoups < 0 {
			t.Fatalf("bead plate of %d, %d dropped", len(rd.BeadPlate), rd.DroppedCoups)
		}
		if c := rd.Stats.CoupsLeft; c != nil && *c < 0 {
			t.Fatalf("coups left %d", *c)
		}
	})
}
