package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/display/segment"
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
	f := segment.TextFrame("9P.n6", 7)
	st := Status{
		Lamps:    []Lamp{{Name: "alarm_lamp", On: true, Pattern: "fast-blink"}, {Name: "tower_green", Pattern: "steady"}},
		LastCoup: "#12 player 9 banker 6, player wins (natural)",
	}
	want := "" +
		"Sabot table display  (brightness 7/15)\n" +
		"  PLAYER                     BANKER\n" +
		"  #####    #####             #####\n" +
		" #     #  #     #           #\n" +
		" #     #  #     #           #\n" +
		"  #####    #####    #####    #####\n" +
		"       #  #        #     #  #     #\n" +
		"       #  #        #     #  #     #\n" +
		"  #####          o           #####\n" +
		"\n" +
		"Lamps: [#] alarm_lamp:fast [ ] tower_green\n" +
		"Last coup: #12 player 9 banker 6, player wins (natural)\n" +
		"\n" // the empty message line
	if got := strings.Join(Lines(f, st), "\n") + "\n"; got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestLinesEightDigitsFit(t *testing.T) {
	f := segment.TextFrame("Err   E1", 15)
	lines := Lines(f, Status{Message: "E1 extra-card: 6H drawn, banker stands on 7"})
	want := []string{
		"Sabot table display  (brightness 15/15)",
		"      PLAYER                                                BANKER",
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
	for i, l := range Lines(segment.TextFrame("88888888.", 15), Status{}) {
		if len(l) > 80 {
			t.Errorf("line %d is %d columns", i, len(l))
		}
	}
}

// TestLampLineOneLine: under an alert every lamp flashes and the buzzer
// beeps; the lamp line stays one line (patterns shortened, then dropped,
// then the line cut) so the screen does not move.
func TestLampLineOneLine(t *testing.T) {
	lamps := []Lamp{
		{Name: "alarm", On: true, Pattern: "fast-blink"}, {Name: "red", On: true, Pattern: "fast-blink"},
		{Name: "amber", Pattern: "slow-blink"}, {Name: "green", Pattern: "off"}, {Name: "buzzer", On: true, Pattern: "beep:3"},
	}
	for _, c := range []struct {
		cols int
		want string
	}{
		{80, "Lamps: [#] alarm:fast [#] red:fast [ ] amber:slow [ ] green [#] buzzer:beep3"},
		{60, "Lamps: [#] alarm [#] red [ ] amber [ ] green [#] buzzer"},
		{40, "Lamps: [#] alarm [#] red [ ] amber [..."},
	} {
		lines := Draw(segment.Blank(4, 1), Status{Lamps: lamps}, c.cols, 24)
		if len(lines) != 13 || lines[10] != c.want || lines[11] != "Last coup: -" {
			t.Errorf("%d columns: lamp line %q, then %q (%d lines), want %q", c.cols, lines[10], lines[11], len(lines), c.want)
		}
	}
	many := append(lamps, Lamp{Name: "spare_lamp_one", Pattern: "slow-blink"}, Lamp{Name: "spare_lamp_two"})
	if l := Draw(segment.Blank(4, 1), Status{Lamps: many}, 80, 24)[10]; l != "Lamps: [#] alarm [#] red [ ] amber [ ] green [#] buzzer [ ] spare_lamp_one [..." {
		t.Errorf("8 lamps: %q", l)
	}
}

func TestScreenRedrawsInPlace(t *testing.T) {
	var buf bytes.Buffer
	s := New(&buf)
	if err := s.Render(segment.TextFrame("----", 3)); err != nil {
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
	if !strings.Contains(second, "Lamps: [#] buzzer:beep3\x1b[K") {
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
	f := segment.TextFrame("P9 P.n b6", 15)
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
		"E1 extra-card (awaiting ack): a card arrived after the coup was complete": {Alert: "extra-card"},
		"E2 missing-card: the coup was closed before the tableau was complete":     {Alert: "missing-card", AlertAcknowledged: true},
		"E99 some-future-code (awaiting ack)":                                      {Alert: "some-future-code"},
		"burn: 4 cards to go":                                                      {Burning: true, BurnRemaining: 4},
		"burn":                                                                     {Burning: true, BurnRemaining: -1},
		"cut card out: last coup of the shoe":                                      {LastCoup: true},
		"":                                                                         {Alert: "shoe-online"},
	}
	for want, s := range cases {
		if got := MessageLine(s); got != want {
			t.Errorf("MessageLine(%+v) = %q, want %q", s, got, want)
		}
	}
}

// TestScreenSizeAndRoads: the roads appear once set and the terminal has
// the rows; no line is wider than the size set.
func TestScreenSizeAndRoads(t *testing.T) {
	var buf bytes.Buffer
	s := New(&buf)
	if err := s.SetSize(60, 24); err != nil {
		t.Fatal(err)
	}
	if err := s.Render(segment.TextFrame("P9 Pn b3", 7)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "Big road") {
		t.Fatal("roads drawn before they are set")
	}
	buf.Reset()
	if err := s.SetRoads(startRoads()); err != nil {
		t.Fatal(err)
	}
	screen := buf.String()
	if !strings.Contains(screen, "Bead plate") || !strings.Contains(screen, "B1 P+ B") {
		t.Fatalf("no roads on a 60x24 screen:\n%s", screen)
	}
	for _, l := range strings.Split(screen, "\r\n") {
		l = strings.NewReplacer("\x1b[2J", "", "\x1b[H", "", "\x1b[K", "", "\x1b[J", "").Replace(l)
		if len(l) > 60 {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
	}
	buf.Reset()
	if err := s.SetSize(80, 20); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "Big road") || !strings.Contains(buf.String(), "PLAYER") {
		t.Fatalf("a 20-row screen:\n%s", buf.String())
	}
	buf.Reset()
	if err := s.SetSize(80, 20); err != nil || buf.Len() != 0 {
		t.Errorf("the same size redrew (%d bytes, %v)", buf.Len(), err)
	}
}

// TestBanqueCoupLine: a banque coup's line names the three totals and
// each tableau's result, once both are known.
func TestBanqueCoupLine(t *testing.T) {
	s := display.TableState{Coup: 2, Banque: true, Player: cardsOf(t, 5), Left: cardsOf(t, 3), Banker: cardsOf(t, 3),
		RightResult: display.ResultPlayer, LeftResult: display.ResultTie}
	if l, ok := CoupLine(s); !ok || l != "#2 right 5 left 3 banker 3: right wins, left ties" {
		t.Errorf("CoupLine = %q, %v", l, ok)
	}
	s.LeftResult = display.ResultNone
	if _, ok := CoupLine(s); ok {
		t.Error("CoupLine before the left tableau's result")
	}
}
