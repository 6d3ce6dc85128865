package fwproto

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"
)

// Type is a message type, the second byte of every frame.
type Type uint8

// Message types. Shoe → host events are 0x01–0x0F, acknowledgements (both
// directions) 0x10–0x1F, host → shoe commands 0x20–0x2F (PROTOCOL.md,
// "Messages").
const (
	TypeHello          Type = 0x01 // shoe → host: identity, boot id, capabilities
	TypeCard           Type = 0x02 // shoe → host: a card was drawn and read
	TypeCardUnreadable Type = 0x03 // shoe → host: a card was drawn but not read
	TypeButton         Type = 0x04 // shoe → host: coup button, burn-mode switch, supervisor key
	TypeCutCard        Type = 0x05 // shoe → host: the cut card came out
	TypeShoeState      Type = 0x06 // shoe → host: loaded/empty, cover, jam, gate
	TypeAlarm          Type = 0x07 // shoe → host: hardware fault
	TypeHeartbeat      Type = 0x08 // shoe → host: alive, last sequence, clock
	TypeDealer         Type = 0x09 // shoe → host: a dealer signed in or out (badge read); minor version 1
	TypeAck            Type = 0x10 // both: acknowledge
	TypeNak            Type = 0x11 // both: negative acknowledgement
	TypeGate           Type = 0x20 // host → shoe: lock or unlock the card gate
	TypeIndicator      Type = 0x21 // host → shoe: lamps and beeper
	TypeStatusRequest  Type = 0x22 // host → shoe: send HELLO and SHOE_STATE now
	TypeTimeSync       Type = 0x23 // host → shoe: wall-clock time
)

var typeNames = map[Type]string{
	TypeHello: "HELLO", TypeCard: "CARD", TypeCardUnreadable: "CARD_UNREADABLE",
	TypeButton: "BUTTON", TypeCutCard: "CUT_CARD", TypeShoeState: "SHOE_STATE",
	TypeAlarm: "ALARM", TypeHeartbeat: "HEARTBEAT", TypeDealer: "DEALER", TypeAck: "ACK", TypeNak: "NAK",
	TypeGate: "GATE", TypeIndicator: "INDICATOR", TypeStatusRequest: "STATUS_REQUEST",
	TypeTimeSync: "TIME_SYNC",
}

// String returns the specification's name of the type ("CARD"), or
// "TYPE_0x42" for an unknown one.
func (t Type) String() string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("TYPE_%#02x", uint8(t))
}

// Known reports whether t is one of the message types of this version.
func (t Type) Known() bool { _, ok := typeNames[t]; return ok }

// ParseType returns the type named s ("CARD"), as String spells it.
func ParseType(s string) (Type, bool) {
	for t, n := range typeNames {
		if n == s {
			return t, true
		}
	}
	return 0, false
}

// Sequenced reports whether frames of this type sent by a shoe are events
// that carry a sequence number, are kept in the shoe's ring buffer and must
// be acknowledged (HELLO, CARD, CARD_UNREADABLE, BUTTON, CUT_CARD,
// SHOE_STATE, ALARM, DEALER). A HELLO or SHOE_STATE sent with sequence 0 (a
// reply to STATUS_REQUEST) is informational and not acknowledged.
func (t Type) Sequenced() bool { return t >= TypeHello && t <= TypeAlarm || t == TypeDealer }

// Minor is the protocol minor version this package implements, sent in
// HELLO: 1 added the DEALER event and CapDealer (PROTOCOL.md, "Versioning").
// A shoe of minor 0 never sends DEALER; a host of minor 0 acknowledges and
// skips it as an unknown event type.
const Minor = 1

// Timing and buffering of this version (PROTOCOL.md, "Reliability").
const (
	RingSize          = 64                     // events a shoe keeps unacknowledged, at least
	RetransmitTimeout = 250 * time.Millisecond // a shoe resends unacknowledged events after this (doubling on each timeout, up to 2 s)
	HeartbeatInterval = 1 * time.Second        // a shoe sends HEARTBEAT at least this often
	HostTimeout       = 3 * time.Second        // a host declares the shoe offline after this long without a valid frame
)

// Limits of this version of the protocol (PROTOCOL.md, "Frame").
const (
	Version       = 1                               // the version byte, first byte of every frame
	HeaderLen     = 11                              // version, type, boot id, sequence, length
	CRCLen        = 2                               // CRC-16/CCITT-FALSE, little-endian
	MaxPayload    = 128                             // largest payload, bytes
	MaxFrameLen   = HeaderLen + MaxPayload + CRCLen // 141: largest frame before COBS
	MaxEncodedLen = MaxFrameLen + 1                 // 142: largest frame after COBS, without the delimiter
	MaxWireLen    = MaxEncodedLen + 1               // 143: with the 0x00 delimiter
	MaxUID        = 16                              // longest card UID, bytes
	MaxString     = 32                              // longest HELLO string (model, serial, firmware), bytes
	MaxAlarmText  = 64                              // longest ALARM text, bytes
	MaxDealerID   = 32                              // longest DEALER id, bytes
)

// HexBytes is a byte string that marshals to and from JSON as lower-case
// hex ("04a1b2c3"), as in testdata/vectors.json.
type HexBytes []byte

// MarshalText encodes b as hex.
func (b HexBytes) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(b)), nil }

// UnmarshalText decodes hex; an empty string gives nil.
func (b *HexBytes) UnmarshalText(t []byte) error {
	if len(t) == 0 {
		*b = nil
		return nil
	}
	v, err := hex.DecodeString(string(t))
	if err != nil {
		return fmt.Errorf("fwproto: bad hex %q: %w", t, err)
	}
	*b = v
	return nil
}

// Message is the payload of one frame: one of *Hello, *Card,
// *CardUnreadable, *Button, *CutCard, *ShoeState, *Alarm, *Heartbeat, *Ack,
// *Nak, *Gate, *Indicator, *StatusRequest, *TimeSync. Every message has an
// Ext field: payload bytes after the fields this version defines (sent by a
// newer peer), kept so that re-encoding a decoded frame gives identical
// bytes.
type Message interface {
	// Type is the message's type byte.
	Type() Type
	// AppendPayload appends the payload bytes to b.
	AppendPayload(b []byte) []byte
	// check validates fields before encoding.
	check() error
	// decode parses p (which the message may alias: UID and Ext).
	decode(p []byte) error
}

// Suit is the suit byte of a CARD: the same numbering as tableau.Suit.
type Suit uint8

// The suits. SuitUnknown is a rank-only read.
const (
	SuitUnknown  Suit = 0
	SuitSpades   Suit = 1
	SuitHearts   Suit = 2
	SuitDiamonds Suit = 3
	SuitClubs    Suit = 4
)

// Capabilities is HELLO's bit set of what the shoe can do.
type Capabilities uint16

// The capability bits. Unknown bits must be ignored by hosts.
const (
	CapSuit     Capabilities = 1 << 0 // reads suits, not only ranks
	CapUID      Capabilities = 1 << 1 // reports RFID UIDs
	CapGate     Capabilities = 1 << 2 // has a gate (solenoid) the host can lock
	CapButtons  Capabilities = 1 << 3 // has a coup button / burn switch / supervisor key
	CapDisplay  Capabilities = 1 << 4 // has lamps, beeper or a display (INDICATOR)
	CapCutCard  Capabilities = 1 << 5 // detects the cut card
	CapPersist  Capabilities = 1 << 6 // its ring buffer survives a reset (see PrevBoot)
	CapTimeSync Capabilities = 1 << 7 // uses TIME_SYNC
	CapDealer   Capabilities = 1 << 8 // reads dealer badges and sends DEALER (minor 1)
)

// Hello is sent by a shoe as the first event of every boot (sequence 1) and,
// unsequenced (sequence 0), in reply to STATUS_REQUEST or to a NAK naming a
// sequence the shoe no longer holds.
type Hello struct {
	Minor       uint8        `json:"minor"`         // protocol minor version (Minor, 1, for this package; 0 from older shoes)
	Caps        Capabilities `json:"caps"`          // capability bits
	LastAcked   uint32       `json:"last_acked"`    // highest sequence of this boot the shoe has had acknowledged
	PrevBoot    uint32       `json:"prev_boot"`     // boot id of the previous boot, 0 if unknown
	PrevLastSeq uint32       `json:"prev_last_seq"` // last sequence assigned in the previous boot, 0 if unknown
	Model       string       `json:"model"`         // ≤ MaxString bytes
	Serial      string       `json:"serial"`        // ≤ MaxString bytes
	Firmware    string       `json:"firmware"`      // ≤ MaxString bytes
	Ext         HexBytes     `json:"ext,omitempty"`
}

// Card reports one card drawn and read.
type Card struct {
	Rank    uint8    `json:"rank"`    // 1 (ace) … 13 (king)
	Suit    Suit     `json:"suit"`    // 0 unknown, 1 spades, 2 hearts, 3 diamonds, 4 clubs
	Quality uint8    `json:"quality"` // read confidence 0–100 %, 255 not measured
	Clock   uint32   `json:"clock"`   // shoe clock, ms since boot
	UID     HexBytes `json:"uid,omitempty"`
	Ext     HexBytes `json:"ext,omitempty"`
}

// QualityUnknown is Card.Quality when the reader does not measure it.
const QualityUnknown = 255

// Reasons in CARD_UNREADABLE.
const (
	UnreadableUnknown  = 0 // no detail
	UnreadableNoRead   = 1 // card passed, nothing read
	UnreadableMultiple = 2 // two cards at once
	UnreadableBadTag   = 3 // tag read but its data is not a card
)

// CardUnreadable reports a card drawn that the shoe could not read.
type CardUnreadable struct {
	Reason uint8    `json:"reason"` // Unreadable*
	Clock  uint32   `json:"clock"`
	UID    HexBytes `json:"uid,omitempty"` // tag UID if one was read
	Ext    HexBytes `json:"ext,omitempty"`
}

// Buttons in BUTTON and their positions.
const (
	ButtonCoup       = 1 // the dealer's coup button: Position 1 = pressed
	ButtonBurn       = 2 // burn-mode switch: Position 1 = on (cards are burns), 0 = off
	ButtonSupervisor = 3 // supervisor key: Position 1 = turned to void (void the current coup), 0 = back to normal
	ButtonStand      = 4 // the dealer's stand ("non") button, chemin de fer and banque: Position 1 = pressed
)

// Supervisor key positions.
const (
	KeyNormal = 0
	KeyVoid   = 1
)

// Button reports a button press or a key/switch moving to a new position.
type Button struct {
	Button   uint8    `json:"button"`   // Button*
	Position uint8    `json:"position"` // see the Button* constants
	Clock    uint32   `json:"clock"`
	Ext      HexBytes `json:"ext,omitempty"`
}

// CutCard reports that the cut card came out of the shoe.
type CutCard struct {
	Clock uint32   `json:"clock"`
	Ext   HexBytes `json:"ext,omitempty"`
}

// ShoeFlags is the state bit set of SHOE_STATE and HEARTBEAT.
type ShoeFlags uint8

// The shoe state bits.
const (
	ShoeLoaded     ShoeFlags = 1 << 0 // cards are in the shoe
	ShoeCoverOpen  ShoeFlags = 1 << 1 // the loading cover is open
	ShoeJam        ShoeFlags = 1 << 2 // a card is stuck
	ShoeGateLocked ShoeFlags = 1 << 3 // the gate is locked
	ShoeNew        ShoeFlags = 1 << 4 // set once, on the SHOE_STATE that reports a freshly loaded shoe
)

// ShoeState reports a change of the shoe's state.
type ShoeState struct {
	Flags ShoeFlags `json:"flags"`
	Clock uint32    `json:"clock"`
	Ext   HexBytes  `json:"ext,omitempty"`
}

// Alarm reports a hardware fault.
type Alarm struct {
	Code  uint16   `json:"code"` // maker-defined; 0 = fault cleared
	Clock uint32   `json:"clock"`
	Text  string   `json:"text"` // ≤ MaxAlarmText bytes, for people
	Ext   HexBytes `json:"ext,omitempty"`
}

// Heartbeat is sent by the shoe every HeartbeatInterval, unsequenced.
type Heartbeat struct {
	Clock   uint32    `json:"clock"`
	LastSeq uint32    `json:"last_seq"` // last sequence number assigned in this boot (0: none)
	Unacked uint8     `json:"unacked"`  // events waiting for acknowledgement (saturates at 255)
	Flags   ShoeFlags `json:"flags"`
	Ext     HexBytes  `json:"ext,omitempty"`
}

// DEALER actions.
const (
	DealerSignOut = 0 // the dealer leaves the table (Dealer.ID may be empty: whoever is signed in)
	DealerSignIn  = 1 // the dealer named by Dealer.ID (or Dealer.Badge) takes the table
)

// Dealer reports a dealer signing in at the table (a badge held to the
// shoe's reader) or out (PROTOCOL.md 3.15; protocol minor version 1, shoes
// with CapDealer). Action values other than DealerSignOut and DealerSignIn
// are reserved: hosts ignore such events (after acknowledging them).
type Dealer struct {
	Action uint8    `json:"action"` // DealerSignIn or DealerSignOut
	Clock  uint32   `json:"clock"`
	ID     string   `json:"id"`              // the dealer's id as the badge stores it, ≤ MaxDealerID bytes; may be empty
	Badge  HexBytes `json:"badge,omitempty"` // the badge's RFID UID, ≤ MaxUID bytes; may be empty
	Ext    HexBytes `json:"ext,omitempty"`
}

// DealerID is the dealer's id the host uses: ID when the badge stores
// one, else the badge's UID in lower-case hex (at most 32 characters), else
// "" (a sign-out naming no one).
func (m *Dealer) DealerID() string {
	if m.ID != "" {
		return m.ID
	}
	return hex.EncodeToString(m.Badge)
}

// Ack acknowledges, cumulatively, every event up to and including Seq of
// the boot named in the frame header (host → shoe), or one host command
// (shoe → host).
type Ack struct {
	Seq uint32   `json:"seq"`
	Ext HexBytes `json:"ext,omitempty"`
}

// NAK reasons.
const (
	NakGap         = 1 // sequence gap: Seq is the next sequence the host expects
	NakBadFrame    = 2 // a damaged frame arrived (bad CRC, COBS, length); Seq 0
	NakUnknownType = 3 // the type is not supported
	NakBadPayload  = 4 // the payload could not be parsed
	NakBusy        = 5 // cannot act now; retry later
)

// Nak asks the peer to retransmit (shoe: from Seq, or everything
// unacknowledged when Seq is 0) or reports a command it cannot carry out.
type Nak struct {
	Seq    uint32   `json:"seq"`
	Reason uint8    `json:"reason"` // Nak*
	Ext    HexBytes `json:"ext,omitempty"`
}

// Gate locks or unlocks the shoe's card gate.
type Gate struct {
	Lock bool     `json:"lock"`
	Ext  HexBytes `json:"ext,omitempty"`
}

// Indicator sets the shoe's lamps and sounds its beeper.
type Indicator struct {
	Lamps  uint8    `json:"lamps"`   // bit n: lamp n on
	Blink  uint8    `json:"blink"`   // bit n: lamp n blinks (if on)
	BeepMS uint16   `json:"beep_ms"` // beep for this many ms, 0 none
	Ext    HexBytes `json:"ext,omitempty"`
}

// StatusRequest asks the shoe to send HELLO and SHOE_STATE (sequence 0).
type StatusRequest struct {
	Ext HexBytes `json:"ext,omitempty"`
}

// TimeSync tells the shoe the host's wall-clock time.
type TimeSync struct {
	UnixMS int64    `json:"unix_ms"` // ms since 1970-01-01 UTC
	Ext    HexBytes `json:"ext,omitempty"`
}

// Type returns TypeHello.
func (*Hello) Type() Type { return TypeHello }

// Type returns TypeCard.
func (*Card) Type() Type { return TypeCard }

// Type returns TypeCardUnreadable.
func (*CardUnreadable) Type() Type { return TypeCardUnreadable }

// Type returns TypeButton.
func (*Button) Type() Type { return TypeButton }

// Type returns TypeCutCard.
func (*CutCard) Type() Type { return TypeCutCard }

// Type returns TypeShoeState.
func (*ShoeState) Type() Type { return TypeShoeState }

// Type returns TypeAlarm.
func (*Alarm) Type() Type { return TypeAlarm }

// Type returns TypeHeartbeat.
func (*Heartbeat) Type() Type { return TypeHeartbeat }

// Type returns TypeDealer.
func (*Dealer) Type() Type { return TypeDealer }

// Type returns TypeAck.
func (*Ack) Type() Type { return TypeAck }

// Type returns TypeNak.
func (*Nak) Type() Type { return TypeNak }

// Type returns TypeGate.
func (*Gate) Type() Type { return TypeGate }

// Type returns TypeIndicator.
func (*Indicator) Type() Type { return TypeIndicator }

// Type returns TypeStatusRequest.
func (*StatusRequest) Type() Type { return TypeStatusRequest }

// Type returns TypeTimeSync.
func (*TimeSync) Type() Type { return TypeTimeSync }

// NewMessage returns a new zero message of type t, or nil for an unknown
// type.
func NewMessage(t Type) Message {
	switch t {
	case TypeHello:
		return new(Hello)
	case TypeCard:
		return new(Card)
	case TypeCardUnreadable:
		return new(CardUnreadable)
	case TypeButton:
		return new(Button)
	case TypeCutCard:
		return new(CutCard)
	case TypeShoeState:
		return new(ShoeState)
	case TypeAlarm:
		return new(Alarm)
	case TypeHeartbeat:
		return new(Heartbeat)
	case TypeDealer:
		return new(Dealer)
	case TypeAck:
		return new(Ack)
	case TypeNak:
		return new(Nak)
	case TypeGate:
		return new(Gate)
	case TypeIndicator:
		return new(Indicator)
	case TypeStatusRequest:
		return new(StatusRequest)
	case TypeTimeSync:
		return new(TimeSync)
	}
	return nil
}

// ---- encoding helpers

func app16(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }
func app32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }

func appStr(b []byte, s string) []byte {
	b = append(b, byte(len(s)))
	return append(b, s...)
}

func appBytes(b []byte, s []byte) []byte {
	b = append(b, byte(len(s)))
	return append(b, s...)
}

func checkLen(what string, n, max int) error {
	if n > max {
		return fmt.Errorf("fwproto: %s is %d bytes, longer than %d", what, n, max)
	}
	return nil
}

// ext returns the trailing bytes p[n:], or nil when there are none.
func ext(p []byte, n int) HexBytes {
	if len(p) == n {
		return nil
	}
	return p[n:len(p):len(p)]
}

// reader is a bounds-checked cursor over a payload.
type reader struct {
	p   []byte
	i   int
	err error
}

func (r *reader) fail(f string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(f, a...)
	}
}

func (r *reader) u8() uint8 {
	if r.err != nil || r.i+1 > len(r.p) {
		r.fail("payload ends at byte %d, inside a 1-byte field", len(r.p))
		return 0
	}
	v := r.p[r.i]
	r.i++
	return v
}

func (r *reader) u16() uint16 {
	if r.err != nil || r.i+2 > len(r.p) {
		r.fail("payload ends at byte %d, inside a 2-byte field at %d", len(r.p), r.i)
		return 0
	}
	v := binary.LittleEndian.Uint16(r.p[r.i:])
	r.i += 2
	return v
}

func (r *reader) u32() uint32 {
	if r.err != nil || r.i+4 > len(r.p) {
		r.fail("payload ends at byte %d, inside a 4-byte field at %d", len(r.p), r.i)
		return 0
	}
	v := binary.LittleEndian.Uint32(r.p[r.i:])
	r.i += 4
	return v
}

// bytes reads a length-prefixed byte string of at most max bytes. The
// result aliases the payload; nil when empty.
func (r *reader) bytes(what string, max int) []byte {
	n := int(r.u8())
	if r.err != nil {
		return nil
	}
	if n > max {
		r.fail("%s length %d exceeds %d", what, n, max)
		return nil
	}
	if r.i+n > len(r.p) {
		r.fail("%s of %d bytes at payload byte %d runs past the payload end (%d)", what, n, r.i, len(r.p))
		return nil
	}
	if n == 0 {
		return nil
	}
	v := r.p[r.i : r.i+n : r.i+n]
	r.i += n
	return v
}

func (r *reader) rest() HexBytes {
	if r.err != nil {
		return nil
	}
	return ext(r.p, r.i)
}

// ---- per-message payloads

// AppendPayload appends the HELLO payload (PROTOCOL.md 3.1) to b.
func (m *Hello) AppendPayload(b []byte) []byte {
	b = append(b, m.Minor)
	b = app16(b, uint16(m.Caps))
	b = app32(b, m.LastAcked)
	b = app32(b, m.PrevBoot)
	b = app32(b, m.PrevLastSeq)
	b = appStr(b, m.Model)
	b = appStr(b, m.Serial)
	b = appStr(b, m.Firmware)
	return append(b, m.Ext...)
}

func (m *Hello) check() error {
	if err := checkLen("HELLO model", len(m.Model), MaxString); err != nil {
		return err
	}
	if err := checkLen("HELLO serial", len(m.Serial), MaxString); err != nil {
		return err
	}
	return checkLen("HELLO firmware", len(m.Firmware), MaxString)
}

func (m *Hello) decode(p []byte) error {
	r := reader{p: p}
	*m = Hello{Minor: r.u8(), Caps: Capabilities(r.u16()), LastAcked: r.u32(), PrevBoot: r.u32(), PrevLastSeq: r.u32()}
	m.Model = string(r.bytes("model", MaxString))
	m.Serial = string(r.bytes("serial", MaxString))
	m.Firmware = string(r.bytes("firmware", MaxString))
	m.Ext = r.rest()
	return r.err
}

// AppendPayload appends the CARD payload (PROTOCOL.md 3.2) to b.
func (m *Card) AppendPayload(b []byte) []byte {
	b = append(b, m.Rank, uint8(m.Suit), m.Quality)
	b = app32(b, m.Clock)
	b = appBytes(b, m.UID)
	return append(b, m.Ext...)
}

func (m *Card) check() error {
	if m.Rank < 1 || m.Rank > 13 {
		return fmt.Errorf("fwproto: CARD rank %d is not 1..13", m.Rank)
	}
	if m.Suit > SuitClubs {
		return fmt.Errorf("fwproto: CARD suit %d is not 0..4", m.Suit)
	}
	return checkLen("CARD UID", len(m.UID), MaxUID)
}

func (m *Card) decode(p []byte) error {
	r := reader{p: p}
	*m = Card{Rank: r.u8(), Suit: Suit(r.u8()), Quality: r.u8(), Clock: r.u32()}
	m.UID = r.bytes("UID", MaxUID)
	m.Ext = r.rest()
	if r.err != nil {
		return r.err
	}
	if m.Rank < 1 || m.Rank > 13 {
		return fmt.Errorf("CARD rank %d is not 1..13", m.Rank)
	}
	if m.Suit > SuitClubs {
		return fmt.Errorf("CARD suit %d is not 0..4", m.Suit)
	}
	return nil
}

// AppendPayload appends the CARD_UNREADABLE payload (PROTOCOL.md 3.3) to b.
func (m *CardUnreadable) AppendPayload(b []byte) []byte {
	b = append(b, m.Reason)
	b = app32(b, m.Clock)
	b = appBytes(b, m.UID)
	return append(b, m.Ext...)
}

func (m *CardUnreadable) check() error { return checkLen("CARD_UNREADABLE UID", len(m.UID), MaxUID) }

func (m *CardUnreadable) decode(p []byte) error {
	r := reader{p: p}
	*m = CardUnreadable{Reason: r.u8(), Clock: r.u32()}
	m.UID = r.bytes("UID", MaxUID)
	m.Ext = r.rest()
	return r.err
}

// AppendPayload appends the BUTTON payload (PROTOCOL.md 3.4) to b.
func (m *Button) AppendPayload(b []byte) []byte {
	b = append(b, m.Button, m.Position)
	b = app32(b, m.Clock)
	return append(b, m.Ext...)
}

func (m *Button) check() error { return nil }

func (m *Button) decode(p []byte) error {
	r := reader{p: p}
	*m = Button{Button: r.u8(), Position: r.u8(), Clock: r.u32()}
	m.Ext = r.rest()
	return r.err
}

// AppendPayload appends the CUT_CARD payload (PROTOCOL.md 3.5) to b.
func (m *CutCard) AppendPayload(b []byte) []byte { return append(app32(b, m.Clock), m.Ext...) }
func (m *CutCard) check() error                  { return nil }
func (m *CutCard) decode(p []byte) error {
	r := reader{p: p}
	*m = CutCard{Clock: r.u32()}
	m.Ext = r.rest()
	return r.err
}

// AppendPayload appends the SHOE_STATE payload (PROTOCOL.md 3.6) to b.
func (m *ShoeState) AppendPayload(b []byte) []byte {
	b = append(b, uint8(m.Flags))
	return append(app32(b, m.Clock), m.Ext...)
}
func (m *ShoeState) check() error { return nil }
func (m *ShoeState) decode(p []byte) error {
	r := reader{p: p}
	*m = ShoeState{Flags: ShoeFlags(r.u8()), Clock: r.u32()}
	m.Ext = r.rest()
	return r.err
}

// AppendPayload appends the ALARM payload (PROTOCOL.md 3.7) to b.
func (m *Alarm) AppendPayload(b []byte) []byte {
	b = app16(b, m.Code)
	b = app32(b, m.Clock)
	b = appStr(b, m.Text)
	return append(b, m.Ext...)
}
func (m *Alarm) check() error { return checkLen("ALARM text", len(m.Text), MaxAlarmText) }
func (m *Alarm) decode(p []byte) error {
	r := reader{p: p}
	*m = Alarm{Code: r.u16(), Clock: r.u32()}
	m.Text = string(r.bytes("text", MaxAlarmText))
	m.Ext = r.rest()
	return r.err
}

// AppendPayload appends the HEARTBEAT payload (PROTOCOL.md 3.8) to b.
func (m *Heartbeat) AppendPayload(b []byte) []byte {
	b = app32(b, m.Clock)
	b = app32(b, m.LastSeq)
	b = append(b, m.Unacked, uint8(m.Flags))
	return append(b, m.Ext...)
}
func (m *Heartbeat) check() error { return nil }
func (m *Heartbeat) decode(p []byte) error {
	r := reader{p: p}
	*m = Heartbeat{Clock: r.u32(), LastSeq: r.u32(), Unacked: r.u8(), Flags: ShoeFlags(r.u8())}
	m.Ext = r.rest()
	return r.err
}

// AppendPayload appends the DEALER payload (PROTOCOL.md 3.15) to b.
func (m *Dealer) AppendPayload(b []byte) []byte {
	b = append(b, m.Action)
	b = app32(b, m.Clock)
	b = appStr(b, m.ID)
	b = appBytes(b, m.Badge)
	return append(b, m.Ext...)
}
func (m *Dealer) check() error {
	if err := checkLen("DEALER id", len(m.ID), MaxDealerID); err != nil {
		return err
	}
	return checkLen("DEALER badge", len(m.Badge), MaxUID)
}
func (m *Dealer) decode(p []byte) error {
	r := reader{p: p}
	*m = Dealer{Action: r.u8(), Clock: r.u32()}
	m.ID = string(r.bytes("dealer id", MaxDealerID))
	m.Badge = r.bytes("badge", MaxUID)
	m.Ext = r.rest()
	return r.err
}

// AppendPayload appends the ACK payload (PROTOCOL.md 3.9) to b.
func (m *Ack) AppendPayload(b []byte) []byte { return append(app32(b, m.Seq), m.Ext...) }
func (m *Ack) check() error                  { return nil }
func (m *Ack) decode(p []byte) error {
	r := reader{p: p}
	*m = Ack{Seq: r.u32()}
	m.Ext = r.rest()
	return r.err
}

// AppendPayload appends the NAK payload (PROTOCOL.md 3.10) to b.
func (m *Nak) AppendPayload(b []byte) []byte {
	b = app32(b, m.Seq)
	b = append(b, m.Reason)
	return append(b, m.Ext...)
}
func (m *Nak) check() error { return nil }
func (m *Nak) decode(p []byte) error {
	r := reader{p: p}
	*m = Nak{Seq: r.u32(), Reason: r.u8()}
	m.Ext = r.rest()
	return r.err
}

// AppendPayload appends the GATE payload (PROTOCOL.md 3.11) to b.
func (m *Gate) AppendPayload(b []byte) []byte {
	v := byte(0)
	if m.Lock {
		v = 1
	}
	return append(append(b, v), m.Ext...)
}
func (m *Gate) check() error { return nil }
func (m *Gate) decode(p []byte) error {
	r := reader{p: p}
	v := r.u8()
	*m = Gate{Lock: v == 1, Ext: r.rest()}
	if r.err == nil && v > 1 {
		return fmt.Errorf("GATE lock byte %d is not 0 or 1", v)
	}
	return r.err
}

// AppendPayload appends the INDICATOR payload (PROTOCOL.md 3.12) to b.
func (m *Indicator) AppendPayload(b []byte) []byte {
	b = append(b, m.Lamps, m.Blink)
	return append(app16(b, m.BeepMS), m.Ext...)
}
func (m *Indicator) check() error { return nil }
func (m *Indicator) decode(p []byte) error {
	r := reader{p: p}
	*m = Indicator{Lamps: r.u8(), Blink: r.u8(), BeepMS: r.u16()}
	m.Ext = r.rest()
	return r.err
}

// AppendPayload appends the STATUS_REQUEST payload (PROTOCOL.md 3.13) to b.
func (m *StatusRequest) AppendPayload(b []byte) []byte { return append(b, m.Ext...) }
func (m *StatusRequest) check() error                  { return nil }
func (m *StatusRequest) decode(p []byte) error {
	*m = StatusRequest{Ext: ext(p, 0)}
	return nil
}

// AppendPayload appends the TIME_SYNC payload (PROTOCOL.md 3.14) to b.
func (m *TimeSync) AppendPayload(b []byte) []byte {
	return append(binary.LittleEndian.AppendUint64(b, uint64(m.UnixMS)), m.Ext...)
}
func (m *TimeSync) check() error { return nil }
func (m *TimeSync) decode(p []byte) error {
	if len(p) < 8 {
		return fmt.Errorf("TIME_SYNC payload is %d bytes, needs 8", len(p))
	}
	*m = TimeSync{UnixMS: int64(binary.LittleEndian.Uint64(p)), Ext: ext(p, 8)}
	return nil
}
