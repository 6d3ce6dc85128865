package board

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/tm1637"
	"github.com/sabot-table/sabot/drivers/tm1637/tm1637test"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// recPin records every Out with the fake clock's time.
type recPin struct {
	gpiotest.Pin
	clock clockwork.Clock
	mu    sync.Mutex
	log   []string
}

func newRecPin(name string, c clockwork.Clock) *recPin {
	return &recPin{Pin: gpiotest.Pin{N: name, Num: -1}, clock: c}
}

func (p *recPin) Out(l gpio.Level) error {
	p.mu.Lock()
	p.log = append(p.log, fmt.Sprintf("%v@%v", l, p.clock.Since(t0)))
	p.mu.Unlock()
	return p.Pin.Out(l)
}

func (p *recPin) Log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.log...)
}

func TestSchedulerUpdate(t *testing.T) {
	fc := clockwork.NewFakeClockAt(t0)
	s := NewScheduler(fc, nil)
	lamp := newRecPin("GPIO17", fc)
	relay := newRecPin("GPIO27", fc)
	if err := s.AddOutput(Output{Name: OutAlarmLamp, Pin: lamp}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddOutput(Output{Name: OutTowerRed, Pin: relay, ActiveLow: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddOutput(Output{Name: OutTowerRed, Pin: relay}); err == nil {
		t.Error("duplicate output accepted")
	}
	if err := s.Set("nope", PatternSteady); err == nil {
		t.Error("unknown output accepted")
	}
	if err := s.Set(OutAlarmLamp, PatternFastBlink); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(OutTowerRed, PatternSteady); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		next, ok, err := s.Update()
		if err != nil || !ok {
			t.Fatalf("Update: %v %v", ok, err)
		}
		if want := t0.Add(time.Duration(i+1) * FastHalf); !next.Equal(want) {
			t.Errorf("step %d: next %v, want %v", i, next.Sub(t0), want.Sub(t0))
		}
		fc.Advance(FastHalf)
	}
	wantLamp := []string{"Low@0s", "High@0s", "Low@125ms", "High@250ms", "Low@375ms"}
	if got := lamp.Log(); !reflect.DeepEqual(got, wantLamp) {
		t.Errorf("lamp %v, want %v", got, wantLamp)
	}
	// Active low: off is High, on is Low; written only on change.
	if got := relay.Log(); !reflect.DeepEqual(got, []string{"High@0s", "Low@0s"}) {
		t.Errorf("relay %v", got)
	}
	// Setting the same pattern keeps its phase.
	if err := s.Set(OutAlarmLamp, PatternFastBlink); err != nil {
		t.Fatal(err)
	}
	if n := len(lamp.Log()); n != 5 {
		t.Errorf("re-set wrote the pin (%d changes)", n)
	}
	if err := s.Halt(); err != nil {
		t.Fatal(err)
	}
	if lamp.Read() != gpio.Low || relay.Read() != gpio.High {
		t.Error("Halt did not switch outputs off")
	}
	ls := s.Lamps()
	if len(ls) != 2 || ls[0].Name != OutAlarmLamp || ls[0].On || ls[0].Pattern != PatternOff {
		t.Errorf("Lamps after Halt: %+v", ls)
	}
}

// Run sleeps on the fake clock until each change is due: a beep pattern
// is played exactly, then nothing is scheduled.
func TestSchedulerRunBeeps(t *testing.T) {
	fc := clockwork.NewFakeClockAt(t0)
	s := NewScheduler(fc, nil)
	buzzer := newRecPin("GPIO22", fc)
	if err := s.AddOutput(Output{Name: OutBuzzer, Pin: buzzer}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	if err := s.Set(OutBuzzer, Beep(2)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := fc.BlockUntilContext(ctx, 1); err != nil {
			t.Fatal(err)
		}
		fc.Advance(BeepOn)
	}
	// After the last beep ends Run has no timer: wait for the update to
	// land, then check the transcript.
	deadline := time.Now().Add(5 * time.Second)
	for len(buzzer.Log()) < 5 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	want := []string{"Low@0s", "High@0s", "Low@150ms", "High@300ms", "Low@450ms"}
	if got := buzzer.Log(); !reflect.DeepEqual(got, want) {
		t.Errorf("buzzer %v, want %v", got, want)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Run returned %v", err)
	}
}

func TestSchedulerBlinksDisplay(t *testing.T) {
	fc := clockwork.NewFakeClockAt(t0)
	s := NewScheduler(fc, nil)
	bus := tm1637test.NewBus()
	dev, err := tm1637.New(bus.CLK, bus.DIO, &tm1637.Opts{Delay: func(time.Duration) {}})
	if err != nil {
		t.Fatal(err)
	}
	s.SetDisplay(dev)
	f := segment.Blank(4, 15)
	f.Digits[0] = segment.Digit{Char: '5', Blink: true}
	f.Digits[3] = segment.Digit{Char: '9'}
	if err := s.SetFrame(f); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 0; i < 4; i++ {
		got = append(got, bus.Text(4))
		fc.Advance(segment.BlinkPeriod / 2)
		if _, _, err := s.Update(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"5  9", "   9", "5  9", "   9"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("display over time %q, want %q", got, want)
	}
	// Unchanged frames are not re-sent.
	bus.Reset()
	if err := s.SetFrame(f); err != nil {
		t.Fatal(err)
	}
	if n := len(bus.Transfers()); n != 0 {
		t.Errorf("same frame re-sent: %d transfers", n)
	}
	steady := segment.Blank(4, 15)
	steady.Digits[3].Char = '7'
	if err := s.SetFrame(steady); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Update(); ok {
		t.Error("steady frame schedules updates")
	}
	if bus.Text(4) != "   7" {
		t.Errorf("shown %q", bus.Text(4))
	}
}

type flakyDisplay struct {
	fail  atomic.Bool
	calls atomic.Int64
	last  atomic.Value
}

func (d *flakyDisplay) Render(f segment.Frame) error {
	d.calls.Add(1)
	if d.fail.Load() {
		return errors.New("display unplugged")
	}
	d.last.Store(f.String())
	return nil
}

// A display that fails is retried every RetryInterval, even with a steady
// frame, until it works again.
func TestSchedulerRetriesDisplay(t *testing.T) {
	fc := clockwork.NewFakeClockAt(t0)
	s := NewScheduler(fc, slog.New(slog.NewTextHandler(io.Discard, nil)))
	d := &flakyDisplay{}
	d.fail.Store(true)
	s.SetDisplay(d)
	f := segment.Blank(4, 5)
	f.Digits[0].Char = '8'
	if err := s.SetFrame(f); err == nil {
		t.Fatal("SetFrame on a failing display returned nil")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	if err := fc.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// Retries while the display fails.
	before := d.calls.Load()
	waitFor(t, "a retry", func() bool {
		fc.Advance(RetryInterval)
		return d.calls.Load() > before+2
	})
	d.fail.Store(false)
	deadline := time.Now().Add(5 * time.Second)
	for d.last.Load() == nil && time.Now().Before(deadline) {
		fc.Advance(RetryInterval)
		time.Sleep(time.Millisecond)
	}
	if got := d.last.Load(); got != "8   " {
		t.Errorf("after retry the display shows %v", got)
	}
	cancel()
	<-done
}
