package shoe

import (
	"errors"
	"log/slog"
	"time"
)

// Emit hands one event to the controller. A protocol calls it for each event,
// in order, and must stop and return the error (unchanged or wrapped with %w)
// if it returns one: the event was not accepted, and a protocol with
// acknowledgements must not acknowledge it.
type Emit func(Event) error

// Sender sends bytes to the shoe. Send copies p and never blocks: the bytes
// are written by the link's writer. It returns ErrOffline if the port is not
// open and ErrBacklog if the output queue is full (the shoe is not draining
// it).
type Sender interface {
	Send(p []byte) error
}

// Protocol turns the bytes a shoe sends into events and, for shoes that talk
// back, answers it. A Protocol value serves one Shoe; the Shoe calls Connect,
// Feed, Tick and Disconnect from a single goroutine (the reader), so they
// need no locking among themselves. Commands (see Commander) come from other
// goroutines.
//
// A third kind of shoe is one small file: implement Protocol (see lines.go,
// the one-card-per-line reader) and Register it.
type Protocol interface {
	// Name is the protocol's config name, e.g. "beetek".
	Name() string
	// Connect is called each time the port has been opened, before any
	// Feed. out writes to the shoe. A protocol without a handshake emits
	// KindOnline here; one with a handshake starts it.
	Connect(out Sender, now time.Time, emit Emit) error
	// Feed parses p, the bytes just read (not retained after Feed returns),
	// and emits the events they complete, in order. Records split across
	// calls are joined; bad bytes are skipped and counted, never fatal.
	Feed(p []byte, now time.Time, emit Emit) error
	// Tick is called after every read and every read timeout (at least
	// every Options.ReadTimeout while the port is open): timers such as
	// heartbeat supervision and retransmission live here.
	Tick(now time.Time, emit Emit) error
	// Disconnect is called when the port is lost or closed; partial records
	// are discarded. The Shoe itself emits KindOffline if the shoe was
	// online.
	Disconnect(now time.Time)
}

// Commander is implemented by protocols that can command the shoe (the sabot
// protocol). Its methods may be called from any goroutine, including from
// inside the Shoe's handler.
type Commander interface {
	// Gate locks (true) or unlocks (false) the shoe's gate solenoid.
	Gate(lock bool) error
	// Indicator sets the shoe's lamp and beeper.
	Indicator(ind Indicator) error
}

// Indicator is the state of the shoe's own lamps and beeper (the sabot
// protocol's INDICATOR command).
type Indicator struct {
	Lamps  uint8  // bit n set: lamp n on
	Blink  uint8  // bit n set: lamp n blinks (if on)
	BeepMs uint16 // sound the beeper for this many milliseconds (0: no beep)
}

// Stats are counters kept by a protocol; Shoe.Stats adds the link's own.
type Stats struct {
	Events      uint64 // events emitted (online/offline included)
	Bytes       uint64 // bytes read from the port
	Unknown     uint64 // records or frames not understood (skipped)
	BadFrames   uint64 // frames with a bad CRC, bad length or truncated (sabot)
	Duplicates  uint64 // events received again and not redelivered (sabot)
	Gaps        uint64 // events received out of order and held back (sabot)
	Opens       uint64 // successful port opens
	OpenErrors  uint64 // failed port opens
	ReadErrors  uint64 // read errors (unplugs)
	Timeouts    uint64 // read timeouts (idle line)
	Throttled   uint64 // reads that returned early with nothing and were slowed down
	Offline     uint64 // KindOffline events
	WriteErrors uint64 // failed or timed-out writes
	Refused     uint64 // events the Handler refused with ErrRetryLater (sabot: offered again later)
}

// Redeliverer is implemented by protocols that can have an event sent again
// (the sabot protocol: an event not acknowledged is retransmitted). When
// Redelivers reports true, an event the Handler refuses with ErrRetryLater
// comes back to the protocol as Emit's error (wrapping ErrRetryLater): the
// protocol must not acknowledge it, must deliver nothing after it before it,
// and must return nil from Feed or Tick so that Run goes on. For other
// protocols the Shoe drops the refused event (logged, counted) and Emit
// returns nil.
type Redeliverer interface {
	Redelivers() bool
}

// Statser is implemented by protocols that keep counters.
type Statser interface {
	Stats() Stats
}

// Errors returned by the package; match them with errors.Is.
var (
	// ErrOffline: the port is not open (or the shoe has not completed its
	// handshake), so a command cannot be sent now.
	ErrOffline = errors.New("shoe: offline")
	// ErrBacklog: the output queue is full; the shoe is not reading.
	ErrBacklog = errors.New("shoe: output backlog full")
	// ErrUnsupported: the protocol or the shoe cannot do that (e.g. Gate on
	// a Bee-Tek shoe).
	ErrUnsupported = errors.New("shoe: not supported by this shoe")
	// ErrBusy: another process (or another opener) holds the device.
	ErrBusy = errors.New("shoe: device is in use")
	// ErrClosed: the Shoe was closed.
	ErrClosed = errors.New("shoe: closed")
	// ErrRetryLater is returned (wrapped) by a Handler that cannot take an
	// event now but may later: sabotd while its journal cannot be written
	// (a full disk). Run goes on. A protocol with acknowledgements (sabot)
	// does not acknowledge the event, so the shoe keeps it in its ring and
	// sends it again; it is offered to the Handler again, and nothing after
	// it is delivered before it. A protocol that cannot ask for an event
	// again (beetek, lines) loses it: it is logged as an error and counted
	// (Stats.Refused). KindOnline and KindOffline refused are logged and
	// counted the same way (they are the link's state, not the shoe's
	// events).
	ErrRetryLater = errors.New("shoe: the handler cannot take the event now")
)

// ProtocolConfig is what a protocol constructor gets.
type ProtocolConfig struct {
	Path   string       // the configured device path, for Info
	Logger *slog.Logger // never nil
	// HeartbeatTimeout overrides the protocol's heartbeat supervision
	// timeout (0: the protocol's default).
	HeartbeatTimeout time.Duration
	// Resume is the last event already delivered in a previous run (its
	// BootID and Seq), so it and those before it are not delivered again.
	Resume Position
}

// Position identifies an event of a sequenced protocol: a (boot id,
// sequence) pair. The zero value means "nothing delivered yet".
type Position struct {
	BootID uint32
	Seq    uint32
}
