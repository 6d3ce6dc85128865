package tableau_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestSnapshotLastCoupOfGame: between coups a table shows its last coup;
// a table restored from a snapshot taken then shows it as the game deals
// it — banque's left tableau and side results, chemin de fer's coup
// closed by a stand at an option (complete, with its winner), a coup
// closed with a missing card — not as a punto banco coup of the same
// cards. (Seen by TestPropertySnapshotReplay: a banque coup of one card
// closed by the coup button was restored waiting for the banker.)
func TestSnapshotLastCoupOfGame(t *testing.T) {
	for _, tc := range []struct {
		name  string
		game  baccarat.Game
		shoe  string
		wants []string
	}{
		{"banque", baccarat.GameBanque, "shoe 2C 8D 4S | 5S 2H 9D KC AC 8H stand 4D 6H |",
			[]string{`"banque":true`, `"left":["2H","AC","4D"]`, `"right_winner":"player"`, `"waiting":"complete"`}},
		{"banque missing card", baccarat.GameBanque, "shoe 2C 8D 4S | AS |", []string{`"banque":true`, `"waiting":"left"`}},
		{"chemin de fer", baccarat.GameCheminDeFer, "shoe 2C 8D 4S | 4D 2C AS KH stand 5S |",
			[]string{`"complete":true`, `"winner":"banker"`, `"waiting":"complete"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tableau.TableConfig{Table: "T", Fold: tableau.Options{Decks: 6, Markers: true, Rules: baccarat.Rules{Game: tc.game}}}
			tb, err := tableau.NewTable(cfg)
			if err != nil {
				t.Fatal(err)
			}
			toks, err := tableau.ParseTranscript(strings.NewReader(tc.shoe), "t")
			if err != nil {
				t.Fatal(err)
			}
			at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			for i, tk := range toks {
				tb.Apply(uint64(i+1), at, tableau.TokenInput(tk), nil)
			}
			view := func(tb *tableau.Table) string {
				b, err := json.Marshal(tb.View())
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			want := view(tb)
			for _, w := range tc.wants {
				if !strings.Contains(want, w) {
					t.Fatalf("view lacks %s: %s", w, want)
				}
			}
			snap, err := tb.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			rt, err := tableau.RestoreTable(cfg, snap)
			if err != nil {
				t.Fatal(err)
			}
			if got := view(rt); got != want {
				t.Errorf("restored view:\n got %s\nwant %s", got, want)
			}
			again, err := rt.Snapshot()
			if err != nil || string(again) != string(snap) {
				t.Errorf("snapshot of the restored table differs (%v):\n%s\n%s", err, again, snap)
			}
		})
	}
}
