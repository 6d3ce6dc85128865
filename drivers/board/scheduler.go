package board

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
	"periph.io/x/conn/v3/gpio"

	"github.com/sabot-table/sabot/display/segment"
)

// Output is one switched output: a lamp, a tower light segment or a buzzer
// (an active buzzer, on while the pin is on).
type Output struct {
	Name      string      // e.g. OutAlarmLamp
	Pin       gpio.PinOut // the GPIO pin
	ActiveLow bool        // on = gpio.Low (sinking drivers, most relay boards)
}

// LampState is what an output does now, for status displays.
type LampState struct {
	Name    string
	Pattern Pattern
	On      bool // the level written last
}

type outState struct {
	Output
	pattern Pattern
	since   time.Time
	written bool
	on      bool
}

// Scheduler drives output patterns and display blinking from one clock. It
// writes a pin only when its level changes, and in Run sleeps until the next
// change, so a table with nothing blinking costs no wake-ups. Methods are
// safe for concurrent use.
type Scheduler struct {
	mu      sync.Mutex
	clock   clockwork.Clock
	log     *slog.Logger
	outs    map[string]*outState
	order   []string
	wake    chan struct{}
	disp    segment.Renderer
	frame   segment.Frame
	fsince  time.Time
	shown   segment.Frame
	hasShow bool
	lastErr string
	observe func([]LampState)
	changed bool
}

// SetObserver makes the scheduler call f with every output's state after
// any output changes level (f runs with the scheduler locked: it must not
// call back into it). The terminal display uses it for its lamp line.
func (s *Scheduler) SetObserver(f func([]LampState)) {
	s.mu.Lock()
	s.observe = f
	s.changed = true
	s.notify()
	s.mu.Unlock()
}

func (s *Scheduler) notify() {
	if s.observe == nil || !s.changed {
		return
	}
	s.changed = false
	s.observe(s.lamps())
}

// NewScheduler returns a Scheduler on clock (nil: the real clock), logging
// to log (nil: slog.Default()).
func NewScheduler(clock clockwork.Clock, log *slog.Logger) *Scheduler {
	if clock == nil {
		clock = clockwork.NewRealClock()
	}
	if log == nil {
		log = slog.Default()
	}
	return &Scheduler{clock: clock, log: log, outs: map[string]*outState{}, wake: make(chan struct{}, 1)}
}

// AddOutput adds an output, initially off (written at once). Errors: a
// duplicate name, a nil pin, or the pin's error.
func (s *Scheduler) AddOutput(o Output) error {
	if o.Pin == nil {
		return fmt.Errorf("board: output %q has no pin", o.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.outs[o.Name]; dup {
		return fmt.Errorf("board: output %q added twice", o.Name)
	}
	st := &outState{Output: o, since: s.clock.Now()}
	s.outs[o.Name] = st
	s.order = append(s.order, o.Name)
	err := s.write(st, false)
	s.notify()
	return err
}

// SetDisplay makes the scheduler render frames (SetFrame) on r, animating
// blinking digits.
func (s *Scheduler) SetDisplay(r segment.Renderer) {
	s.mu.Lock()
	s.disp = r
	s.hasShow = false
	s.mu.Unlock()
}

// Set starts pattern p on the named output from now; setting the pattern it
// already has changes nothing (a blink keeps its phase). The new level is
// written at once. Errors: an unknown output, or the pin's error.
func (s *Scheduler) Set(name string, p Pattern) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.outs[name]
	if !ok {
		return fmt.Errorf("board: no output %q", name)
	}
	if st.pattern == p {
		return nil
	}
	now := s.clock.Now()
	st.pattern, st.since = p, now
	s.changed = true
	err := s.write(st, p.On(0))
	s.notify()
	s.poke()
	return err
}

// SetFrame shows f on the display (if any) from now, blinking digits lit
// first. A frame equal to the current one changes nothing (its blink keeps
// its phase). Errors are the renderer's.
func (s *Scheduler) SetFrame(f segment.Frame) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hasFrame() && s.frame.Equal(f) {
		return nil
	}
	s.frame, s.fsince = f, s.clock.Now()
	err := s.render(s.clock.Now())
	s.poke()
	return err
}

func (s *Scheduler) hasFrame() bool { return s.frame.Digits != nil }

// Frame returns the frame set last (with its blink flags).
func (s *Scheduler) Frame() segment.Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frame
}

// Pattern returns the named output's current pattern; ok is false for an
// unknown output.
func (s *Scheduler) Pattern(name string) (p Pattern, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.outs[name]
	if !ok {
		return Pattern{}, false
	}
	return st.pattern, true
}

// Lamps returns the state of every output, in the order added.
func (s *Scheduler) Lamps() []LampState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lamps()
}

func (s *Scheduler) lamps() []LampState {
	out := make([]LampState, 0, len(s.order))
	for _, n := range s.order {
		st := s.outs[n]
		out = append(out, LampState{Name: n, Pattern: st.pattern, On: st.on})
	}
	return out
}

// Update writes every output and the display as they should be now, and
// returns when the next change is due (ok false: nothing will change).
func (s *Scheduler) Update() (next time.Time, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.update()
}

func (s *Scheduler) update() (next time.Time, ok bool, err error) {
	now := s.clock.Now()
	var errs []error
	consider := func(t time.Time) {
		if !ok || t.Before(next) {
			next, ok = t, true
		}
	}
	for _, n := range s.order {
		st := s.outs[n]
		el := now.Sub(st.since)
		if e := s.write(st, st.pattern.On(el)); e != nil {
			errs = append(errs, e)
		}
		if d, more := st.pattern.Next(el); more {
			consider(st.since.Add(d))
		}
	}
	if s.disp != nil && s.hasFrame() {
		if e := s.render(now); e != nil {
			errs = append(errs, e)
		}
		if s.frame.Blinking() {
			el := now.Sub(s.fsince)
			h := segment.BlinkPeriod / 2
			consider(s.fsince.Add((el/h + 1) * h))
		}
	}
	s.notify()
	return next, ok, errors.Join(errs...)
}

func (s *Scheduler) render(now time.Time) error {
	if s.disp == nil || !s.hasFrame() {
		return nil
	}
	f := s.frame.At(now.Sub(s.fsince))
	if s.hasShow && s.shown.Equal(f) {
		return nil
	}
	if err := s.disp.Render(f); err != nil {
		s.hasShow = false
		return err
	}
	s.shown, s.hasShow = f, true
	return nil
}

func (s *Scheduler) write(st *outState, on bool) error {
	if st.written && st.on == on {
		return nil
	}
	l := gpio.Level(on != st.ActiveLow)
	if err := st.Pin.Out(l); err != nil {
		st.written = false
		return fmt.Errorf("board: output %q (%s): %w", st.Name, st.Pin, err)
	}
	st.on, st.written = on, true
	s.changed = true
	return nil
}

func (s *Scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// RetryInterval is how soon Run retries after an output or display error.
const RetryInterval = time.Second

// Run keeps outputs and the display up to date until ctx is done: it sleeps
// until the next level change, or until Set or SetFrame changes something.
// Output and display errors are logged (once per distinct error) and
// retried every RetryInterval; they do not stop it: a broken lamp must not
// blank the totals. It returns ctx.Err().
func (s *Scheduler) Run(ctx context.Context) error {
	for {
		s.mu.Lock()
		next, ok, err := s.update()
		if err != nil && err.Error() != s.lastErr {
			s.log.Error("board: output error", "err", err)
		}
		if err != nil {
			s.lastErr = err.Error()
			// Retry a failed device even when nothing is due to change.
			if retry := s.clock.Now().Add(RetryInterval); !ok || retry.Before(next) {
				next, ok = retry, true
			}
		} else {
			s.lastErr = ""
		}
		s.mu.Unlock()
		var timer clockwork.Timer
		var fire <-chan time.Time
		if ok {
			d := s.clock.Until(next)
			if d <= 0 {
				continue // already due: the clock moved on during update
			}
			timer = s.clock.NewTimer(d)
			fire = timer.Chan()
		}
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return ctx.Err()
		case <-s.wake:
		case <-fire:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// Halt switches every output off and blanks the display (best effort; the
// errors are joined).
func (s *Scheduler) Halt() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	names := append([]string(nil), s.order...)
	sort.Strings(names)
	for _, n := range names {
		st := s.outs[n]
		st.pattern = PatternOff
		if err := s.write(st, false); err != nil {
			errs = append(errs, err)
		}
	}
	if s.disp != nil && s.hasFrame() {
		if err := s.disp.Render(segment.Blank(len(s.frame.Digits), s.frame.Brightness)); err != nil {
			errs = append(errs, err)
		}
		s.hasShow = false
	}
	s.notify()
	return errors.Join(errs...)
}
