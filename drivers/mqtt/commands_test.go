package mqtt

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
)

// The shipped example files (docs/brokers; drivers/mqtt/embedded's tests
// check them on every broker). The passwords are example-<user>-password.
var (
	examplePasswd = filepath.Join("..", "..", "docs", "brokers", "mosquitto.passwd")
	exampleACL    = filepath.Join("..", "..", "docs", "brokers", "mosquitto.acl")
)

// Commands against a Mosquitto with the shipped example password file and
// ACL (docs/brokers, which drivers/mqtt/README.md points to): valid
// commands reach OnCommand once and get an accepted reply; malformed,
// oversized, unknown, retained, duplicate, wrong-table and unauthorised
// ones are rejected with a reply naming the reason and never reach
// OnCommand; a client the ACL does not allow (a scoreboard) cannot command
// at all.
func TestMosquittoCommands(t *testing.T) {
	pw, _ := filepath.Abs(examplePasswd)
	acl, _ := filepath.Abs(exampleACL)
	m := newMosquitto(t, "listener %PORT% 127.0.0.1\nallow_anonymous false\npassword_file "+pw+"\nacl_file "+acl+"\n", "")
	m.Start()

	var mu sync.Mutex
	var accepted []Command
	var rejected []string
	o := testOptions("T1", t.TempDir(), m.URL)
	o.Username, o.Password = "T1", "example-T1-password"
	o.Commands = true
	o.Operators = []string{"alice", "bob"}
	o.OnCommand = func(c Command) error {
		mu.Lock()
		defer mu.Unlock()
		accepted = append(accepted, c)
		if c.Name == CmdVoid {
			return errors.New("no coup in progress")
		}
		return nil
	}
	o.OnCommandRejected = func(c Command, reason string) {
		mu.Lock()
		rejected = append(rejected, c.Name+": "+reason)
		mu.Unlock()
	}
	pit := newSubscriber(t, m.URL, "pit-system", "sabot/T1/cmd/+/reply", func(o *paho.ClientOptions) {
		o.SetUsername("pit").SetPassword("example-pit-password")
	})
	send := func(c paho.Client, name, payload string, retained bool) {
		t.Helper()
		tok := c.Publish("sabot/T1/cmd/"+name, 1, retained, payload)
		if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatalf("publish %s: %v", name, tok.Error())
		}
	}
	// A retained command left on the broker would run again on every
	// reconnect: the daemon refuses it when it subscribes.
	send(pit.C, "new-shoe", `{"request_id":"r9","operator":"alice"}`, true)
	p := startPublisher(t, o)
	waitFor(t, "publisher connected", 10*time.Second, func() bool { return p.Status().Connected })
	type want struct {
		name, payload string
		retained      bool
		requestID     string
		accepted      bool
		reason        string
	}
	cases := []want{
		{"new-shoe", `{"request_id":"r9","operator":"alice"}`, true, "", false, "retained commands are refused"},
		{"new-shoe", "", true, "", false, "bad JSON"}, // clearing the retained command
		{"ack", `{"request_id":"r1","operator":"alice"}`, false, "r1", true, ""},
		{"ack", `{"request_id":"r1","operator":"alice"}`, false, "r1", false, "duplicate request_id"},
		{"void", `{"request_id":"r2","operator":"bob","table":"T1"}`, false, "r2", false, "no coup in progress"},
		{"ack", `not json`, false, "", false, "bad JSON"},
		{"ack", `{"request_id":"r3","operator":"alice","x":1}`, false, "r3", false, "bad JSON: json: unknown field"},
		{"ack", `{"request_id":"r4","operator":"alice"}` + strings.Repeat(" ", MaxCommand), false, "", false, "exceeds the 1024-byte limit"},
		{"ack", `{"request_id":"r5"}`, false, "r5", false, "missing field operator"},
		{"ack", `{"operator":"alice"}`, false, "", false, "missing field request_id"},
		{"ack", `{"request_id":"r6","operator":"mallory"}`, false, "r6", false, `operator "mallory" is not authorised`},
		{"ack", `{"request_id":"r7","operator":"alice","table":"T2"}`, false, "r7", false, `wrong table "T2"`},
		{"explode", `{"request_id":"r8","operator":"alice"}`, false, "", false, `unknown command "explode"`},
		{"bets-closed", `{"request_id":"r8","operator":"alice"}`, false, "r8", true, ""},
		{"new-shoe", `{"request_id":"r10","operator":"bob"}`, false, "r10", true, ""},
	}
	waitFor(t, "the reply to the retained command", 10*time.Second, func() bool { return len(pit.got.snapshot()) == 1 })
	for _, c := range cases[1:] {
		send(pit.C, c.name, c.payload, c.retained)
	}
	// A client the ACL does not allow: the broker drops its command.
	rogue := newSubscriber(t, m.URL, "rogue", "sabot/T1/cmd/+/reply", func(o *paho.ClientOptions) {
		o.SetUsername("scoreboard").SetPassword("example-scoreboard-password")
	})
	send(rogue.C, "ack", `{"request_id":"r11","operator":"alice"}`, false)
	send(pit.C, "ack", `{"request_id":"r12","operator":"bob"}`, false)
	cases = append(cases, want{"ack", "", false, "r12", true, ""})
	// A retained command delivered live carries no retain flag (MQTT
	// 3.1.1): the daemon asks the broker, which holds it, and refuses it
	// too. It is cleared once refused (cleared before, it would not be
	// held); the clearing is refused as before.
	cases = append(cases, want{"void", "", true, "r13", false, "the broker holds this one retained"},
		want{"void", "", true, "", false, "bad JSON"})
	waitFor(t, "the reply to r12", 20*time.Second, func() bool { return len(pit.got.snapshot()) >= len(cases)-2 })
	send(pit.C, "void", `{"request_id":"r13","operator":"alice"}`, true)
	waitFor(t, "the reply to r13", 20*time.Second, func() bool { return len(pit.got.snapshot()) >= len(cases)-1 })
	send(pit.C, "void", "", true)

	var replies []CommandReply
	waitFor(t, "every reply", 20*time.Second, func() bool {
		replies = replies[:0]
		for _, r := range pit.got.snapshot() {
			if err := validatePayload(t, r.topic, r.payload); err != nil {
				t.Fatalf("%s: %v\n%s", r.topic, err, r.payload)
			}
			var cr CommandReply
			if err := json.Unmarshal(r.payload, &cr); err != nil {
				t.Fatal(err)
			}
			if r.topic != "cmd/"+cr.Command+"/reply" {
				t.Fatalf("reply for %s on %s", cr.Command, r.topic)
			}
			replies = append(replies, cr)
		}
		return len(replies) >= len(cases)
	})
	time.Sleep(200 * time.Millisecond) // would a reply to the rogue command arrive?
	if n := len(pit.got.snapshot()); n != len(cases) {
		t.Fatalf("%d replies for %d commands", n, len(cases))
	}
	for i, c := range cases {
		r := replies[i]
		if r.Command != c.name || r.RequestID != c.requestID || r.Accepted != c.accepted || !strings.Contains(r.Reason, c.reason) {
			t.Errorf("command %d (%s %.40s): reply %+v, want accepted=%v reason containing %q", i, c.name, c.payload, r, c.accepted, c.reason)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, c := range accepted {
		got = append(got, fmt.Sprintf("%s/%s/%s", c.Name, c.RequestID, c.Operator))
		if c.Received.IsZero() {
			t.Errorf("command %s without receive time", c.RequestID)
		}
	}
	if strings.Join(got, " ") != "ack/r1/alice void/r2/bob bets-closed/r8/alice new-shoe/r10/bob ack/r12/bob" {
		t.Fatalf("OnCommand saw %v", got)
	}
	if len(rejected) != 13 || !strings.Contains(rejected[10], "unknown command") || !strings.Contains(rejected[11], "holds this one retained") {
		t.Fatalf("OnCommandRejected saw %v", rejected)
	}
}

// lockedLog is a log destination safe for concurrent writers.
type lockedLog struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.buf.String(), sub)
}

// A flood of commands while one is being carried out and the outbox is
// busy: the commands beyond the queue are refused as busy or dropped, and
// no goroutine is started per command (before, each overflowing command
// started one that waited for the outbox with no deadline).
func TestCommandFloodStartsNoGoroutines(t *testing.T) {
	b, err := embedded.StartOpen("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	logs := &lockedLog{}
	release := make(chan struct{})
	var handled sync.WaitGroup
	handled.Add(1)
	o := testOptions("T1", t.TempDir(), b.URL())
	o.Commands = true
	o.Logger = logTo(logs)
	first := true
	o.OnCommand = func(Command) error {
		if first {
			first = false
			handled.Done()
			<-release // the first command takes its time
		}
		return nil
	}
	p := startPublisher(t, o)
	waitFor(t, "publisher connected", 10*time.Second, func() bool { return p.Status().Connected })
	pit := newSubscriber(t, b.URL(), "pit", "sabot/T1/cmd/+/reply", nil)
	send := func(i int) {
		t.Helper()
		tok := pit.C.Publish("sabot/T1/cmd/ack", 1, false, fmt.Sprintf(`{"request_id":"r%d","operator":"alice"}`, i))
		if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatalf("publish %d: %v", i, tok.Error())
		}
	}
	send(0)
	handled.Wait()
	// Hold the outbox so that nothing written to it completes meanwhile.
	p.box.closeMu.Lock()
	before := runtime.NumGoroutine()
	const flood = 400
	for i := 1; i <= flood; i++ {
		send(i)
	}
	// Every flooded command has reached the handler: queued, or logged as
	// refused or dropped.
	waitFor(t, "the flood handled", 10*time.Second, func() bool {
		return len(p.cmds)+logs.count("mqtt: command queue") == flood
	})
	grown := runtime.NumGoroutine() - before
	p.box.closeMu.Unlock()
	close(release)
	if grown > 20 {
		t.Fatalf("%d goroutines more after a flood of %d commands", grown, flood)
	}
	if n := len(p.cmds); n != cmdQueue {
		t.Fatalf("%d commands queued, want the queue's %d", n, cmdQueue)
	}
	// The queued commands and the busy ones are answered once the first
	// command is done, the busy ones within the refusal rate (the rest are
	// counted); the rest were dropped and counted.
	waitFor(t, "the busy refusals", 10*time.Second, func() bool { return p.Status().CommandsRefused == cmdQueue })
	quiet := p.Status().CommandsRefusedQuietly
	if quiet < cmdQueue-rejectBurst-10 || quiet > cmdQueue-rejectBurst {
		t.Fatalf("%d busy refusals without a reply, want about %d (beyond the burst of %d)", quiet, cmdQueue-rejectBurst, rejectBurst)
	}
	waitFor(t, "the replies", 10*time.Second, func() bool { return len(pit.got.snapshot()) == 1+2*cmdQueue-quiet })
	if st := p.Status(); st.CommandsDropped != flood-2*cmdQueue {
		t.Fatalf("CommandsDropped = %d, want %d", st.CommandsDropped, flood-2*cmdQueue)
	}
	busy := 0
	for _, r := range pit.got.snapshot() {
		var rep CommandReply
		if err := json.Unmarshal(r.payload, &rep); err != nil {
			t.Fatal(err)
		}
		if !rep.Accepted && strings.HasPrefix(rep.Reason, "busy:") {
			busy++
		}
	}
	if busy != cmdQueue-quiet {
		t.Fatalf("%d busy replies, want %d", busy, cmdQueue-quiet)
	}
}

// On the embedded broker too, a command published retained is refused on
// its live delivery (the daemon asks the broker), and a command sent
// without retain after it is taken.
func TestEmbeddedRetainedCommandLive(t *testing.T) {
	b, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	user, pass := b.Credentials()
	var mu sync.Mutex
	var accepted, rejected []string
	o := testOptions("T1", t.TempDir(), b.URL())
	o.Username, o.Password = user, pass
	o.Commands = true
	o.OnCommand = func(c Command) error {
		mu.Lock()
		defer mu.Unlock()
		accepted = append(accepted, c.RequestID)
		return nil
	}
	o.OnCommandRejected = func(c Command, reason string) {
		mu.Lock()
		defer mu.Unlock()
		rejected = append(rejected, c.RequestID+": "+reason)
	}
	p := startPublisher(t, o)
	waitFor(t, "publisher connected", 10*time.Second, func() bool { return p.Status().Connected })
	time.Sleep(100 * time.Millisecond)
	pit := newSubscriber(t, b.URL(), "pit", "sabot/T1/cmd/+/reply", func(o *paho.ClientOptions) { o.SetUsername(user).SetPassword(pass) })
	for i, c := range []struct {
		payload  string
		retained bool
	}{{`{"request_id":"e1","operator":"alice"}`, true}, {`{"request_id":"e2","operator":"alice"}`, false}} {
		if tok := pit.C.Publish("sabot/T1/cmd/void", 1, c.retained, c.payload); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
		waitFor(t, "the reply", 10*time.Second, func() bool { return len(pit.got.snapshot()) > i })
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(accepted, " ") != "e2" || len(rejected) != 1 || !strings.Contains(rejected[0], "e1: retained commands are refused") {
		t.Errorf("accepted %v, rejected %v", accepted, rejected)
	}
}
