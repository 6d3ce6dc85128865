package shoe

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(discard{}, nil)) }

// startShoe runs a Shoe in the background; the test's cleanup closes it and
// checks Run's result.
func startShoe(t *testing.T, opts Options) (*Shoe, *recorder, chan error) {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), rec.handle) }()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, rec, done
}

func TestNewOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Path: "/dev/x", Protocol: "morse"}, `protocol = "morse"`},
		{Options{Path: "/dev/x", Protocol: "beetek", Parity: "x"}, "parity"},
		{Options{Protocol: "beetek"}, "no serial device"},
		{Options{Path: "/dev/x", Protocol: "beetek", ReadTimeout: -1}, "negative"},
	} {
		_, err := New(tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opts, err, tc.want)
		}
	}
	s, err := New(Options{Path: "/dev/x", Protocol: "beetek"})
	if err != nil || s.cfg.Baud != 9600 || s.cfg.ReadTimeout != DefaultReadTimeout {
		t.Errorf("beetek defaults: %+v %v", s, err)
	}
}

func TestShoeLinesOverPTY(t *testing.T) {
	p := newPTY(t)
	name := symlinkPath(t)
	p.link(t, name)
	s, rec, _ := startShoe(t, Options{Path: name, Protocol: "lines", ReadTimeout: 50 * time.Millisecond})
	ev := rec.expect(t, "online", 5*time.Second)
	if ev.Info == nil || ev.Info.Protocol != "lines" || ev.Info.Path != name {
		t.Errorf("online info %+v", ev.Info)
	}
	p.master.Write([]byte("4S\r\n10h\n|\n"))
	p.master.Write([]byte("cut\nvoid\n?\nshoe\nbogus\n7"))
	p.master.Write([]byte("\n"))
	for _, want := range []string{"card 4S", "card TH", "button coup pressed", "cut-card", "button void pressed", "unreadable", "button new-shoe pressed", "card 7"} {
		rec.expectSkippingLink(t, want, 5*time.Second)
	}
	// Events are counted once the handler has returned: give the link a
	// moment to get there after the last one.
	st := s.Stats()
	for i := 0; i < 100 && st.Events < 9; i++ {
		time.Sleep(10 * time.Millisecond)
		st = s.Stats()
	}
	if st.Unknown != 1 || st.Opens < 1 || st.Events < 9 {
		t.Errorf("stats %+v", st)
	}
	if err := s.Gate(true); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Gate on lines: %v", err)
	}
}

// Pull the adapter: the shoe goes offline within 1 s; while it is absent
// the link retries with capped backoff (no busy loop); when the same
// symlink comes back (another pty, as a replugged adapter may be another
// ttyUSBn) it reconnects and reads on.
func TestShoeUnplugReplug(t *testing.T) {
	p := newPTY(t)
	name := symlinkPath(t)
	p.link(t, name)
	co := &countingOpen{open: OpenSerial}
	_, rec, _ := startShoe(t, Options{Path: name, Protocol: "lines", ReadTimeout: 50 * time.Millisecond,
		RetryMin: 20 * time.Millisecond, RetryMax: 160 * time.Millisecond, Open: co.Open})
	rec.expect(t, "online", 5*time.Second)
	p.master.Write([]byte("AS\n"))
	rec.expectSkippingLink(t, "card AS", 5*time.Second)

	pulled := time.Now()
	p.unplug() // removes the by-id link first, as udev does
	ev := rec.next(t, 5*time.Second)
	if ev.Kind != KindOffline || ev.Reason == "" {
		t.Fatalf("got %v, want offline", ev)
	}
	if d := ev.Time.Sub(pulled); d > time.Second {
		t.Errorf("offline reported %v after the pull, want within 1 s", d)
	}
	opens0, _, _ := co.counts()
	absent := 1500 * time.Millisecond
	time.Sleep(absent)
	opens1, fails, _ := co.counts()
	// Backoff 20, 40, 80, 160, 160 ... ms: about 12 attempts in 1.5 s.
	if n := opens1 - opens0; n < 3 || n > 20 {
		t.Errorf("%d open attempts while absent for %v; want a handful (capped backoff, no busy loop)", n, absent)
	}
	if fails < 3 {
		t.Errorf("only %d failed opens", fails)
	}

	q := newPTY(t)
	q.link(t, name)
	rec.expect(t, "online", 5*time.Second)
	q.master.Write([]byte("2D\n"))
	rec.expectSkippingLink(t, "card 2D", 5*time.Second)
	time.Sleep(100 * time.Millisecond)
	for len(rec.ch) > 0 {
		if ev := <-rec.ch; ev.Kind != KindOnline && ev.Kind != KindOffline {
			t.Fatalf("unexpected event %v", ev)
		}
	}
}

// A missing device at start: offline is reported, and the shoe is picked up
// when it appears.
func TestShoeMissingAtStart(t *testing.T) {
	name := symlinkPath(t)
	_, rec, _ := startShoe(t, Options{Path: name, Protocol: "beetek", ReadTimeout: 50 * time.Millisecond,
		RetryMin: 10 * time.Millisecond, RetryMax: 50 * time.Millisecond})
	ev := rec.next(t, 5*time.Second)
	if ev.Kind != KindOffline || !strings.Contains(ev.Reason, "no such file") {
		t.Fatalf("first event %v, want offline (no such file)", ev)
	}
	time.Sleep(200 * time.Millisecond)
	p := newPTY(t)
	p.link(t, name)
	rec.expect(t, "online", 5*time.Second)
	p.master.Write([]byte(" [Game]<Card:S4> "))
	rec.expectSkippingLink(t, "card 4S", 5*time.Second)
}

// A second sabotd on the same shoe: Run fails at once with ErrBusy.
func TestShoeBusy(t *testing.T) {
	p := newPTY(t)
	holder, err := OpenSerial(ptyConfig(p.dev))
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	s, err := New(Options{Path: p.dev, Protocol: "beetek", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Run(context.Background(), func(Event) error { return nil })
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("Run: %v, want ErrBusy", err)
	}
}

// An idle line costs one read per ReadTimeout, never a spin.
func TestShoeIdleNoBusyLoop(t *testing.T) {
	p := newPTY(t)
	co := &countingOpen{open: OpenSerial}
	s, rec, _ := startShoe(t, Options{Path: p.dev, Protocol: "beetek", ReadTimeout: 50 * time.Millisecond, Open: co.Open})
	rec.expect(t, "online", 5*time.Second)
	_, _, r0 := co.counts()
	cpu0 := cpuTime(t)
	time.Sleep(time.Second)
	cpu := cpuTime(t) - cpu0
	_, _, r1 := co.counts()
	// The whole test process (the link, the test, the race detector)
	// stays near idle: a spinning reader would burn the full second.
	if cpu > 150*time.Millisecond {
		t.Errorf("%v of CPU in 1 s of an idle line", cpu)
	}
	t.Logf("idle line: %v CPU in 1 s", cpu)
	// 1 s / 50 ms = 20 reads; allow for scheduling.
	if n := r1 - r0; n < 5 || n > 30 {
		t.Errorf("%d reads on an idle line in 1 s with a 50 ms timeout; want about 20", n)
	}
	if st := s.Stats(); st.Timeouts < 5 || st.Throttled != 0 {
		t.Errorf("stats %+v", st)
	}
}

// fakePort is a Port whose behaviour the test scripts.
type fakePort struct {
	reads      atomic.Int64
	readZero   bool          // Read returns (0, nil) at once: a misbehaving driver
	closing    chan struct{} // closed when Close starts
	closeBlock bool          // Close never returns
	writeErr   error
}

func newFakePort() *fakePort { return &fakePort{closing: make(chan struct{})} }

func (f *fakePort) Read(b []byte) (int, error) {
	f.reads.Add(1)
	if f.readZero {
		select {
		case <-f.closing:
			return 0, errors.New("fake: closed")
		default:
			return 0, nil
		}
	}
	<-f.closing
	return 0, errors.New("fake: closed")
}

func (f *fakePort) Write(b []byte) (int, error) {
	if f.writeErr != nil {
		return 0, f.writeErr
	}
	return len(b), nil
}

func (f *fakePort) Close() error {
	select {
	case <-f.closing:
	default:
		close(f.closing)
	}
	if f.closeBlock {
		select {}
	}
	return nil
}

// A port that returns (0, nil) at once, however often it is read, does not
// make the link spin: it sleeps out the read timeout.
func TestShoeThrottlesEarlyEmptyReads(t *testing.T) {
	fp := newFakePort()
	fp.readZero = true
	s, rec, _ := startShoe(t, Options{Path: "/dev/fake", Protocol: "beetek", ReadTimeout: 50 * time.Millisecond,
		Open: func(PortConfig) (Port, error) { return fp, nil }})
	rec.expect(t, "online", 5*time.Second)
	r0 := fp.reads.Load()
	time.Sleep(500 * time.Millisecond)
	if n := fp.reads.Load() - r0; n > 15 {
		t.Errorf("%d reads in 500 ms from a port returning at once; want ≤ 15 (one per 50 ms)", n)
	}
	if st := s.Stats(); st.Throttled == 0 {
		t.Errorf("no throttled reads counted: %+v", st)
	}
}

// Close wakes a reader blocked with a long timeout.
func TestShoeCloseWakesReader(t *testing.T) {
	p := newPTY(t)
	s, err := New(Options{Path: p.dev, Protocol: "beetek", ReadTimeout: time.Hour, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), rec.handle) }()
	rec.expect(t, "online", 5*time.Second)
	time.Sleep(50 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run still blocked after Close")
	}
	if evs := rec.events(); len(evs) != 1 {
		t.Errorf("events %v; closing must not report offline", evs)
	}
}

// A port whose Close hangs (a driver waiting for output to drain) does not
// hang Shoe.Close: it gives up after CloseTimeout.
func TestShoeCloseBounded(t *testing.T) {
	fp := newFakePort()
	fp.closeBlock = true
	s, err := New(Options{Path: "/dev/fake", Protocol: "beetek", ReadTimeout: time.Hour, CloseTimeout: 100 * time.Millisecond,
		Logger: quietLogger(), Open: func(PortConfig) (Port, error) { return fp, nil }})
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), rec.handle) }()
	rec.expect(t, "online", 5*time.Second)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung on a port that does not close")
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
}

// A handler error stops Run and is returned as is.
func TestShoeHandlerErrorStops(t *testing.T) {
	p := newPTY(t)
	s, err := New(Options{Path: p.dev, Protocol: "lines", ReadTimeout: 50 * time.Millisecond, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	errJournal := errors.New("journal full")
	var got []string
	done := make(chan error, 1)
	go func() {
		done <- s.Run(context.Background(), func(ev Event) error {
			got = append(got, ev.String())
			if ev.Kind == KindCard {
				return errJournal
			}
			return nil
		})
	}()
	time.Sleep(100 * time.Millisecond)
	p.master.Write([]byte("3C\n4C\n"))
	select {
	case err := <-done:
		if !errors.Is(err, errJournal) {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop")
	}
	if strings.Join(got, ",") != "online,card 3C" {
		t.Errorf("events %q", got)
	}
}

// A write that fails (the line is gone) closes the link and reopens it.
func TestShoeWriteFailureReconnects(t *testing.T) {
	var opens atomic.Int64
	fp := newFakePort()
	fp.writeErr = errors.New("fake: EIO")
	proto := &sendOnConnect{Lines: NewLines(ProtocolConfig{Logger: quietLogger()})}
	s, rec, _ := startShoe(t, Options{Path: "/dev/fake", Proto: proto, ReadTimeout: time.Hour, RetryMin: time.Millisecond,
		Open: func(PortConfig) (Port, error) {
			if opens.Add(1) == 1 {
				return fp, nil
			}
			return newFakePort(), nil
		}})
	rec.expect(t, "online", 5*time.Second)
	ev := rec.next(t, 5*time.Second)
	if ev.Kind != KindOffline || !strings.Contains(ev.Reason, "fake: EIO") {
		t.Fatalf("got %v, want offline naming the write error", ev)
	}
	rec.expect(t, "online", 5*time.Second)
	if st := s.Stats(); st.WriteErrors != 1 || st.Opens != 2 {
		t.Errorf("stats %+v", st)
	}
}

type sendOnConnect struct{ *Lines }

func (p *sendOnConnect) Connect(out Sender, now time.Time, emit Emit) error {
	if err := p.Lines.Connect(out, now, emit); err != nil {
		return err
	}
	return out.Send([]byte("hello shoe\n"))
}

// cpuTime is the CPU time (user + system) this process has used.
func cpuTime(t *testing.T) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
