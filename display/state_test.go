package display

import (
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

func cards(t *testing.T, s string) []tableau.Card {
	t.Helper()
	var out []tableau.Card
	for _, f := range strings.Fields(s) {
		c, err := tableau.ParseCard(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func TestCompose(t *testing.T) {
	cases := []struct {
		name   string
		player string
		banker string
		s      TableState
		want4  string
		want8  string
	}{
		{name: "idle", want4: "    ", want8: "        "},
		{name: "first player card", player: "7H", want4: "7   ", want8: "P7      "},
		{name: "first two cards", player: "7H", banker: "KD", want4: "7  0", want8: "P7    b0"},
		{name: "court cards total 0", player: "KH QS", banker: "TD JC", want4: "0  0", want8: "P0    b0"},
		{name: "player awaits third", player: "2H 3S", banker: "4D 5C",
			s: TableState{Waiting: HandPlayer}, want4: "[5]  9", want8: "P[5]    b9"},
		{name: "banker awaits third", player: "2H 3S 9C", banker: "4D 2C",
			s: TableState{Waiting: HandBanker}, want4: "4  [6]", want8: "P4    b[6]"},
		{name: "banker wins", player: "2H 3S 9C", banker: "4D 2C 3H",
			s: TableState{Result: ResultBanker}, want4: "4b 9", want8: "P4 b  b9"},
		{name: "player natural", player: "4H 5S", banker: "3D 3C",
			s: TableState{Result: ResultPlayer, Natural: true}, want4: "9Pn6", want8: "P9 Pn b6"},
		{name: "tie", player: "4H 3S", banker: "2D 5C",
			s: TableState{Result: ResultTie}, want4: "7t 7", want8: "P7 t  b7"},
		{name: "natural flag ignored before result", player: "4H 5S", banker: "3D",
			s: TableState{Natural: true}, want4: "9  3", want8: "P9    b3"},
		{name: "last coup in play", player: "AH", banker: "2C",
			s: TableState{LastCoup: true}, want4: "1 . 2", want8: "P1  .  b2"},
		{name: "last coup won", player: "AH 8C", banker: "2C 5S",
			s: TableState{LastCoup: true, Result: ResultPlayer, Natural: true}, want4: "9P.n7", want8: "P9 P.n b7"},
		{name: "burn", s: TableState{Burning: true, BurnRemaining: 3}, want4: "br 3", want8: "br     3"},
		{name: "burn ten", s: TableState{Burning: true, BurnRemaining: 10}, want4: "br10", want8: "br    10"},
		{name: "burn done", s: TableState{Burning: true}, want4: "br 0", want8: "br     0"},
		{name: "burn count unknown", s: TableState{Burning: true, BurnRemaining: -1}, want4: "br  ", want8: "br      "},
		{name: "alert flashing", player: "2H 3S", banker: "4D 5C",
			s: TableState{Alert: "extra-card"}, want4: "[E][1][ ][ ]", want8: "[E][r][r][ ][ ][ ][E][1]"},
		{name: "alert acknowledged", s: TableState{Alert: "missing-card", AlertAcknowledged: true}, want4: "E2  ", want8: "Err   E2"},
		{name: "alert two digits", s: TableState{Alert: "unreadable-card", AlertAcknowledged: true}, want4: "E10 ", want8: "Err  E10"},
		{name: "alert unknown", s: TableState{Alert: "no-such-alert", AlertAcknowledged: true}, want4: "E99 ", want8: "Err  E99"},
		{name: "offline", player: "2H", s: TableState{Offline: true, Alert: "extra-card"}, want4: "----", want8: "--------"},
		{name: "offline alert after the link is back", s: TableState{Alert: "shoe-offline"}, want4: "[E][1][4][ ]", want8: "[E][r][r][ ][ ][E][1][4]"},
		{name: "shoe-online never shown", player: "2H", s: TableState{Alert: "shoe-online"}, want4: "2   ", want8: "P2      "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.s
			s.Player = cards(t, c.player)
			s.Banker = cards(t, c.banker)
			if got := Compose(s, Layout4, 7).String(); got != c.want4 {
				t.Errorf("4 digits: got %q, want %q", got, c.want4)
			}
			if got := Compose(s, Layout8, 7).String(); got != c.want8 {
				t.Errorf("8 digits: got %q, want %q", got, c.want8)
			}
		})
	}
}

func TestComposeSegments(t *testing.T) {
	s := TableState{Player: cards(t, "4H 5S"), Banker: cards(t, "3D 3C"), Result: ResultPlayer, Natural: true, LastCoup: true}
	f := Compose(s, Layout4, 15)
	want := []segment.Segments{0x6F, 0x73 | 0x80, 0x54, 0x7D}
	got := f.Segments(true)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("digit %d = %#02x, want %#02x", i, uint8(got[i]), uint8(want[i]))
		}
	}
	if f.Brightness != 15 {
		t.Errorf("brightness %d", f.Brightness)
	}
}

func TestBrightnessClamped(t *testing.T) {
	if b := Compose(TableState{}, Layout4, 99).Brightness; b != segment.MaxBrightness {
		t.Errorf("brightness 99 → %d, want %d", b, segment.MaxBrightness)
	}
	if b := Compose(TableState{}, Layout4, -3).Brightness; b != 0 {
		t.Errorf("brightness -3 → %d, want 0", b)
	}
}

func TestBlinkPhases(t *testing.T) {
	s := TableState{Player: cards(t, "2H 3S"), Banker: cards(t, "4D 5C"), Waiting: HandPlayer}
	f := Compose(s, Layout4, 7)
	if !f.Blinking() {
		t.Fatal("frame with waiting hand does not blink")
	}
	cases := []struct {
		at   time.Duration
		want string
	}{
		{0, "5  9"},
		{segment.BlinkPeriod/2 - 1, "5  9"},
		{segment.BlinkPeriod / 2, "   9"},
		{segment.BlinkPeriod - 1, "   9"},
		{segment.BlinkPeriod, "5  9"},
		{-time.Second, "5  9"},
	}
	for _, c := range cases {
		g := f.At(c.at)
		if g.String() != c.want {
			t.Errorf("At(%v) = %q, want %q", c.at, g.String(), c.want)
		}
		if g.Blinking() {
			t.Errorf("At(%v) still has blink flags", c.at)
		}
	}
	off := f.Segments(false)
	if off[0] != 0 || off[3] != 0x6F {
		t.Errorf("Segments(false) = %v", off)
	}
	if Compose(TableState{Player: cards(t, "2H")}, Layout4, 7).Blinking() {
		t.Error("steady frame reports blinking")
	}
}

func TestLayoutFor(t *testing.T) {
	for _, c := range []struct {
		n     int
		want  Layout
		isErr bool
	}{
		{3, Layout{}, true},
		{4, Layout4, false},
		{6, Layout6, false},
		{8, Layout8, false},
	} {
		l, err := LayoutFor(c.n)
		if (err != nil) != c.isErr {
			t.Errorf("LayoutFor(%d) error %v", c.n, err)
			continue
		}
		if !c.isErr && l != c.want {
			t.Errorf("LayoutFor(%d) = %+v", c.n, l)
		}
	}
	l, _ := LayoutFor(16)
	f := Compose(TableState{Player: cards(t, "9H"), Banker: cards(t, "8D")}, l, 1)
	if got := f.String(); got != "P9    b8        " {
		t.Errorf("16 digits: %q", got)
	}
	l6, _ := LayoutFor(6)
	f = Compose(TableState{Player: cards(t, "9H 9D"), Banker: cards(t, "8D KH"), Result: ResultBanker, Natural: true}, l6, 1)
	if got := f.String(); got != "8 b n8" {
		t.Errorf("6 digits: %q", got)
	}
}

func TestErrorCodes(t *testing.T) {
	want := map[string]string{
		"extra-card": "E1", "missing-card": "E2", "burn-count": "E3", "composition": "E4",
		"after-cut": "E5", "incomplete-coup": "E6", "early-draw": "E7", "duplicate-card": "E8",
		"card-mismatch": "E9", "unreadable-card": "E10", "shoe-alarm": "E11", "advantage": "E12",
		"outbox-backlog": "E13", "shoe-offline": "E14", "shoe-overrun": "E15", "journal-failed": "E16",
		"archive-pruned": "E17", "shoe-sequence": "E18", "clock-jump": "E19", "session-takeover": "E20", "misplaced-token": "E21", "hand-limit": "E22", "result-mismatch": "E23", "misplaced-declare": "E24", "no-declaration": "E25", "whatever": "E99", "shoe-online": "E99",
	}
	for code, w := range want {
		if got := ErrorText(code); got != w {
			t.Errorf("ErrorText(%q) = %q, want %q", code, got, w)
		}
	}
	codes := AlertCodes()
	if len(codes) != 25 || codes[0] != "extra-card" || codes[13] != "shoe-offline" || codes[18] != "clock-jump" {
		t.Errorf("AlertCodes = %v", codes)
	}
	if _, ok := ErrorCode("shoe-online"); ok {
		t.Error("shoe-online has an E code; it is never shown")
	}
}

func TestFrameEqual(t *testing.T) {
	a := Compose(TableState{Player: cards(t, "9H")}, Layout4, 3)
	b := Compose(TableState{Player: cards(t, "9C")}, Layout4, 3)
	if !a.Equal(b) {
		t.Error("same picture not equal")
	}
	c := Compose(TableState{Player: cards(t, "8C")}, Layout4, 3)
	if a.Equal(c) {
		t.Error("different digits equal")
	}
	d := Compose(TableState{Player: cards(t, "9H")}, Layout4, 4)
	if a.Equal(d) {
		t.Error("different brightness equal")
	}
}

// Every alert code of tableau has an E code, except the informational
// shoe-online.
func TestEveryTableauAlertHasACode(t *testing.T) {
	for _, c := range baccarat.AlertCodes {
		_, ok := ErrorCode(string(c))
		if want := c != baccarat.AlertShoeOnline; ok != want {
			t.Errorf("alert %q: has E code %v, want %v", c, ok, want)
		}
	}
}
