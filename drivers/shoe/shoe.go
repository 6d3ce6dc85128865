package shoe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sabot-table/sabot/drivers/internal/ctxsleep"
)

// Options configures a Shoe. Zero fields take the defaults given.
type Options struct {
	// Path is the serial device (required). Use a stable name: a
	// /dev/serial/by-id/... or /dev/serial/by-path/... symlink or a udev
	// SYMLINK. The same path is reopened after an unplug, so the adapter may
	// come back as another ttyUSBn.
	Path string
	// Protocol is the shoe's protocol: "sabot" (default), "beetek" or
	// "lines" (see Protocols; Register adds more).
	Protocol string
	// Proto, if set, is used instead of looking Protocol up by name.
	Proto Protocol

	// Line settings. Baud 0 takes the protocol's default (sabot 115200,
	// beetek 9600, lines 9600); DataBits 0 is 8; Parity "" is "none";
	// StopBits "" is "1".
	Baud     int
	DataBits int
	Parity   string
	StopBits string

	// ReadTimeout bounds each read (default 250 ms): the link looks at its
	// timers (heartbeat supervision, write failures) at least this often,
	// and sleeps in between — an idle line costs one read call per
	// ReadTimeout.
	ReadTimeout time.Duration
	// WriteTimeout bounds each write to the shoe (default 1 s); a line that
	// does not take the bytes in time is treated as lost.
	WriteTimeout time.Duration
	// CloseTimeout bounds closing the port (default 2 s): if the kernel or
	// the driver hangs, the port is abandoned and an error logged.
	CloseTimeout time.Duration
	// RetryMin and RetryMax bound the wait between attempts to open a
	// missing or failed device (defaults 250 ms and 5 s); the wait doubles
	// after each failure.
	RetryMin time.Duration
	RetryMax time.Duration
	// HeartbeatTimeout overrides the protocol's heartbeat supervision
	// timeout (sabot protocol; 0: its default).
	HeartbeatTimeout time.Duration
	// Resume is the (boot id, sequence) of the last event the caller had
	// already handled in a previous run, for sequenced protocols.
	Resume Position
	// RS485 is the half-duplex direction control of an RS-485 line
	// (default off; [shoe] rs485 and the rs485_* keys). A kernel RS-485
	// mode the adapter refuses stops Run with an error wrapping ErrRS485.
	RS485 RS485Config

	// Open opens the port (default OpenSerial: flock plus go.bug.st/serial).
	Open OpenFunc
	// Logger receives diagnostics (default slog.Default()).
	Logger *slog.Logger
}

// Defaults for Options.
const (
	DefaultReadTimeout  = 250 * time.Millisecond
	DefaultWriteTimeout = time.Second
	DefaultCloseTimeout = 2 * time.Second
	DefaultRetryMin     = 250 * time.Millisecond
	DefaultRetryMax     = 5 * time.Second
)

// Handler receives the shoe's events, one at a time, in order, on the
// Shoe's reader goroutine. Returning nil means the event is accepted
// (journaled): only then does a protocol with acknowledgements acknowledge
// it. Returning an error wrapping ErrRetryLater refuses the event for now:
// it is not acknowledged and Run goes on (see ErrRetryLater). Returning any
// other error stops Run, which returns that error; the event is not
// acknowledged, so the shoe keeps it for the next run. A Handler may call
// Gate and Indicator.
type Handler func(Event) error

// Shoe is the link to one shoe: it owns the serial port, reopens it after an
// unplug, and delivers the shoe's events to a Handler exactly once and in
// order. Create it with New, then call Run; Close stops it.
type Shoe struct {
	opts  Options
	cfg   PortConfig
	proto Protocol
	log   *slog.Logger
	open  OpenFunc

	mu      sync.Mutex
	cur     *link
	cancel  context.CancelFunc
	closed  bool
	running bool
	done    chan struct{}
	// claimed is the port Claim opened, for Run's first open (nil once
	// Run has taken it, or without Claim).
	claimed Port

	// Reader goroutine only.
	h      Handler
	online int8 // 0 unknown, 1 online, -1 offline

	st engineStats
}

type engineStats struct {
	events, bytes, opens, openErrors, readErrors, timeouts, throttled, offline, writeErrors, refused atomic.Uint64
}

// New checks opts and returns a Shoe that has not opened anything yet.
// Errors name the offending option (config key).
func New(opts Options) (*Shoe, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ReadTimeout == 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.CloseTimeout == 0 {
		opts.CloseTimeout = DefaultCloseTimeout
	}
	if opts.RetryMin == 0 {
		opts.RetryMin = DefaultRetryMin
	}
	if opts.RetryMax == 0 {
		opts.RetryMax = DefaultRetryMax
	}
	if opts.RetryMax < opts.RetryMin {
		opts.RetryMax = opts.RetryMin
	}
	if opts.ReadTimeout < 0 || opts.WriteTimeout < 0 || opts.CloseTimeout < 0 || opts.RetryMin < 0 {
		return nil, errors.New("shoe: timeouts must not be negative")
	}
	proto := opts.Proto
	if proto == nil {
		name := opts.Protocol
		if name == "" {
			name = "sabot"
		}
		info, err := LookupProtocol(name)
		if err != nil {
			return nil, err
		}
		if opts.Baud == 0 {
			opts.Baud = info.DefaultBaud
		}
		proto = info.New(ProtocolConfig{
			Path:             opts.Path,
			Logger:           opts.Logger,
			HeartbeatTimeout: opts.HeartbeatTimeout,
			Resume:           opts.Resume,
		})
	}
	if opts.Baud == 0 {
		opts.Baud = 9600
	}
	cfg := PortConfig{
		Path:         opts.Path,
		Baud:         opts.Baud,
		DataBits:     opts.DataBits,
		Parity:       opts.Parity,
		StopBits:     opts.StopBits,
		ReadTimeout:  opts.ReadTimeout,
		WriteTimeout: opts.WriteTimeout,
		RS485:        opts.RS485,
	}
	if _, err := cfg.mode(); err != nil {
		return nil, err
	}
	open := opts.Open
	if open == nil {
		open = OpenSerial
	}
	return &Shoe{
		opts:  opts,
		cfg:   cfg,
		proto: proto,
		log:   opts.Logger.With("shoe", opts.Path, "protocol", proto.Name()),
		open:  open,
		done:  make(chan struct{}),
	}, nil
}

// Protocol returns the protocol in use.
func (s *Shoe) Protocol() Protocol { return s.proto }

// Claim opens the port now, before Run, so that a device another process
// holds is reported before the caller starts anything that must not run
// twice (sabotd connects to the broker under the table's client id only
// after Claim). Run then uses the port Claim opened, and holds its lock
// from here on. It returns an error wrapping ErrBusy when another process
// (or opener) holds the device; any other open error (the device is
// missing, unplugged) is returned too, but then Run opens the device
// itself and waits for it as usual, so a caller may go on. Claim may be
// called once, before Run; Close releases a claimed port Run never took.
func (s *Shoe) Claim() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.running || s.claimed != nil {
		s.mu.Unlock()
		return errors.New("shoe: Claim after Run or twice")
	}
	s.mu.Unlock()
	port, err := s.open(s.cfg)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.running {
		port.Close()
		return ErrClosed
	}
	s.claimed = port
	return nil
}

// Run opens the port and delivers events to h until Close is called or ctx
// is done (then it returns nil), or h returns an error (then it returns
// that error). The first open failing because another process holds the
// device is returned at once (an error wrapping ErrBusy); a missing device
// is waited for: Run emits KindOffline and retries with capped backoff.
// An adapter that refuses the configured RS-485 mode (an error wrapping
// ErrRS485) is returned at once, on any open: retrying cannot help.
// After an unplug or any read error the port is closed, KindOffline is
// emitted at once (if the shoe was online) and the same path is reopened.
// Run may be called once.
func (s *Shoe) Run(ctx context.Context, h Handler) error {
	if h == nil {
		return errors.New("shoe: Run needs a handler")
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.running {
		s.mu.Unlock()
		return errors.New("shoe: Run called twice")
	}
	s.running = true
	ctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.mu.Unlock()
	defer close(s.done)
	defer cancel()
	s.h = h
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		l := s.cur
		s.mu.Unlock()
		if l != nil {
			s.closeLink(l)
		}
	})
	defer stop()

	emit := s.deliver
	buf := make([]byte, 4096)
	backoff := s.opts.RetryMin
	first := true
	var lastOpenErr string
	for ctx.Err() == nil {
		s.mu.Lock()
		port := s.claimed
		s.claimed = nil
		s.mu.Unlock()
		var err error
		if port == nil {
			port, err = s.open(s.cfg)
		}
		if err != nil {
			s.st.openErrors.Add(1)
			if first && errors.Is(err, ErrBusy) || errors.Is(err, ErrRS485) {
				return err
			}
			first = false
			if msg := err.Error(); msg != lastOpenErr {
				s.log.Warn("shoe: cannot open the device; will keep trying", "err", err, "retry", backoff)
				lastOpenErr = msg
			}
			if err := s.goOffline(err.Error()); err != nil {
				return err
			}
			if !ctxsleep.Sleep(ctx, backoff) {
				return nil
			}
			backoff = min(2*backoff, s.opts.RetryMax)
			continue
		}
		first = false
		lastOpenErr = ""
		backoff = s.opts.RetryMin
		s.st.opens.Add(1)
		l := newLink(s, port)
		s.mu.Lock()
		s.cur = l
		s.mu.Unlock()
		if ctx.Err() != nil { // Close raced with the open
			s.closeLink(l)
			break
		}
		s.log.Info("shoe: port open", "device", describePath(s.cfg.Path), "baud", s.cfg.Baud)
		err = s.serve(ctx, l, emit, buf)
		s.mu.Lock()
		s.cur = nil
		s.mu.Unlock()
		s.closeLink(l)
		s.proto.Disconnect(time.Now())
		var he *handlerError
		if errors.As(err, &he) {
			return he.err
		}
		if ctx.Err() != nil {
			break
		}
		reason := "port closed"
		if err != nil {
			reason = err.Error()
		}
		s.log.Warn("shoe: link lost; reopening", "err", err)
		if err := s.goOffline(reason); err != nil {
			return err
		}
		// Give the device time to go away (or come back) before reopening.
		if !ctxsleep.Sleep(ctx, backoff) {
			break
		}
		backoff = min(2*backoff, s.opts.RetryMax)
	}
	return nil
}

// serve reads from one open port until it fails or ctx is done.
func (s *Shoe) serve(ctx context.Context, l *link, emit Emit, buf []byte) error {
	if err := s.proto.Connect(l.out, time.Now(), emit); err != nil {
		return err
	}
	rt := s.cfg.ReadTimeout
	for {
		start := time.Now()
		n, rerr := l.port.Read(buf)
		now := time.Now()
		if n > 0 {
			s.st.bytes.Add(uint64(n))
			if err := s.proto.Feed(buf[:n], now, emit); err != nil {
				return err
			}
		}
		if werr := l.out.failure(); werr != nil {
			s.st.writeErrors.Add(1)
			return werr
		}
		if rerr != nil {
			if ctx.Err() != nil {
				return nil
			}
			s.st.readErrors.Add(1)
			return fmt.Errorf("shoe: read %s: %w", s.cfg.Path, rerr)
		}
		if n == 0 {
			s.st.timeouts.Add(1)
			// go.bug.st/serial returns (0, nil) only once the timeout has
			// passed; should a port return it at once (a driver that
			// ignores the timeout), sleep the rest rather than spin.
			if el := now.Sub(start); el < rt/2 {
				s.st.throttled.Add(1)
				if !ctxsleep.Sleep(ctx, rt-el) {
					return nil
				}
				now = time.Now()
			}
		}
		if err := s.proto.Tick(now, emit); err != nil {
			return err
		}
	}
}

// deliver is the Emit given to the protocol: it keeps online/offline
// alternating, stamps the time and calls the handler.
func (s *Shoe) deliver(ev Event) error {
	switch ev.Kind {
	case KindOnline:
		if s.online == 1 {
			return nil
		}
		s.online = 1
	case KindOffline:
		if s.online == -1 {
			return nil
		}
		s.online = -1
		s.st.offline.Add(1)
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	if err := s.h(ev); err != nil {
		if !errors.Is(err, ErrRetryLater) {
			return &handlerError{err}
		}
		s.st.refused.Add(1)
		if rd, ok := s.proto.(Redeliverer); ok && rd.Redelivers() && ev.Kind != KindOnline && ev.Kind != KindOffline {
			// Not acknowledged: the shoe sends it again.
			s.log.Warn("shoe: the handler refused an event; it is not acknowledged and will come again", "event", ev.String(), "err", err)
			return &handlerError{err}
		}
		s.log.Error("shoe: the handler refused an event and this protocol cannot ask for it again: event lost", "event", ev.String(), "err", err)
		return nil
	}
	s.st.events.Add(1)
	return nil
}

func (s *Shoe) goOffline(reason string) error {
	if s.online == -1 {
		return nil
	}
	err := s.deliver(Event{Kind: KindOffline, Reason: reason})
	var he *handlerError
	if errors.As(err, &he) {
		return he.err
	}
	return err
}

type handlerError struct{ err error }

func (e *handlerError) Error() string { return e.err.Error() }
func (e *handlerError) Unwrap() error { return e.err }

// Close stops Run: it closes the port (waking a blocked read, bounded by
// CloseTimeout) and waits for Run to return. It is safe to call more than
// once and from any goroutine, but not from the Handler.
func (s *Shoe) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	cancel, running := s.cancel, s.running
	claimed := s.claimed
	s.claimed = nil
	s.mu.Unlock()
	if claimed != nil {
		claimed.Close() // Run never took it
	}
	if !running {
		return nil
	}
	cancel()
	limit := s.opts.CloseTimeout + s.opts.ReadTimeout + time.Second
	select {
	case <-s.done:
		return nil
	case <-time.After(limit):
		return fmt.Errorf("shoe: close %s: reader did not stop within %v", s.cfg.Path, limit)
	}
}

// Gate locks (true) or unlocks (false) the shoe's gate, for shoes with a
// gate solenoid (sabot protocol, CapGate). It returns ErrUnsupported for
// protocols without commands and ErrOffline when the shoe is not connected;
// the protocol remembers the wanted state and sends it again after every
// reconnect or shoe reboot.
func (s *Shoe) Gate(lock bool) error {
	c, ok := s.proto.(Commander)
	if !ok {
		return fmt.Errorf("%w: %s protocol has no gate", ErrUnsupported, s.proto.Name())
	}
	return c.Gate(lock)
}

// Indicator sets the shoe's lamp and beeper (sabot protocol, CapDisplay).
// Errors as for Gate.
func (s *Shoe) Indicator(ind Indicator) error {
	c, ok := s.proto.(Commander)
	if !ok {
		return fmt.Errorf("%w: %s protocol has no indicator", ErrUnsupported, s.proto.Name())
	}
	return c.Indicator(ind)
}

// Stats returns the link's counters plus the protocol's.
func (s *Shoe) Stats() Stats {
	var st Stats
	if ps, ok := s.proto.(Statser); ok {
		st = ps.Stats()
	}
	st.Events = s.st.events.Load()
	st.Bytes = s.st.bytes.Load()
	st.Opens = s.st.opens.Load()
	st.OpenErrors = s.st.openErrors.Load()
	st.ReadErrors = s.st.readErrors.Load()
	st.Timeouts = s.st.timeouts.Load()
	st.Throttled = s.st.throttled.Load()
	st.Offline = s.st.offline.Load()
	st.WriteErrors = s.st.writeErrors.Load()
	st.Refused = s.st.refused.Load()
	return st
}

// link is one open port and its writer.
type link struct {
	s         *Shoe
	port      Port
	out       *outQueue
	closeOnce sync.Once
}

func newLink(s *Shoe, port Port) *link {
	l := &link{s: s, port: port}
	l.out = newOutQueue(port, func() { s.closeLink(l) })
	go l.out.run()
	return l
}

// closeLink closes the port once, bounded by CloseTimeout.
func (s *Shoe) closeLink(l *link) {
	l.closeOnce.Do(func() {
		l.out.close()
		done := make(chan error, 1)
		go func() { done <- l.port.Close() }()
		t := time.NewTimer(s.opts.CloseTimeout)
		defer t.Stop()
		select {
		case err := <-done:
			if err != nil {
				s.log.Debug("shoe: close", "err", err)
			}
		case <-t.C:
			s.log.Error("shoe: the port did not close in time; abandoning it", "timeout", s.opts.CloseTimeout)
		}
	})
}

// maxPending bounds the bytes queued for the shoe.
const maxPending = 64 << 10

// outQueue is the Sender of one link: Send appends to a buffer, a goroutine
// writes it out. No allocation in steady state (two buffers swap).
type outQueue struct {
	port   Port
	onFail func()

	mu      sync.Mutex
	pending []byte
	spare   []byte
	closed  bool
	err     error
	kick    chan struct{}
	stop    chan struct{}
}

func newOutQueue(port Port, onFail func()) *outQueue {
	return &outQueue{
		port:    port,
		onFail:  onFail,
		pending: make([]byte, 0, 512),
		spare:   make([]byte, 0, 512),
		kick:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
	}
}

// Send implements Sender.
func (q *outQueue) Send(p []byte) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return ErrOffline
	}
	if len(q.pending)+len(p) > maxPending {
		q.mu.Unlock()
		return ErrBacklog
	}
	q.pending = append(q.pending, p...)
	q.mu.Unlock()
	select {
	case q.kick <- struct{}{}:
	default:
	}
	return nil
}

func (q *outQueue) run() {
	for {
		select {
		case <-q.kick:
		case <-q.stop:
			return
		}
		for {
			q.mu.Lock()
			if q.closed || len(q.pending) == 0 {
				q.mu.Unlock()
				break
			}
			data := q.pending
			q.pending = q.spare[:0]
			q.spare = data
			q.mu.Unlock()
			if _, err := q.port.Write(data); err != nil {
				q.mu.Lock()
				if !q.closed {
					q.err = fmt.Errorf("shoe: write: %w", err)
				}
				q.closed = true
				q.mu.Unlock()
				go q.onFail() // wakes the reader; not here, closeLink waits for nothing of ours
				return
			}
		}
	}
}

func (q *outQueue) failure() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

func (q *outQueue) close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
	}
	q.mu.Unlock()
	select {
	case <-q.stop:
	default:
		close(q.stop)
	}
}
