package mqtt

import (
	"strings"
	"time"

	"github.com/sabot-table/sabot/tableau"
)

// TopicEvent carries the audit trail's significant events (EventPayload):
// QoS 1, not retained (each event happened once; a retained one would be
// taken for the current state by a late subscriber).
const TopicEvent = "event"

// The event types of EventPayload.Type. The first five and EventOutboxDropped are the daemon's
// own (a journaled tableau.InputEvent whose Code is the type); the others
// are published for journaled inputs of other kinds.
const (
	EventPowerUp      = "power-up"      // sabotd started (clean_shutdown: how the previous run ended; sha256: the binary)
	EventShutdown     = "shutdown"      // sabotd is stopping cleanly (text: why)
	EventConfigChange = "config-change" // the config file differs from the last journaled one (sha256: the new file's)
	EventLidOpen      = "lid-open"      // the shoe reports its cover or lid open (sabot protocol SHOE_STATE)
	EventLidClosed    = "lid-closed"    // ... and closed again
	EventShoeOnline   = "shoe-online"   // the shoe link came up (tableau.InputOnline)
	EventShoeOffline  = "shoe-offline"  // the shoe link went down (tableau.InputOffline)
	EventShoeAlarm    = "shoe-alarm"    // a shoe hardware alarm (tableau.InputAlarm)
	EventJournalFail  = "journal-failed"
	EventClockJump    = "clock-jump"
	EventArchiveGone  = "archive-pruned"
	EventDealerIn     = "dealer-sign-in"  // a dealer signed in (tableau.InputDealer; dealer: the id)
	EventDealerOut    = "dealer-sign-out" // the dealer signed out (tableau.InputDealer with no id)
	// EventOutboxDropped: an outbox message no broker can ever take (a
	// topic over MaxTopic, a payload over its limit) was dropped (text:
	// its topic, size and why; Options.OnUndeliverable).
	EventOutboxDropped = "outbox-dropped"
)

// Power-up's Input.Text: how the previous run ended.
const (
	PowerUpClean   = "clean"   // the previous run journaled its shutdown and closed the journal
	PowerUpUnclean = "unclean" // it did not: a crash, kill -9 or power loss
	PowerUpFirst   = "first"   // no previous run: the journal was empty
)

// EventPayload is published on TopicEvent for every significant event.
// Like every payload it derives from its journal record only (id, time,
// fields), so a replay after a crash gives the same message.
type EventPayload struct {
	Envelope
	// Type is one of the Event* constants.
	Type string `json:"type"`
	// Seq is the journal record of the event (sabot export shows it).
	Seq uint64 `json:"seq"`
	// Text says more, for people.
	Text string `json:"text"`
	// SHA256: power-up, the running binary's; config-change, the config
	// file's (64 lowercase hex digits).
	SHA256 string `json:"sha256,omitempty"`
	// CleanShutdown (power-up only): whether the previous run shut down
	// cleanly; absent on the first start.
	CleanShutdown *bool `json:"clean_shutdown,omitempty"`
	// Code is a shoe alarm's code (shoe-alarm).
	Code string `json:"code,omitempty"`
	// Dealer is the dealer signing in (dealer-sign-in), Source how:
	// "shoe" (a badge), "mqtt" (the pit's command), "gpio" (the dealer
	// key); Operator who sent the command.
	Dealer   string `json:"dealer,omitempty"`
	Source   string `json:"source,omitempty"`
	Operator string `json:"operator,omitempty"`
}

// eventTypes maps journaled input kinds, other than tableau.InputEvent,
// to their event type.
var eventTypes = map[tableau.InputKind]string{
	tableau.InputOnline:        EventShoeOnline,
	tableau.InputOffline:       EventShoeOffline,
	tableau.InputAlarm:         EventShoeAlarm,
	tableau.InputJournalFailed: EventJournalFail,
	tableau.InputClockJump:     EventClockJump,
	tableau.InputArchivePruned: EventArchiveGone,
}

// eventID is the id of the event message of journal record seq:
// "<table>/<shoe-id>/<coup>/event/<seq>" (tableau.OutputID with the view
// after the record).
func eventID(table, shoeID string, coup int, seq uint64) string {
	return tableau.OutputID(table, shoeID, coup, "event", seq)
}

// Event returns the event message of the journaled input in (record seq,
// stamped at), or false when in is not a significant event. view is the
// table's view after the record (for the shoe id and coup of the id).
func (b *Builder) Event(in tableau.Input, seq uint64, at time.Time, view tableau.TableView) (Message, bool, error) {
	p := EventPayload{Envelope: NewEnvelope(b.table, eventID(b.table, view.ShoeID, view.Coup, seq), view.ShoeID, at), Seq: seq, Text: in.Text}
	if !IsEvent(in) { // also an event code this version does not know (the schema's enum)
		return Message{}, false, nil
	}
	if in.Kind == tableau.InputEvent {
		p.Type = in.Code
		switch in.Code {
		case EventPowerUp:
			p.SHA256 = in.Ref
			switch in.Text {
			case PowerUpClean, PowerUpUnclean:
				clean := in.Text == PowerUpClean
				p.CleanShutdown = &clean
				p.Text = "sabotd started; the previous run shut down cleanly"
				if !clean {
					p.Text = "sabotd started; the previous run did not shut down cleanly (crash, kill or power loss)"
				}
			default:
				p.Text = "sabotd started with an empty journal"
			}
		case EventConfigChange:
			p.SHA256 = in.Ref
		}
	} else if in.Kind == tableau.InputDealer {
		p.Type, p.Source, p.Operator = EventDealerOut, in.Source, truncateUTF8(in.Operator, 64)
		p.Text = "the dealer signed out"
		if in.Dealer != "" {
			p.Type, p.Dealer = EventDealerIn, in.Dealer
			p.Text = "dealer " + in.Dealer + " signed in"
		}
		if in.Source != "" {
			p.Text += " (" + in.Source + ")"
		}
	} else {
		t := eventTypes[in.Kind]
		p.Type = t
		if in.Kind == tableau.InputAlarm {
			p.Code = in.Code
		}
		if p.Text == "" {
			p.Text = strings.ReplaceAll(t, "-", " ")
		}
	}
	m, err := Encode(TopicEvent, false, p)
	if err != nil {
		return Message{}, false, err
	}
	return m, true, nil
}

// IsEvent reports whether the journaled input in is a significant event
// (Builder.Event gives a message for it).
func IsEvent(in tableau.Input) bool {
	if in.Kind == tableau.InputDealer {
		return in.Dealer == "" || tableau.ValidateDealerID(in.Dealer) == nil // the table ignores a bad id: no event
	}
	if in.Kind != tableau.InputEvent {
		_, ok := eventTypes[in.Kind]
		return ok
	}
	switch in.Code {
	case EventPowerUp, EventShutdown, EventConfigChange, EventLidOpen, EventLidClosed, EventOutboxDropped:
		return true
	}
	return false
}
