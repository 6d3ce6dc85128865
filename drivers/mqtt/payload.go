package mqtt

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SchemaVersion is the value of the "schema" field of every payload this
// package publishes. It changes only when a field changes meaning or is
// removed; new fields may be added within a version.
const SchemaVersion = 1

// MaxPayload is the largest payload, in bytes, this package publishes or
// accepts as a command. Every message builder refuses larger payloads.
const MaxPayload = 4096

// Topic suffixes, relative to the table prefix (<topic_prefix>/<table>).
const (
	TopicStatus   = "status"    // retained: online / offline
	TopicCard     = "card"      // every card drawn
	TopicCoup     = "coup"      // every completed coup
	TopicAlert    = "alert"     // every alert
	TopicAlertAck = "alert/ack" // every acknowledgement of an alert
	TopicVoid     = "void"      // every voided coup
	TopicState    = "state"     // retained: shoe and coup snapshot
	TopicCmd      = "cmd"       // commands: cmd/<name>, replies cmd/<name>/reply
)

// Envelope holds the fields every payload starts with.
type Envelope struct {
	// Schema is SchemaVersion.
	Schema int `json:"schema"`
	// ID identifies the event: stable (a replay of the same journal after a
	// crash gives the same ID) and unique per event, so consumers discard
	// duplicates by ID. See EventID.
	ID string `json:"id"`
	// Table is the table name (Options.Table).
	Table string `json:"table"`
	// ShoeID identifies the shoe within the table ("" before the first shoe).
	ShoeID string `json:"shoe_id"`
	// Time is when the causing event happened, RFC 3339 in UTC.
	Time string `json:"time"`
}

// NewEnvelope returns an envelope with Schema set and t formatted as RFC 3339
// (nanoseconds) in UTC. t should be the causing event's journal time, not the
// time of publishing, so that a replay gives identical payloads.
func NewEnvelope(table, id, shoeID string, t time.Time) Envelope {
	return Envelope{Schema: SchemaVersion, ID: id, Table: table, ShoeID: shoeID, Time: t.UTC().Format(time.RFC3339Nano)}
}

// EventID returns the canonical event ID "<table>/<shoe-id>/<coup>/<kind>/<n>":
// kind is "card", "coup", "alert", "ack", "void" or "state"; n counts events of
// that kind within the coup, from 1 (for a card: its position in the coup;
// for a coup: 1). Derive every argument from the journal event that caused
// the message, never from a counter of messages sent, so that ids survive
// restarts.
func EventID(table, shoeID string, coup int, kind string, n int) string {
	var b strings.Builder
	b.Grow(len(table) + len(shoeID) + len(kind) + 16)
	b.WriteString(table)
	b.WriteByte('/')
	b.WriteString(shoeID)
	b.WriteByte('/')
	b.WriteString(strconv.Itoa(coup))
	b.WriteByte('/')
	b.WriteString(kind)
	b.WriteByte('/')
	b.WriteString(strconv.Itoa(n))
	return b.String()
}

// Message is one message for the outbox: Topic is relative to the table
// prefix (TopicCoup, TopicAlertAck, ...). Retained messages are "latest wins":
// a newer retained message for the same topic replaces an older one still
// waiting in the outbox. All messages are published with QoS 1.
type Message struct {
	Topic    string
	Payload  []byte
	Retained bool
}

// Encode marshals v as the payload of a message for topic. It fails if the
// payload reaches MaxPayload bytes.
func Encode(topic string, retained bool, v any) (Message, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Message{}, fmt.Errorf("mqtt: encode %s payload: %w", topic, err)
	}
	if len(b) >= MaxPayload {
		return Message{}, fmt.Errorf("mqtt: %s payload is %d bytes, limit %d", topic, len(b), MaxPayload)
	}
	return Message{Topic: topic, Payload: b, Retained: retained}, nil
}

// CheckCoup is a completed coup with exactly the keys and values of a
// `sabot check` coup line (see tableau and the check contract). Type is
// "coup"; cards are in canonical form ("9S", or "9" for a rank-only read);
// Winner is "player", "banker" or "tie".
type CheckCoup struct {
	Type        string   `json:"type"`
	Shoe        int      `json:"shoe"`
	Coup        int      `json:"coup"`
	Player      []string `json:"player"`
	Banker      []string `json:"banker"`
	PlayerTotal int      `json:"player_total"`
	BankerTotal int      `json:"banker_total"`
	Winner      string   `json:"winner"`
	Natural     bool     `json:"natural"`
	PlayerPair  bool     `json:"player_pair"`
	BankerPair  bool     `json:"banker_pair"`
}

// CheckAlert is an alert with the keys of a `sabot check` alert line: Type
// "alert", the shoe and coup it belongs to, the kebab-case Code, and the
// card that caused it where there is one.
type CheckAlert struct {
	Type string `json:"type"`
	Shoe int    `json:"shoe"`
	Coup int    `json:"coup"`
	Code string `json:"code"`
	Card string `json:"card,omitempty"`
}

// CheckVoid is a voided coup with the keys of a `sabot check` void line.
type CheckVoid struct {
	Type string `json:"type"`
	Shoe int    `json:"shoe"`
	Coup int    `json:"coup"`
}

// SideBets are the side-bet facts of a coup, true when the named outcome
// happened (whatever the table offers).
type SideBets struct {
	PlayerPair bool `json:"player_pair"`
	BankerPair bool `json:"banker_pair"`
	EitherPair bool `json:"either_pair"`
	// Super6: the banker wins with a total of 6.
	Super6 bool `json:"super6"`
	// Dragon7: the banker wins with a three-card 7 (EZ Baccarat).
	Dragon7 bool `json:"dragon7"`
	// Panda8: the player wins with a three-card 8 (EZ Baccarat).
	Panda8 bool `json:"panda8"`
}

// BetSettlement is how one bet settles under the table's rules.
type BetSettlement struct {
	// Bet is "player", "banker", "tie", "player_pair", "banker_pair",
	// "either_pair", "super6", "dragon7" or "panda8".
	Bet string `json:"bet"`
	// Outcome is "win", "lose" or "push".
	Outcome string `json:"outcome"`
	// Net is the net result per unit staked: 1 for an even-money win, 0.95
	// for a banker win less 5% commission, 8 for a tie at 8 to 1, 0 for a
	// push, -1 for a loss.
	Net float64 `json:"net"`
}

// CoupPayload is published on TopicCoup.
type CoupPayload struct {
	Envelope
	CheckCoup
	// Rules names the table's rules ("punto-banco", "ez-baccarat", ...).
	Rules      string          `json:"rules"`
	SideBets   SideBets        `json:"side_bets"`
	Settlement []BetSettlement `json:"settlement"`
}

// Card positions in CardPayload.Position.
const (
	PositionBurn   = "burn"
	PositionPlayer = "player"
	PositionBanker = "banker"
	PositionNone   = "none" // not part of a hand (extra card, card after a void)
)

// CardPayload is published on TopicCard for every card drawn.
type CardPayload struct {
	Envelope
	Shoe int `json:"shoe"`
	Coup int `json:"coup"`
	// Seq is the card's position in the shoe, from 1 (burns included).
	Seq int `json:"seq"`
	// Position is PositionBurn, PositionPlayer, PositionBanker or
	// PositionNone; Index is 1–3 within the hand (0 for burn and none).
	Position string `json:"position"`
	Index    int    `json:"index"`
	// Card is the canonical card ("9S", "9" for a rank-only read); Rank is
	// "A", "2".."9", "T", "J", "Q", "K"; Suit is "S", "H", "D", "C" or "".
	Card  string `json:"card"`
	Rank  string `json:"rank"`
	Suit  string `json:"suit"`
	Value int    `json:"value"`
	// UID is the reader's identifier of the physical card, if any.
	UID string `json:"uid,omitempty"`
	// Running hand totals after this card (0–9).
	PlayerTotal int `json:"player_total"`
	BankerTotal int `json:"banker_total"`
}

// Alert severities.
const (
	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityCritical = "critical"
)

// MaxAlertText is the longest alert text, in bytes, NewAlertPayload keeps.
const MaxAlertText = 1024

// AlertPayload is published on TopicAlert.
type AlertPayload struct {
	Envelope
	CheckAlert
	// Severity is SeverityInfo, SeverityWarning or SeverityCritical.
	Severity string `json:"severity"`
	// Text is a human message for the pit (at most MaxAlertText bytes).
	Text string `json:"text"`
	// AwaitsAck is true when the alert latches until acknowledged.
	AwaitsAck bool `json:"awaits_ack"`
}

// NewAlertPayload builds an alert payload, truncating text to MaxAlertText
// bytes on a UTF-8 boundary.
func NewAlertPayload(env Envelope, a CheckAlert, severity, text string, awaitsAck bool) AlertPayload {
	if a.Type == "" {
		a.Type = "alert"
	}
	return AlertPayload{Envelope: env, CheckAlert: a, Severity: severity, Text: truncateUTF8(text, MaxAlertText), AwaitsAck: awaitsAck}
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// AckPayload is published on TopicAlertAck when an alert is acknowledged.
type AckPayload struct {
	Envelope
	// AlertID is the Envelope.ID of the acknowledged alert.
	AlertID string `json:"alert_id"`
	Code    string `json:"code"`
	Shoe    int    `json:"shoe"`
	Coup    int    `json:"coup"`
	// Operator is who acknowledged; Source is "key" (table button) or
	// "mqtt" (command). The time is the envelope's.
	Operator string `json:"operator"`
	Source   string `json:"source"`
}

// VoidPayload is published on TopicVoid for every voided coup.
type VoidPayload struct {
	Envelope
	CheckVoid
	// Published is true when the coup had already been published on
	// TopicCoup (consumers must reverse it), false for a coup in progress.
	Published bool   `json:"published"`
	Operator  string `json:"operator,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// StatePayload is published, retained, on TopicState after every change: a
// scoreboard that connects late draws the table from it at once.
type StatePayload struct {
	Envelope
	Shoe int `json:"shoe"`
	// Coup is the number of the coup in progress (or next to be dealt).
	Coup int `json:"coup"`
	// Player and Banker are the cards of the coup in progress.
	Player      []string `json:"player"`
	Banker      []string `json:"banker"`
	PlayerTotal int      `json:"player_total"`
	BankerTotal int      `json:"banker_total"`
	// Waiting tells what the tableau waits for: "burn", "deal" (first four
	// cards), "player-third", "banker-third", "coup-end" (no card due), or
	// "shoe-end".
	Waiting string `json:"waiting"`
	// CardsDealt counts cards drawn from this shoe, burns included.
	CardsDealt int `json:"cards_dealt"`
	// Remaining counts the cards left in the shoe by rank ("A".."K").
	Remaining map[string]int `json:"remaining"`
	// CutCard is true once the cut card has come out.
	CutCard bool `json:"cut_card"`
	// OpenAlerts lists the IDs of the alerts awaiting acknowledgement, the
	// newest MaxStateAlerts of them; OpenAlertCount counts them all.
	OpenAlerts     []string `json:"open_alerts"`
	OpenAlertCount int      `json:"open_alert_count"`
}

// MaxStateAlerts is how many open alert IDs a state payload lists.
const MaxStateAlerts = 8

// Status values.
const (
	StatusOnline  = "online"
	StatusOffline = "offline"
)

// StatusPayload is published, retained, on TopicStatus; it is also the last
// will ("offline") the broker publishes when the daemon vanishes.
type StatusPayload struct {
	Envelope
	Status string `json:"status"`
	// Version is the sabotd version.
	Version string `json:"version"`
	// ShoeState is the shoe driver's state as last reported by the daemon
	// ("online", "offline", "alarm", or "" when not known).
	ShoeState string `json:"shoe_state"`
}

// CoupMessage, CardMessage, ... encode a payload for its topic.

// CoupMessage encodes p for TopicCoup.
func CoupMessage(p CoupPayload) (Message, error) {
	if p.Type == "" {
		p.Type = "coup"
	}
	if p.Player == nil {
		p.Player = []string{}
	}
	if p.Banker == nil {
		p.Banker = []string{}
	}
	if p.Settlement == nil {
		p.Settlement = []BetSettlement{}
	}
	return Encode(TopicCoup, false, p)
}

// CardMessage encodes p for TopicCard.
func CardMessage(p CardPayload) (Message, error) { return Encode(TopicCard, false, p) }

// AlertMessage encodes p for TopicAlert.
func AlertMessage(p AlertPayload) (Message, error) {
	if p.Type == "" {
		p.Type = "alert"
	}
	return Encode(TopicAlert, false, p)
}

// AckMessage encodes p for TopicAlertAck.
func AckMessage(p AckPayload) (Message, error) { return Encode(TopicAlertAck, false, p) }

// VoidMessage encodes p for TopicVoid.
func VoidMessage(p VoidPayload) (Message, error) {
	if p.Type == "" {
		p.Type = "void"
	}
	return Encode(TopicVoid, false, p)
}

// StateMessage encodes p for TopicState (retained).
func StateMessage(p StatePayload) (Message, error) {
	if p.Player == nil {
		p.Player = []string{}
	}
	if p.Banker == nil {
		p.Banker = []string{}
	}
	if p.Remaining == nil {
		p.Remaining = map[string]int{}
	}
	if p.OpenAlertCount < len(p.OpenAlerts) {
		p.OpenAlertCount = len(p.OpenAlerts)
	}
	if len(p.OpenAlerts) > MaxStateAlerts {
		p.OpenAlerts = p.OpenAlerts[len(p.OpenAlerts)-MaxStateAlerts:]
	}
	if p.OpenAlerts == nil {
		p.OpenAlerts = []string{}
	}
	return Encode(TopicState, true, p)
}
