package board

import (
	"testing"
	"time"
)

const ms = time.Millisecond

func TestPatternOn(t *testing.T) {
	cases := []struct {
		p    Pattern
		at   time.Duration
		want bool
	}{
		{PatternOff, 0, false},
		{PatternOff, time.Hour, false},
		{PatternSteady, 0, true},
		{PatternSteady, time.Hour, true},
		{PatternSlowBlink, 0, true},
		{PatternSlowBlink, 499 * ms, true},
		{PatternSlowBlink, 500 * ms, false},
		{PatternSlowBlink, 999 * ms, false},
		{PatternSlowBlink, 1000 * ms, true},
		{PatternFastBlink, 124 * ms, true},
		{PatternFastBlink, 125 * ms, false},
		{PatternFastBlink, 250 * ms, true},
		{Beep(2), 0, true},
		{Beep(2), 149 * ms, true},
		{Beep(2), 150 * ms, false},
		{Beep(2), 300 * ms, true},
		{Beep(2), 449 * ms, true},
		{Beep(2), 450 * ms, false},
		{Beep(2), 600 * ms, false},
		{Beep(2), time.Hour, false},
	}
	for _, c := range cases {
		if got := c.p.On(c.at); got != c.want {
			t.Errorf("%v.On(%v) = %v, want %v", c.p, c.at, got, c.want)
		}
	}
}

func TestPatternNext(t *testing.T) {
	cases := []struct {
		p    Pattern
		at   time.Duration
		want time.Duration
		ok   bool
	}{
		{PatternOff, 0, 0, false},
		{PatternSteady, 0, 0, false},
		{PatternSlowBlink, 0, 500 * ms, true},
		{PatternSlowBlink, 500 * ms, 1000 * ms, true},
		{PatternFastBlink, 130 * ms, 250 * ms, true},
		{Beep(2), 0, 150 * ms, true},
		{Beep(2), 300 * ms, 450 * ms, true},
		{Beep(2), 450 * ms, 0, false},
		{Beep(1), 100 * ms, 150 * ms, true},
		{Beep(1), 150 * ms, 0, false},
	}
	for _, c := range cases {
		got, ok := c.p.Next(c.at)
		if got != c.want || ok != c.ok {
			t.Errorf("%v.Next(%v) = %v, %v; want %v, %v", c.p, c.at, got, ok, c.want, c.ok)
		}
	}
}

func TestParsePattern(t *testing.T) {
	for _, s := range []string{"off", "steady", "slow-blink", "fast-blink", "beep", "beep:3", "beep:200"} {
		p, err := ParsePattern(s)
		if err != nil {
			t.Errorf("ParsePattern(%q): %v", s, err)
			continue
		}
		if p.String() != s {
			t.Errorf("ParsePattern(%q).String() = %q", s, p.String())
		}
	}
	for _, s := range []string{"", "blink", "beep:0", "beep:201", "beep:x", "Steady"} {
		if _, err := ParsePattern(s); err == nil {
			t.Errorf("ParsePattern(%q) accepted", s)
		}
	}
	if Beep(0).Count != 1 || Beep(999).Count != MaxBeeps {
		t.Error("Beep does not clamp")
	}
}

func TestBeepFor(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{0, "slow-blink"},
		{-time.Second, "slow-blink"},
		{time.Millisecond, "beep"},
		{300 * ms, "beep"},
		{301 * ms, "beep:2"},
		{5 * time.Second, "beep:17"},
		{time.Hour, "beep:200"},
	}
	for _, c := range cases {
		if got := BeepFor(c.d).String(); got != c.want {
			t.Errorf("BeepFor(%v) = %s, want %s", c.d, got, c.want)
		}
	}
}
