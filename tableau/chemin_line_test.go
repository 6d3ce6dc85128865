package tableau_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// foldText folds a transcript under opts (a test helper).
func foldText(t *testing.T, opts tableau.Options, src string) []tableau.Event {
	t.Helper()
	toks, err := tableau.ParseTranscript(strings.NewReader(src), "test.shoe")
	if err != nil {
		t.Fatal(err)
	}
	evs, err := tableau.FoldTokens(opts, toks)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// coupLineKeys returns the sorted keys of each coup line of evs.
func coupLineKeys(t *testing.T, evs []tableau.Event) [][]string {
	t.Helper()
	var out [][]string
	for _, e := range evs {
		if e.Kind != baccarat.EventCoup {
			continue
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out = append(out, keys)
	}
	return out
}

// TestCheminDeFerLineKeys: a chemin de fer coup line carries no punto
// banco side-bet fact (dragon7, panda8, banker_wins_on_6 mean nothing
// there), even for a coup where punto banco's would be true; punto banco's
// line of the same cards keeps them. player_pair and banker_pair stay on
// both: they are keys of the shared contract's chemin de fer example.
func TestCheminDeFerLineKeys(t *testing.T) {
	// burn; a banker three-card 7 win (dragon7 in punto banco); a player
	// three-card 8 win (panda8); a banker win on 6.
	// (the same draws under both tableaux).
	src := "shoe 2C AD 2S | 2S 2C 4D KH 5S | AH 6S 3C KD 4S | 2S 6C 2D KC KH |\n"
	base := []string{"banker", "banker_pair", "banker_total", "cards", "coup", "game", "natural", "player", "player_pair", "player_total", "shoe", "type", "winner"}
	for _, tc := range []struct {
		game baccarat.Game
		want []string
	}{
		{baccarat.GameCheminDeFer, append(slices.Clone(base), "options", "settlement")},
		{baccarat.GamePuntoBanco, append(slices.Clone(base), "banker_wins_on_6", "dragon7", "panda8", "settlement")},
	} {
		evs := foldText(t, tableau.Options{Decks: 6, Markers: true, Rules: baccarat.Rules{Game: tc.game}}, src)
		keys := coupLineKeys(t, evs)
		if len(keys) != 3 {
			t.Fatalf("%s: %d coup lines, want 3: %v", tc.game, len(keys), evs)
		}
		slices.Sort(tc.want)
		for i, k := range keys {
			if !slices.Equal(k, tc.want) {
				t.Errorf("%s coup %d: keys %v, want %v", tc.game, i+1, k, tc.want)
			}
		}
		for _, e := range evs {
			if e.Kind != baccarat.EventCoup {
				continue
			}
			c := e.Coup
			facts := [3]bool{c.Dragon7, c.Panda8, c.BankerWinsOn6}
			want := [3]bool{c.Coup == 1, c.Coup == 2, c.Coup == 3} // punto banco's
			if tc.game == baccarat.GameCheminDeFer {
				want = [3]bool{}
			}
			if facts != want || c.PlayerPair != (c.Coup == 3) {
				t.Errorf("%s coup %d: dragon7, panda8, banker_wins_on_6 %v, want %v; player pair %v: %v", tc.game, c.Coup, facts, want, c.PlayerPair, e)
			}
			checkAppendJSON(t, e)
		}
	}
}
