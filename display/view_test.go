package display

import (
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
)

// Drive the real table controller through a shoe and check what the
// display shows after each input.
func TestFromViewTable(t *testing.T) {
	tb, err := tableau.NewTable(tableau.TableConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var seq uint64
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	apply := func(in tableau.Input) string {
		t.Helper()
		seq++
		tb.Apply(seq, at, in, nil)
		return Compose(FromView(tb.View()), Layout4, 7).String()
	}
	card := func(s string) tableau.Input {
		c, err := tableau.ParseCard(s)
		if err != nil {
			t.Fatal(err)
		}
		return tableau.Input{Kind: tableau.InputCard, Card: c}
	}
	steps := []struct {
		in   tableau.Input
		want string
	}{
		{tableau.Input{Kind: tableau.InputShoe}, "br  "},
		{card("3H"), "br 3"}, // burn 3: the first card and three more
		{card("KD"), "br 2"},
		{card("QD"), "br 1"},
		{card("JD"), "    "},   // burn done, no coup yet
		{card("2H"), "2   "},   // P1
		{card("4D"), "2  4"},   // B1
		{card("3S"), "5  4"},   // P2
		{card("2C"), "[5]  6"}, // B2: player 5 must draw
		{card("6H"), "1  [6]"}, // player's third card 6: banker on 6 draws
		{card("3C"), "1b 9"},   // banker 9 wins
		{card("4S"), "4   "},   // next coup: the last coup's totals give way
		{card("5D"), "4  5"},
		{card("5S"), "9  5"},
		{card("3D"), "9Pn8"}, // player natural 9 against 8
		{tableau.Input{Kind: tableau.InputCut}, "9P.n8"},
		{tableau.Input{Kind: tableau.InputUnreadable}, "[E][1][0][ ]"},
		{tableau.Input{Kind: tableau.InputAck}, "9P.n8"},
		{tableau.Input{Kind: tableau.InputOffline}, "----"},
		{tableau.Input{Kind: tableau.InputOnline}, "[E][1][4][ ]"}, // the outage awaits acknowledgement
		{tableau.Input{Kind: tableau.InputAck}, "9P.n8"},
		{card("AS"), "1 .  "},                             // the last coup (cut card out) begins
		{tableau.Input{Kind: tableau.InputVoid}, "  .  "}, // voided: blank
		{card("2S"), "[E][5][ ][ ]"},                      // a coup after the (voided) last coup: after-cut
	}
	for i, s := range steps {
		if got := apply(s.in); got != s.want {
			t.Errorf("step %d (%v %v): display %q, want %q", i, s.in.Kind, s.in.Card, got, s.want)
		}
	}
}

// A voided coup shows blank while it stays current (with coup markers:
// until the dealer's coup button), then the display moves on.
func TestFromViewVoided(t *testing.T) {
	tb, err := tableau.NewTable(tableau.TableConfig{Fold: tableau.Options{Markers: true}})
	if err != nil {
		t.Fatal(err)
	}
	var seq uint64
	show := func(kind tableau.InputKind, c string) string {
		t.Helper()
		in := tableau.Input{Kind: kind}
		if c != "" {
			if in.Card, err = tableau.ParseCard(c); err != nil {
				t.Fatal(err)
			}
		}
		seq++
		tb.Apply(seq, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), in, nil)
		return Compose(FromView(tb.View()), Layout4, 7).String()
	}
	show(tableau.InputShoe, "")
	for _, c := range []string{"2H", "3C", "4D"} { // burn 2: the first card and two more
		show(tableau.InputCard, c)
	}
	show(tableau.InputButton, "")
	for _, step := range []struct {
		kind       tableau.InputKind
		card, want string
	}{
		{tableau.InputCard, "5S", "5   "},
		{tableau.InputCard, "3H", "5  3"},
		{tableau.InputVoid, "", "    "},   // voided: blank, no totals, nothing blinking
		{tableau.InputCard, "9C", "    "}, // dealt into the voided coup before its "|"
		{tableau.InputButton, "", "    "},
		{tableau.InputCard, "7D", "7   "}, // the next coup
	} {
		if got := show(step.kind, step.card); got != step.want {
			t.Errorf("%v %s: display %q, want %q", step.kind, step.card, got, step.want)
		}
	}
}
