// Package sim is Sabot's virtual shoe: it plays the shoe's side of the
// firmware-proto protocol over any byte stream, so hosts (drivers/shoe,
// sabotd, tests) can be exercised without hardware.
//
// A Shoe deals a transcript (the `sabot check` syntax: cards, "|" the coup
// button, "cut" the cut card, "void" the supervisor key, "shoe" a new shoe)
// or a seeded, freshly shuffled shoe (DealShoes), at a configurable pace. It
// behaves like real firmware: HELLO as event 1 of each boot, a ring buffer
// of unacknowledged events, retransmission after a timeout (go-back-N, with
// back-off, boot barrier), NAK handling, HEARTBEAT, and it honours GATE (a locked gate
// holds the next card). It can inject faults, all drawn from generators
// seeded by Options.Seed so a run is reproducible: corrupted bytes,
// dropped, duplicated and split frames, cable pulls, reboots and unreadable
// cards (Faults). Per-card faults (pull, reboot, unreadable) happen at the
// same cards whatever the timing; per-frame faults depend on the sequence of
// frames written, which retransmissions and heartbeats make timing-dependent.
//
// Token to event mapping: a card → CARD; "|" → BUTTON coup (position 1);
// "cut" → CUT_CARD; "void" → BUTTON supervisor key (position 1, void);
// "shoe" → SHOE_STATE with ShoeLoaded|ShoeNew; "dealer ID" → DEALER sign-in
// with that id, "dealer -" → DEALER sign-out (protocol minor version 1,
// CapDealer: the default capabilities include it).
//
// Run returns nil once every token has been dealt and every event has been
// acknowledged by the host.
package sim

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	fwproto "github.com/sabot-table/sabot/firmware-proto"
	"github.com/sabot-table/sabot/tableau"
)

// Link is the shoe's end of a serial connection. Open is called at start
// and again after every cable pull (the shoe closes the connection it had,
// waits Options.PullTime and opens a new one) and after a read or write
// error. Open is called only from Run's goroutine.
type Link interface {
	Open(ctx context.Context) (io.ReadWriteCloser, error)
}

// Stream returns a Link over one fixed stream that cannot be reopened. A
// cable pull on it is simulated as silence: for Options.PullTime nothing is
// written and everything read is discarded. When a read from rw fails
// (io.EOF included) the link is gone and Run returns the error. Close is
// never called on rw, so a Write blocked on a peer that does not read is not
// interrupted when Run's context ends; other Links are closed then.
func Stream(rw io.ReadWriter) Link { return &streamLink{c: &streamConn{rw: rw}} }

type streamLink struct{ c *streamConn }

type streamConn struct {
	rw   io.ReadWriter
	mu   sync.Mutex
	dead error
}

func (c *streamConn) Read(p []byte) (int, error) {
	n, err := c.rw.Read(p)
	if err != nil {
		c.mu.Lock()
		c.dead = err
		c.mu.Unlock()
	}
	return n, err
}
func (c *streamConn) Write(p []byte) (int, error) { return c.rw.Write(p) }
func (c *streamConn) Close() error                { return nil }

func (l *streamLink) Open(context.Context) (io.ReadWriteCloser, error) {
	l.c.mu.Lock()
	defer l.c.mu.Unlock()
	if l.c.dead != nil {
		return nil, fmt.Errorf("sim: stream closed: %w", l.c.dead)
	}
	return l.c, nil
}

// Options configure a Shoe. The zero value deals one seeded 8-deck shoe as
// fast as possible without faults.
type Options struct {
	// Tokens is the transcript to play. If nil, DealShoes(Seed, Decks,
	// Shoes) is dealt.
	Tokens []tableau.Token
	Seed   uint64 // seeds the deal, read quality, UIDs and faults (not boot ids: see BootID)
	// BootID is the first boot's id. 0 (the default) takes a random one
	// (crypto/rand) on every run, as real firmware must (PROTOCOL.md 4.2):
	// two runs of the same seed against the same host are two boots, not
	// a retransmission of one. Set it to make a run's boot ids
	// reproducible (tests); the ids of later boots (Faults.Reboot) are
	// drawn from a generator seeded by it.
	BootID uint32
	Decks  int // decks per shoe for the seeded deal (default 8)
	Shoes  int // shoes for the seeded deal (default 1)

	// Rate is the pace in cards per second; other tokens follow without
	// delay. 0 deals as fast as the ring buffer allows.
	Rate   float64
	Faults Faults

	RingSize          int           // unacknowledged events kept (default fwproto.RingSize, 64)
	RetransmitTimeout time.Duration // first retransmission timeout (default fwproto.RetransmitTimeout, 250 ms); doubles up to 8×
	HeartbeatInterval time.Duration // default fwproto.HeartbeatInterval (1 s)
	PullTime          time.Duration // how long a cable pull lasts (default 200 ms)
	ReopenDelay       time.Duration // wait before reopening after an I/O error (default 100 ms)
	SplitPause        time.Duration // pause between the halves of a split frame (default 2 ms)

	Model, Serial, Firmware string               // HELLO strings (defaults "SABOT-SIM", "SIM-<seed>", "sim-1")
	Caps                    fwproto.Capabilities // default: suit, gate, buttons, display, cut card, persist, dealer badges
	UID                     bool                 // send a 7-byte UID with each card (and set CapUID)
	// BurnButton: turn the burn-mode switch on (BUTTON burn, position 1)
	// right after each new shoe and off (position 0) after the last burn
	// card (the first card plus as many as its value, ten for 10/J/Q/K).
	// These two events have no transcript token (Event.Token -1).
	BurnButton bool

	Logger *slog.Logger // default: discard
}

// Stats counts what a Shoe did. Safe to read while Run is running
// (Shoe.Stats).
type Stats struct {
	Events       int // events created (HELLO included)
	Cards        int // CARD events
	Unreadable   int // CARD_UNREADABLE events (fault)
	Frames       int // frames written (retransmissions and heartbeats included)
	Retransmits  int // event frames written again
	Heartbeats   int
	Acked        int // events removed from the ring by ACKs
	Naks         int // NAKs received
	BadFrames    int // damaged frames received
	Dropped      int // fault: frames not written
	Duplicated   int // fault: frames written twice
	Split        int // fault: frames written in two parts
	CorruptBytes int // fault: bytes corrupted
	Pulls        int // fault: cable pulls
	Reboots      int // fault: reboots
	Reopens      int // connections opened after the first
	Commands     int // host commands received (GATE, INDICATOR, STATUS_REQUEST, TIME_SYNC)
	GateLocked   bool
	Indicator    fwproto.Indicator
	Boot         uint32 // current boot id
	Pending      int    // events in the ring now
	TokensDealt  int
	TokensTotal  int
}

// Event is one event the shoe created, in order: the frame as first sent
// and the index in the transcript of the token it came from (-1 for HELLO).
type Event struct {
	Frame fwproto.Frame
	Token int
}

// Shoe is a virtual shoe. Create it with New; call Run once.
type Shoe struct {
	opts    Options
	tokens  []tableau.Token
	log     *slog.Logger
	faults  *rand.Rand // per-frame and per-byte fault decisions (drop, dup, split, corrupt)
	cardRNG *rand.Rand // per-card fault decisions (pull, reboot, unreadable): independent of timing
	ids     *rand.Rand // read quality, UIDs
	bootIDs *rand.Rand // boot ids after the first

	mu     sync.Mutex
	stats  Stats
	events []Event

	// state owned by Run
	boot, prevBoot uint32
	seq, prevLast  uint32
	lastAcked      uint32
	bootStart      time.Time
	ring           []*entry
	gate           bool
	next           int       // next token
	nextCardAt     time.Time // pace
	rto            time.Duration
	lastHeartbeat  time.Time
	lastGoBack     time.Time
	lastStatus     time.Time
	conn           io.ReadWriteCloser // written under connMu (read by the AfterFunc in Run)
	connMu         sync.Mutex
	connID         int
	up             bool
	reopenAt       time.Time
	in             chan inbound
	quit           chan struct{}
	readers        sync.WaitGroup
	pendingToken   bool // a pull/reboot was already applied to the next card
	burnFirst      bool // BurnButton: the next card is the burn card
	burnLeft       int  // BurnButton: burn cards still to come after the burn card
	burnOn         bool // BurnButton: the switch is on
}

type entry struct {
	boot, seq uint32
	wire      []byte
	sentAt    time.Time
	sent      bool
}

type inbound struct {
	conn   int
	frame  fwproto.Frame
	err    error
	closed bool
}

// New returns a Shoe for opts, or an error for invalid options.
func New(opts Options) (*Shoe, error) {
	if opts.Decks == 0 {
		opts.Decks = 8
	}
	if opts.Shoes == 0 {
		opts.Shoes = 1
	}
	if opts.Rate < 0 || opts.Rate != opts.Rate {
		return nil, fmt.Errorf("sim: rate %v cards/s: want 0 (as fast as possible) or more", opts.Rate)
	}
	if opts.RingSize == 0 {
		opts.RingSize = fwproto.RingSize
	}
	if opts.RingSize < 2 || opts.RingSize > 1024 {
		return nil, fmt.Errorf("sim: ring size %d out of range 2..1024", opts.RingSize)
	}
	if opts.RetransmitTimeout <= 0 {
		opts.RetransmitTimeout = fwproto.RetransmitTimeout
	}
	if opts.HeartbeatInterval <= 0 {
		opts.HeartbeatInterval = fwproto.HeartbeatInterval
	}
	if opts.PullTime <= 0 {
		opts.PullTime = 200 * time.Millisecond
	}
	if opts.ReopenDelay <= 0 {
		opts.ReopenDelay = 100 * time.Millisecond
	}
	if opts.SplitPause <= 0 {
		opts.SplitPause = 2 * time.Millisecond
	}
	if opts.Model == "" {
		opts.Model = "SABOT-SIM"
	}
	if opts.Serial == "" {
		opts.Serial = fmt.Sprintf("SIM-%d", opts.Seed)
	}
	if opts.Firmware == "" {
		opts.Firmware = "sim-1"
	}
	if opts.Caps == 0 {
		opts.Caps = fwproto.CapSuit | fwproto.CapGate | fwproto.CapButtons | fwproto.CapDisplay | fwproto.CapCutCard | fwproto.CapPersist | fwproto.CapDealer
	}
	if opts.UID {
		opts.Caps |= fwproto.CapUID
	}
	for _, f := range []*float64{&opts.Faults.Corrupt, &opts.Faults.Drop, &opts.Faults.Dup, &opts.Faults.Split, &opts.Faults.Pull, &opts.Faults.Reboot, &opts.Faults.Unreadable} {
		if *f < 0 || *f > 1 || *f != *f {
			return nil, fmt.Errorf("sim: fault rate %v is not in [0, 1]", *f)
		}
	}
	toks := opts.Tokens
	if toks == nil {
		var err error
		toks, err = DealShoes(opts.Seed, opts.Decks, opts.Shoes)
		if err != nil {
			return nil, err
		}
	}
	for i, t := range toks {
		if t.Kind == tableau.TokCard && !t.Card.Valid() {
			return nil, fmt.Errorf("sim: token %d (%v): invalid card", i+1, t.Pos)
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Shoe{
		opts:    opts,
		tokens:  toks,
		log:     log,
		faults:  rand.New(rand.NewPCG(opts.Seed, 0xFA017)),
		cardRNG: rand.New(rand.NewPCG(opts.Seed, 0xCA4D)),
		ids:     rand.New(rand.NewPCG(opts.Seed, 0x1D5)),
		rto:     opts.RetransmitTimeout,
	}
	if opts.BootID == 0 {
		var b [12]byte
		if _, err := crand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("sim: random boot id: %w", err)
		}
		s.opts.BootID = binary.LittleEndian.Uint32(b[:])
		if s.opts.BootID == 0 {
			s.opts.BootID = 1
		}
		s.bootIDs = rand.New(rand.NewPCG(binary.LittleEndian.Uint64(b[4:]), 0xB007))
	} else {
		s.bootIDs = rand.New(rand.NewPCG(uint64(opts.BootID), 0xB007))
	}
	s.stats.TokensTotal = len(toks)
	return s, nil
}

// Tokens returns the transcript the shoe deals.
func (s *Shoe) Tokens() []tableau.Token { return s.tokens }

// Stats returns a snapshot of the counters.
func (s *Shoe) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Events returns the events created so far, in order (each Frame is the
// shoe's own copy).
func (s *Shoe) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

func (s *Shoe) count(f func(*Stats)) {
	s.mu.Lock()
	f(&s.stats)
	s.mu.Unlock()
}

func (s *Shoe) clock(now time.Time) uint32 { return uint32(now.Sub(s.bootStart).Milliseconds()) }

// Run plays the shoe over link until every token is dealt and every event
// acknowledged (nil), ctx is done (ctx.Err()), or the link fails for good
// (an error from Link.Open on a Stream). Run must be called once.
func (s *Shoe) Run(ctx context.Context, link Link) error {
	s.in = make(chan inbound, 1024)
	s.quit = make(chan struct{})
	defer func() {
		close(s.quit)
		if s.conn != nil {
			s.conn.Close()
		}
		if !isStream(link) {
			// A Stream cannot be closed: its reader ends when the
			// stream does.
			s.readers.Wait()
		}
	}()
	// A write blocks while the host does not read (a full pty buffer, a
	// synchronous pipe): closing the connection when ctx ends unblocks it.
	stop := context.AfterFunc(ctx, func() {
		s.connMu.Lock()
		c := s.conn
		s.connMu.Unlock()
		if c != nil && !isStreamConn(c) {
			c.Close()
		}
	})
	defer stop()
	if err := s.open(ctx, link, time.Now()); err != nil {
		return err
	}
	s.reboot(time.Now(), false)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		now := time.Now()
		if !s.up && !now.Before(s.reopenAt) {
			if err := s.open(ctx, link, now); err != nil {
				if isStream(link) {
					return err
				}
				s.log.Warn("sim: reopen failed", "err", err)
				s.reopenAt = now.Add(s.opts.ReopenDelay)
			}
		}
		s.service(now)
		// Take what the host sent without blocking.
		for drained := false; !drained; {
			select {
			case m := <-s.in:
				s.handle(m, time.Now())
			default:
				drained = true
			}
		}
		if s.next >= len(s.tokens) && len(s.ring) == 0 {
			return nil
		}
		if s.readyAt(now) <= 0 {
			s.deal(now)
			if err := ctx.Err(); err != nil {
				return err
			}
			continue
		}
		timer.Reset(s.wake(now))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m := <-s.in:
			s.handle(m, time.Now())
		case <-timer.C:
		}
	}
}

func isStream(l Link) bool { _, ok := l.(*streamLink); return ok }

func (s *Shoe) setConn(c io.ReadWriteCloser) {
	s.connMu.Lock()
	s.conn = c
	s.connMu.Unlock()
}

// readyAt is how long until the next token can be dealt (≤ 0: now), or an
// hour if it cannot (no tokens left, ring full, gate locked on a card).
func (s *Shoe) readyAt(now time.Time) time.Duration {
	if s.next >= len(s.tokens) || len(s.ring) >= s.opts.RingSize {
		return time.Hour
	}
	if s.tokens[s.next].Kind == tableau.TokCard {
		if s.gate {
			return time.Hour
		}
		return s.nextCardAt.Sub(now)
	}
	return 0
}

// wake is how long to sleep before something is due.
func (s *Shoe) wake(now time.Time) time.Duration {
	d := s.readyAt(now)
	d = min(d, s.lastHeartbeat.Add(s.opts.HeartbeatInterval).Sub(now))
	if !s.up {
		d = min(d, s.reopenAt.Sub(now))
	}
	if len(s.ring) > 0 && s.up {
		d = min(d, s.ring[0].sentAt.Add(s.rto).Sub(now))
	}
	return max(d, time.Millisecond)
}

// service retransmits and sends heartbeats when due.
func (s *Shoe) service(now time.Time) {
	if !s.up {
		return
	}
	if len(s.ring) > 0 && s.ring[0].sent && now.Sub(s.ring[0].sentAt) >= s.rto {
		s.log.Debug("sim: retransmit timeout", "pending", len(s.ring), "rto", s.rto)
		s.goBack(0, now)
		s.rto = min(s.rto*2, 8*s.opts.RetransmitTimeout)
	}
	if now.Sub(s.lastHeartbeat) >= s.opts.HeartbeatInterval {
		s.lastHeartbeat = now
		flags := fwproto.ShoeLoaded
		if s.gate {
			flags |= fwproto.ShoeGateLocked
		}
		s.send(fwproto.Frame{Boot: s.boot, Msg: &fwproto.Heartbeat{
			Clock: s.clock(now), LastSeq: s.seq, Unacked: uint8(min(len(s.ring), 255)), Flags: flags,
		}})
		s.count(func(st *Stats) { st.Heartbeats++ })
	}
}

// goBack (re)sends every ring entry from index i on, up to the boot
// barrier: events of a newer boot are not sent while events of an older
// boot are unacknowledged (PROTOCOL.md 4.4), so the host sees them in order.
func (s *Shoe) goBack(i int, now time.Time) {
	s.lastGoBack = now
	for _, e := range s.ring[i:] {
		if e.boot != s.ring[0].boot {
			break
		}
		if e.sent {
			s.count(func(st *Stats) { st.Retransmits++ })
		}
		e.sent, e.sentAt = true, now
		s.write(e.wire)
	}
}

// open connects (or reconnects) the link and resends what is pending.
func (s *Shoe) open(ctx context.Context, link Link, now time.Time) error {
	c, err := link.Open(ctx)
	if err != nil {
		return err
	}
	first := s.conn == nil && s.connID == 0
	if c != s.conn {
		s.connID++
		s.setConn(c)
		s.readers.Add(1)
		go s.reader(c, s.connID)
	}
	s.up = true
	if !first {
		s.count(func(st *Stats) { st.Reopens++ })
	}
	s.write([]byte{0}) // end any partial frame the host holds
	if len(s.ring) > 0 {
		s.goBack(0, now)
	}
	return nil
}

func (s *Shoe) reader(c io.ReadWriteCloser, id int) {
	defer s.readers.Done()
	d := fwproto.NewDecoder(c)
	for {
		f, err := d.Decode()
		if errors.Is(err, io.ErrNoProgress) {
			continue // an idle line that reads as (0, nil): keep waiting
		}
		if err != nil && !fwproto.IsFrameError(err) {
			select {
			case s.in <- inbound{conn: id, err: err, closed: true}:
			case <-s.quit:
			}
			return
		}
		m := inbound{conn: id, err: err}
		if err == nil {
			m.frame = fwproto.Clone(f)
		}
		select {
		case s.in <- m:
		case <-s.quit:
			return
		default: // overrun: the frame is lost, as on a UART
		}
	}
}

// down marks the link lost and closes it (for a pull) so the host sees a
// hangup; Open is tried again at reopenAt.
func (s *Shoe) down(now time.Time, wait time.Duration, closeConn bool) {
	s.up = false
	s.reopenAt = now.Add(wait)
	if closeConn && s.conn != nil && !isStreamConn(s.conn) {
		s.conn.Close()
		s.setConn(nil)
	}
}

func isStreamConn(c io.ReadWriteCloser) bool { _, ok := c.(*streamConn); return ok }

func (s *Shoe) handle(m inbound, now time.Time) {
	if m.conn != s.connID {
		return // from a connection we closed
	}
	if !s.up && s.conn != nil && isStreamConn(s.conn) {
		return // a pull simulated as silence: nothing arrives while the cable is out
	}
	if m.closed {
		if s.up {
			s.log.Info("sim: link lost", "err", m.err)
			s.down(now, s.opts.ReopenDelay, true)
		}
		return
	}
	// Frames read before the link went down (a write failed) were
	// received: acknowledgements among them count.
	if m.err != nil {
		s.count(func(st *Stats) { st.BadFrames++ })
		s.log.Debug("sim: damaged frame from host", "err", m.err)
		return
	}
	f := m.frame
	switch msg := f.Msg.(type) {
	case *fwproto.Ack:
		n := 0
		kept := s.ring[:0]
		for _, e := range s.ring {
			if e.boot == f.Boot && e.seq <= msg.Seq {
				n++
				continue
			}
			kept = append(kept, e)
		}
		for i := len(kept); i < len(s.ring); i++ {
			s.ring[i] = nil
		}
		s.ring = kept
		if n > 0 {
			s.rto = s.opts.RetransmitTimeout
			if f.Boot == s.boot && msg.Seq > s.lastAcked {
				s.lastAcked = msg.Seq
			}
			s.count(func(st *Stats) { st.Acked += n; st.Pending = len(s.ring) })
			s.sendHeld(now)
		}
	case *fwproto.Nak:
		s.count(func(st *Stats) { st.Naks++ })
		if msg.Reason != fwproto.NakGap && msg.Reason != fwproto.NakBadFrame {
			s.log.Warn("sim: host refused an event", "boot", f.Boot, "seq", msg.Seq, "reason", msg.Reason)
			return
		}
		i := -1
		if msg.Seq == 0 {
			i = 0
		} else {
			for j, e := range s.ring {
				if e.boot == f.Boot && e.seq == msg.Seq {
					i = j
					break
				}
			}
		}
		holdoff := s.opts.RetransmitTimeout / 4
		if i < 0 {
			// Not held: the host lost track (it restarted, or missed
			// HELLO). Tell it what was acknowledged.
			if now.Sub(s.lastStatus) >= holdoff {
				s.lastStatus = now
				s.sendStatus(now)
			}
			return
		}
		if now.Sub(s.lastGoBack) < holdoff {
			return // already resending; ignore the echo of the same gap
		}
		if len(s.ring) > 0 {
			s.goBack(i, now)
		}
	case *fwproto.Gate:
		s.gate = msg.Lock
		s.ackCommand(f)
		s.count(func(st *Stats) { st.GateLocked = msg.Lock })
	case *fwproto.Indicator:
		s.ackCommand(f)
		ind := *msg
		ind.Ext = nil
		s.count(func(st *Stats) { st.Indicator = ind })
	case *fwproto.StatusRequest:
		s.ackCommand(f)
		s.sendStatus(now)
	case *fwproto.TimeSync:
		s.ackCommand(f)
	default:
		s.log.Debug("sim: ignoring frame from host", "frame", f)
	}
}

func (s *Shoe) ackCommand(f fwproto.Frame) {
	s.count(func(st *Stats) { st.Commands++ })
	if f.Seq != 0 {
		s.send(fwproto.Frame{Boot: s.boot, Msg: &fwproto.Ack{Seq: f.Seq}})
	}
}

func (s *Shoe) hello(last uint32) *fwproto.Hello {
	return &fwproto.Hello{
		Minor: fwproto.Minor, Caps: s.opts.Caps, LastAcked: last, PrevBoot: s.prevBoot, PrevLastSeq: s.prevLast,
		Model: s.opts.Model, Serial: s.opts.Serial, Firmware: s.opts.Firmware,
	}
}

func (s *Shoe) sendStatus(now time.Time) {
	s.send(fwproto.Frame{Boot: s.boot, Msg: s.hello(s.lastAcked)})
	flags := fwproto.ShoeLoaded
	if s.gate {
		flags |= fwproto.ShoeGateLocked
	}
	s.send(fwproto.Frame{Boot: s.boot, Msg: &fwproto.ShoeState{Flags: flags, Clock: s.clock(now)}})
}

// reboot starts a new boot: new boot id, sequence restarts at 1 with HELLO.
// The ring survives (CapPersist): events of the old boot are retransmitted
// with their old boot id, ahead of the new HELLO.
func (s *Shoe) reboot(now time.Time, fault bool) {
	s.prevBoot, s.prevLast = s.boot, s.seq
	if s.boot == 0 {
		s.boot = s.opts.BootID
	} else {
		for {
			b := s.bootIDs.Uint32()
			if b != 0 && b != s.boot {
				s.boot = b
				break
			}
		}
	}
	s.seq, s.lastAcked = 0, 0
	s.bootStart = now
	s.gate = false
	s.rto = s.opts.RetransmitTimeout
	s.count(func(st *Stats) {
		st.Boot = s.boot
		st.GateLocked = false
		if fault {
			st.Reboots++
		}
	})
	if fault && s.up {
		s.write([]byte{0})
		s.goBack(0, now)
	}
	s.event(now, s.hello(0), -1)
}

// event assigns the next sequence number, keeps the event in the ring and
// sends it.
func (s *Shoe) event(now time.Time, msg fwproto.Message, token int) {
	s.seq++
	f := fwproto.Frame{Boot: s.boot, Seq: s.seq, Msg: msg}
	wire, err := fwproto.AppendFrame(nil, f)
	if err != nil { // cannot happen: the shoe builds valid messages
		panic("sim: " + err.Error())
	}
	e := &entry{boot: s.boot, seq: s.seq, wire: wire}
	s.ring = append(s.ring, e)
	s.mu.Lock()
	s.events = append(s.events, Event{Frame: fwproto.Clone(f), Token: token})
	s.stats.Events++
	s.stats.Pending = len(s.ring)
	s.mu.Unlock()
	if s.up && e.boot == s.ring[0].boot {
		e.sent, e.sentAt = true, now
		s.write(wire)
	}
}

// sendHeld sends the events held back by the boot barrier once the older
// boot's events are all acknowledged.
func (s *Shoe) sendHeld(now time.Time) {
	if !s.up {
		return
	}
	for _, e := range s.ring {
		if e.boot != s.ring[0].boot {
			break
		}
		if !e.sent {
			e.sent, e.sentAt = true, now
			s.write(e.wire)
		}
	}
}

// deal plays the next token.
func (s *Shoe) deal(now time.Time) {
	i := s.next
	t := s.tokens[i]
	if t.Kind == tableau.TokCard && !s.pendingToken {
		// Per-card faults happen before the card is drawn.
		s.pendingToken = true
		if roll(s.cardRNG, s.opts.Faults.Reboot) {
			s.log.Info("sim: fault: reboot")
			s.reboot(now, true)
			return // the ring may now be full; deal the card next time
		}
		if roll(s.cardRNG, s.opts.Faults.Pull) {
			s.log.Info("sim: fault: cable pull")
			s.count(func(st *Stats) { st.Pulls++ })
			s.down(now, s.opts.PullTime, true)
		}
	}
	s.pendingToken = false
	s.next++
	s.count(func(st *Stats) { st.TokensDealt = s.next })
	clk := s.clock(now)
	switch t.Kind {
	case tableau.TokShoe:
		s.event(now, &fwproto.ShoeState{Flags: fwproto.ShoeLoaded | fwproto.ShoeNew, Clock: clk}, i)
		if s.opts.BurnButton {
			s.event(now, &fwproto.Button{Button: fwproto.ButtonBurn, Position: 1, Clock: clk}, -1)
			s.burnFirst, s.burnLeft, s.burnOn = true, 0, true
		}
	case tableau.TokMarker:
		s.event(now, &fwproto.Button{Button: fwproto.ButtonCoup, Position: 1, Clock: clk}, i)
	case tableau.TokVoid:
		s.event(now, &fwproto.Button{Button: fwproto.ButtonSupervisor, Position: fwproto.KeyVoid, Clock: clk}, i)
	case tableau.TokStand:
		s.event(now, &fwproto.Button{Button: fwproto.ButtonStand, Position: 1, Clock: clk}, i)
	case tableau.TokCut:
		s.event(now, &fwproto.CutCard{Clock: clk}, i)
	case tableau.TokDealer:
		// A badge at the reader: the dealer's id as the badge stores it.
		m := &fwproto.Dealer{Action: fwproto.DealerSignIn, Clock: clk, ID: t.Dealer}
		if t.Dealer == "" {
			m.Action = fwproto.DealerSignOut
		}
		s.event(now, m, i)
	case tableau.TokCard:
		defer s.burnCount(now, t.Card)
		if s.opts.Rate > 0 {
			s.nextCardAt = now.Add(time.Duration(float64(time.Second) / s.opts.Rate))
		}
		var uid []byte
		if s.opts.UID {
			uid = []byte{0x04, byte(s.ids.Uint32()), byte(s.ids.Uint32()), byte(s.ids.Uint32()), byte(s.ids.Uint32()), byte(i >> 8), byte(i)}
		}
		if roll(s.cardRNG, s.opts.Faults.Unreadable) {
			s.log.Info("sim: fault: unreadable card", "card", t.Card)
			s.count(func(st *Stats) { st.Unreadable++ })
			s.event(now, &fwproto.CardUnreadable{Reason: fwproto.UnreadableNoRead, Clock: clk, UID: uid}, i)
			return
		}
		s.count(func(st *Stats) { st.Cards++ })
		s.event(now, &fwproto.Card{
			Rank: uint8(t.Card.Rank), Suit: fwproto.Suit(t.Card.Suit),
			Quality: uint8(90 + s.ids.IntN(11)), Clock: clk, UID: uid,
		}, i)
	}
}

// burnCount follows the burn after a card is dealt and turns the burn
// switch off after its last card (Options.BurnButton).
func (s *Shoe) burnCount(now time.Time, c tableau.Card) {
	if !s.burnOn {
		return
	}
	if s.burnFirst {
		s.burnFirst = false
		s.burnLeft = c.Value()
		if s.burnLeft == 0 {
			s.burnLeft = 10
		}
		return
	}
	if s.burnLeft--; s.burnLeft == 0 {
		s.burnOn = false
		s.event(now, &fwproto.Button{Button: fwproto.ButtonBurn, Position: 0, Clock: s.clock(now)}, -1)
	}
}

// roll draws one fault decision; a zero rate draws nothing, so enabling
// one fault does not change the decisions of another kind.
func roll(r *rand.Rand, p float64) bool { return p > 0 && r.Float64() < p }

func (s *Shoe) roll(p float64) bool { return roll(s.faults, p) }

// send writes an unsequenced frame (not kept for retransmission).
func (s *Shoe) send(f fwproto.Frame) {
	if !s.up {
		return
	}
	wire, err := fwproto.AppendFrame(nil, f)
	if err != nil {
		panic("sim: " + err.Error())
	}
	s.write(wire)
}

// write writes one frame's bytes, applying the per-frame and per-byte
// faults. A write error takes the link down.
func (s *Shoe) write(wire []byte) {
	if !s.up || s.conn == nil {
		return
	}
	fl := s.opts.Faults
	isFrame := len(wire) > 1
	if isFrame && s.roll(fl.Drop) {
		s.count(func(st *Stats) { st.Dropped++ })
		return
	}
	copies := 1
	if isFrame && s.roll(fl.Dup) {
		copies = 2
		s.count(func(st *Stats) { st.Duplicated++ })
	}
	for range copies {
		b := wire
		if fl.Corrupt > 0 {
			b = append([]byte(nil), wire...)
			n := 0
			for i := range b {
				if s.roll(fl.Corrupt) {
					b[i] ^= byte(1 + s.faults.IntN(255))
					n++
				}
			}
			if n > 0 {
				s.count(func(st *Stats) { st.CorruptBytes += n })
			}
		}
		var err error
		if isFrame && s.roll(fl.Split) {
			cut := 1 + s.faults.IntN(len(b)-1)
			s.count(func(st *Stats) { st.Split++ })
			if _, err = s.conn.Write(b[:cut]); err == nil {
				time.Sleep(s.opts.SplitPause)
				_, err = s.conn.Write(b[cut:])
			}
		} else {
			_, err = s.conn.Write(b)
		}
		if err != nil {
			s.log.Info("sim: write failed; link down", "err", err)
			s.down(time.Now(), s.opts.ReopenDelay, true)
			return
		}
		if isFrame {
			s.count(func(st *Stats) { st.Frames++ })
		}
	}
}
