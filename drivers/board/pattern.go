package board

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// PatternKind is the shape of an output pattern.
type PatternKind uint8

// The pattern kinds.
const (
	Off       PatternKind = iota // output off
	Steady                       // output on
	SlowBlink                    // 1 Hz: on SlowHalf, off SlowHalf
	FastBlink                    // 4 Hz: on FastHalf, off FastHalf
	Beeps                        // Count beeps of BeepOn, BeepOff apart, then off
)

// Pattern timings.
const (
	SlowHalf = 500 * time.Millisecond
	FastHalf = 125 * time.Millisecond
	BeepOn   = 150 * time.Millisecond
	BeepOff  = 150 * time.Millisecond
)

// MaxBeeps bounds a beep count (one minute of beeping).
const MaxBeeps = 200

// Pattern is what an output (lamp, tower light segment, buzzer) does over
// time, counted from the moment it is set.
type Pattern struct {
	Kind  PatternKind
	Count int // number of beeps, for Beeps (1..MaxBeeps)
}

// Convenience patterns.
var (
	PatternOff       = Pattern{Kind: Off}
	PatternSteady    = Pattern{Kind: Steady}
	PatternSlowBlink = Pattern{Kind: SlowBlink}
	PatternFastBlink = Pattern{Kind: FastBlink}
)

// Beep returns the pattern of n beeps (clamped to 1..MaxBeeps).
func Beep(n int) Pattern {
	return Pattern{Kind: Beeps, Count: min(max(n, 1), MaxBeeps)}
}

// BeepFor returns the buzzer pattern for sounding about d: as many beeps as
// fit in d (at least one, at most MaxBeeps), or, for d <= 0, beeping until
// the pattern is changed (SlowBlink: 0.5 s on, 0.5 s off), e.g. until the
// alert is acknowledged.
func BeepFor(d time.Duration) Pattern {
	if d <= 0 {
		return PatternSlowBlink
	}
	period := BeepOn + BeepOff
	return Beep(int((d + period - 1) / period))
}

// On reports whether the output is on at time t after the pattern was set.
func (p Pattern) On(t time.Duration) bool {
	if t < 0 {
		t = 0
	}
	switch p.Kind {
	case Steady:
		return true
	case SlowBlink:
		return t%(2*SlowHalf) < SlowHalf
	case FastBlink:
		return t%(2*FastHalf) < FastHalf
	case Beeps:
		period := BeepOn + BeepOff
		if t >= time.Duration(p.Count)*period {
			return false
		}
		return t%period < BeepOn
	}
	return false
}

// Next returns the time after the pattern was set of its first level change
// strictly after t, and false if it never changes again.
func (p Pattern) Next(t time.Duration) (time.Duration, bool) {
	if t < 0 {
		t = 0
	}
	step := func(h time.Duration) time.Duration { return (t/h + 1) * h }
	switch p.Kind {
	case SlowBlink:
		return step(SlowHalf), true
	case FastBlink:
		return step(FastHalf), true
	case Beeps:
		// BeepOn == BeepOff: changes every BeepOn until the last beep ends.
		end := time.Duration(p.Count) * (BeepOn + BeepOff)
		last := end - BeepOff
		if t >= last {
			return 0, false
		}
		return step(BeepOn), true
	}
	return 0, false
}

// String is the config form: "off", "steady", "slow-blink", "fast-blink",
// "beep" (one beep) or "beep:3".
func (p Pattern) String() string {
	switch p.Kind {
	case Off:
		return "off"
	case Steady:
		return "steady"
	case SlowBlink:
		return "slow-blink"
	case FastBlink:
		return "fast-blink"
	case Beeps:
		if p.Count == 1 {
			return "beep"
		}
		return "beep:" + strconv.Itoa(p.Count)
	}
	return fmt.Sprintf("pattern(%d)", p.Kind)
}

// ParsePattern parses the String form. Errors name the text.
func ParsePattern(s string) (Pattern, error) {
	switch s {
	case "off":
		return PatternOff, nil
	case "steady", "on":
		return PatternSteady, nil
	case "slow-blink":
		return PatternSlowBlink, nil
	case "fast-blink":
		return PatternFastBlink, nil
	case "beep":
		return Beep(1), nil
	}
	if n, ok := strings.CutPrefix(s, "beep:"); ok {
		c, err := strconv.Atoi(n)
		if err == nil && c >= 1 && c <= MaxBeeps {
			return Beep(c), nil
		}
	}
	return Pattern{}, fmt.Errorf("board: unknown pattern %q (want off, steady, slow-blink, fast-blink, beep or beep:N with N 1..%d)", s, MaxBeeps)
}
