package tableau_test

import (
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestFoldsEndWithDealer: the alert the end of input raises (incomplete-coup,
// burn-count) carries the dealer signed in, in a Macao shoe as in a punto
// banco one: both folds share the shoe procedure, dealer stamp included.
func TestFoldsEndWithDealer(t *testing.T) {
	for _, c := range []struct {
		src  string
		code baccarat.AlertCode
	}{
		{"shoe 2C 8D 4S | dealer D7 9C", baccarat.AlertIncompleteCoup},
		{"dealer D7 shoe 2C 8D", baccarat.AlertBurnCount},
	} {
		toks, err := tableau.ParseTranscript(strings.NewReader(c.src), "t")
		if err != nil {
			t.Fatal(err)
		}
		pb, err := tableau.FoldTokens(tableau.Options{Markers: true}, toks)
		if err != nil {
			t.Fatal(err)
		}
		mc, err := tableau.FoldMacaoTokens(tableau.MacaoOptions{Markers: true}, toks)
		if err != nil {
			t.Fatal(err)
		}
		for name, evs := range map[string][]tableau.Event{"punto banco": pb, "macao": mc} {
			if len(evs) != 1 || evs[0].Kind != baccarat.EventAlert || evs[0].Alert.Code != c.code {
				t.Fatalf("%s %q: events %+v, want one %s alert", name, c.src, evs, c.code)
			}
			if d := evs[0].Alert.Dealer; d != "D7" {
				t.Errorf("%s %q: %s alert's dealer %q, want D7", name, c.src, c.code, d)
			}
		}
	}
}
