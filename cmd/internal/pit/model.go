package pit

// The pit console's model: what it knows of every table, built from the
// MQTT messages the tables publish (drivers/mqtt/README.md is the
// contract). It does no I/O: mqtt.go feeds it messages, web.go
// reads tiles from it.

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// Bounds of the model (docs/operations.md's bounds table lists them).
const (
	// DefaultMaxTables is how many tables the console tracks by default
	// (--max-tables): messages of further tables are dropped and counted
	// (Model.Dropped), never stored.
	DefaultMaxTables = 1024
	// maxPitAlerts bounds the open alert entries kept per table: the
	// daemon coalesces latched alerts into one entry per code (21 codes
	// today), so only an unknown newer code could pass it; past it the
	// oldest entry is forgotten (the table's state message still counts it
	// in MoreAlerts).
	maxPitAlerts = 32
	// maxPitSeen bounds the alert ids remembered per table to drop
	// duplicates (delivery is at least once); the oldest are forgotten.
	maxPitSeen = 256
	// maxPitMessage is the largest message the console reads: the largest
	// payload a daemon publishes (mqtt.MaxRoadsPayload); larger ones are
	// dropped unread.
	maxPitMessage = mqtt.MaxRoadsPayload
	// maxPitTableName is the longest table name (the schema's pattern).
	maxPitTableName = 64
)

// Urgency classes of a tile, most urgent first (pitTile.Class; the page
// sorts by class, then by Since, oldest first, then by table name;
// docs/pit.md "Urgency").
const (
	// urgencyCritical: the daemon is offline (its status says so, or no
	// status has been seen), or an error alert (tableau's severity
	// "error": a dealer error, tampering, lost data) awaits
	// acknowledgement.
	urgencyCritical = 0
	// urgencyWarning: the shoe link is down or in alarm, or a warning
	// alert awaits acknowledgement.
	urgencyWarning = 1
	// urgencyNotice: an info alert awaits acknowledgement, or the outbox
	// holds at least pitBacklogShown messages.
	urgencyNotice = 2
	// urgencyQuiet: nothing to look at.
	urgencyQuiet = 3
)

// pitBacklogShown is the outbox backlog from which a tile counts it as a
// notice (and the page shows it). A status is built at every coup, when
// that coup's messages (about 8) and those still awaiting PUBACK (up to
// 64 in flight) are in the outbox: a few dozen is a table at work; 100 is
// a table some coups behind.
const pitBacklogShown = 100

// pitAlert is an open alert entry on a tile: one latched alert code of the
// table awaiting acknowledgement, coalescing Count alerts (as the daemon
// does, drivers/mqtt/README.md "alert and alert/ack").
type pitAlert struct {
	// ID is the entry's first alert's id, LastID its newest's.
	ID     string `json:"id"`
	LastID string `json:"last_id"`
	Code   string `json:"code"`
	// E is the display's error code ("E1"), "E0" for a code without one.
	E        string `json:"e"`
	Severity string `json:"severity"`
	Text     string `json:"text"`
	Shoe     int    `json:"shoe"`
	Coup     int    `json:"coup"`
	Count    int    `json:"count"`
	Dealer   string `json:"dealer,omitempty"`
	// Time is when the first alert happened at the table (RFC 3339, UTC);
	// when the console did not receive the alert itself (it started
	// later, and knows the entry from the retained state) it is when the
	// console first saw the entry, and Late is true: the alert is at least
	// that old.
	Time string `json:"time"`
	Late bool   `json:"late,omitempty"`

	at time.Time
}

// pitResult is a table's last coup result.
type pitResult struct {
	Coup        int    `json:"coup"`
	Winner      string `json:"winner"` // "banker", "player", "tie"
	PlayerTotal int    `json:"player_total"`
	BankerTotal int    `json:"banker_total"`
	Natural     bool   `json:"natural"`
	Voided      bool   `json:"voided,omitempty"`
	// Known: the totals are known (from a coup message or the state);
	// false when only the roads' bead plate gave the winner.
	Known bool `json:"known"`
}

// pitStats are the current shoe's counts, from the roads.
type pitStats struct {
	Coups  int `json:"coups"`
	Banker int `json:"banker"`
	Player int `json:"player"`
	Tie    int `json:"tie"`
}

// pitAckState is the last acknowledgement the console sent a table.
type pitAckState struct {
	RequestID string `json:"request_id"`
	Operator  string `json:"operator"`
	Sent      string `json:"sent"`
	// State is "sent" (no reply yet), "accepted", "rejected" or
	// "no-reply" (none within pitAckReplyWait: are commands enabled on
	// the table?).
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`

	sentAt time.Time
}

// pitAckReplyWait is how long the console waits for a command's reply
// before it says there was none.
const pitAckReplyWait = 10 * time.Second

// pitTile is what the page shows of one table: the body of a "tile"
// server-sent event.
type pitTile struct {
	Table string `json:"table"`
	// V is the tile's version: the model's change counter when it last
	// changed.
	V uint64 `json:"v"`
	// Status is the current status (drivers/mqtt/README.md "Which status
	// is current"): "online", "offline", or "unknown" (none seen yet).
	Status string `json:"status"`
	// Since is when the tile entered its urgency class as the console saw
	// it (RFC 3339): the page lists older problems first.
	Since     string `json:"since"`
	ShoeState string `json:"shoe_state"`
	Version   string `json:"version,omitempty"`
	Game      string `json:"game,omitempty"`
	Shoe      int    `json:"shoe"`
	ShoeID    string `json:"shoe_id"`
	Phase     string `json:"phase"`
	Coup      int    `json:"coup"`
	CardsLeft int    `json:"cards_left"`
	Dealer    string `json:"dealer,omitempty"`
	// Last is the last coup's result, nil before the first.
	Last  *pitResult `json:"last,omitempty"`
	Stats pitStats   `json:"stats"`
	// Alerts are the open entries, oldest first; MoreAlerts counts alerts
	// the table reports open (its state's open_alert_count) beyond those
	// listed.
	Alerts     []pitAlert `json:"alerts"`
	MoreAlerts int        `json:"more_alerts"`
	// Backlog is the daemon's outbox backlog from its last status (0 when
	// its status does not carry one).
	Backlog int `json:"backlog"`
	// Board is the table's board page, "" when not configured.
	Board string `json:"board,omitempty"`
	// Class is the urgency class (urgencyCritical ...).
	Class int          `json:"class"`
	Ack   *pitAckState `json:"ack,omitempty"`
	// Conflict: statuses of two daemons (two instances) have been seen
	// online for this table (drivers/mqtt/README.md "One daemon per
	// table").
	Conflict bool `json:"conflict,omitempty"`
	// MissedCoups counts the coups of the current shoe the console never
	// received, neither as a coup nor as a void: numbers skipped in the
	// sequence of coup numbers since the first it received in the shoe
	// (while disconnected: the console's session is clean). The state and
	// roads still give the tile.
	MissedCoups int `json:"missed_coups,omitempty"`
}

// pitTable is the model of one table.
type pitTable struct {
	tile pitTile

	haveStatus bool
	conn       uint64
	instance   string

	alerts []pitAlert     // open entries, oldest first (≤ maxPitAlerts)
	seen   map[string]int // alert ids seen → order (≤ maxPitSeen)
	seenN  int
	since  time.Time // when Class was entered

	// The newest state, roads and coup result applied, by their own order.
	stateAt, roadsAt, coupAt pitOrder
	// coupShoe is the shoe id whose coup numbers are followed, nextCoup
	// the number expected next in it (0: none received yet).
	coupShoe string
	nextCoup int
}

// pitOrder is where a message stands in its table's own order: a number
// (for a state or roads, the journal record at the end of its id; for a
// coup, its shoe and coup numbers) and its time.
type pitOrder struct {
	n  uint64
	at time.Time
}

// orderOf reads a message's order from its id's last number and its time.
func orderOf(id, at string) pitOrder {
	n, _ := strconv.ParseUint(id[strings.LastIndexByte(id, '/')+1:], 10, 64)
	t, _ := time.Parse(time.RFC3339Nano, at)
	return pitOrder{n, t}
}

// advance moves *order to the order of the message with this id and time
// when the message is to be applied after it (after), and tells whether it
// did.
func advance(order *pitOrder, id, when string) bool {
	o := orderOf(id, when)
	if !o.after(*order) {
		return false
	}
	*order = o
	return true
}

// after reports whether o is to be applied after prev: unless it is older
// by both its number and its time, which is a message delivered again
// after newer ones (delivery is at least once, and a NATS cluster sends
// messages again after a node's crash, out of order) or the same message
// again. A lower number with a later time is a table whose journal started
// afresh, and is taken; so is a message whose order is unknown (no id, no
// time).
func (o pitOrder) after(prev pitOrder) bool {
	return o == pitOrder{} || o.n > prev.n || o.at.After(prev.at)
}

// Model holds every table's tile. It is safe for concurrent use.
type Model struct {
	maxTables int
	now       func() time.Time
	boardURL  func(table string) string

	mu      sync.Mutex
	tables  map[string]*pitTable
	version uint64
	dropped uint64        // messages of tables past maxTables
	changed chan struct{} // closed and replaced on every change
}

// NewModel makes a model tracking at most maxTables tables (0:
// DefaultMaxTables). boardURL gives a table's board page ("" for none);
// nil gives none.
func NewModel(maxTables int, now func() time.Time, boardURL func(string) string) *Model {
	if maxTables <= 0 {
		maxTables = DefaultMaxTables
	}
	if now == nil {
		now = time.Now
	}
	if boardURL == nil {
		boardURL = func(string) string { return "" }
	}
	return &Model{maxTables: maxTables, now: now, boardURL: boardURL,
		tables: map[string]*pitTable{}, changed: make(chan struct{})}
}

// validTableName reports whether s is a table name as the schema allows
// (^[A-Za-z0-9_.-]{1,64}$).
func validTableName(s string) bool {
	if len(s) == 0 || len(s) > maxPitTableName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// table returns the table's model, making it if there is room; nil when
// the table limit is reached. Call with mu held.
func (m *Model) table(name string) *pitTable {
	if t := m.tables[name]; t != nil {
		return t
	}
	if len(m.tables) >= m.maxTables {
		m.dropped++
		return nil
	}
	t := &pitTable{seen: map[string]int{}, since: m.now()}
	t.tile = pitTile{Table: name, Status: "unknown", Alerts: []pitAlert{}, Board: m.boardURL(name)}
	m.tables[name] = t
	return t
}

// Apply takes one message: topic is relative to the table prefix
// (mqtt.TopicStatus, ...). It reports whether the model changed; a
// payload it cannot read is ignored (and reported as not changed).
func (m *Model) Apply(table, topic string, payload []byte) bool {
	if !validTableName(table) || len(payload) > maxPitMessage {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(payload) == 0 && m.tables[table] == nil {
		return false // a cleared retained message of a table not tracked
	}
	t := m.table(table)
	if t == nil {
		return false
	}
	var changed bool
	for _, pt := range pitTopics {
		if pt.topic == topic {
			changed = pt.apply(m, t, payload)
			break
		}
	}
	if changed {
		m.touch(t)
	}
	return changed
}

// touch recomputes t's urgency and gives it a new version. Call with mu
// held.
func (m *Model) touch(t *pitTable) {
	c := t.class()
	if c != t.tile.Class {
		t.tile.Class = c
		t.since = m.now()
	}
	t.tile.Since = t.since.UTC().Format(time.RFC3339Nano)
	t.tile.Alerts = append(t.tile.Alerts[:0], t.alerts...)
	m.version++
	t.tile.V = m.version
	close(m.changed)
	m.changed = make(chan struct{})
}

// class is the tile's urgency class (see the urgency constants).
func (t *pitTable) class() int {
	worst := urgencyQuiet
	if t.tile.Status != mqtt.StatusOnline {
		return urgencyCritical
	}
	for _, a := range t.alerts {
		switch a.Severity {
		case baccarat.SeverityError:
			return urgencyCritical
		case baccarat.SeverityWarning:
			worst = min(worst, urgencyWarning)
		default:
			worst = min(worst, urgencyNotice)
		}
	}
	if t.tile.ShoeState == "offline" || t.tile.ShoeState == "alarm" {
		worst = min(worst, urgencyWarning)
	}
	if t.tile.Backlog >= pitBacklogShown {
		worst = min(worst, urgencyNotice)
	}
	return worst
}

// pitStatus is the status payload as the console reads it: the daemon's
// (mqtt.StatusPayload) plus keys newer daemons may add.
type pitStatus struct {
	Status    string `json:"status"`
	Version   string `json:"version"`
	ShoeState string `json:"shoe_state"`
	Conn      uint64 `json:"conn"`
	Instance  string `json:"instance"`
	// Backlog: the outbox backlog when an online status was built
	// (mqtt.StatusPayload.Backlog).
	Backlog int `json:"backlog"`
	// Game or Rules name the game ("rules" may be a string or an object
	// with a "game" or "profile" key).
	Game  string          `json:"game"`
	Rules json.RawMessage `json:"rules"`
}

// currentStatus reports whether status s supersedes the current one of
// connection conn ("Which status is current" in drivers/mqtt/README.md):
// a higher conn wins; within one conn offline supersedes online and a
// later online replaces an earlier one.
func (t *pitTable) supersedes(s *pitStatus) bool {
	if !t.haveStatus || s.Conn > t.conn {
		return true
	}
	if s.Conn < t.conn {
		return false
	}
	if t.tile.Status == mqtt.StatusOffline {
		return s.Status == mqtt.StatusOffline
	}
	return true
}

func (m *Model) applyStatus(t *pitTable, payload []byte) bool {
	var s pitStatus
	if json.Unmarshal(payload, &s) != nil || (s.Status != mqtt.StatusOnline && s.Status != mqtt.StatusOffline) {
		return false
	}
	if !t.supersedes(&s) {
		return false
	}
	// Two daemons: an online of another instance while this one is
	// online.
	if t.haveStatus && s.Instance != "" && t.instance != "" && s.Instance != t.instance &&
		s.Status == mqtt.StatusOnline && t.tile.Status == mqtt.StatusOnline {
		t.tile.Conflict = true
	} else if s.Instance == t.instance {
		// the same daemon again: nothing tells of another any more
	} else if s.Status == mqtt.StatusOnline && t.tile.Status == mqtt.StatusOffline {
		t.tile.Conflict = false // a daemon replaced one that stopped
	}
	t.haveStatus, t.conn, t.instance = true, s.Conn, s.Instance
	t.tile.Status = s.Status
	t.tile.ShoeState = s.ShoeState
	t.tile.Version = s.Version
	t.tile.Backlog = 0
	if s.Status == mqtt.StatusOnline { // an offline status's count would be stale
		t.tile.Backlog = max(s.Backlog, 0)
	}
	if g := gameOf(s.Game, s.Rules); g != "" {
		t.tile.Game = g
	}
	return true
}

// gameOf names the game from a status's "game" or "rules".
func gameOf(game string, rules json.RawMessage) string {
	if game != "" {
		return game
	}
	if len(rules) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(rules, &s) == nil {
		return baccarat.GameTitle(s)
	}
	var o map[string]any
	if json.Unmarshal(rules, &o) == nil {
		for _, k := range []string{"game", "profile", "name"} {
			if v, ok := o[k].(string); ok && v != "" {
				return baccarat.GameTitle(v)
			}
		}
	}
	return ""
}

// pitState is the state payload as the console reads it: the daemon's
// own declaration (mqtt.StatePayload, made from tableau.TableView), with
// the dealer kept raw so that a state without the key (from a daemon
// older than dealer sign-in: the tile keeps what it had) is told from one
// with no dealer signed in ("").
type pitState struct {
	mqtt.StatePayload
	Dealer json.RawMessage `json:"dealer"`
}

func (m *Model) applyState(t *pitTable, payload []byte) bool {
	var s pitState
	if json.Unmarshal(payload, &s) != nil || s.Phase == "" {
		return false
	}
	if !advance(&t.stateAt, s.ID, s.Time) {
		return false // an older state delivered again: the tile has a newer one
	}
	tl := &t.tile
	tl.Shoe, tl.ShoeID, tl.Phase, tl.Coup, tl.CardsLeft = s.Shoe, s.ShoeID, s.Phase, s.Coup, s.CardsRemaining
	if s.Dealer != nil {
		tl.Dealer = dealerOf(s.Dealer)
	}
	if s.Complete && (s.Phase == "between" || s.Phase == "coup") && s.Winner != baccarat.WinnerNone {
		r := &pitResult{Coup: s.Coup, Winner: s.Winner.String(), PlayerTotal: s.PlayerTotal,
			BankerTotal: s.BankerTotal, Natural: s.Natural, Voided: s.Voided, Known: true}
		tl.Last = r
	} else if s.Voided && tl.Last != nil && tl.Last.Coup == s.Coup {
		tl.Last.Voided = true
	}
	// The state lists the open entries (the newest mqtt.MaxStateAlerts):
	// they replace what the console had, keeping what it knows of each.
	now := m.now()
	open := make([]pitAlert, 0, len(s.OpenAlerts))
	listed := 0
	for _, e := range s.OpenAlerts {
		listed += max(e.Count, 1)
		a, ok := t.entryByID(e.ID)
		if !ok {
			a, ok = t.entryByCode(string(e.Code))
		}
		if !ok {
			a = newPitAlert(string(e.Code), e.ID, "", "", s.Shoe, e.Coup, "", now, true)
		}
		a.Count = max(e.Count, 1)
		a.Coup = e.Coup
		open = append(open, a)
	}
	// The state lists the newest entries: entries it leaves out because
	// its list is full stay (they are older, and still open).
	if len(s.OpenAlerts) >= mqtt.MaxStateAlerts {
		var older []pitAlert
		for _, a := range t.alerts {
			if !containsEntry(open, a) {
				older = append(older, a)
				listed += a.Count
			}
		}
		open = append(older, open...)
	}
	sort.SliceStable(open, func(i, j int) bool { return open[i].at.Before(open[j].at) })
	if len(open) > maxPitAlerts {
		open = open[len(open)-maxPitAlerts:]
	}
	t.alerts = open
	tl.MoreAlerts = max(s.OpenAlertCount-listed, 0)
	return true
}

func containsEntry(list []pitAlert, a pitAlert) bool {
	for _, b := range list {
		if b.ID == a.ID || b.Code == a.Code {
			return true
		}
	}
	return false
}

func (t *pitTable) entryByID(id string) (pitAlert, bool) {
	for _, a := range t.alerts {
		if a.ID == id || a.LastID == id {
			return a, true
		}
	}
	return pitAlert{}, false
}

func (t *pitTable) entryByCode(code string) (pitAlert, bool) {
	for _, a := range t.alerts {
		if a.Code == code {
			return a, true
		}
	}
	return pitAlert{}, false
}

// newPitAlert makes an entry; severity and text default to tableau's
// alert table for the code.
func newPitAlert(code, id, severity, text string, shoe, coup int, dealer string, at time.Time, late bool) pitAlert {
	meta, known := baccarat.LookupAlert(baccarat.AlertCode(code))
	if severity == "" {
		severity = meta.Severity
		if !known {
			severity = baccarat.SeverityWarning
		}
	}
	if text == "" {
		text = meta.Text
	}
	e := "E0"
	if known && meta.E > 0 {
		e = display.ErrorText(code)
	}
	return pitAlert{ID: id, LastID: id, Code: code, E: e, Severity: severity, Text: text, Shoe: shoe, Coup: coup,
		Count: 1, Dealer: dealer, Time: at.UTC().Format(time.RFC3339Nano), Late: late, at: at}
}

// seenID records an alert id; it reports false if it was seen before.
func (t *pitTable) seenID(id string) bool {
	if _, dup := t.seen[id]; dup {
		return false
	}
	t.seenN++
	t.seen[id] = t.seenN
	if len(t.seen) > maxPitSeen {
		// Forget the oldest quarter at once (amortised: not on every id).
		cut := t.seenN - maxPitSeen*3/4
		for k, n := range t.seen {
			if n <= cut {
				delete(t.seen, k)
			}
		}
	}
	return true
}

// dealerOf reads a "dealer" key: a dealer id string, or an object with an
// "id" (what newer daemons may send); "" for none.
func dealerOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return truncateText(s)
	}
	var o struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return truncateText(o.ID)
	}
	return ""
}

// truncateText cuts s to mqtt.MaxAlertText bytes (a payload's text is
// already that short; a foreign publisher's may not be).
func truncateText(s string) string {
	if len(s) <= mqtt.MaxAlertText {
		return s
	}
	n := mqtt.MaxAlertText
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// pitAlertMsg is the alert payload as the console reads it.
type pitAlertMsg struct {
	ID        string          `json:"id"`
	Time      string          `json:"time"`
	Shoe      int             `json:"shoe"`
	Coup      int             `json:"coup"`
	Code      string          `json:"code"`
	Severity  string          `json:"severity"`
	Text      string          `json:"text"`
	AwaitsAck bool            `json:"awaits_ack"`
	Dealer    json.RawMessage `json:"dealer"`
}

func (m *Model) applyAlert(t *pitTable, payload []byte) bool {
	var a pitAlertMsg
	if json.Unmarshal(payload, &a) != nil || a.ID == "" || a.Code == "" {
		return false
	}
	if !t.seenID(a.ID) || !a.AwaitsAck {
		// Alerts that do not latch are over as they happen: the console
		// lists what awaits acknowledgement.
		return false
	}
	at, err := time.Parse(time.RFC3339Nano, a.Time)
	if err != nil {
		at = m.now()
	}
	for i := range t.alerts {
		e := &t.alerts[i]
		if e.Code == a.Code {
			if e.Late {
				// Known only from the state so far (a backlog sent
				// after the console started): this is, or follows, the
				// entry's first alert, which is this old.
				e.Late, e.at, e.Time = false, at, at.UTC().Format(time.RFC3339Nano)
				e.Severity, e.Text, e.Shoe = a.Severity, truncateText(a.Text), a.Shoe
				if e.ID == a.ID || e.LastID == a.ID {
					return true
				}
			}
			if e.ID == a.ID || e.LastID == a.ID {
				return false
			}
			e.Count++
			e.LastID, e.Coup, e.Shoe, e.Text = a.ID, a.Coup, a.Shoe, truncateText(a.Text)
			if d := dealerOf(a.Dealer); d != "" {
				e.Dealer = d
			}
			return true
		}
	}
	e := newPitAlert(a.Code, a.ID, a.Severity, truncateText(a.Text), a.Shoe, a.Coup, dealerOf(a.Dealer), at, false)
	t.alerts = append(t.alerts, e)
	if len(t.alerts) > maxPitAlerts {
		t.alerts = append(t.alerts[:0], t.alerts[len(t.alerts)-maxPitAlerts:]...)
	}
	return true
}

func (m *Model) applyAck(t *pitTable, payload []byte) bool {
	var a struct {
		ID          string `json:"id"`
		AlertID     string `json:"alert_id"`
		LastAlertID string `json:"last_alert_id"`
		Code        string `json:"code"`
	}
	if json.Unmarshal(payload, &a) != nil || (a.AlertID == "" && a.Code == "") {
		return false
	}
	if a.ID != "" && !t.seenID(a.ID) {
		return false // delivered again
	}
	// An acknowledgement closes the entry of its alerts; by code only when
	// it names none. (An old acknowledgement delivered again, after a new
	// alert of its code opened a new entry, must not close that entry.)
	byCode := a.AlertID == "" && a.LastAlertID == ""
	for i, e := range t.alerts {
		if (a.AlertID != "" && (e.ID == a.AlertID || e.LastID == a.AlertID)) ||
			(a.LastAlertID != "" && e.LastID == a.LastAlertID) || (byCode && e.Code == a.Code) {
			t.alerts = append(t.alerts[:i], t.alerts[i+1:]...)
			return true
		}
	}
	return false
}

// pitCoup is the coup payload as the console reads it.
type pitCoup struct {
	ShoeID      string          `json:"shoe_id"`
	Time        string          `json:"time"`
	Shoe        int             `json:"shoe"`
	Coup        int             `json:"coup"`
	Winner      string          `json:"winner"`
	PlayerTotal int             `json:"player_total"`
	BankerTotal int             `json:"banker_total"`
	Natural     bool            `json:"natural"`
	Rules       json.RawMessage `json:"rules"`
	Dealer      json.RawMessage `json:"dealer"`
}

func (m *Model) applyCoup(t *pitTable, payload []byte) bool {
	var c pitCoup
	if json.Unmarshal(payload, &c) != nil || c.Coup <= 0 || c.Winner == "" {
		return false
	}
	gap := t.countCoup(c.ShoeID, c.Coup)
	at, _ := time.Parse(time.RFC3339Nano, c.Time)
	if o := (pitOrder{uint64(c.Shoe)<<32 | uint64(c.Coup), at}); o.after(t.coupAt) {
		t.coupAt = o
	} else {
		return gap // an old coup delivered again
	}
	t.tile.Last = &pitResult{Coup: c.Coup, Winner: c.Winner, PlayerTotal: c.PlayerTotal,
		BankerTotal: c.BankerTotal, Natural: c.Natural, Known: true}
	if g := gameOf("", c.Rules); g != "" && t.tile.Game == "" {
		t.tile.Game = g
	}
	if d := dealerOf(c.Dealer); d != "" {
		t.tile.Dealer = d
	}
	return true
}

func (m *Model) applyVoid(t *pitTable, payload []byte) bool {
	var v struct {
		ShoeID string `json:"shoe_id"`
		Coup   int    `json:"coup"`
	}
	if json.Unmarshal(payload, &v) != nil {
		return false
	}
	gap := t.countCoup(v.ShoeID, v.Coup)
	if t.tile.Last != nil && t.tile.Last.Coup == v.Coup && !t.tile.Last.Voided {
		t.tile.Last.Voided = true
		return true
	}
	return gap
}

// countCoup follows the coup numbers of the current shoe: every number is
// published once as a coup or a void (a coup voided after it was
// published has a second message with its number). Numbers skipped since
// the first received in the shoe are counted in MissedCoups; one below
// the next expected is a copy or the void of a coup already counted. It
// reports whether the count changed.
func (t *pitTable) countCoup(shoeID string, coup int) bool {
	if coup <= 0 {
		return false
	}
	if shoeID != t.coupShoe {
		// A new shoe (or the console's first message): start afresh.
		changed := t.tile.MissedCoups != 0
		t.coupShoe, t.nextCoup, t.tile.MissedCoups = shoeID, coup+1, 0
		return changed
	}
	if coup < t.nextCoup {
		return false
	}
	missed := coup - t.nextCoup
	t.tile.MissedCoups += missed
	t.nextCoup = coup + 1
	return missed > 0
}

// pitRoads is the part of the roads payload the console shows.
type pitRoads struct {
	mqtt.Envelope
	Shoe      int      `json:"shoe"`
	BeadPlate string   `json:"bead_plate"`
	Stats     pitStats `json:"stats"`
}

func (m *Model) applyRoads(t *pitTable, payload []byte) bool {
	var r pitRoads
	if json.Unmarshal(payload, &r) != nil || r.ID == "" {
		return false
	}
	if !advance(&t.roadsAt, r.ID, r.Time) {
		return false // older roads delivered again
	}
	t.tile.Stats = r.Stats
	if t.tile.Last == nil && r.BeadPlate != "" {
		w := map[byte]string{'B': "banker", 'P': "player", 'T': "tie"}[r.BeadPlate[len(r.BeadPlate)-1]]
		if w != "" {
			t.tile.Last = &pitResult{Coup: r.Stats.Coups, Winner: w}
		}
	}
	return true
}

func (m *Model) applyReply(t *pitTable, payload []byte) bool {
	var r struct {
		RequestID string `json:"request_id"`
		Accepted  bool   `json:"accepted"`
		Reason    string `json:"reason"`
	}
	if json.Unmarshal(payload, &r) != nil || t.tile.Ack == nil || r.RequestID != t.tile.Ack.RequestID {
		return false // another console's command, or an old one
	}
	if r.Accepted {
		t.tile.Ack.State = "accepted"
	} else {
		t.tile.Ack.State, t.tile.Ack.Reason = "rejected", r.Reason
	}
	return true
}

// AckSent records an acknowledgement the console sent to table (before it
// is published, so that a fast reply finds it). It reports false for a
// table the console does not track.
func (m *Model) AckSent(table, requestID, operator string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tables[table]
	if t == nil {
		return false
	}
	now := m.now()
	t.tile.Ack = &pitAckState{RequestID: requestID, Operator: operator, Sent: now.UTC().Format(time.RFC3339Nano),
		State: "sent", sentAt: now}
	m.touch(t)
	return true
}

// AckFailed records that the acknowledgement could not be published.
func (m *Model) AckFailed(table, requestID, reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tables[table]
	if t == nil || t.tile.Ack == nil || t.tile.Ack.RequestID != requestID {
		return
	}
	t.tile.Ack.State, t.tile.Ack.Reason = "rejected", reason
	m.touch(t)
}

// Expire marks acknowledgements without a reply after pitAckReplyWait as
// "no-reply". The console calls it about once a second.
func (m *Model) Expire() {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for _, t := range m.tables {
		if a := t.tile.Ack; a != nil && a.State == "sent" && now.Sub(a.sentAt) >= pitAckReplyWait {
			a.State = "no-reply"
			a.Reason = "no reply from the table within " + pitAckReplyWait.String() + " (is [mqtt] commands = true on it?)"
			m.touch(t)
		}
	}
}

// Touch wakes whoever waits on Changed without changing a tile (the
// broker link changed).
func (m *Model) Touch() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.version++
	close(m.changed)
	m.changed = make(chan struct{})
}

// Has reports whether the console tracks table.
func (m *Model) Has(table string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tables[table] != nil
}

// Changed returns the model's version and a channel closed at its next
// change.
func (m *Model) Changed() (uint64, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.version, m.changed
}

// Dropped counts the messages dropped because the table limit was reached.
func (m *Model) Dropped() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dropped
}

// Tiles returns the tiles changed after version after (0: every tile),
// sorted by urgency (pitLess), and the model's version.
func (m *Model) Tiles(after uint64) ([]pitTile, uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]pitTile, 0, len(m.tables))
	for _, t := range m.tables {
		if t.tile.V > after {
			tl := t.tile
			tl.Alerts = append(make([]pitAlert, 0, len(t.tile.Alerts)), t.tile.Alerts...) // [] in JSON, never null
			if tl.Since == "" {
				tl.Since = t.since.UTC().Format(time.RFC3339Nano)
			}
			if tl.Ack != nil {
				a := *tl.Ack
				tl.Ack = &a
			}
			out = append(out, tl)
		}
	}
	sort.Slice(out, func(i, j int) bool { return pitLess(&out[i], &out[j]) })
	return out, m.version
}

// pitLess orders tiles by urgency: class first (critical first), then the
// time the tile entered its class (the oldest problem first; RFC 3339
// UTC strings of one format compare as times only at equal length, so
// they are parsed), then table name. The page sorts with the same rule
// (pit.js, urgencyLess).
func pitLess(a, b *pitTile) bool {
	if a.Class != b.Class {
		return a.Class < b.Class
	}
	if a.Class != urgencyQuiet {
		ta, _ := time.Parse(time.RFC3339Nano, a.Since)
		tb, _ := time.Parse(time.RFC3339Nano, b.Since)
		if !ta.Equal(tb) {
			return ta.Before(tb)
		}
	}
	return strings.Compare(a.Table, b.Table) < 0
}
