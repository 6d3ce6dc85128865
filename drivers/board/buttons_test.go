package board

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
)

// countPin counts WaitForEdge calls and the timeouts passed.
type countPin struct {
	gpiotest.Pin
	calls    atomic.Int64
	badTimes atomic.Int64 // calls with a timeout <= 0
}

func (p *countPin) WaitForEdge(timeout time.Duration) bool {
	p.calls.Add(1)
	if timeout <= 0 {
		p.badTimes.Add(1)
	}
	return p.Pin.WaitForEdge(timeout)
}

func newCountPin(fc clockwork.Clock) *countPin {
	return &countPin{Pin: gpiotest.Pin{N: "GPIO5", Num: -1, Clock: fc, EdgesChan: make(chan gpio.Level, 16)}}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// An idle input: over 20 poll periods of fake time the watcher calls
// WaitForEdge exactly once per period, each time with a positive timeout.
func TestWatchIdleNoBusyLoop(t *testing.T) {
	fc := clockwork.NewFakeClockAt(t0)
	pin := newCountPin(fc)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan Event, 4)
	done := make(chan error)
	go func() { done <- Watch(ctx, Button{Name: InAckKey, Pin: pin}, events, InputOpts{Clock: fc}) }()
	const periods = 20
	for k := int64(1); k <= periods; k++ {
		waitFor(t, "WaitForEdge call", func() bool { return pin.calls.Load() >= k })
		if err := fc.BlockUntilContext(ctx, 1); err != nil {
			t.Fatal(err)
		}
		fc.Advance(DefaultPoll)
	}
	waitFor(t, "the next call", func() bool { return pin.calls.Load() >= periods+1 })
	time.Sleep(20 * time.Millisecond) // a busy loop would pile up calls here
	if n := pin.calls.Load(); n != periods+1 {
		t.Errorf("%d WaitForEdge calls over %d idle poll periods, want %d", n, periods, periods+1)
	}
	if n := pin.badTimes.Load(); n != 0 {
		t.Errorf("%d calls with a timeout <= 0 (0 means forever, -1 expired in periph host)", n)
	}
	if pin.Pull() != gpio.PullUp {
		t.Errorf("pull %v, want PullUp for an active-low key", pin.Pull())
	}
	if len(events) != 0 {
		t.Errorf("idle input gave %d events", len(events))
	}
	cancel()
	fc.Advance(DefaultPoll)
	if err := <-done; err != context.Canceled {
		t.Errorf("Watch returned %v", err)
	}
}

// brokenPin's WaitForEdge fails at once, as periph's gpioioctl does when the
// line cannot be read.
type brokenPin struct {
	gpiotest.Pin
	calls atomic.Int64
}

func (p *brokenPin) In(gpio.Pull, gpio.Edge) error { return nil }
func (p *brokenPin) WaitForEdge(time.Duration) bool {
	p.calls.Add(1)
	return false
}

func TestWatchFailingWaitDoesNotSpin(t *testing.T) {
	fc := clockwork.NewFakeClockAt(t0)
	pin := &brokenPin{Pin: gpiotest.Pin{N: "GPIO7"}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error)
	go func() { done <- Watch(ctx, Button{Name: InCoupButton, Pin: pin}, nil, InputOpts{Clock: fc}) }()
	const periods = 10
	for k := int64(1); k <= periods; k++ {
		waitFor(t, "WaitForEdge call", func() bool { return pin.calls.Load() >= k })
		if err := fc.BlockUntilContext(ctx, 1); err != nil {
			t.Fatal(err)
		}
		fc.Advance(DefaultPoll)
	}
	waitFor(t, "the next call", func() bool { return pin.calls.Load() >= periods+1 })
	time.Sleep(20 * time.Millisecond)
	if n := pin.calls.Load(); n != periods+1 {
		t.Errorf("%d WaitForEdge calls over %d poll periods, want %d", n, periods, periods+1)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Watch returned %v", err)
	}
}

// A bouncing press gives exactly one event, stamped after the debounce; the
// bouncing release gives none.
func TestWatchOnePressOneEvent(t *testing.T) {
	fc := clockwork.NewFakeClockAt(t0)
	pin := newCountPin(fc)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan Event, 4)
	done := make(chan error)
	go func() {
		done <- Watch(ctx, Button{Name: InVoidKey, Pin: pin}, events, InputOpts{Clock: fc, Debounce: 20 * time.Millisecond})
	}()
	waitFor(t, "first WaitForEdge", func() bool { return pin.calls.Load() >= 1 })
	// Press with contact bounce: low, high, low.
	for _, l := range []gpio.Level{gpio.Low, gpio.High, gpio.Low} {
		pin.EdgesChan <- l
	}
	// The watcher drains the bounces, then waits out the debounce.
	waitFor(t, "debounce wait", func() bool { return pin.calls.Load() >= 4 })
	var ev Event
	for got := false; !got; {
		fc.Advance(5 * time.Millisecond)
		select {
		case ev = <-events:
			got = true
		case <-time.After(time.Millisecond):
		}
	}
	if ev.Button != InVoidKey {
		t.Errorf("event %+v", ev)
	}
	// Not before the debounce has run out (the upper bound only guards
	// against a stuck watcher: the test advances the clock in steps).
	if d := ev.At.Sub(t0); d < 20*time.Millisecond || d > 500*time.Millisecond {
		t.Errorf("press accepted %v after the edge, want after the 20ms debounce", d)
	}
	// Release with bounce.
	for _, l := range []gpio.Level{gpio.High, gpio.Low, gpio.High} {
		pin.EdgesChan <- l
	}
	for i := 0; i < 400; i++ { // 2 s of fake time
		fc.Advance(5 * time.Millisecond)
		time.Sleep(50 * time.Microsecond)
	}
	if len(events) != 0 {
		t.Errorf("release gave %d more events", len(events))
	}
	cancel()
	for {
		select {
		case err := <-done:
			if err != context.Canceled {
				t.Errorf("Watch returned %v", err)
			}
			return
		case <-time.After(time.Millisecond):
			fc.Advance(DefaultPoll)
		}
	}
}

func TestWatchActiveHigh(t *testing.T) {
	fc := clockwork.NewFakeClockAt(t0)
	pin := newCountPin(fc)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan Event, 4)
	go func() {
		_ = Watch(ctx, Button{Name: InCoupButton, Pin: pin, ActiveHigh: true}, events, InputOpts{Clock: fc})
	}()
	waitFor(t, "first WaitForEdge", func() bool { return pin.calls.Load() >= 1 })
	if pin.Pull() != gpio.PullDown {
		t.Errorf("pull %v, want PullDown", pin.Pull())
	}
	pin.EdgesChan <- gpio.High
	for got := false; !got; {
		fc.Advance(10 * time.Millisecond)
		select {
		case ev := <-events:
			got = true
			if ev.Button != InCoupButton {
				t.Errorf("event %+v", ev)
			}
		case <-time.After(time.Millisecond):
		}
	}
}

func TestWatchErrors(t *testing.T) {
	ctx := context.Background()
	if err := Watch(ctx, Button{Name: InAckKey}, nil, InputOpts{}); err == nil {
		t.Error("nil pin accepted")
	}
	// gpiotest refuses edge detection without an edge channel.
	p := &gpiotest.Pin{N: "GPIO6"}
	err := Watch(ctx, Button{Name: InAckKey, Pin: p}, nil, InputOpts{})
	if err == nil || err.Error()[:len(`board: input "ack_key"`)] != `board: input "ack_key"` {
		t.Errorf("error %v does not name the input", err)
	}
}
