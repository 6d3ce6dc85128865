package shoe

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	fwproto "github.com/sabot-table/sabot/firmware-proto"
	"github.com/sabot-table/sabot/tableau/card"
)

func init() {
	Register(ProtocolInfo{
		Name:        "sabot",
		Summary:     "Sabot firmware protocol (framed, acknowledged, with gate)",
		DefaultBaud: 115200,
		Markers:     true,
		Gate:        true,
		// Every byte value occurs in a frame: 8 data bits are needed.
		Check: func(l LineSettings) *SettingError {
			if l.DataBits != 8 {
				return &SettingError{"data_bits", fmt.Sprintf("%d: the sabot protocol's frames are binary and need 8 data bits", l.DataBits)}
			}
			return nil
		},
		New: func(cfg ProtocolConfig) Protocol { return NewSabot(cfg) },
	})
}

// Host-side timing of the sabot protocol.
const (
	// commandRetry is how long a command (GATE, INDICATOR) first waits
	// for the shoe's ACK before it is sent again; the wait doubles on each
	// resend up to commandRetryMax (PROTOCOL.md 4.7: 250 ms, up to 2 s).
	commandRetry    = fwproto.RetransmitTimeout
	commandRetryMax = 2 * time.Second
	// nakInterval is the least time between two identical NAKs, so a
	// burst of damaged bytes does not make a storm of retransmissions.
	nakInterval = 50 * time.Millisecond
	// renakInterval: while events are known to be missing and none
	// arrives, the gap is NAKed again this often (a NAK can be lost or
	// ignored too), rather than waiting for the shoe's retransmission
	// timeout, which backs off to seconds.
	renakInterval = 100 * time.Millisecond
	// waitTimeout bounds a Wait (a HELLO repeated for a boot of which
	// events were delivered): the shoe sends a HEARTBEAT every second, and
	// if none has come after this long the HELLO is taken for a
	// retransmission.
	waitTimeout = 3 * fwproto.HeartbeatInterval
)

// AlarmSequence is the Alarm.Code of the alarm the sabot protocol raises
// when a shoe's event sequence restarts under a boot id already seen
// (baccarat.AlertShoeSequence, whose text it is: a test pins the two
// together, so the driver need not import the rules engine).
const AlarmSequence = "shoe-sequence"

// Sabot is the host side of the firmware-proto protocol (PROTOCOL.md in
// firmware-proto): frames are decoded with fwproto's Decoder, and
// fwproto.Receiver applies the reliability rules, so that each (boot id,
// sequence) event is delivered exactly once and in order.
//
//   - Handshake: on every (re)open the host sends STATUS_REQUEST; the shoe's
//     HELLO (sequence 1 of a boot, or sequence 0 in reply) brings it online
//     (KindOnline with Info).
//   - Every event is acknowledged, after the Handler accepted it; one the
//     Handler refuses (ErrRetryLater) is not, and the shoe's retransmission
//     is offered again (events after it are dropped unacknowledged, without
//     NAK, until it is accepted);
//     duplicates are acknowledged again and dropped; an event after a gap is
//     dropped and the gap NAKed; a damaged frame is NAKed (at most one NAK
//     per 50 ms) so the shoe resends without waiting for its timeout.
//   - Supervision: no valid frame for HeartbeatTimeout (default
//     fwproto.HostTimeout, 3 s: three missed heartbeats) emits KindOffline;
//     the next valid frame of the same boot brings it back online.
//   - A shoe reboot (a HELLO with a new boot id) emits KindOffline then
//     KindOnline; events the shoe lost in the reboot are reported as an
//     alarm with Code "lost-events".
//   - A sequence restarting under a boot id already seen (a HELLO again
//     after events of its boot, then a HEARTBEAT whose last sequence or
//     clock went back; fwproto.Wait and Restart) is an alarm with Code
//     AlarmSequence, then KindOffline and KindOnline as for a reboot, and
//     the new sequence is delivered from its HELLO: nothing is dropped as
//     a duplicate. The boot's events wait unacknowledged meanwhile (at most
//     a heartbeat interval; waitTimeout 3 s without one takes the HELLO for
//     a retransmission).
//   - GATE and INDICATOR (Commander) are acknowledged by the shoe and sent
//     again until they are; the wanted state is sent again after every
//     reconnect and reboot.
type Sabot struct {
	log       *slog.Logger
	path      string
	hbTimeout time.Duration

	// Reader goroutine state.
	frame         []byte // encoded bytes of the frame being received
	over          bool   // the frame being received is too long
	offset        int64  // stream bytes fed since Connect
	rd            feedReader
	dec           *fwproto.Decoder
	rx            fwproto.Receiver
	online        bool
	lastRx        time.Time
	lastNak       time.Time
	lastNakOf     [2]uint32         // reason, sequence of the last NAK sent
	missing       bool              // the shoe has sent events we have not got yet
	badEvent      [2]uint32         // boot, sequence of the last malformed event reported
	uids          map[string]string // raw UID bytes → hex string
	versionWarned bool              // logged that the shoe speaks another protocol version
	burn          bool              // the shoe's burn-mode switch is on
	infoBoot      uint32
	info          *Info
	reported      bool // KindOffline reported for the current silence
	// refused: the Handler refused the last event offered (ErrRetryLater)
	// and no event was delivered since: later events of the boot are
	// dropped without NAK, so the shoe resends at its own backed-off pace
	// (up to 2 s), not at once, while the handler cannot take them.
	refused bool
	// waitSince: since when the Receiver holds a boot's events because its
	// HELLO came again (zero: not waiting).
	waitSince time.Time

	// Shared with Commander callers.
	mu        sync.Mutex
	out       Sender
	enc       *fwproto.Encoder
	encErr    error
	caps      fwproto.Capabilities
	helloSeen bool
	boot      uint32
	cmdSeq    uint32
	gate      command
	indicator command
	status    command
	ackMsg    fwproto.Ack
	nakMsg    fwproto.Nak

	badFrames, duplicates, gaps, unknown atomic.Uint64
}

// command is the state of one kind of host command.
type command struct {
	msg    fwproto.Message // the wanted state; nil: none
	seq    uint32
	acked  bool
	sentAt time.Time
	wait   time.Duration // before the next resend
}

// NewSabot returns the host side of the sabot protocol (also available as
// protocol "sabot").
func NewSabot(cfg ProtocolConfig) *Sabot {
	lg := cfg.Logger
	if lg == nil {
		lg = slog.Default()
	}
	s := &Sabot{
		log:       lg,
		path:      cfg.Path,
		hbTimeout: cfg.HeartbeatTimeout,
		frame:     make([]byte, 0, fwproto.MaxWireLen),
	}
	if s.hbTimeout <= 0 {
		s.hbTimeout = fwproto.HostTimeout
	}
	s.dec = fwproto.NewDecoder(&s.rd)
	s.enc = fwproto.NewEncoder(sabotWriter{s})
	if cfg.Resume.BootID != 0 {
		s.rx.Restore(cfg.Resume.BootID, cfg.Resume.Seq)
	}
	return s
}

// feedReader hands the Decoder exactly one delimited frame at a time.
type feedReader struct{ p []byte }

var errNoFrame = errors.New("shoe: internal: decoder read past a frame")

func (r *feedReader) Read(b []byte) (int, error) {
	if len(r.p) == 0 {
		return 0, errNoFrame
	}
	n := copy(b, r.p)
	r.p = r.p[n:]
	return n, nil
}

// sabotWriter sends the Encoder's bytes through the current Sender; it is
// used with Sabot.mu held.
type sabotWriter struct{ s *Sabot }

func (w sabotWriter) Write(p []byte) (int, error) {
	if w.s.out == nil {
		return 0, ErrOffline
	}
	if err := w.s.out.Send(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Name implements Protocol.
func (s *Sabot) Name() string { return "sabot" }

// Stats implements Statser.
func (s *Sabot) Stats() Stats {
	return Stats{
		BadFrames:  s.badFrames.Load(),
		Duplicates: s.duplicates.Load(),
		Gaps:       s.gaps.Load(),
		Unknown:    s.unknown.Load(),
	}
}

// Connect implements Protocol: it starts the handshake (STATUS_REQUEST).
func (s *Sabot) Connect(out Sender, now time.Time, emit Emit) error {
	s.frame, s.over, s.offset = s.frame[:0], false, 0
	s.online, s.reported, s.missing, s.versionWarned = false, false, false, false
	s.lastRx = now
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = out
	// A 0x00 first ends any partial frame the shoe holds from before.
	if err := out.Send([]byte{0}); err != nil {
		return err
	}
	s.status = command{}
	return s.sendCommandLocked(&s.status, &fwproto.StatusRequest{}, now)
}

// Disconnect implements Protocol.
func (s *Sabot) Disconnect(now time.Time) {
	s.online = false
	s.frame, s.over = s.frame[:0], false
	s.mu.Lock()
	s.out = nil
	s.mu.Unlock()
}

// Feed implements Protocol.
func (s *Sabot) Feed(p []byte, now time.Time, emit Emit) error {
	for len(p) > 0 {
		i := bytes.IndexByte(p, 0)
		if i < 0 {
			s.take(p)
			return nil
		}
		s.take(p[:i])
		s.offset++
		p = p[i+1:]
		if len(s.frame) == 0 && !s.over {
			continue // an empty frame: a bare delimiter
		}
		if err := s.frameDone(now, emit); err != nil {
			return err
		}
	}
	return nil
}

func (s *Sabot) take(p []byte) {
	s.offset += int64(len(p))
	if room := fwproto.MaxEncodedLen - len(s.frame); len(p) > room {
		s.over = true
		p = p[:max(room, 0)]
	}
	s.frame = append(s.frame, p...)
}

// frameDone decodes and handles the frame held in s.frame.
func (s *Sabot) frameDone(now time.Time, emit Emit) error {
	defer func() { s.frame, s.over = s.frame[:0], false }()
	if s.over {
		s.badFrames.Add(1)
		s.log.Debug("shoe: sabot: frame too long", "device", s.path, "offset", s.offset)
		s.nak(fwproto.Frame{Boot: s.rx.Current(), Msg: &fwproto.Nak{Reason: fwproto.NakBadFrame}}, now)
		return nil
	}
	s.frame = append(s.frame, 0)
	s.rd.p = s.frame
	f, err := s.dec.Decode()
	s.rd.p = nil
	if err != nil {
		if !fwproto.IsFrameError(err) {
			// Cannot happen (one whole frame per Decode); start afresh.
			s.log.Error("shoe: sabot: decoder", "err", err)
			s.dec = fwproto.NewDecoder(&s.rd)
			return nil
		}
		return s.damaged(err, now, emit)
	}
	s.lastRx = now
	s.reported = false
	v := s.rx.Receive(f)
	if !s.online && f.Type() != fwproto.TypeHello && s.info != nil && f.Boot == s.infoBoot {
		// The shoe we knew is talking again (after a reconnect or a
		// silence): back online.
		if err := s.goOnline(now, emit, 0, 0); err != nil {
			return err
		}
	}
	if _, waiting := s.rx.Waiting(); !waiting {
		s.waitSince = time.Time{}
	}
	switch v.Action {
	case fwproto.Info:
		s.reply(v.Reply) // an ACK when a Wait ended in a retransmission
		return s.info0(f, now, emit)
	case fwproto.Wait:
		if s.waitSince.IsZero() {
			s.waitSince = now
			last, _ := s.rx.Last(f.Boot)
			s.log.Debug("shoe: sabot: HELLO again for a boot already delivered up to an event; its events wait for the next heartbeat to tell a retransmission from a restarted sequence",
				"device", s.path, "boot", fmt.Sprintf("%#08x", f.Boot), "last", last)
		}
	case fwproto.Restart:
		return s.restart(f, v, now, emit)
	case fwproto.Deliver:
		s.missing = false
		if err := s.deliver(f, v.Lost, now, emit); err != nil {
			if errors.Is(err, ErrRetryLater) {
				// Not accepted: no ACK, and the Receiver forgets it, so
				// the shoe's retransmission is delivered.
				s.rx.Retract()
				s.refused = true
				return nil
			}
			return err
		}
		s.refused = false
		s.reply(v.Reply)
	case fwproto.Duplicate:
		s.duplicates.Add(1)
		s.reply(v.Reply)
	case fwproto.Gap, fwproto.Hold:
		s.gaps.Add(1)
		if s.refused {
			return nil // the refused event comes first, at the shoe's pace
		}
		s.missing = true
		s.nak(v.Reply, now)
	}
	return nil
}

// restart handles a sequence that restarted under a boot id already seen:
// an alarm, offline (as for a reboot), and a NAK of sequence 1 so the shoe
// sends its HELLO and what follows again, now delivered as a new boot.
func (s *Sabot) restart(f fwproto.Frame, v fwproto.Verdict, now time.Time, emit Emit) error {
	text := fmt.Sprintf("the shoe's event sequence restarted under boot id %#08x after event %d had been delivered (the boot id is not new at each boot): its events are taken again from its HELLO, as after a reboot", f.Boot, v.Prior)
	s.log.Error("shoe: sabot: "+text, "device", s.path)
	if err := emit(Event{Kind: KindAlarm, Alarm: Alarm{Code: AlarmSequence, Text: text}, Time: now}); err != nil {
		if errors.Is(err, ErrRetryLater) {
			s.rx.Retract() // decided again at the next heartbeat
			return nil
		}
		return err
	}
	s.missing = false
	if s.online {
		s.online = false
		if err := emit(Event{Kind: KindOffline, Reason: fmt.Sprintf("shoe restarted (the sequence of boot id %#08x started again)", f.Boot), Time: now}); err != nil {
			return err
		}
	}
	s.lastNakOf = [2]uint32{}
	s.nak(v.Reply, now)
	return nil
}

// Redelivers implements Redeliverer: an event the Handler refuses is not
// acknowledged; the shoe sends it again.
func (s *Sabot) Redelivers() bool { return true }

// damaged handles a frame the decoder rejected.
func (s *Sabot) damaged(err error, now time.Time, emit Emit) error {
	v := s.rx.Damaged(err)
	switch v.Action {
	case fwproto.Skip:
		// A sequenced event of a type this host does not know (a newer
		// shoe): acknowledged and skipped.
		s.unknown.Add(1)
		s.log.Warn("shoe: sabot: skipping an event of unknown type", "device", s.path, "err", err)
		s.reply(v.Reply)
	case fwproto.Duplicate:
		s.duplicates.Add(1)
		s.reply(v.Reply)
	case fwproto.Gap:
		s.gaps.Add(1)
		s.nak(v.Reply, now)
	case fwproto.Damaged:
		s.badFrames.Add(1)
		s.missing = true
		if errors.Is(err, fwproto.ErrVersion) && !s.versionWarned {
			// A good CRC but another major version: not line noise
			// (PROTOCOL.md 5: a receiver SHOULD report it).
			s.versionWarned = true
			s.log.Error("shoe: sabot: the shoe speaks another version of the protocol; its frames are dropped", "device", s.path, "err", err)
		} else {
			s.log.Debug("shoe: sabot: damaged frame", "device", s.path, "err", err)
		}
		var fe *fwproto.FrameError
		if errors.As(err, &fe) && errors.Is(err, fwproto.ErrBadPayload) {
			// A malformed event (a firmware bug; PROTOCOL.md 4.5):
			// NAK(bad payload) and an alert — once per event, however
			// often the shoe sends it again.
			s.reply(v.Reply)
			if key := [2]uint32{fe.Boot, fe.Seq}; key != s.badEvent {
				s.log.Error("shoe: sabot: the shoe sent a malformed event", "device", s.path, "err", err)
				err := emit(Event{Kind: KindAlarm, Alarm: Alarm{Code: "bad-event", Text: err.Error()}, Time: now})
				if errors.Is(err, ErrRetryLater) {
					return nil // reported when the shoe sends it again
				}
				if err == nil {
					s.badEvent = key
				}
				return err
			}
			return nil
		}
		s.nak(v.Reply, now)
	}
	return nil
}

// info0 handles an unsequenced frame.
func (s *Sabot) info0(f fwproto.Frame, now time.Time, emit Emit) error {
	switch m := f.Msg.(type) {
	case *fwproto.Hello: // reply to STATUS_REQUEST
		if s.online && s.infoBoot != 0 && f.Boot != s.infoBoot {
			// A boot we have not had its HELLO event from: the shoe
			// rebooted. Learning it here would make that event (sequence
			// 1 of the new boot, sent until acknowledged) look like the
			// same boot's, and the reboot would go unreported (its
			// offline and online); that event reports it.
			return nil
		}
		s.learn(f.Boot, m)
		if !s.online {
			return s.goOnline(now, emit, 0, 0)
		}
	case *fwproto.Heartbeat:
		// The shoe has assigned events we have not seen: ask for them now
		// rather than at its retransmission timeout.
		if last, ok := s.rx.Last(f.Boot); ok && !s.refused && f.Boot == s.rx.Current() && m.LastSeq > last && m.Unacked > 0 {
			s.missing = true
			s.nak(fwproto.Frame{Boot: f.Boot, Msg: &fwproto.Nak{Seq: last + 1, Reason: fwproto.NakGap}}, now)
		}
	case *fwproto.Ack: // the shoe acknowledges one of our commands
		s.mu.Lock()
		for _, c := range []*command{&s.gate, &s.indicator, &s.status} {
			if c.msg != nil && c.seq == m.Seq {
				c.acked = true
			}
		}
		s.mu.Unlock()
	case *fwproto.Nak:
		s.log.Warn("shoe: sabot: the shoe refused a command", "device", s.path, "seq", m.Seq, "reason", m.Reason)
	}
	return nil
}

// learn records what a HELLO says about the shoe.
func (s *Sabot) learn(boot uint32, m *fwproto.Hello) {
	s.infoBoot = boot
	s.info = &Info{
		Protocol: "sabot", Path: s.path,
		Model: m.Model, Serial: m.Serial, Firmware: m.Firmware,
		BootID: boot, ProtoVersion: fwproto.Version, Caps: Caps(m.Caps),
	}
	s.mu.Lock()
	newBoot := s.boot != boot
	s.caps, s.helloSeen, s.boot = m.Caps, true, boot
	if newBoot {
		s.burn = false
	}
	// The shoe may have rebooted or lost power while we were away: send
	// the wanted gate and indicator states again.
	now := time.Now()
	if s.gate.msg != nil && m.Caps&fwproto.CapGate != 0 {
		_ = s.sendCommandLocked(&s.gate, s.gate.msg, now)
	}
	if s.indicator.msg != nil && m.Caps&fwproto.CapDisplay != 0 {
		_ = s.sendCommandLocked(&s.indicator, s.indicator.msg, now)
	}
	if m.Caps&fwproto.CapTimeSync != 0 {
		// Unacknowledged is fine: the next HELLO sends it again.
		var ts command
		_ = s.sendCommandLocked(&ts, &fwproto.TimeSync{UnixMS: now.UnixMilli()}, now)
	}
	s.mu.Unlock()
}

func (s *Sabot) goOnline(now time.Time, emit Emit, boot, seq uint32) error {
	s.online = true
	info := *s.info
	return emit(Event{Kind: KindOnline, Info: &info, BootID: boot, Seq: seq, Time: now})
}

// deliver turns the next event of a boot into an Event for the Handler.
func (s *Sabot) deliver(f fwproto.Frame, lost uint32, now time.Time, emit Emit) error {
	ev := Event{BootID: f.Boot, Seq: f.Seq, Time: now}
	switch m := f.Msg.(type) {
	case *fwproto.Card:
		ev.Kind = KindCard
		ev.Card = card.Card{Rank: card.Rank(m.Rank), Suit: card.Suit(m.Suit), UID: s.uid(m.UID)}
		ev.Quality, ev.ShoeClock, ev.Burn = m.Quality, m.Clock, s.burn
	case *fwproto.CardUnreadable:
		ev.Kind = KindUnreadable
		ev.Card.UID = s.uid(m.UID)
		ev.ShoeClock, ev.Burn = m.Clock, s.burn
	case *fwproto.Button:
		ev.Kind, ev.ShoeClock, ev.Pressed = KindButton, m.Clock, m.Position == 1
		switch m.Button {
		case fwproto.ButtonCoup:
			ev.Button = ButtonCoup
		case fwproto.ButtonBurn:
			ev.Button = ButtonBurn
			s.burn = ev.Pressed
		case fwproto.ButtonSupervisor:
			ev.Button, ev.Pressed = ButtonVoid, m.Position == fwproto.KeyVoid
		case fwproto.ButtonStand:
			ev.Button = ButtonStand
		default:
			s.unknown.Add(1)
			s.log.Warn("shoe: sabot: unknown button; event acknowledged and skipped", "device", s.path, "button", m.Button, "seq", f.Seq)
			return nil
		}
	case *fwproto.CutCard:
		ev.Kind, ev.ShoeClock = KindCutCard, m.Clock
	case *fwproto.ShoeState:
		ev.Kind, ev.ShoeClock, ev.State = KindState, m.Clock, State(m.Flags)
	case *fwproto.Alarm:
		ev.Kind, ev.ShoeClock = KindAlarm, m.Clock
		ev.Alarm = Alarm{Code: strconv.Itoa(int(m.Code)), Text: m.Text}
	case *fwproto.Dealer:
		ev.Kind, ev.ShoeClock = KindDealer, m.Clock
		switch m.Action {
		case fwproto.DealerSignIn:
			ev.Dealer = m.DealerID()
		case fwproto.DealerSignOut:
		default:
			s.unknown.Add(1)
			s.log.Warn("shoe: sabot: DEALER with an unknown action; event acknowledged and skipped", "device", s.path, "action", m.Action, "seq", f.Seq)
			return nil
		}
	case *fwproto.Hello:
		// Event 1 of a boot. A HELLO of another boot while online is a
		// reboot: the shoe was down, however briefly.
		rebooted := s.online && s.infoBoot != 0 && s.infoBoot != f.Boot
		s.learn(f.Boot, m)
		if rebooted {
			s.online = false
			if err := emit(Event{Kind: KindOffline, Reason: fmt.Sprintf("shoe restarted (boot id %#08x)", f.Boot), Time: now}); err != nil {
				return err
			}
		}
		if err := s.goOnline(now, emit, f.Boot, f.Seq); err != nil {
			return err
		}
		if lost > 0 {
			s.log.Error("shoe: sabot: the shoe lost events in a reboot", "device", s.path, "lost", lost, "prev_boot", m.PrevBoot)
			return emit(Event{Kind: KindAlarm, Time: now, Alarm: Alarm{
				Code: "lost-events",
				Text: fmt.Sprintf("%d events of boot %#08x were lost by the shoe before they were delivered", lost, m.PrevBoot),
			}})
		}
		return nil
	default:
		s.unknown.Add(1)
		return nil
	}
	return emit(ev)
}

// uidCacheMax bounds the UID strings kept: an 8-deck shoe has 416 cards.
const uidCacheMax = 4096

// uid returns the UID as a string, reusing the string made the last time
// the same card was read (RFID cards come round again every shoe), so
// steady-state reads do not allocate.
func (s *Sabot) uid(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if u, ok := s.uids[string(b)]; ok {
		return u
	}
	if s.uids == nil || len(s.uids) >= uidCacheMax {
		s.uids = make(map[string]string)
	}
	u := uidString(b)
	s.uids[string(b)] = u
	return u
}

// uidString is the UID in upper-case hex ("04A1B2C3D4E5F6"), "" for none.
func uidString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	const digits = "0123456789ABCDEF"
	var buf [2 * fwproto.MaxUID]byte
	n := 0
	for _, c := range b {
		if n+2 > len(buf) {
			break
		}
		buf[n], buf[n+1] = digits[c>>4], digits[c&15]
		n += 2
	}
	return string(buf[:n])
}

// reply sends an ACK or NAK verdict frame.
func (s *Sabot) reply(f fwproto.Frame) {
	if f.Msg == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Copy into our own message values: no allocation per frame.
	switch m := f.Msg.(type) {
	case *fwproto.Ack:
		s.ackMsg = fwproto.Ack{Seq: m.Seq}
		f.Msg = &s.ackMsg
	case *fwproto.Nak:
		s.nakMsg = fwproto.Nak{Seq: m.Seq, Reason: m.Reason}
		f.Msg = &s.nakMsg
	}
	if err := s.enc.Encode(f); err != nil && s.encErr == nil {
		s.encErr = err
		s.log.Debug("shoe: sabot: reply not sent", "err", err)
	}
}

// nak sends a NAK; the same NAK (reason and sequence) at most once per
// nakInterval.
func (s *Sabot) nak(f fwproto.Frame, now time.Time) {
	m, ok := f.Msg.(*fwproto.Nak)
	if !ok {
		return
	}
	key := [2]uint32{uint32(m.Reason), m.Seq}
	if key == s.lastNakOf && now.Sub(s.lastNak) < nakInterval {
		return
	}
	s.lastNak, s.lastNakOf = now, key
	s.reply(f)
}

// Tick implements Protocol: heartbeat supervision and command retries.
func (s *Sabot) Tick(now time.Time, emit Emit) error {
	silent := now.Sub(s.lastRx)
	if silent > s.hbTimeout && !s.reported {
		s.reported = true
		s.online = false
		reason := fmt.Sprintf("no frame from the shoe for %v (heartbeats missed)", silent.Round(time.Millisecond))
		if s.info == nil {
			reason = fmt.Sprintf("no HELLO from the shoe within %v of opening the port", silent.Round(time.Millisecond))
		}
		s.log.Warn("shoe: sabot: shoe silent", "device", s.path, "silent", silent)
		if err := emit(Event{Kind: KindOffline, Reason: reason, Time: now}); err != nil {
			return err
		}
	}
	if !s.waitSince.IsZero() && now.Sub(s.waitSince) >= waitTimeout {
		s.waitSince = time.Time{}
		v := s.rx.EndWait()
		s.log.Error("shoe: sabot: no heartbeat to tell a repeated HELLO from a restarted sequence; taken for a retransmission", "device", s.path, "waited", waitTimeout)
		s.reply(v.Reply)
	}
	if s.missing && !s.refused && s.waitSince.IsZero() && now.Sub(s.lastNak) >= renakInterval {
		if boot := s.rx.Current(); boot != 0 {
			last, _ := s.rx.Last(boot)
			s.lastNakOf = [2]uint32{}
			s.nak(fwproto.Frame{Boot: boot, Msg: &fwproto.Nak{Seq: last + 1, Reason: fwproto.NakGap}}, now)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.online && now.Sub(s.status.sentAt) >= s.hbTimeout/3 {
		// Keep asking a silent or unknown shoe to introduce itself.
		_ = s.sendCommandLocked(&s.status, &fwproto.StatusRequest{}, now)
	}
	for _, c := range [...]struct {
		*command
		need fwproto.Capabilities
	}{{&s.gate, fwproto.CapGate}, {&s.indicator, fwproto.CapDisplay}} {
		if c.msg != nil && !c.acked && s.helloSeen && s.caps&c.need != 0 && now.Sub(c.sentAt) >= c.wait {
			c.wait = min(2*c.wait, commandRetryMax)
			_ = s.resendLocked(c.command, now)
		}
	}
	return nil
}

// sendCommandLocked gives c a new sequence number and sends msg.
func (s *Sabot) sendCommandLocked(c *command, msg fwproto.Message, now time.Time) error {
	s.cmdSeq++
	c.msg, c.seq, c.acked, c.wait = msg, s.cmdSeq, false, commandRetry
	return s.resendLocked(c, now)
}

func (s *Sabot) resendLocked(c *command, now time.Time) error {
	c.sentAt = now
	if s.out == nil {
		return ErrOffline
	}
	return s.enc.Encode(fwproto.Frame{Boot: s.boot, Seq: c.seq, Msg: c.msg})
}

// Gate implements Commander: GATE(lock). ErrUnsupported if the shoe said
// it has no gate; ErrOffline if no shoe is connected (the state is sent
// when one is).
func (s *Sabot) Gate(lock bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.helloSeen && s.caps&fwproto.CapGate == 0 {
		return fmt.Errorf("%w: the shoe has no gate (HELLO capabilities %#x)", ErrUnsupported, uint16(s.caps))
	}
	return s.commandLocked(&s.gate, &fwproto.Gate{Lock: lock})
}

// Indicator implements Commander: INDICATOR. Errors as for Gate.
func (s *Sabot) Indicator(ind Indicator) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.helloSeen && s.caps&fwproto.CapDisplay == 0 {
		return fmt.Errorf("%w: the shoe has no lamps or beeper (HELLO capabilities %#x)", ErrUnsupported, uint16(s.caps))
	}
	return s.commandLocked(&s.indicator, &fwproto.Indicator{Lamps: ind.Lamps, Blink: ind.Blink, BeepMS: ind.BeepMs})
}

func (s *Sabot) commandLocked(c *command, msg fwproto.Message) error {
	err := s.sendCommandLocked(c, msg, time.Now())
	if err != nil && !s.helloSeen {
		return fmt.Errorf("%w: the command is sent when the shoe connects", ErrOffline)
	}
	if err != nil {
		return fmt.Errorf("shoe: sabot: %w (the command is sent again when the shoe reconnects)", err)
	}
	return nil
}
