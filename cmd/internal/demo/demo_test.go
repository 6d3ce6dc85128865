package demo

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestDemoScreenFits: under the terminal display the demo keeps its two
// address lines and as many coup lines as the terminal has rows left,
// each cut to the terminal's width, so the screen never scrolls.
func TestDemoScreenFits(t *testing.T) {
	var out strings.Builder
	s := NewScreen(&out)
	s.Pin("board:  http://127.0.0.1:1/", "broker: tcp://127.0.0.1:2")
	if got := s.Reserve(60, 30); got != 3 {
		t.Fatalf("reserve = %d, want 3 (2 pinned lines and the last newline)", got)
	}
	for i := range 10 {
		s.Line(fmt.Sprintf("shoe 1 coup %3d  %s", i+1, strings.Repeat("x", 70)))
	}
	screen := strings.Repeat("line\x1b[K\r\n", 21) + "\x1b[J"
	out.Reset()
	s.Write([]byte(screen))
	lines := strings.Split(strings.TrimSuffix(strings.TrimPrefix(out.String(), screen), "\x1b[K\r\n"), "\x1b[K\r\n")
	// 30 rows: 21 of screen, 2 pinned, 6 coup lines, the cursor's row.
	if len(lines) != 8 || !strings.HasPrefix(lines[2], "shoe 1 coup   5") || !strings.HasPrefix(lines[7], "shoe 1 coup  10") {
		t.Fatalf("lines under the screen: %q", lines)
	}
	for _, l := range lines {
		if len(l) > 60 {
			t.Errorf("%d columns: %q", len(l), l)
		}
	}
}

func TestDemoTokens(t *testing.T) {
	clean, err := Tokens(1, 30, false)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := tableau.FoldTokens(tableau.Options{Markers: true}, clean)
	if err != nil {
		t.Fatal(err)
	}
	coups := 0
	for _, e := range evs {
		switch e.Kind {
		case baccarat.EventCoup:
			coups++
		default:
			t.Fatalf("clean demo shoe raised %s", e)
		}
	}
	if coups != 30 {
		t.Fatalf("%d coups, want 30", coups)
	}
	errs, _ := Tokens(1, 30, true)
	evs, _ = tableau.FoldTokens(tableau.Options{Markers: true}, errs)
	codes := map[string]int{}
	for _, e := range evs {
		if e.Kind == baccarat.EventAlert {
			codes[string(e.Alert.Code)]++
		}
		if e.Kind == baccarat.EventVoid {
			codes["void"]++
		}
	}
	if codes["extra-card"] == 0 || codes["void"] == 0 || codes["missing-card"] == 0 {
		t.Fatalf("dealer errors injected: %v", codes)
	}
}

// TestDemoSummaryAfterTheDisplay: with the terminal display, a
// --demo-coups run's summary is held for the daemon to print once the
// display is released (its redraws while the daemon stops clear the screen
// below the frame, and so would clear the line); without it, the line is
// printed at once, as before.
func TestDemoSummaryAfterTheDisplay(t *testing.T) {
	const want = "demo: 1 coups dealt; 1 coups, alerts and voids in all published and received back from the broker"
	var term, out strings.Builder
	r := &Run{out: &out, screen: NewScreen(&term), published: map[string]string{"T-1/1": "coup"}, received: map[string]bool{"T-1/1": true}, coups: 1}
	if err := r.verify(t.Context()); err != nil {
		t.Fatal(err)
	}
	if r.FinalLine() != want || out.Len() != 0 || strings.Contains(term.String(), "demo:") {
		t.Errorf("with a screen: final %q, printed %q, on screen %q; want only the final line %q", r.FinalLine(), out.String(), term.String(), want)
	}
	r = &Run{out: &out, published: map[string]string{"T-1/1": "coup"}, received: map[string]bool{"T-1/1": true}, coups: 1}
	if err := r.verify(t.Context()); err != nil || out.String() != want+"\n" || r.FinalLine() != "" {
		t.Errorf("without a screen: printed %q, final %q, %v; want the line printed at once", out.String(), r.FinalLine(), err)
	}
}
