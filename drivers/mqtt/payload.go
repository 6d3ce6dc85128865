package mqtt

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// SchemaVersion is the value of the "schema" field of every payload this
// package publishes. It changes only when a field changes meaning or is
// removed; new fields may be added within a version.
const SchemaVersion = 1

// MaxPayload is the largest payload, in bytes, this package publishes or
// accepts as a command, on every topic but TopicRoads (see PayloadLimit).
// Every message builder refuses larger payloads.
const MaxPayload = 4096

// MaxRoadsPayload is the largest roads payload, in bytes: the envelope
// (under 700 bytes with the longest table, shoe id and id) plus the roads
// of one shoe, which display.BuildRoads bounds to display.MaxRoadsJSON by
// keeping the last display.MaxRoadCoups coups.
const MaxRoadsPayload = 16384

// PayloadLimit is the payload size, in bytes, that a message on topic
// (relative to the table prefix) must stay under: MaxRoadsPayload on
// TopicRoads, MaxPayload on every other topic.
func PayloadLimit(topic string) int {
	if topic == TopicRoads {
		return MaxRoadsPayload
	}
	return MaxPayload
}

// Topic suffixes, relative to the table prefix (<topic_prefix>/<table>).
const (
	TopicStatus   = "status"    // retained: online / offline
	TopicCard     = "card"      // every card drawn
	TopicCoup     = "coup"      // every completed coup
	TopicAlert    = "alert"     // every alert
	TopicAlertAck = "alert/ack" // every acknowledgement of an alert
	TopicVoid     = "void"      // every voided coup
	TopicState    = "state"     // retained: shoe and coup snapshot
	TopicRoads    = "roads"     // retained: the current shoe's scoreboard roads
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

// EventID returns an event ID of the canonical form
// "<table>/<shoe-id>/<coup>/<kind>/<n>": tableau.OutputID, which owns the
// format (tableau.Table gives its outputs these ids). kind is "card",
// "coup", "alert", "void", "state", ...; n counts events of that kind
// within the coup, from 1. Derive every argument from the journal event
// that caused the message, never from a counter of messages sent, so that
// ids survive restarts.
func EventID(table, shoeID string, coup int, kind string, n int) string {
	return tableau.OutputID(table, shoeID, coup, kind, uint64(max(n, 0)))
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
// payload reaches PayloadLimit(topic) bytes.
func Encode(topic string, retained bool, v any) (Message, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Message{}, fmt.Errorf("mqtt: encode %s payload: %w", topic, err)
	}
	if limit := PayloadLimit(topic); len(b) >= limit {
		return Message{}, fmt.Errorf("mqtt: %s payload is %d bytes, limit %d", topic, len(b), limit)
	}
	return Message{Topic: topic, Payload: b, Retained: retained}, nil
}

// CoupPayload is published on TopicCoup for every completed coup of a
// punto banco game: the `sabot check` coup line (baccarat.CoupEvent: its
// contract keys with the same names and values, the side-bet facts
// dragon7, panda8, banker_wins_on_6, and the settlement of every bet the
// rules offer) plus the rule profile. Banque and chemin de fer coups are
// their own lines (encodeLineCoup).
type CoupPayload struct {
	Envelope
	baccarat.CoupEvent
	// Rules is the game's name, as Game ("punto-banco", "super6", "ez",
	// "chemin-de-fer"; banque coups have their own shape, see
	// encodeBanqueCoup).
	Rules baccarat.Game `json:"rules"`
	// TiePays is the tie payout n of n:1 (8 or 9).
	TiePays int `json:"tie_pays"`
}

// encodeLineCoup is the coup payload of a banque or chemin de fer coup:
// the envelope, the coup line as `sabot check` writes it and rules (the
// game's name). Banque's line: right, left, banker, their totals, each
// tableau's winner, the natural of each hand, options, settlement of
// right, left and à cheval; no tie_pays (tiePays nil: banque has no tie
// bet). Chemin de fer's: punto banco's keys without the side-bet facts
// dragon7, panda8 and banker_wins_on_6, plus options; tie_pays kept as
// before (the key the coup schema asks of the two-hand games).
func encodeLineCoup(env Envelope, ev *tableau.Event, r baccarat.Rules, tiePays *int) (Message, error) {
	line, err := ev.MarshalJSON()
	if err != nil {
		return Message{}, fmt.Errorf("mqtt: encode %s payload: %w", TopicCoup, err)
	}
	head, err := json.Marshal(struct {
		Envelope
		Rules   baccarat.Game `json:"rules"`
		TiePays *int          `json:"tie_pays,omitempty"`
	}{env, r.Game, tiePays})
	if err != nil || len(line) < 2 || line[0] != '{' {
		return Message{}, fmt.Errorf("mqtt: encode %s payload: %v", TopicCoup, err)
	}
	// Two objects with disjoint keys, as one.
	merged := append(append(head[:len(head)-1:len(head)-1], ','), line[1:]...)
	return Encode(TopicCoup, false, json.RawMessage(merged))
}

// CardPayload is published on TopicCard for every card drawn:
// tableau.CardPlay (card, uid, position, index, running totals, in_shoe)
// plus the shoe and coup numbers and the card's parts.
type CardPayload struct {
	Envelope
	Shoe int `json:"shoe"`
	// Coup is the coup the card belongs to (0 for the burn).
	Coup int `json:"coup"`
	tableau.CardPlay
	// Rank is "A", "2".."9", "T", "J", "Q", "K"; Suit "S", "H", "D", "C" or
	// "" for a rank-only read; Value the baccarat point value 0–9.
	Rank  string `json:"rank"`
	Suit  string `json:"suit"`
	Value int    `json:"value"`
}

// Alert severities: tableau's (the alert table, baccarat.LookupAlert, says
// each code's severity).
const (
	SeverityInfo    = baccarat.SeverityInfo
	SeverityWarning = baccarat.SeverityWarning
	SeverityError   = baccarat.SeverityError
)

// MaxAlertText is the longest alert text, in bytes, a payload carries.
const MaxAlertText = 1024

// AlertPayload is published on TopicAlert for every alert: the `sabot check`
// alert line (tableau.AlertEvent: type, shoe, coup, code, card) plus
// severity, text and awaits_ack (baccarat.AlertInfo, from the alert table
// baccarat.LookupAlert).
type AlertPayload struct {
	Envelope
	tableau.AlertEvent
	baccarat.AlertInfo
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

// AckPayload is published on TopicAlertAck when a latched entry is
// acknowledged: tableau.AckInfo (alert_id of the entry's first alert,
// last_alert_id of its newest, count of alerts coalesced, code, operator)
// plus the newest alert's shoe and coup; the envelope's time is when. One
// acknowledgement publishes one AckPayload per alert code latched.
type AckPayload struct {
	Envelope
	tableau.AckInfo
	Shoe int `json:"shoe"`
	Coup int `json:"coup"`
}

// VoidPayload is published on TopicVoid for every voided coup: the
// `sabot check` void line (tableau.VoidEvent) plus whether the coup had
// already been published on TopicCoup (consumers must then reverse it).
type VoidPayload struct {
	Envelope
	tableau.VoidEvent
	Published bool `json:"published"`
}

// StatePayload is published, retained, on TopicState after every change: a
// scoreboard that connects late draws the table from it at once. The fields
// are those of tableau.TableView, minus the shoe's results (the roads are
// on TopicRoads). It is bounded by a constant: its hands hold at most three
// cards, RemainingByRank 13 ranks, OpenAlerts MaxStateAlerts, Advantage
// seven bets, and nothing in it grows with the coups of a shoe.
type StatePayload struct {
	Envelope
	Shoe int `json:"shoe"`
	// Phase is "no-shoe", "burn", "between" or "coup".
	Phase string `json:"phase"`
	// Coup is the current (or last) coup number.
	Coup int `json:"coup"`
	// Player and Banker are the current coup's cards (the last coup's
	// between coups).
	Player      baccarat.Hand `json:"player"`
	Banker      baccarat.Hand `json:"banker"`
	PlayerTotal int           `json:"player_total"`
	BankerTotal int           `json:"banker_total"`
	// Waiting is what the tableau waits for: "player", "banker",
	// "player-third", "banker-third" or "complete".
	Waiting  string          `json:"waiting"`
	Complete bool            `json:"complete"`
	Voided   bool            `json:"voided"`
	Winner   baccarat.Winner `json:"winner,omitzero"`
	Natural  bool            `json:"natural"`
	// BurnDrawn of BurnWant burn cards are out.
	BurnDrawn int  `json:"burn_drawn"`
	BurnWant  int  `json:"burn_want"`
	CutCard   bool `json:"cut_card"`
	// LastCoup is the number of the shoe's last coup once known (cut card).
	LastCoup   int  `json:"last_coup,omitempty"`
	IsLastCoup bool `json:"is_last_coup"`
	// CardsDrawn from this shoe, burns included; CardsRemaining in it;
	// RemainingByRank by rank "A".."K".
	CardsDrawn      int            `json:"cards_drawn"`
	CardsRemaining  int            `json:"cards_remaining"`
	RemainingByRank map[string]int `json:"remaining_by_rank"`
	// OpenAlerts are the newest MaxStateAlerts latched entries (one per
	// alert code awaiting acknowledgement); OpenAlertCount counts the
	// alerts they coalesce.
	OpenAlerts     []StateAlert `json:"open_alerts"`
	OpenAlertCount int          `json:"open_alert_count"`
	// Offline: the shoe link is down. BetsOpen: live-dealer betting is
	// open. GateLocked: the shoe gate is locked.
	Offline    bool `json:"offline"`
	BetsOpen   bool `json:"bets_open"`
	GateLocked bool `json:"gate_locked"`
	// Advantage is the live advantage check after the last card (when the
	// daemon's alerts.advantage_threshold is set): each offered bet whose
	// exact expectation for the player on the next coup exceeds the
	// threshold, with that expectation. Omitted when empty.
	Advantage []odds.AdvantageBet `json:"advantage,omitempty"`
	// Dealer is the dealer signed in at the table ("" when none is).
	Dealer string `json:"dealer"`
	// Shift is the current shift's per-dealer counts (coups, voids,
	// alerts by code; tableau.ShiftView), omitted before the first input.
	// At most tableau.MaxShiftDealers dealers; when the payload would not
	// fit in MaxPayload, the dealers who signed in first are summed into
	// Others until it does.
	Shift tableau.ShiftView `json:"shift,omitzero"`
	// Banque only (omitted otherwise): Player is the right tableau, Left
	// the left one; RightWinner and LeftWinner each tableau's result
	// against the banker once the coup is complete ("right" or "left":
	// the tableau wins, "banker", "tie").
	Left        *baccarat.Hand `json:"left,omitempty"`
	LeftTotal   *int           `json:"left_total,omitempty"`
	RightWinner string         `json:"right_winner,omitempty"`
	LeftWinner  string         `json:"left_winner,omitempty"`
}

// banqueWinner is a banque tableau's result in a state payload: side when
// the tableau wins, "banker", "tie", or "" while not complete.
func banqueWinner(w baccarat.Winner, side string) string {
	switch w {
	case baccarat.WinnerPlayer:
		return side
	case baccarat.WinnerBanker:
		return "banker"
	case baccarat.WinnerTie:
		return "tie"
	}
	return ""
}

// StateAlert is a latched entry awaiting acknowledgement, in
// StatePayload: ID is its first alert's id, Count the alerts of Code it
// coalesces, Coup the newest's coup.
type StateAlert struct {
	ID    string             `json:"id"`
	Code  baccarat.AlertCode `json:"code"`
	Coup  int                `json:"coup"`
	Count int                `json:"count"`
}

// MaxStateAlerts is how many open alerts a state payload lists.
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
	// ShoeState is the shoe link's state as last reported by the daemon
	// (Publisher.SetShoe: "online", "offline", "alarm"; "" when not known).
	ShoeState string `json:"shoe_state"`
	// SoftwareSHA256 is the running binary's SHA-256 (Options.Software);
	// omitted when not known.
	SoftwareSHA256 string `json:"software_sha256,omitempty"`
	// JournalHead is the journal's hash-chain head when the status was
	// built (Publisher.SetJournalHead); omitted before the first record.
	JournalHead *JournalHead `json:"journal_head,omitempty"`
	// Conn numbers the daemon's connection to the broker that this status
	// belongs to: the online published on connecting, the last will
	// registered with that connection and the offline of a clean stop all
	// carry the same Conn, and a later connection (or a later run on the
	// same state directory) has a higher one. The current status is the one
	// with the highest Conn; within one Conn, offline supersedes online
	// (README.md, "Which status is current"). Not a time: the will's Time
	// is its connection's start.
	Conn uint64 `json:"conn"`
	// Instance identifies the publishing daemon's state directory (random,
	// made with its outbox): two daemons publishing for one table have
	// different instances.
	Instance string `json:"instance"`
	// Backlog is, in an online status, the number of messages in the
	// outbox awaiting the broker's acknowledgement when the status was
	// built (the pit console shows it); omitted when 0 and in offline
	// statuses (a last will is built at connect time).
	Backlog int `json:"backlog,omitempty"`
	// Rules are the table's house rules (Options.Rules); omitted when the
	// publisher was given none.
	Rules *RulesStatus `json:"rules,omitempty"`
}

// RulesStatus is the house rules in the status payload: the game and what
// the table pays, with the names of sabotd's [rules] keys and the values
// in force (defaults filled in). In JSON:
// {"game":"punto-banco","commission":0.05,"tie_pays":8,"pair_pays":11,
// "side_bets":["lucky6"],"pays_lucky6":[12,20]}. The pay table of a side
// bet is present only when that bet is offered (pays_dragon and
// pays_dragon_natural with either Dragon Bonus bet), pair_suited_pays
// only when a suited pair pays more than pair_pays.
type RulesStatus struct {
	Game baccarat.Game `json:"game"`
	// Commission is the house's share of a banker win, a fraction (0.05
	// for 5%; 0 under super6 and ez).
	Commission float64 `json:"commission"`
	TiePays    int     `json:"tie_pays"`
	PairPays   int     `json:"pair_pays"`
	// PairSuitedPays is what a suited pair (same rank and suit) pays on
	// player pair and banker pair, to 1; present only when it is more
	// than PairPays (the house rule is on).
	PairSuitedPays int `json:"pair_suited_pays,omitempty"`
	// SideBets are the side bets offered, by name ("perfect-pair", …,
	// "lucky6"); empty, not null, when none.
	SideBets          []string  `json:"side_bets"`
	PaysPerfectPair   []float64 `json:"pays_perfect_pair,omitempty"`
	PaysEitherPair    float64   `json:"pays_either_pair,omitempty"`
	PaysBig           float64   `json:"pays_big,omitempty"`
	PaysSmall         float64   `json:"pays_small,omitempty"`
	PaysDragon        []float64 `json:"pays_dragon,omitempty"`
	PaysDragonNatural float64   `json:"pays_dragon_natural,omitempty"`
	PaysLucky6        []float64 `json:"pays_lucky6,omitempty"`
	// PunterFive and BankerTable are chemin de fer's options (the game's
	// parameters): "option", "draw" or "stand"; "scarne" or "free".
	PunterFive  string `json:"punter_five,omitempty"`
	BankerTable string `json:"banker_table,omitempty"`
}

// NewRulesStatus returns the status form of r.
func NewRulesStatus(r baccarat.Rules) *RulesStatus {
	s := &RulesStatus{
		Game: r.Game, Commission: float64(r.CommissionBP()) / 10000,
		TiePays: r.TiePayout(), PairPays: r.PairPayout(), SideBets: []string{},
	}
	if p := r.PairSuitedPayout(); p > s.PairPays {
		s.PairSuitedPays = p
	}
	if info, ok := baccarat.LookupGame(r.Game.Name()); ok {
		for i, v := range r.Game.Params() {
			switch info.Params[i].Name {
			case "punter-five":
				s.PunterFive = v
			case "banker-table":
				s.BankerTable = v
			}
		}
	}
	off := r.Side.Offered
	if off == 0 {
		return s
	}
	s.SideBets = strings.Split(off.String(), ",")
	p := r.Side.Pays.Effective()
	if off.Has(baccarat.BetPerfectPair) {
		s.PaysPerfectPair = []float64{p.PerfectPair, p.PerfectPairBoth}
	}
	if off.Has(baccarat.BetEitherPair) {
		s.PaysEitherPair = p.EitherPair
	}
	if off.Has(baccarat.BetBig) {
		s.PaysBig = p.Big
	}
	if off.Has(baccarat.BetSmall) {
		s.PaysSmall = p.Small
	}
	if off.Has(baccarat.BetDragonPlayer) || off.Has(baccarat.BetDragonBanker) {
		s.PaysDragon = p.Dragon[:]
		s.PaysDragonNatural = p.DragonNatural
	}
	if off.Has(baccarat.BetLucky6) {
		s.PaysLucky6 = []float64{p.Lucky6Two, p.Lucky6Three}
	}
	return s
}

// JournalHead is the head of the journal's hash chain (drivers/journal's
// ChainHead): the last record and its link, in hexadecimal.
type JournalHead struct {
	Seq    uint64 `json:"seq"`
	SHA256 string `json:"sha256"`
}

// Builder turns the table controller's outputs and views into messages.
// It keeps no state of its own: every payload derives from the output or
// view it is given (a void's "published" is Output.VoidsResult), so that
// sabotd, restarting from a snapshot of the table, builds the same
// messages as from the whole journal.
type Builder struct {
	table string
	rules baccarat.Rules
}

// NewBuilder returns a Builder for the table named table (Options.Table)
// under rules.
func NewBuilder(table string, rules baccarat.Rules) *Builder {
	return &Builder{table: table, rules: rules}
}

// Output returns the message for one table output, and false (no message,
// no error) for outputs that are not published (the gate). Errors: an
// output that cannot be encoded (invalid card, payload too large).
func (b *Builder) Output(o tableau.Output) (Message, bool, error) {
	env := NewEnvelope(b.table, o.ID, o.ShoeID, o.Time)
	var m Message
	var err error
	switch o.Kind {
	case tableau.OutputCard:
		c := o.Card.Card
		m, err = Encode(TopicCard, false, CardPayload{Envelope: env, Shoe: o.Shoe, Coup: o.Coup, CardPlay: o.Card,
			Rank: c.Rank.String(), Suit: c.Suit.String(), Value: c.Value()})
	case tableau.OutputCoup:
		switch o.Event.Coup.Game.Name() {
		case "banque":
			m, err = encodeLineCoup(env, &o.Event, b.rules, nil)
		case "chemin-de-fer":
			tp := tiePays(b.rules)
			m, err = encodeLineCoup(env, &o.Event, b.rules, &tp)
		default:
			m, err = Encode(TopicCoup, false, CoupPayload{Envelope: env, CoupEvent: o.Event.Coup, Rules: b.rules.Game, TiePays: tiePays(b.rules)})
		}
	case tableau.OutputAlert:
		info := o.Alert
		info.Text = truncateUTF8(info.Text, MaxAlertText)
		m, err = Encode(TopicAlert, false, AlertPayload{Envelope: env, AlertEvent: o.Event.Alert, AlertInfo: info})
	case tableau.OutputVoid:
		m, err = Encode(TopicVoid, false, VoidPayload{Envelope: env, VoidEvent: o.Event.Void, Published: o.VoidsResult})
	case tableau.OutputAck:
		m, err = Encode(TopicAlertAck, false, AckPayload{Envelope: env, AckInfo: o.Ack, Shoe: o.Shoe, Coup: o.Coup})
	default:
		return Message{}, false, nil
	}
	if err != nil {
		return Message{}, false, fmt.Errorf("mqtt: output %s: %w", o.ID, err)
	}
	return m, true, nil
}

func tiePays(r baccarat.Rules) int {
	if r.TiePays == 0 {
		return 8
	}
	return r.TiePays
}

// State returns the retained state message for view v, caused by the
// journal input with sequence number seq at time t. Its id is
// "<table>/<shoe-id>/<coup>/state/<seq>".
func (b *Builder) State(v tableau.TableView, seq uint64, t time.Time) (Message, error) {
	id := tableau.OutputID(b.table, v.ShoeID, v.Coup, "state", seq)
	p := StatePayload{
		Envelope: NewEnvelope(b.table, id, v.ShoeID, t),
		Shoe:     v.Shoe, Phase: v.Phase, Coup: v.Coup, Player: v.Player, Banker: v.Banker,
		PlayerTotal: v.PlayerTotal, BankerTotal: v.BankerTotal, Waiting: v.Waiting, Complete: v.Complete,
		Voided: v.Voided, Winner: v.Winner, Natural: v.Natural, BurnDrawn: v.BurnDrawn, BurnWant: v.BurnWant,
		CutCard: v.CutCard, LastCoup: v.LastCoup, IsLastCoup: v.IsLastCoup, CardsDrawn: v.CardsDrawn,
		CardsRemaining: v.Remaining, RemainingByRank: v.ByRank, OpenAlertCount: max(v.AlertCount, len(v.Alerts)),
		Offline: v.Offline, BetsOpen: v.BetsOpen, GateLocked: v.GateLocked, Advantage: v.Advantage,
		Dealer: v.Dealer,
	}
	if v.Banque {
		left, total := v.Left, v.LeftTotal
		p.Left, p.LeftTotal = &left, &total
		p.RightWinner, p.LeftWinner = banqueWinner(v.RightWinner, "right"), banqueWinner(v.LeftWinner, "left")
	}
	// A shoe that has given more cards than its decks hold (a shoe that
	// never ends, a wrong deck count) has no cards left, not fewer than none.
	p.CardsRemaining = max(0, p.CardsRemaining)
	rem := make(map[string]int, len(v.ByRank))
	for r, n := range v.ByRank {
		rem[r] = max(0, n)
	}
	p.RemainingByRank = rem
	// List the newest open alerts that fit: MaxStateAlerts, fewer if the
	// ids are so long the payload would reach MaxPayload; and, before
	// dropping alerts, sum the dealers who signed in first into Others.
	for n := min(len(v.Alerts), MaxStateAlerts); ; n /= 2 {
		p.OpenAlerts = make([]StateAlert, 0, n)
		for _, a := range v.Alerts[len(v.Alerts)-n:] {
			p.OpenAlerts = append(p.OpenAlerts, StateAlert{ID: a.ID, Code: a.Code, Coup: a.Coup, Count: max(a.Count, 1)})
		}
		var m Message
		var err error
		for k := 0; k <= len(v.Shift.Dealers); k++ {
			p.Shift = foldDealers(v.Shift, k)
			if m, err = Encode(TopicState, true, p); err == nil {
				return m, nil
			}
		}
		if n == 0 {
			return m, err
		}
	}
}

// foldDealers returns s with its first k dealers summed into Others.
func foldDealers(s tableau.ShiftView, k int) tableau.ShiftView {
	if k == 0 || s.Start.IsZero() {
		return s
	}
	o := tableau.DealerCounts{Coups: s.Others.Coups, Voids: s.Others.Voids, Alerts: map[baccarat.AlertCode]int{}}
	for c, n := range s.Others.Alerts {
		o.Alerts[c] += n
	}
	for _, d := range s.Dealers[:k] {
		o.Coups += d.Coups
		o.Voids += d.Voids
		for c, n := range d.Alerts {
			o.Alerts[c] += n
		}
	}
	s.Dealers, s.Others = s.Dealers[k:], o
	return s
}

// Cleared returns the messages that clear (an empty retained publish,
// MQTT 3.1.1 section 3.3.1.3) the table's retained topics its game does
// not publish: TopicRoads for banque. A table switched from punto banco to
// banque would otherwise leave the broker's last roads of the old game
// for every new subscriber. The daemon sends them at every start; nil when
// the game publishes every retained topic.
func (b *Builder) Cleared() []Message {
	if b.rules.Game == baccarat.GameBanque {
		return []Message{{Topic: TopicRoads, Retained: true}}
	}
	return nil
}

// RoadsPayload is published, retained, on TopicRoads after every coup and
// void and at a new shoe: the envelope plus exactly the object `sabot roads`
// prints for the current shoe (display.Roads, from display.ViewRoads): bead
// plate, big road, the three derived roads, ask-road, statistics and the
// drawn grids. Under MaxRoadsPayload bytes.
type RoadsPayload struct {
	Envelope
	display.Roads
}

// Roads returns the retained roads message for view v after the outputs
// outs of the journal input with sequence number seq at time t, and false
// (no message) unless outs hold a coup or a void or the input started the
// shoe (the shoe id, "<UTC start time>-<journal sequence>", names seq): the
// roads change only at those. Like every Builder method it keeps no state.
// Its id is "<table>/<shoe-id>/<coup>/roads/<seq>". A banque table has no
// roads (its coups have a result per tableau, not one winner; the roads
// are those of the punto banco games and chemin de fer): Roads never gives
// a message for it, where empty roads would say no coup was dealt.
func (b *Builder) Roads(outs []tableau.Output, v tableau.TableView, seq uint64, t time.Time) (Message, bool, error) {
	if b.rules.Game == baccarat.GameBanque {
		return Message{}, false, nil
	}
	due := v.ShoeID != "" && strings.HasSuffix(v.ShoeID, "-"+strconv.FormatUint(seq, 10))
	for i := range outs {
		if k := outs[i].Kind; k == tableau.OutputCoup || k == tableau.OutputVoid {
			due = true
		}
	}
	if !due {
		return Message{}, false, nil
	}
	id := tableau.OutputID(b.table, v.ShoeID, v.Coup, "roads", seq)
	m, err := Encode(TopicRoads, true, RoadsPayload{Envelope: NewEnvelope(b.table, id, v.ShoeID, t), Roads: display.ViewRoads(v)})
	if err != nil {
		return Message{}, false, fmt.Errorf("mqtt: roads %s: %w", id, err)
	}
	return m, true, nil
}
