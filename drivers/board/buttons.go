package board

import (
	"context"
	"fmt"
	"time"

	"github.com/jonboulle/clockwork"
	"periph.io/x/conn/v3/gpio"
)

// Button is one input key: the coup button, the supervisor acknowledge key
// or the void key.
type Button struct {
	Name string     // e.g. InCoupButton
	Pin  gpio.PinIn // the GPIO pin
	// ActiveHigh: pressed = gpio.High, with the pull-down enabled. The
	// default (false) is a key that shorts the pin to ground: pressed =
	// gpio.Low, pull-up enabled.
	ActiveHigh bool
}

// Event is one press of a button.
type Event struct {
	Button string    // the Button's Name
	At     time.Time // when the press was accepted (after debouncing)
}

// Default input timings.
const (
	// DefaultDebounce is how long an input must stay without edges before
	// its level is trusted: longer than the bounce of ordinary key
	// switches (a few ms), short enough not to be felt.
	DefaultDebounce = 30 * time.Millisecond
	// DefaultPoll is the WaitForEdge timeout: how often an idle watcher
	// wakes to check for cancellation.
	DefaultPoll = 500 * time.Millisecond
)

// maxBounces bounds the edges absorbed by one debounce, so a chattering
// contact cannot hold the watcher forever.
const maxBounces = 1000

// InputOpts tunes Watch. The zero value uses the defaults and the real
// clock.
type InputOpts struct {
	Debounce time.Duration   // 0: DefaultDebounce
	Poll     time.Duration   // 0: DefaultPoll
	Clock    clockwork.Clock // nil: the real clock (gives Event.At)
}

// Watch reports each press of b on events until ctx is done, then returns
// ctx.Err(). It configures the pin as an input with both edges detected and
// the pull resistor that matches ActiveHigh.
//
// Edge waiting is an explicit timeout loop: WaitForEdge is always called
// with a positive timeout (Poll, then Debounce). periph host v3's GPIO
// character-device driver treats a timeout of 0 as "wait forever" and -1 as
// "already expired" (older docs say otherwise), so neither is ever passed:
// an idle input costs one wake-up per Poll, and cancellation is seen within
// Poll. A WaitForEdge that returns false early (a driver error) is followed
// by a wait for the rest of Poll, so it cannot spin either.
//
// After an edge the watcher waits until no edge has come for Debounce,
// then reads the level: a press is reported when the level is "pressed"
// and the last debounced level was not, so a bouncing contact gives exactly
// one event per press and none on release. Errors: the pin cannot be set as
// an input (the error names the button).
func Watch(ctx context.Context, b Button, events chan<- Event, o InputOpts) error {
	if b.Pin == nil {
		return fmt.Errorf("board: input %q has no pin", b.Name)
	}
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.Clock == nil {
		o.Clock = clockwork.NewRealClock()
	}
	pull := gpio.PullUp
	if b.ActiveHigh {
		pull = gpio.PullDown
	}
	if err := b.Pin.In(pull, gpio.BothEdges); err != nil {
		return fmt.Errorf("board: input %q (%s): %w", b.Name, b.Pin, err)
	}
	isPressed := func() bool { return (b.Pin.Read() == gpio.High) == b.ActiveHigh }
	pressed := isPressed()
	for ctx.Err() == nil {
		start := o.Clock.Now()
		if !b.Pin.WaitForEdge(o.Poll) {
			// A driver that returns at once (periph's gpioioctl does on an
			// error) must not turn this into a busy loop: wait out the rest
			// of the poll period.
			if el := o.Clock.Since(start); el < o.Poll/2 {
				select {
				case <-o.Clock.After(o.Poll - el):
				case <-ctx.Done():
				}
			}
			continue
		}
		for i := 0; i < maxBounces && ctx.Err() == nil && b.Pin.WaitForEdge(o.Debounce); i++ {
		}
		now := isPressed()
		if now && !pressed {
			select {
			case events <- Event{Button: b.Name, At: o.Clock.Now()}:
			case <-ctx.Done():
			}
		}
		pressed = now
	}
	return ctx.Err()
}
