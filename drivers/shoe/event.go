package shoe

import (
	"fmt"
	"time"

	"github.com/sabot-table/sabot/tableau/card"
)

// Kind says what happened at the shoe. The zero value is not a valid kind.
type Kind uint8

// The kinds of shoe event.
const (
	// KindCard: a card was drawn and read. Event.Card holds it (Suit may be
	// card.SuitUnknown on rank-only shoes; UID is set by RFID shoes) and
	// Event.Burn says whether it was drawn as a burn card.
	KindCard Kind = iota + 1
	// KindUnreadable: a card was drawn but the shoe could not read it.
	// Event.Burn as for KindCard.
	KindUnreadable
	// KindButton: a button or key on the shoe changed. Event.Button names it
	// and Event.Pressed gives its new position.
	KindButton
	// KindCutCard: the cut card came out of the shoe.
	KindCutCard
	// KindState: the shoe reports its state (Event.State).
	KindState
	// KindAlarm: a hardware alarm or warning (Event.Alarm).
	KindAlarm
	// KindOnline: the link to the shoe is up (after the handshake, for shoes
	// that have one). Event.Info describes the shoe.
	KindOnline
	// KindOffline: the link to the shoe is down: the port was lost, or the
	// shoe stopped sending heartbeats. Event.Reason says why.
	KindOffline
	// KindDealer: a dealer signed in with a badge at the shoe's reader
	// (Event.Dealer: the id, not yet validated: see
	// tableau.ValidateDealerID) or signed out (Event.Dealer empty). The
	// sabot protocol's DEALER (minor version 1), or "dealer ID" / "dealer
	// -" lines.
	KindDealer
)

var kindNames = [...]string{"", "card", "unreadable", "button", "cut-card", "state", "alarm", "online", "offline", "dealer"}

// String returns the kind's name: "card", "unreadable", "button", "cut-card",
// "state", "alarm", "online", "offline" or "dealer".
func (k Kind) String() string { return enumName(k, kindNames[:], "kind") }

// enumName is names[v] for a value 1..len(names)-1 of an enumeration
// numbered from 1, else what(v), e.g. "kind(12)".
func enumName[T ~uint8](v T, names []string, what string) string {
	if int(v) < len(names) && v != 0 {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", what, uint8(v))
}

// Button names a button or key switch on the shoe.
type Button uint8

// The shoe's buttons. The mapping onto the `sabot check` transcript is:
// ButtonCoup pressed is "|", ButtonVoid pressed is "void", ButtonNewShoe
// pressed is "shoe", ButtonStand pressed is "stand"; ButtonBurn gives the
// burn-mode position (pressed: cards drawn now are burn cards).
const (
	ButtonCoup    Button = iota + 1 // the dealer's coup (end of coup) button
	ButtonBurn                      // the burn-mode switch
	ButtonVoid                      // the supervisor's key: void the current coup
	ButtonNewShoe                   // the new-shoe button (a fresh shoe is loaded)
	ButtonStand                     // the dealer's stand ("non") button: the hand whose turn it is declines a card
)

var buttonNames = [...]string{"", "coup", "burn", "void", "new-shoe", "stand"}

// String returns "coup", "burn", "void", "new-shoe" or "stand".
func (b Button) String() string { return enumName(b, buttonNames[:], "button") }

// State is a set of shoe condition flags (KindState events).
type State uint8

// The shoe state flags.
const (
	StateLoaded     State = 1 << iota // cards are in the shoe (clear: the shoe is empty)
	StateCoverOpen                    // the shoe's cover or lid is open
	StateJam                          // a card is jammed in the reader
	StateGateLocked                   // the gate solenoid is locked (no card can be drawn)
	StateNewShoe                      // set once, on the report of a freshly loaded shoe (the transcript's "shoe")
)

// String lists the set flags, e.g. "loaded,cover-open", or "empty" when none
// is set.
func (s State) String() string {
	if s == 0 {
		return "empty"
	}
	out := ""
	for i, name := range [...]string{"loaded", "cover-open", "jam", "gate-locked", "new-shoe"} {
		if s&(1<<i) != 0 {
			if out != "" {
				out += ","
			}
			out += name
		}
	}
	if rest := s &^ 0x1f; rest != 0 {
		if out != "" {
			out += ","
		}
		out += fmt.Sprintf("0x%02x", uint8(rest))
	}
	return out
}

// Alarm is a hardware alarm or warning reported by the shoe.
type Alarm struct {
	// Code is the shoe's own code: "E3" or "W0x01" (Bee-Tek), or the decimal
	// fault code of a sabot-protocol shoe ("17"). It may be empty.
	Code string
	// Text is the shoe's description, e.g. "Card Not Read"; may be empty.
	Text string
	// Warning is true for a warning (Bee-Tek "<W0x..>" codes), false for an
	// alarm.
	Warning bool
}

// String returns "E3 Card Not Read", "warning W0x01" and the like.
func (a Alarm) String() string {
	s := a.Code
	if a.Text != "" {
		if s != "" {
			s += " "
		}
		s += a.Text
	}
	if a.Warning {
		return "warning " + s
	}
	return s
}

// Info describes a shoe that came online (KindOnline).
type Info struct {
	Protocol string // "sabot", "beetek", "lines"
	Path     string // the configured device path
	// The remaining fields are set by shoes that introduce themselves
	// (the sabot protocol's HELLO); they are zero otherwise.
	Model        string
	Serial       string
	Firmware     string
	BootID       uint32
	ProtoVersion uint8
	Caps         Caps
}

// Caps is the set of capabilities a shoe announces.
type Caps uint16

// Shoe capabilities (sabot protocol HELLO).
const (
	CapSuit     Caps = 1 << iota // reads suits, not only ranks
	CapUID                       // reports each card's RFID UID
	CapGate                      // has a gate lock (Shoe.Gate works)
	CapButtons                   // has buttons (KindButton events)
	CapDisplay                   // has a display or indicator (Shoe.Indicator works)
	CapCutCard                   // detects the cut card
	CapPersist                   // its unacknowledged events survive a reboot
	CapTimeSync                  // uses the host's wall-clock time (TIME_SYNC)
	CapDealer                    // reads dealer badges (KindDealer events)
)

// QualityUnknown is Event.Quality when the shoe does not measure read
// quality (the same value as fwproto.QualityUnknown).
const QualityUnknown = 255

// Event is one thing that happened at the shoe. Which fields are set depends
// on Kind (see the Kind constants); the rest are zero.
type Event struct {
	Kind Kind

	Card    card.Card // KindCard
	Burn    bool      // KindCard, KindUnreadable: drawn in burn mode
	Quality uint8     // KindCard: read quality 0–100 (percent); QualityUnknown if the shoe gives none
	Button  Button    // KindButton
	Pressed bool      // KindButton: new position (true: pressed / on)
	State   State     // KindState
	Alarm   Alarm     // KindAlarm
	Info    *Info     // KindOnline
	Reason  string    // KindOffline: why the link went down
	Dealer  string    // KindDealer: the dealer signing in, "" signing out

	// BootID and Seq identify the event on shoes with a sequenced protocol
	// (sabot): the pair is unique, and a daemon that journals it can hand the
	// last one back in Options.Resume so that a restart never delivers an
	// event twice. Both are zero on other shoes, for offline, for alarms the
	// link itself raises, and for online except the one a boot's first
	// event (HELLO, sequence 1) brings.
	BootID uint32
	Seq    uint32
	// ShoeClock is the shoe's own clock in milliseconds when it saw the
	// event (sabot protocol), 0 if unknown.
	ShoeClock uint32
	// Time is when the host received the event.
	Time time.Time
}

// String gives a one-line human description, e.g. "card 4S", "card 3H burn",
// "button coup pressed", "alarm E3 Card Not Read", "offline: read error".
func (e Event) String() string {
	switch e.Kind {
	case KindCard:
		if e.Burn {
			return "card " + e.Card.String() + " burn"
		}
		return "card " + e.Card.String()
	case KindUnreadable:
		if e.Burn {
			return "unreadable burn"
		}
		return "unreadable"
	case KindButton:
		if e.Pressed {
			return "button " + e.Button.String() + " pressed"
		}
		return "button " + e.Button.String() + " released"
	case KindCutCard:
		return "cut-card"
	case KindState:
		return "state " + e.State.String()
	case KindAlarm:
		return "alarm " + e.Alarm.String()
	case KindOnline:
		if e.Info != nil && e.Info.Model != "" {
			return "online " + e.Info.Model + " " + e.Info.Serial
		}
		return "online"
	case KindOffline:
		return "offline: " + e.Reason
	case KindDealer:
		if e.Dealer == "" {
			return "dealer sign-out"
		}
		return "dealer " + e.Dealer
	}
	return e.Kind.String()
}
