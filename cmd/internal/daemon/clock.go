package daemon

import (
	"time"

	"github.com/sabot-table/sabot/tableau"
)

// clockJumpTolerance is how far the wall clock may move apart from the
// monotonic clock between two inputs, or lag behind the journal's last
// record at the first input after a start, before sabotd raises
// clock-jump. A Pi has no RTC: its clock starts where it was saved at the
// last shutdown and NTP moves it, by hours, once the network is up.
//
// A jump changes nothing else: the journal is ordered by sequence number
// (its times are recorded as given, however they go), ids carry the
// sequence number of the input that began the shoe, and replay applies
// records in sequence order with the times they were journaled with.
const clockJumpTolerance = time.Minute

// clockState is the main loop's view of the previous input's clocks.
type clockState struct {
	wall time.Time // wall clock at the previous input (or the journal's last record at start)
	mono time.Time // the real clock with its monotonic reading then; zero at start
}

// now is the wall time stamped on an input: the injected clock (tests) or
// the system's, in UTC without a monotonic reading (it is journaled).
func (d *daemon) now() time.Time {
	if d.clock != nil {
		return d.clock.Now().UTC().Round(0)
	}
	return time.Now().UTC().Round(0)
}

// checkClock compares the clocks of input r with the previous input's and
// returns the clock-jump input to apply first, if the wall clock jumped.
func (d *daemon) checkClock(r inputReq) (tableau.Input, bool) {
	prev := d.clocks
	if !r.mono.IsZero() {
		d.clocks = clockState{wall: r.recv, mono: r.mono}
	}
	if prev.wall.IsZero() || r.recv.IsZero() || r.mono.IsZero() {
		return tableau.Input{}, false
	}
	var jump time.Duration
	if prev.mono.IsZero() {
		// The first input after a start: only a clock behind the last
		// record can be told (the daemon may have been stopped for days).
		if behind := prev.wall.Sub(r.recv); behind > clockJumpTolerance {
			jump = -behind
		}
	} else if d := r.recv.Sub(prev.wall) - r.mono.Sub(prev.mono); d > clockJumpTolerance || d < -clockJumpTolerance {
		jump = d
	}
	if jump == 0 {
		return tableau.Input{}, false
	}
	text := "forward by " + jump.Round(time.Second).String()
	if jump < 0 {
		text = "back by " + (-jump).Round(time.Second).String()
	}
	return tableau.Input{Kind: tableau.InputClockJump, Text: text, Source: "clock"}, true
}
