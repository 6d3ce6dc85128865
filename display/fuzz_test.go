package display

import (
	"testing"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/tableau"
)

// Compose never panics and always returns exactly the layout's width, every
// digit a glyph of the table, whatever the state.
func FuzzCompose(f *testing.F) {
	f.Add([]byte{4, 5, 3, 3}, []byte{}, uint8(1), uint8(1), true, false, 3, "extra-card", false, uint8(4))
	f.Add([]byte{}, []byte{}, uint8(0), uint8(0), false, true, -5, "", true, uint8(8))
	f.Add([]byte{13, 12, 11, 10}, []byte{1, 1, 1, 1}, uint8(9), uint8(9), true, true, 100, "no-such", false, uint8(200))
	f.Fuzz(func(t *testing.T, p, b []byte, waiting, result uint8, natural, burning bool, burn int, alert string, offline bool, width uint8) {
		cards := func(bs []byte) []tableau.Card {
			var out []tableau.Card
			for _, x := range bs {
				out = append(out, tableau.Card{Rank: tableau.Rank(x)})
			}
			return out
		}
		s := TableState{Player: cards(p), Banker: cards(b), Waiting: Hand(waiting), Result: Result(result),
			Natural: natural, Burning: burning, BurnRemaining: burn, Alert: alert, Offline: offline, LastCoup: natural}
		l, err := LayoutFor(int(width))
		if err != nil {
			l = Layout4
		}
		fr := Compose(s, l, int(width)-100)
		if len(fr.Digits) != l.Width {
			t.Fatalf("width %d, want %d", len(fr.Digits), l.Width)
		}
		for i, d := range fr.Digits {
			if _, ok := segment.Glyph(d.Char); !ok && d.Char != 0 {
				t.Fatalf("digit %d shows %q, not in the glyph table", i, d.Char)
			}
		}
		if fr.Brightness < 0 || fr.Brightness > segment.MaxBrightness {
			t.Fatalf("brightness %d", fr.Brightness)
		}
	})
}
