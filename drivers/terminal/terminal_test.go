package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"
)

func cardsOf(t *testing.T, ranks ...int) []tableau.Card {
	t.Helper()
	var out []tableau.Card
	for _, r := range ranks {
		out = append(out, tableau.Card{Rank: tableau.Rank(r)})
	}
	return out
}

func TestLinesNatural(t *testing.T) {
	f := display.TextFrame("9P.n6", 7)
	st := Status{
		Lamps:    []Lamp{{Name: "alarm_lamp", On: true, Pattern: "fast-blink"}, {Name: "tower_green", Pattern: "steady"}},
		LastCoup: "#12 player 9 banker 6, player wins (natural)",
	}
	want := "" +
		"Sabot table display  (brightness 7/15)\n" +
		"\n" +
		"  #####    #####             #####\n" +
		" #     #  #     #           #\n" +
		" #     #  #     #           #\n" +
		"  #####    #####    #####    #####\n" +
		"       #  #        #     #  #     #\n" +
		"       #  #        #     #  #     #\n" +
		"  #####          o           #####\n" +
		"\n" +
		"Lamps: [#] alarm_lamp (fast-blink) [ ] tower_green\n" +
		"Last coup: #12 player 9 banker 6, player wins (natural)\n" +
		"\n" // the empty message line
	if got := strings.Join(Lines(f, st), "\n") + "\n"; got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestLinesEightDigitsFit(t *testing.T) {
	f := display.TextFrame("Err   E1", 15)
	lines := Lines(f, Status{Message: "E1 extra-card: 6H drawn, banker stands on 7"})
	want := []string{
		"Sabot table display  (brightness 15/15)",
		"",
		"  #####                                                 #####",
		" #                                                     #              #",
		" #                                                     #              #",
		"  #####    #####    #####                               #####",
		" #        #        #                                   #              #",
		" #        #        #                                   #              #",
		"  #####                                                 #####",
		"",
		"Lamps: none",
		"Last coup: -",
		"E1 extra-card: 6H drawn, banker stands on 7",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i, lines[i], want[i])
		}
	}
	if len(lines) > 24 {
		t.Errorf("%d lines do not fit 24", len(lines))
	}
	for i, l := range Lines(display.TextFrame("88888888.", 15), Status{}) {
		if len(l) > 80 {
			t.Errorf("line %d is %d columns", i, len(l))
		}
	}
}

func TestLampsWrap(t *testing.T) {
	lamps := []Lamp{
		{Name: "alarm", On: true, Pattern: "fast-blink"}, {Name: "red", On: true, Pattern: "fast-blink"},
		{Name: "amber", Pattern: "slow-blink"}, {Name: "green"}, {Name: "buzzer", On: true, Pattern: "beep:3"},
		{Name: "spare_lamp_one", Pattern: "slow-blink"}, {Name: "spare_lamp_two"},
	}
	lines := Lines(display.Blank(4, 1), Status{Lamps: lamps})
	want := []string{
		"Lamps: [#] alarm (fast-blink) [#] red (fast-blink) [ ] amber (slow-blink)",
		"       [ ] green [#] buzzer (beep:3) [ ] spare_lamp_one (slow-blink)",
		"       [ ] spare_lamp_two",
		"Last coup: -",
		"",
	}
	if got := lines[10:]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestScreenRedrawsInPlace(t *testing.T) {
	var buf bytes.Buffer
	s := New(&buf)
	if err := s.Render(display.TextFrame("----", 3)); err != nil {
		t.Fatal(err)
	}
	first := buf.String()
	if !strings.HasPrefix(first, "\x1b[2J\x1b[H") || !strings.HasSuffix(first, "\x1b[J") {
		t.Errorf("first draw %q", first[:20])
	}
	if !strings.Contains(first, "  #####    #####    #####    #####\x1b[K\r\n") {
		t.Error("dashes row missing")
	}
	buf.Reset()
	if err := s.SetLamps([]Lamp{{Name: "buzzer", On: true, Pattern: "beep:3"}}); err != nil {
		t.Fatal(err)
	}
	second := buf.String()
	if strings.Contains(second, "\x1b[2J") || !strings.HasPrefix(second, "\x1b[H") {
		t.Errorf("redraw clears the screen: %q", second[:10])
	}
	if !strings.Contains(second, "Lamps: [#] buzzer (beep:3)\x1b[K") {
		t.Error("lamp line missing")
	}
	if !strings.Contains(second, "  #####    #####    #####    #####\x1b[K") {
		t.Error("frame lost on status change")
	}
	buf.Reset()
	_ = s.SetLastCoup("#3 player 5 banker 5, tie", "")
	if !strings.Contains(buf.String(), "Last coup: #3 player 5 banker 5, tie\x1b[K") {
		t.Error("last coup missing")
	}
}

func BenchmarkLines(b *testing.B) {
	f := display.TextFrame("P9 P.n b6", 15)
	st := Status{Lamps: []Lamp{{Name: "alarm_lamp"}, {Name: "tower_green", On: true}}, LastCoup: "#12"}
	b.ReportAllocs()
	for b.Loop() {
		if len(Lines(f, st)) != 13 {
			b.Fatal("lines")
		}
	}
}

func TestCoupAndMessageLines(t *testing.T) {
	s := display.TableState{Coup: 12, Result: display.ResultPlayer, Natural: true}
	s.Player = cardsOf(t, 4, 5)
	s.Banker = cardsOf(t, 3, 5)
	if l, ok := CoupLine(s); !ok || l != "#12 player 9 banker 8: player wins (natural)" {
		t.Errorf("CoupLine = %q, %v", l, ok)
	}
	if _, ok := CoupLine(display.TableState{}); ok {
		t.Error("CoupLine without result")
	}
	s = display.TableState{Coup: 3, Result: display.ResultTie, Player: cardsOf(t, 7), Banker: cardsOf(t, 7)}
	if l, _ := CoupLine(s); l != "#3 player 7 banker 7: tie" {
		t.Errorf("tie line %q", l)
	}
	if l, ok := CoupLine(display.TableState{Coup: 6, Voided: true}); !ok || l != "#6 voided" {
		t.Errorf("voided coup line %q, %v", l, ok)
	}
	cases := map[string]display.TableState{
		"shoe offline": {Offline: true, Alert: "extra-card"},
		"E1 extra-card: waiting for the supervisor's acknowledgement": {Alert: "extra-card"},
		"E2 missing-card":                     {Alert: "missing-card", AlertAcknowledged: true},
		"burn: 4 cards to go":                 {Burning: true, BurnRemaining: 4},
		"burn":                                {Burning: true, BurnRemaining: -1},
		"cut card out: last coup of the shoe": {LastCoup: true},
		"":                                    {Alert: "shoe-online"},
	}
	for want, s := range cases {
		if got := MessageLine(s); got != want {
			t.Errorf("MessageLine(%+v) = %q, want %q", s, got, want)
		}
	}
}
