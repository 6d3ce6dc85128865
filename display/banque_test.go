package display

import (
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestComposeBanque: the three totals of a banque coup on 8, 6 and 4
// digits (4: in turn), the hand to draw blinking, each tableau's result
// once complete, and the last-coup point.
func TestComposeBanque(t *testing.T) {
	mid := TableState{Banque: true, Player: cards(t, "5S KC"), Left: cards(t, "2H AC"), Banker: cards(t, "9D 8H"), Waiting: HandLeft}
	// Right 5 beats the banker's 3, left 3 ties it; the shoe's last coup.
	done := TableState{Banque: true, Player: cards(t, "5S KC"), Left: cards(t, "2H AC KD"), Banker: cards(t, "9D 8H 6H"),
		RightResult: ResultPlayer, LeftResult: ResultTie, LastCoup: true}
	for _, c := range []struct {
		name  string
		s     TableState
		width int
		want  string
	}{
		{"8 digits, the left to draw", mid, 8, "r5 L[3] b7"},
		{"8 digits, complete", done, 8, "r5P.L3tb3"},
		{"8 digits, right only", TableState{Banque: true, Player: cards(t, "5S")}, 8, "r5      "},
		{"6 digits, the left to draw", mid, 6, "r5L[3]b7"},
		{"6 digits, complete", done, 6, "r5.L3b3."},
		{"4 digits, in turn", mid, 4, "r  5 / L  [3] / b  7"},
		{"4 digits, complete", done, 4, "r .P5 / L .t3 / b . 3"},
		{"4 digits, no cards", TableState{Banque: true}, 4, "    "},
	} {
		l, _ := LayoutFor(c.width)
		if got := Compose(c.s, l, 7).String(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFrameTurns: a frame with Turns shows its pages in turn, TurnPeriod
// each, round and round; frames with other pages are not equal.
func TestFrameTurns(t *testing.T) {
	l, _ := LayoutFor(4)
	s := TableState{Banque: true, Player: cards(t, "5S KC"), Left: cards(t, "2H AC"), Banker: cards(t, "9D 8H"), Waiting: HandBanker}
	f := Compose(s, l, 7)
	if !f.Blinking() || len(f.Turns) != 2 {
		t.Fatalf("frame %v: blinking %v, %d turns", f, f.Blinking(), len(f.Turns))
	}
	for _, c := range []struct {
		at   time.Duration
		want string
	}{
		{0, "r  5"}, {segment.TurnPeriod - 1, "r  5"}, {segment.TurnPeriod, "L  3"}, {2 * segment.TurnPeriod, "b  7"},
		{2*segment.TurnPeriod + segment.BlinkPeriod/2, "b   "}, // the banker's 7 blinks: dark in the second half
		{3 * segment.TurnPeriod, "r  5"},
	} {
		if got := f.At(c.at).String(); got != c.want {
			t.Errorf("At(%v) = %q, want %q", c.at, got, c.want)
		}
	}
	if segment.TurnPeriod%(segment.BlinkPeriod/2) != 0 {
		t.Errorf("TurnPeriod %v is not a whole number of half blink periods", segment.TurnPeriod)
	}
	g := f
	g.Turns = [][]segment.Digit{f.Turns[0]}
	if f.Equal(g) || !f.Equal(Compose(s, l, 7)) {
		t.Error("Equal ignores the turns")
	}
}

// TestFromViewBanque: a banque table's view, through FromView and
// Compose, shows the three totals and the results.
func TestFromViewBanque(t *testing.T) {
	tb, err := tableau.NewTable(tableau.TableConfig{Table: "T", Fold: tableau.Options{Rules: baccarat.Rules{Game: baccarat.GameBanque}, Markers: true}})
	if err != nil {
		t.Fatal(err)
	}
	toks, _ := tableau.ParseTranscript(strings.NewReader("shoe 2C 8D 4S | 5S 2H 9D KC AC 8H stand 4D 6H |"), "t")
	l8, _ := LayoutFor(8)
	var outs []tableau.Output
	var frames []string
	for i, tok := range toks {
		outs = tb.Apply(uint64(i+1), time.Unix(0, 0), tableau.TokenInput(tok), outs[:0])
		if i >= 8 { // from the fourth card of the coup (KC)
			frames = append(frames, Compose(FromView(tb.View()), l8, 7).String())
		}
	}
	// KC and AC complete the tableaux; after 8H the right tableau's 5 is
	// at its option (blinking); then the stand, the left's third card, the
	// banker's; "|" keeps the result.
	want := []string{"r5 L2 b9", "r5 L3 b9", "r[5] L3 b7", "r5 L[3] b7", "r5 L7 b[7]", "r5PL7Pb3", "r5PL7Pb3"}
	if strings.Join(frames, ",") != strings.Join(want, ",") {
		t.Errorf("frames %q\nwant   %q", frames, want)
	}
}
