package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/cmd/internal/boardweb"
	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
	"github.com/sabot-table/sabot/drivers/testenv"
	"github.com/sabot-table/sabot/tableau"
)

// received collects the coup, alert and void payloads a subscriber gets,
// keyed by id (checking that an id never carries two payloads).
type received struct {
	mu    sync.Mutex
	byID  map[string]string
	order []map[string]any // coup/alert/void payloads in arrival order, first copy of each id
	all   map[string][]map[string]any
	dupes []string
	// repeats counts the copies that came after the first of an id (at
	// least once delivery), state, status and commands aside.
	repeats int
	// dupFlag holds, per kind, whether each message of all[kind] came
	// with MQTT's DUP flag (the broker sending it again).
	dupFlag map[string][]bool
}

func newReceived() *received {
	return &received{byID: map[string]string{}, all: map[string][]map[string]any{}, dupFlag: map[string][]bool{}}
}

// handle takes one message; dup is its DUP flag.
func (r *received) handle(topic string, payload []byte, dup bool) error {
	if len(payload) == 0 && strings.HasSuffix(topic, "/roads") {
		return nil // a cleared retained topic (a banque table clears the roads)
	}
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		return err
	}
	kind := topic[strings.LastIndex(topic, "/")+1:]
	switch {
	case strings.Contains(topic, "/cmd/"):
		kind = "cmd"
	case strings.HasSuffix(topic, "alert/ack"):
		kind = "ack"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all[kind] = append(r.all[kind], m)
	r.dupFlag[kind] = append(r.dupFlag[kind], dup)
	id, _ := m["id"].(string)
	if kind == "state" || kind == "status" || kind == "cmd" {
		return nil
	}
	if prev, seen := r.byID[id]; seen {
		r.repeats++
		// Compare payloads as JSON values.
		if prev != canonical(m) {
			r.dupes = append(r.dupes, fmt.Sprintf("id %s: %s vs %s", id, prev, canonical(m)))
		}
		return nil
	}
	r.byID[id] = canonical(m)
	if kind == "coup" || kind == "alert" || kind == "void" {
		r.order = append(r.order, m)
	}
	return nil
}

func (r *received) kind(k string) []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]any(nil), r.all[k]...)
}

func canonical(m map[string]any) string { b, _ := json.Marshal(m); return string(b) }

func (r *received) events() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]any(nil), r.order...)
}

// ownURL is the URL of an in-process daemon's embedded broker with the
// credentials of the daemon's own clients, which may read and write
// everything (for subscribe).
func ownURL(b *embedded.Broker) string {
	u, _ := neturl.Parse(b.URL())
	user, pass := b.Credentials()
	if user != "" {
		u.User = neturl.UserPassword(user, pass)
	}
	return u.String()
}

// openBroker is the [mqtt] lines that open a daemon's embedded broker to
// every local client, as before it had authentication, for the tests that
// run sabotd as a program and connect to its broker: anonymous clients
// allowed, an ACL granting them everything.
func openBroker(t *testing.T) string {
	t.Helper()
	acl := filepath.Join(t.TempDir(), "open.acl")
	if err := os.WriteFile(acl, []byte("topic readwrite #\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("embedded_allow_anonymous = true\nembedded_acl_file = %q", acl)
}

// subscribe connects a paho subscriber to url for prefix/# (QoS 1, clean
// session) and returns once the broker has acknowledged the subscription
// (SUBACK), so that nothing published after it returns is missed. (It
// used to subscribe from the connect handler without waiting: a message
// published before the broker had the subscription went nowhere.) After a
// lost connection it subscribes again; what was published in between is
// lost, so tests that take the broker away use sessionSubscriber.
func subscribe(t *testing.T, url, prefix string, r *received) paho.Client {
	t.Helper()
	handler := func(_ paho.Client, m paho.Message) {
		if err := r.handle(m.Topic(), m.Payload(), m.Duplicate()); err != nil {
			t.Errorf("bad payload on %s: %v", m.Topic(), err)
		}
	}
	o := paho.NewClientOptions().SetClientID(fmt.Sprintf("test-sub-%d", time.Now().UnixNano())).
		SetCleanSession(true).SetAutoReconnect(true).SetConnectRetry(true).SetConnectRetryInterval(100 * time.Millisecond)
	if u, err := neturl.Parse(url); err == nil && u.User != nil {
		// ownURL's: the embedded broker's own credentials.
		pass, _ := u.User.Password()
		o.SetUsername(u.User.Username()).SetPassword(pass)
		u.User = nil
		url = u.String()
	}
	o.AddBroker(url)
	var connects atomic.Int32
	o.SetOnConnectHandler(func(c paho.Client) {
		if connects.Add(1) > 1 { // the first subscription is made below
			c.Subscribe(prefix+"/#", 1, handler)
		}
	})
	c := paho.NewClient(o)
	tok := c.Connect()
	if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("subscriber connect: %v", tok.Error())
	}
	if tok := c.Subscribe(prefix+"/#", 1, handler); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe %s/#: %v", prefix, tok.Error())
	}
	t.Cleanup(func() { c.Disconnect(100) })
	return c
}

// matchEvents compares received payloads with `sabot check` lines: every
// expected key equal, extra keys allowed.
func matchEvents(t *testing.T, got []map[string]any, wantJSONL string) {
	t.Helper()
	var want []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(wantJSONL), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		want = append(want, m)
	}
	if len(got) != len(want) {
		var b bytes.Buffer
		for _, g := range got {
			fmt.Fprintln(&b, canonical(g))
		}
		t.Fatalf("received %d events, want %d:\n%s", len(got), len(want), b.String())
	}
	for i := range want {
		for k, v := range want[i] {
			if canonical(map[string]any{"v": got[i][k]}) != canonical(map[string]any{"v": v}) {
				t.Errorf("event %d: %s = %v, want %v\n got %v", i+1, k, got[i][k], v, got[i])
			}
		}
		if _, has := got[i]["card"]; has && want[i]["card"] == nil {
			t.Errorf("event %d has a card, want none: %v", i+1, got[i])
		}
	}
}

// bootDaemon starts an in-process sabotd from a config file body.
func bootDaemon(t *testing.T, conf string) (*Main, *syncBuffer) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sabotd.toml")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	m := NewMain()
	logs := &syncBuffer{}
	m.Stderr = logs
	if err := m.Setup(Options{ConfigPath: path}); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s := time.Now(); m.Close(); t.Logf("close took %v", time.Since(s)) })
	return m, logs
}

// waitShoeOnline waits until the daemon's shoe link is up, so that bytes
// written to the pty are not written before the port is opened.
func waitShoeOnline(t *testing.T, m *Main) {
	t.Helper()
	waitFor(t, "the shoe online", 20*time.Second, func() bool { return m.d.health().ShoeOnline })
	// The daemon reports the link up before the shoe's online input is
	// journaled (daemon.go: setShoeUp, then submit): wait for the record
	// too, or a test that counts records from here sees it arrive later
	// (TestBoardReadOnly failed so under load: 2 records, then 3).
	// The newest link record is near the journal's end: read it backwards
	// a window at a time (replaying a long journal from 1 on every poll
	// costs 0.4 s under -race on TestRestartWithOversizedState's 23,000
	// records, and holds a read transaction the journal's writer may wait
	// for).
	// The record waits behind whatever the main loop is doing (with a
	// 25,000-record journal, building the oversized states of the
	// republished records under -race and a loaded machine), hence the
	// generous wait: it returns as soon as the record is there.
	waitFor(t, "the shoe's online input journaled", 20*time.Second, func() bool {
		return lastLinkInput(m.d.journal) == tableau.InputOnline
	})
}

// lastLinkInput is the kind of the newest InputOnline or InputOffline
// record in j, or "" if it holds none.
func lastLinkInput(j *journal.Journal) tableau.InputKind {
	const window = 256
	errEnd := errors.New("end of window")
	for hi := j.Last(); hi >= 1; {
		lo := uint64(1)
		if hi > window {
			lo = hi - window + 1
		}
		var last tableau.InputKind
		j.Replay(lo, func(r journal.Record) error {
			if r.Seq > hi {
				return errEnd
			}
			var in tableau.Input
			if json.Unmarshal(r.Data, &in) == nil && (in.Kind == tableau.InputOnline || in.Kind == tableau.InputOffline) {
				last = in.Kind
			}
			return nil
		})
		if last != "" {
			return last
		}
		hi = lo - 1
	}
	return ""
}

// syncBuffer is a bytes.Buffer safe for concurrent writers and readers.
// (It does not embed the buffer: os/exec would use the buffer's ReadFrom
// and bypass the lock.)
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor polls cond until it holds, failing the test after d (scaled by
// testenv.Deadline).
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testenv.Deadline(d))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDaemonLinesShoe runs the daemon on a pty speaking the "lines" shoe
// protocol with the embedded broker: the coups, alerts and voids it
// publishes for the contract transcripts equal `sabot check`'s expected
// lines; a restart continues the shoe mid-coup.
func TestDaemonLinesShoe(t *testing.T) {
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	state := t.TempDir()
	conf := fmt.Sprintf(`table = "T-1"
[shoe]
device = %q
protocol = "lines"
[mqtt]
embedded_addr = "127.0.0.1:0"
commands = true
[display]
kind = "fake"
[gpio]
lamp = "GPIO17"
ack_key = "GPIO5"
[state]
dir = %q
`, tty.Name(), state)
	m, logs := bootDaemon(t, conf)
	waitShoeOnline(t, m)
	r := newReceived()
	subscribe(t, ownURL(m.d.broker), "sabot/T-1", r)

	src, _ := os.ReadFile("../../../tableau/testdata/contract/check-void.shoe")
	want, _ := os.ReadFile("../../../tableau/testdata/contract/check-void.expected.jsonl")
	for _, tok := range strings.Fields(string(src)) {
		fmt.Fprintf(ptmx, "%s\r\n", tok)
	}
	waitFor(t, "4 events", 5*time.Second, func() bool { return len(r.events()) >= 4 })
	matchEvents(t, r.events(), string(want))
	if !strings.Contains(logs.String(), "msg=coup") || !strings.Contains(logs.String(), "code=extra-card") {
		t.Fatalf("no coup/alert log lines:\n%s", logs.String())
	}
	// The extra card's alert latches: the display shows its code and the
	// lamp is lit until the supervisor acknowledges it.
	if got := m.d.fakeFrame(); got != "[E][r][r][ ][ ][ ][E][1]" || !m.d.lampOn() {
		t.Errorf("display shows %q, lamp %v", got, m.d.lampOn())
	}
	sub := subscribe(t, ownURL(m.d.broker), "sabot/T-1/cmd/ack/reply", newReceived())
	sub.Publish("sabot/T-1/cmd/ack", 1, false, `{"request_id":"r1","operator":"sup-7"}`).WaitTimeout(time.Second)
	waitFor(t, "the ack", 5*time.Second, func() bool { return len(r.kind("ack")) == 1 })
	if a := r.kind("ack")[0]; a["operator"] != "sup-7" || a["code"] != "extra-card" {
		t.Fatalf("ack payload %v", a)
	}
	// A refused command (no operator) changes nothing, and is journaled as
	// an audit record with the reason.
	voids := len(r.kind("void"))
	sub.Publish("sabot/T-1/cmd/void", 1, false, `{"request_id":"r2"}`).WaitTimeout(time.Second)
	waitFor(t, "the refused command's audit record", 5*time.Second, func() bool {
		found := false
		m.d.journal.Replay(1, func(rec journal.Record) error {
			var in tableau.Input
			if json.Unmarshal(rec.Data, &in) == nil && in.Kind == tableau.InputRejected &&
				in.Code == "void" && in.Ref == "cmd:r2" && strings.Contains(in.Text, "operator") {
				found = true
			}
			return nil
		})
		return found
	})
	if n := len(r.kind("void")); n != voids {
		t.Fatalf("a refused void command voided a coup: %d voids, had %d", n, voids)
	}
	// The board: coup 1 was voided, coup 2 a tie.
	resp, err := http.Get("http://" + m.d.http.addr + "/board.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var sb boardweb.State
	if err := json.Unmarshal(raw, &sb); err != nil {
		t.Fatalf("board.json: %v\n%s", err, raw)
	}
	if sb.Table != "T-1" || sb.Roads.BeadPlate != "T" || sb.Roads.Stats.Tie != 1 || sb.Roads.Stats.Coups != 1 {
		t.Fatalf("board.json = %s", raw)
	}
	resp, err = http.Get("http://" + m.d.http.addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), `<script src="assets/board.js"`) {
		t.Fatalf("board page:\n%s", page)
	}
	// Now the display shows the last coup: a natural tie, 8 and 8.
	waitFor(t, "the display", time.Second, func() bool { return m.d.fakeFrame() == "P8 tn b8" })
	if m.d.lampOn() {
		t.Error("lamp still lit after the ack")
	}
	// A natural, then a surplus card before the coup button: extra-card
	// again, acknowledged
	// this time with the supervisor's key on the table.
	for _, c := range []string{"9C", "9D", "9H", "9S", "2C"} {
		fmt.Fprintf(ptmx, "%s\r\n", c)
	}
	waitFor(t, "the alert", 5*time.Second, func() bool { return len(r.events()) >= 6 })
	if err := m.d.board.Fake.Press("ack_key"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the key's ack", 5*time.Second, func() bool { return len(r.kind("ack")) == 2 })
	if a := r.kind("ack")[1]; a["operator"] != "ack-key" || a["alert_id"] != r.events()[5]["id"] {
		t.Fatalf("key ack payload %v", a)
	}
	if len(r.dupes) > 0 {
		t.Fatalf("ids with two payloads: %v", r.dupes)
	}
}

// TestDaemonRestartMidCoup stops the daemon in the middle of a coup and
// starts it again on the same state directory: the shoe continues where it
// was, and the union of what was published, de-duplicated by id, is what
// `sabot check` says for the whole transcript.
func TestDaemonRestartMidCoup(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	b, err := embedded.StartOpen("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r := newReceived()
	subscribe(t, b.URL(), "sabot/T-2", r)
	state := t.TempDir()
	src, _ := os.ReadFile("../../../tableau/testdata/contract/check-markers-errors.shoe")
	want, _ := os.ReadFile("../../../tableau/testdata/contract/check-markers-errors.expected.jsonl")
	toks := strings.Fields(stripComments(string(src)))
	cut := 13 // shoe, the burn, "|", coup 1, "|", and AH: the first card of coup 2
	run := func(part []string, done func(v tableau.TableView) bool) *Main {
		ptmx, tty, err := openPTY(t)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ptmx.Close(); tty.Close() })
		m, logs := bootDaemon(t, fmt.Sprintf(`table = "T-2"
[shoe]
device = %q
protocol = "lines"
[mqtt]
brokers = [%q]
[display]
kind = "fake"
[state]
dir = %q
`, tty.Name(), b.URL(), state))
		t.Cleanup(func() {
			if t.Failed() {
				t.Log(logs.String())
			}
		})
		waitShoeOnline(t, m)
		for _, tok := range part {
			fmt.Fprintf(ptmx, "%s\n", tok)
		}
		waitFor(t, "the inputs", 5*time.Second, func() bool { return done(m.d.currentView()) })
		return m
	}
	// Stop after the first card of coup 2.
	m := run(toks[:cut], func(v tableau.TableView) bool { return v.Coup == 2 && v.Player.N == 1 })
	mid := m.d.currentView()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = run(toks[cut:], func(v tableau.TableView) bool { return v.Coup == 3 && v.Phase == "between" })
	after := m.d.currentView()
	if mid.Phase != "coup" || mid.Coup != 2 || len(mid.Player.Slice()) != 1 {
		t.Fatalf("not stopped in the middle of coup 2: %+v", mid)
	}
	if mid.Shoe != 1 || after.Shoe != 1 || after.Coup != 3 {
		t.Fatalf("shoe/coup mid %d/%d after %d/%d", mid.Shoe, mid.Coup, after.Shoe, after.Coup)
	}
	waitFor(t, "6 events", 5*time.Second, func() bool { return len(r.events()) >= 6 })
	matchEvents(t, r.events(), string(want))
	if len(r.dupes) > 0 {
		t.Fatalf("ids with two payloads: %v", r.dupes)
	}
}

func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		line, _, _ = strings.Cut(line, "#")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestDaemonBetsClosed: with require_bets_closed, a coup dealt after the
// pit's bets-closed command is clean, and the next coup, dealt while
// betting is open again, raises early-draw on its cards.
func TestDaemonBetsClosed(t *testing.T) {
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	m, _ := bootDaemon(t, fmt.Sprintf(`table = "T-3"
[shoe]
device = %q
protocol = "lines"
[mqtt]
embedded_addr = "127.0.0.1:0"
commands = true
[state]
dir = %q
[alerts]
require_bets_closed = true
`, tty.Name(), t.TempDir()))
	waitShoeOnline(t, m)
	r := newReceived()
	sub := subscribe(t, ownURL(m.d.broker), "sabot/T-3", r)
	send := func(words string) {
		for _, w := range strings.Fields(words) {
			fmt.Fprintf(ptmx, "%s\n", w)
		}
	}
	send("2H 3C 4D |")
	waitFor(t, "the burn", 5*time.Second, func() bool { return m.d.currentView().Phase == "between" })
	sub.Publish("sabot/T-3/cmd/bets-closed", 1, false, `{"request_id":"b1","operator":"studio"}`).WaitTimeout(time.Second)
	waitFor(t, "bets closed", 5*time.Second, func() bool { return !m.d.currentView().BetsOpen })
	send("9S 9H 9C 9D | 5S 5H")
	waitFor(t, "4 events", 5*time.Second, func() bool { return len(r.events()) >= 3 })
	matchEvents(t, r.events(), `{"type":"coup","shoe":1,"coup":1,"winner":"tie"}
{"type":"alert","shoe":1,"coup":2,"code":"early-draw","card":"5S"}
{"type":"alert","shoe":1,"coup":2,"code":"early-draw","card":"5H"}`)
}

func TestLoadRegistry(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "cards.txt")
	os.WriteFile(good, []byte("# UID card\n04A1B2C3D4E5F6 AS\n04A1B2C3D4E5F7 10h # a ten\n\n"), 0o600)
	reg, err := config.LoadRegistry(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(reg) != 2 || reg["04A1B2C3D4E5F6"].String() != "AS" || reg["04A1B2C3D4E5F7"].String() != "TH" {
		t.Fatalf("registry %v", reg)
	}
	for body, want := range map[string]string{
		"04A1 AS\n04A2 ZZ\n":   "cards.txt:2:",
		"04A1 AS extra\n":      "cards.txt:1: want \"UID CARD\"",
		"04A1 AS\n04A1 KD\n":   "cards.txt:2: UID 04A1 listed twice",
		"# only a comment\n04": "cards.txt:2:",
	} {
		os.WriteFile(good, []byte(body), 0o600)
		if _, err := config.LoadRegistry(good); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "shoe.uid_registry") {
			t.Errorf("%q: error %v, want %q", body, err, want)
		}
	}
}
