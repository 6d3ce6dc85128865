package pit

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// pitFeed drives a real tableau.Table with a transcript and turns its
// outputs into the messages sabotd publishes (mqtt.Builder), in the
// daemon's order: outputs, then state, then roads (cmd/internal/daemon/mqttout.go).
type pitFeed struct {
	t    testing.TB
	tbl  *tableau.Table
	b    *mqtt.Builder
	seq  uint64
	base time.Time
	outs []tableau.Output
}

func newPitFeed(t testing.TB, table string) *pitFeed {
	t.Helper()
	rules := baccarat.Rules{Game: baccarat.GamePuntoBanco}
	tbl, err := tableau.NewTable(tableau.TableConfig{Table: table, Fold: tableau.Options{Decks: 8, Rules: rules, Markers: true}})
	if err != nil {
		t.Fatal(err)
	}
	return &pitFeed{t: t, tbl: tbl, b: mqtt.NewBuilder(table, rules), base: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
}

// at is when input seq happened: base + seq seconds.
func (f *pitFeed) at(seq uint64) time.Time { return f.base.Add(time.Duration(seq) * time.Second) }

// apply applies one input and returns its messages.
func (f *pitFeed) apply(in tableau.Input) []mqtt.Message {
	f.t.Helper()
	f.seq++
	at := f.at(f.seq)
	f.outs = f.tbl.Apply(f.seq, at, in, f.outs[:0])
	var msgs []mqtt.Message
	for _, o := range f.outs {
		m, ok, err := f.b.Output(o)
		if err != nil {
			f.t.Fatal(err)
		}
		if ok {
			msgs = append(msgs, m)
		}
	}
	st, err := f.b.State(f.tbl.View(), f.seq, at)
	if err != nil {
		f.t.Fatal(err)
	}
	msgs = append(msgs, st)
	r, ok, err := f.b.Roads(f.outs, f.tbl.View(), f.seq, at)
	if err != nil {
		f.t.Fatal(err)
	}
	if ok {
		msgs = append(msgs, r)
	}
	return msgs
}

// transcript applies every token of a transcript file.
func (f *pitFeed) transcript(file string) []mqtt.Message {
	f.t.Helper()
	src, err := os.Open(file)
	if err != nil {
		f.t.Fatal(err)
	}
	defer src.Close()
	toks, err := tableau.ParseTranscript(src, file)
	if err != nil {
		f.t.Fatal(err)
	}
	var msgs []mqtt.Message
	for _, tok := range toks {
		msgs = append(msgs, f.apply(tableau.TokenInput(tok))...)
	}
	return msgs
}

func feed(m *Model, table string, msgs []mqtt.Message) {
	for _, msg := range msgs {
		m.Apply(table, msg.Topic, msg.Payload)
	}
}

func statusMsg(status string, conn uint64, instance, shoeState string, extra string) []byte {
	return []byte(fmt.Sprintf(`{"schema":1,"id":"T/status/x/%d-%s","table":"T","shoe_id":"","time":"2026-12-01T10:00:00Z",`+
		`"status":%q,"version":"0.1.0","shoe_state":%q,"conn":%d,"instance":%q%s}`, conn, status, status, shoeState, conn, instance, extra))
}

func oneTile(t *testing.T, m *Model, table string) pitTile {
	t.Helper()
	tiles, _ := m.Tiles(0)
	for _, tl := range tiles {
		if tl.Table == table {
			return tl
		}
	}
	t.Fatalf("no tile for %s in %+v", table, tiles)
	return pitTile{}
}

// The console's tile follows a real table: the extra-card transcript
// (drivers/mqtt/testdata) raises extra-card on coup 1; the tile lists it
// with its E number, severity, coup and the time it happened at the
// table, and the last result is coup 2's (banker natural 8 over 3); an
// acknowledgement by the table clears it.
func TestPitModelFollowsTable(t *testing.T) {
	now := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	m := NewModel(0, func() time.Time { return now }, func(tb string) string { return "http://" + tb + ".floor:8080/" })
	f := newPitFeed(t, "T1")
	m.Apply("T1", mqtt.TopicStatus, statusMsg("online", 7, "00000000000000aa", "online", ""))
	msgs := f.transcript("../../../drivers/mqtt/testdata/extra-card.shoe")
	var alertAt string
	for _, msg := range msgs {
		if msg.Topic == mqtt.TopicAlert {
			var a mqtt.AlertPayload
			json.Unmarshal(msg.Payload, &a)
			alertAt = a.Time
		}
	}
	if alertAt == "" {
		t.Fatal("the transcript raised no alert")
	}
	feed(m, "T1", msgs)
	tl := oneTile(t, m, "T1")
	if tl.Status != "online" || tl.ShoeState != "online" || tl.Board != "http://T1.floor:8080/" {
		t.Errorf("tile %+v", tl)
	}
	if len(tl.Alerts) != 1 {
		t.Fatalf("alerts %+v", tl.Alerts)
	}
	a := tl.Alerts[0]
	if a.Code != "extra-card" || a.E != "E1" || a.Severity != "error" || a.Coup != 1 || a.Count != 1 || a.Late ||
		!strings.Contains(a.Text, "7H") {
		t.Errorf("alert %+v", a)
	}
	if at, _ := time.Parse(time.RFC3339Nano, a.Time); !at.Equal(mustTime(t, alertAt)) {
		t.Errorf("alert time %s, the table's %s", a.Time, alertAt)
	}
	if tl.Class != urgencyCritical {
		t.Errorf("class %d with an open error alert", tl.Class)
	}
	if tl.Last == nil || *tl.Last != (pitResult{Coup: 2, Winner: "banker", PlayerTotal: 3, BankerTotal: 8, Natural: true, Known: true}) {
		t.Errorf("last %+v", tl.Last)
	}
	if tl.Stats != (pitStats{Coups: 2, Banker: 1, Player: 1}) || tl.Shoe != 1 || tl.Coup != 2 || tl.Game != "Punto Banco" {
		t.Errorf("stats %+v shoe %d coup %d game %q", tl.Stats, tl.Shoe, tl.Coup, tl.Game)
	}

	// The acknowledgement: the ack message and the new state.
	ack := f.apply(tableau.Input{Kind: tableau.InputAck, Operator: "alice"})
	var sawAck bool
	for _, msg := range ack {
		if msg.Topic == mqtt.TopicAlertAck {
			sawAck = true
			// The ack message alone clears the entry.
			m.Apply("T1", msg.Topic, msg.Payload)
			if n := len(oneTile(t, m, "T1").Alerts); n != 0 {
				t.Errorf("%d alerts after the ack message", n)
			}
		}
	}
	if !sawAck {
		t.Fatal("the table published no alert/ack")
	}
	feed(m, "T1", ack)
	tl = oneTile(t, m, "T1")
	if len(tl.Alerts) != 0 || tl.Class != urgencyQuiet || tl.MoreAlerts != 0 {
		t.Errorf("after the ack: %+v", tl)
	}
}

func alertTime(t *testing.T, payload []byte) string {
	t.Helper()
	var a mqtt.AlertPayload
	if err := json.Unmarshal(payload, &a); err != nil {
		t.Fatal(err)
	}
	return a.Time
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A console started after the alert knows it from the retained state
// only: the entry is there, from tableau's alert table, marked late (its
// age is at least since the console saw it); the alert message, delivered
// later (a daemon's backlog), gives its real time. A duplicate (delivery
// is at least once) is not counted twice.
func TestPitModelLateAndDuplicateAlerts(t *testing.T) {
	now := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	m := NewModel(0, func() time.Time { return now }, nil)
	f := newPitFeed(t, "T1")
	msgs := f.transcript("../../../drivers/mqtt/testdata/extra-card.shoe")
	var state, alert []byte
	for _, msg := range msgs {
		switch msg.Topic {
		case mqtt.TopicState:
			state = msg.Payload
		case mqtt.TopicAlert:
			alert = msg.Payload
		}
	}
	m.Apply("T1", mqtt.TopicState, state)
	tl := oneTile(t, m, "T1")
	if len(tl.Alerts) != 1 || !tl.Alerts[0].Late || tl.Alerts[0].Severity != "error" || tl.Alerts[0].E != "E1" ||
		tl.Alerts[0].Time != now.Format(time.RFC3339Nano) || tl.Alerts[0].Text != "a card arrived after the coup was complete" {
		t.Fatalf("alerts from the state: %+v", tl.Alerts)
	}
	if tl.Status != "unknown" || tl.Class != urgencyCritical {
		t.Errorf("status %q class %d before any status", tl.Status, tl.Class)
	}
	for range 2 {
		m.Apply("T1", mqtt.TopicAlert, alert)
	}
	tl = oneTile(t, m, "T1")
	if len(tl.Alerts) != 1 || tl.Alerts[0].Late || tl.Alerts[0].Count != 1 || !strings.Contains(tl.Alerts[0].Text, "7H") ||
		tl.Alerts[0].Shoe != 1 || !mustTime(t, tl.Alerts[0].Time).Equal(mustTime(t, alertTime(t, alert))) {
		t.Fatalf("alerts after the alert message: %+v", tl.Alerts)
	}
	// A second extra-card alert coalesces into the entry, as the table
	// does; its duplicate does not.
	second := strings.Replace(string(alert), `/alert/1"`, `/alert/2"`, 1)
	m.Apply("T1", mqtt.TopicAlert, []byte(second))
	m.Apply("T1", mqtt.TopicAlert, []byte(second))
	tl = oneTile(t, m, "T1")
	if len(tl.Alerts) != 1 || tl.Alerts[0].Count != 2 || !strings.HasSuffix(tl.Alerts[0].LastID, "/alert/2") {
		t.Fatalf("coalesced: %+v", tl.Alerts)
	}
}

// The current status is the highest conn's; within one conn offline
// supersedes online (drivers/mqtt/README.md "Which status is current"):
// the will of a kill -9 carries an older time than the online it
// replaces, and still wins.
func TestPitModelCurrentStatus(t *testing.T) {
	m := NewModel(0, nil, nil)
	steps := []struct {
		status string
		conn   uint64
		want   string
	}{
		{"online", 5, "online"},
		{"offline", 5, "offline"}, // the will
		{"online", 5, "offline"},  // an online of that conn delivered late
		{"online", 4, "offline"},  // an older connection's
		{"online", 6, "online"},   // the daemon is back
		{"online", 6, "online"},   // a later online of the same conn
		{"offline", 4, "online"},  // an old will
		{"offline", 6, "offline"}, // a clean stop
	}
	for i, s := range steps {
		m.Apply("T1", mqtt.TopicStatus, statusMsg(s.status, s.conn, "00000000000000aa", "online", ""))
		if got := oneTile(t, m, "T1").Status; got != s.want {
			t.Fatalf("step %d (%s conn %d): status %s, want %s", i, s.status, s.conn, got, s.want)
		}
	}
	// Another instance online while the first is online: two daemons.
	m.Apply("T1", mqtt.TopicStatus, statusMsg("online", 7, "00000000000000aa", "online", ""))
	m.Apply("T1", mqtt.TopicStatus, statusMsg("online", 8, "00000000000000bb", "online", ""))
	if !oneTile(t, m, "T1").Conflict {
		t.Error("two instances online: no conflict shown")
	}
	// Backlog and game from newer daemons' status keys.
	m.Apply("T2", mqtt.TopicStatus, statusMsg("online", 1, "00000000000000cc", "offline", `,"backlog":120,"rules":{"game":"super6"}`))
	tl := oneTile(t, m, "T2")
	if tl.Backlog != 120 || tl.Game != "Super 6" || tl.Class != urgencyWarning {
		t.Errorf("T2 %+v", tl)
	}
	for _, bad := range []string{`{}`, `not json`, `{"status":"maybe","conn":99}`} {
		if m.Apply("T2", mqtt.TopicStatus, []byte(bad)) {
			t.Errorf("status %s applied", bad)
		}
	}
}

// Tiles sort by urgency class, then the oldest problem first, then name.
func TestPitModelUrgencyOrder(t *testing.T) {
	now := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	m := NewModel(0, func() time.Time { return now }, nil)
	alert := func(table, code, sev string, n int) []byte {
		return []byte(fmt.Sprintf(`{"schema":1,"id":"%s/s/1/alert/%d","table":%q,"shoe_id":"s","time":%q,"type":"alert",`+
			`"shoe":1,"coup":1,"code":%q,"severity":%q,"text":"x","awaits_ack":true,"dealer":"D-7"}`,
			table, n, table, now.Format(time.RFC3339), code, sev))
	}
	online := func(table string) {
		m.Apply(table, mqtt.TopicStatus, statusMsg("online", 1, "00000000000000aa", "online", ""))
	}
	for _, tb := range []string{"Q1", "Q2", "W1", "E2", "E1", "N1", "S1"} {
		online(tb)
	}
	m.Apply("OFF", mqtt.TopicStatus, statusMsg("offline", 1, "00000000000000aa", "online", ""))
	m.Apply("W1", mqtt.TopicAlert, alert("W1", "unreadable-card", "warning", 1))
	m.Apply("E1", mqtt.TopicAlert, alert("E1", "extra-card", "error", 1))
	now = now.Add(time.Second)
	m.Apply("E2", mqtt.TopicAlert, alert("E2", "burn-count", "error", 1))
	m.Apply("N1", mqtt.TopicStatus, statusMsg("online", 1, "00000000000000aa", "online", `,"backlog":100`))
	m.Apply("S1", mqtt.TopicStatus, statusMsg("online", 1, "00000000000000aa", "alarm", ""))
	m.Apply("Q1", mqtt.TopicStatus, statusMsg("online", 1, "00000000000000aa", "online", `,"backlog":99`)) // a table at work
	tiles, v := m.Tiles(0)
	var order []string
	for _, tl := range tiles {
		order = append(order, fmt.Sprintf("%s:%d", tl.Table, tl.Class))
	}
	// OFF and E1 became critical at the same moment: by name.
	if got, want := strings.Join(order, " "), "E1:0 OFF:0 E2:0 W1:1 S1:1 N1:2 Q1:3 Q2:3"; got != want {
		t.Errorf("order %s, want %s", got, want)
	}
	if e := oneTile(t, m, "E1").Alerts[0]; e.Dealer != "D-7" {
		t.Errorf("alert dealer %q", e.Dealer)
	}
	// Only what changed after v.
	m.Apply("Q2", mqtt.TopicAlert, alert("Q2", "shoe-offline", "warning", 1))
	changed, v2 := m.Tiles(v)
	if len(changed) != 1 || changed[0].Table != "Q2" || v2 <= v {
		t.Errorf("tiles after %d: %+v (version %d)", v, changed, v2)
	}
}

// The bounds: tables past the limit are dropped and counted; a table's
// open entries stay at maxPitAlerts; names the schema refuses and
// oversized payloads are not read.
func TestPitModelBounds(t *testing.T) {
	m := NewModel(3, nil, nil)
	for i := range 4 {
		m.Apply(fmt.Sprintf("T%d", i), mqtt.TopicStatus, statusMsg("online", 1, "00000000000000aa", "online", ""))
	}
	if tiles, _ := m.Tiles(0); len(tiles) != 3 || m.Dropped() != 1 {
		t.Errorf("%d tiles, %d dropped", len(tiles), m.Dropped())
	}
	for i := range maxPitAlerts + 10 {
		m.Apply("T0", mqtt.TopicAlert, []byte(fmt.Sprintf(`{"id":"T0/s/1/alert/%d","time":"2026-12-01T10:00:00Z",`+
			`"shoe":1,"coup":1,"code":"new-code-%d","severity":"warning","text":"x","awaits_ack":true}`, i, i)))
	}
	al := oneTile(t, m, "T0").Alerts
	if len(al) != maxPitAlerts || al[len(al)-1].Code != fmt.Sprintf("new-code-%d", maxPitAlerts+9) || al[0].E != "E0" {
		t.Errorf("%d alerts, last %+v", len(al), al[len(al)-1])
	}
	for _, name := range []string{"", "a/b", "+", strings.Repeat("x", 65), "tábla"} {
		if m.Apply(name, mqtt.TopicStatus, statusMsg("online", 1, "00000000000000aa", "online", "")) {
			t.Errorf("table %q applied", name)
		}
	}
	big := statusMsg("online", 2, "00000000000000aa", "online", `,"pad":"`+strings.Repeat("x", maxPitMessage)+`"`)
	if m.Apply("T0", mqtt.TopicStatus, big) {
		t.Error("an oversized payload applied")
	}
	// The seen-id set stays bounded.
	for i := range 3 * maxPitSeen {
		m.Apply("T1", mqtt.TopicAlert, []byte(fmt.Sprintf(`{"id":"T1/s/1/alert/%d","code":"extra-card","awaits_ack":true}`, i)))
	}
	m.mu.Lock()
	n := len(m.tables["T1"].seen)
	m.mu.Unlock()
	if n > maxPitSeen {
		t.Errorf("%d ids remembered", n)
	}
}

// The console's acknowledgement: sent, then the table's reply (another
// console's reply is not ours), or no reply within pitAckReplyWait.
func TestPitModelAckReply(t *testing.T) {
	now := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	m := NewModel(0, func() time.Time { return now }, nil)
	if m.AckSent("T1", "r1", "alice") {
		t.Fatal("ack to an unknown table recorded")
	}
	m.Apply("T1", mqtt.TopicStatus, statusMsg("online", 1, "00000000000000aa", "online", ""))
	m.Apply("T2", mqtt.TopicStatus, statusMsg("online", 1, "00000000000000aa", "online", ""))
	if !m.AckSent("T1", "r1", "alice") || !m.AckSent("T2", "r2", "bob") {
		t.Fatal("ack not recorded")
	}
	reply := func(id string, ok bool, reason string) []byte {
		return []byte(fmt.Sprintf(`{"schema":1,"id":"T1/cmd/x","table":"T1","shoe_id":"","time":"2026-12-01T11:00:00Z",`+
			`"command":"ack","request_id":%q,"operator":"alice","accepted":%v,"reason":%q}`, id, ok, reason))
	}
	topic := mqtt.TopicCmd + "/" + mqtt.CmdAck + "/reply"
	if m.Apply("T1", topic, reply("other-console-1", true, "")) {
		t.Error("another console's reply applied")
	}
	m.Apply("T1", topic, reply("r1", false, "nothing to acknowledge"))
	if a := oneTile(t, m, "T1").Ack; a == nil || a.State != "rejected" || a.Reason != "nothing to acknowledge" || a.Operator != "alice" {
		t.Errorf("T1 ack %+v", a)
	}
	now = now.Add(pitAckReplyWait)
	m.Expire()
	if a := oneTile(t, m, "T2").Ack; a == nil || a.State != "no-reply" || !strings.Contains(a.Reason, "commands = true") {
		t.Errorf("T2 ack %+v", a)
	}
	if a := oneTile(t, m, "T1").Ack; a.State != "rejected" {
		t.Errorf("T1 ack expired: %+v", a)
	}
}

// The dealer, when the table's messages carry one (newer daemons), and
// the state's count of open alerts beyond those it lists.
func TestPitModelDealerAndMore(t *testing.T) {
	m := NewModel(0, nil, nil)
	f := newPitFeed(t, "T1")
	msgs := f.transcript("../../../drivers/mqtt/testdata/extra-card.shoe")
	var state map[string]any
	for _, msg := range msgs {
		if msg.Topic == mqtt.TopicState {
			json.Unmarshal(msg.Payload, &state)
		}
	}
	state["dealer"] = "D-42"
	state["open_alert_count"] = 5 // one entry of count 1 listed, four more not
	b, _ := json.Marshal(state)
	m.Apply("T1", mqtt.TopicState, b)
	tl := oneTile(t, m, "T1")
	if tl.Dealer != "D-42" || tl.MoreAlerts != 4 || len(tl.Alerts) != 1 {
		t.Errorf("tile %+v", tl)
	}
	// A later state: a newer record's (the same id again is the same
	// message, which the model takes once).
	state["dealer"] = map[string]any{"id": "D-43", "since": "x"}
	state["id"] = fmt.Sprint(state["id"]) + "0"
	b, _ = json.Marshal(state)
	m.Apply("T1", mqtt.TopicState, b)
	if d := oneTile(t, m, "T1").Dealer; d != "D-43" {
		t.Errorf("dealer %q", d)
	}
}

// Messages delivered again, out of order (a NATS cluster sends messages
// already delivered once more after a node's crash, after newer ones):
// an older state, roads or coup than the tile has changes nothing; a
// state of a journal started afresh (a lower record, a later time) is
// taken. Coup numbers skipped in a shoe, neither coup nor void, are
// counted as missed; voids fill their numbers, and a new shoe starts the
// count again.
func TestPitModelOldMessagesAndMissedCoups(t *testing.T) {
	m := NewModel(0, nil, nil)
	f := newPitFeed(t, "T1")
	msgs := f.transcript("../../../tableau/testdata/void.shoe")
	feed(m, "T1", msgs)
	want := oneTile(t, m, "T1")
	if want.Last == nil || want.Coup < 3 || want.Stats.Coups == 0 || want.MissedCoups != 0 {
		t.Fatalf("tile after the shoe (voids and all): %+v", want)
	}
	var early []mqtt.Message
	for _, msg := range msgs[:len(msgs)/2] {
		if msg.Topic == mqtt.TopicState || msg.Topic == mqtt.TopicRoads || msg.Topic == mqtt.TopicCoup {
			early = append(early, msg)
		}
	}
	if len(early) < 3 {
		t.Fatalf("%d early messages", len(early))
	}
	feed(m, "T1", early)
	got := oneTile(t, m, "T1")
	if got.Coup != want.Coup || got.Phase != want.Phase || *got.Last != *want.Last || got.Stats != want.Stats || got.V != want.V {
		t.Errorf("old messages delivered again changed the tile:\n got %+v\nwant %+v", got, want)
	}

	// A daemon whose journal started again: its first state has a lower
	// record number but a later time.
	var st map[string]any
	json.Unmarshal(early[0].Payload, &st)
	if early[0].Topic != mqtt.TopicState {
		for _, msg := range early {
			if msg.Topic == mqtt.TopicState {
				json.Unmarshal(msg.Payload, &st)
				break
			}
		}
	}
	st["time"] = f.at(f.seq + 100).Format(time.RFC3339Nano)
	st["coup"] = 0
	b, _ := json.Marshal(st)
	m.Apply("T1", mqtt.TopicState, b)
	if c := oneTile(t, m, "T1").Coup; c != 0 {
		t.Errorf("a fresh journal's state not taken: coup %d", c)
	}

	// A second table's shoe with coups 2 and 4 lost (never delivered).
	f2 := newPitFeed(t, "T2")
	var dropped int
	for _, msg := range f2.transcript("../../../tableau/testdata/clean-8deck.shoe") {
		if msg.Topic == mqtt.TopicCoup {
			var c struct{ Coup int }
			json.Unmarshal(msg.Payload, &c)
			if c.Coup == 2 || c.Coup == 4 {
				dropped++
				continue
			}
		}
		m.Apply("T2", msg.Topic, msg.Payload)
	}
	if got := oneTile(t, m, "T2").MissedCoups; dropped != 2 || got != 2 {
		t.Errorf("missed coups %d, want 2 (dropped %d)", got, dropped)
	}
	for _, msg := range f2.apply(tableau.Input{Kind: tableau.InputShoe}) {
		m.Apply("T2", msg.Topic, msg.Payload)
	}
	for _, msg := range f2.transcript("../../../tableau/testdata/clean-8deck.shoe") {
		m.Apply("T2", msg.Topic, msg.Payload)
	}
	if got := oneTile(t, m, "T2").MissedCoups; got != 0 {
		t.Errorf("missed coups %d in the next shoe, all received", got)
	}
}

// An acknowledgement delivered again, after a new alert of its code has
// opened a new entry, leaves that entry open.
func TestPitModelOldAckDeliveredAgain(t *testing.T) {
	m := NewModel(0, nil, nil)
	f := newPitFeed(t, "T1")
	feed(m, "T1", f.transcript("../../../drivers/mqtt/testdata/extra-card.shoe"))
	if n := len(oneTile(t, m, "T1").Alerts); n != 1 {
		t.Fatalf("%d open entries after the extra card, want 1", n)
	}
	var ack mqtt.Message
	for _, msg := range f.apply(tableau.Input{Kind: tableau.InputAck, Operator: "pit"}) {
		if msg.Topic == mqtt.TopicAlertAck {
			ack = msg
		}
		m.Apply("T1", msg.Topic, msg.Payload)
	}
	if ack.Payload == nil || len(oneTile(t, m, "T1").Alerts) != 0 {
		t.Fatalf("ack %s; entries after it %+v", ack.Payload, oneTile(t, m, "T1").Alerts)
	}
	// Another extra card: coup 3, a natural, and one card more.
	toks, err := tableau.ParseTranscript(strings.NewReader("9S 3H KD 5C 7H"), "extra")
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		feed(m, "T1", f.apply(tableau.TokenInput(tok)))
	}
	if a := oneTile(t, m, "T1").Alerts; len(a) != 1 || a[0].Code != "extra-card" {
		t.Fatalf("entries after the second extra card: %+v", a)
	}
	m.Apply("T1", ack.Topic, ack.Payload)
	if a := oneTile(t, m, "T1").Alerts; len(a) != 1 {
		t.Errorf("the old acknowledgement delivered again closed the new entry: %+v", a)
	}
}
