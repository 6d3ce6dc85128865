package mqtt

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
)

// commandRig is a publisher taking commands on an embedded broker, with a
// client ("pit") that sends commands and receives every reply.
type commandRig struct {
	p        *Publisher
	pit      *subscriber
	recorded atomic.Int32 // OnCommandRejected calls
	mu       sync.Mutex
	names    []string // the Names OnCommandRejected was given
}

func newCommandRig(t *testing.T) *commandRig {
	t.Helper()
	b, err := embedded.StartOpen("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	r := &commandRig{}
	o := testOptions("T1", t.TempDir(), b.URL())
	o.Commands = true
	o.Logger = logTo(&lockedLog{})
	o.OnCommand = func(Command) error { return nil }
	o.OnCommandRejected = func(c Command, _ string) {
		r.recorded.Add(1)
		r.mu.Lock()
		r.names = append(r.names, c.Name)
		r.mu.Unlock()
	}
	r.p = startPublisher(t, o)
	waitFor(t, "publisher connected", 10*time.Second, func() bool { return r.p.Status().Connected })
	r.pit = newSubscriber(t, b.URL(), "pit", "sabot/T1/cmd/#", nil)
	return r
}

func (r *commandRig) send(t *testing.T, topic, payload string) {
	t.Helper()
	tok := r.pit.C.Publish(topic, 1, false, payload)
	if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("publish on %.40s: %v", topic, tok.Error())
	}
}

// count is the messages the pit received on topic (relative to sabot/T1/).
func (r *commandRig) count(topic string) int {
	n := 0
	for _, m := range r.pit.got.snapshot() {
		if m.topic == topic {
			n++
		}
	}
	return n
}

// sentinel sends an ack and waits for its reply: the daemon handles
// commands and queues replies in order, so whatever reply an earlier
// message got has reached the pit by then.
func (r *commandRig) sentinel(t *testing.T, id string) {
	t.Helper()
	before := r.count("cmd/ack/reply")
	r.send(t, "sabot/T1/cmd/ack", fmt.Sprintf(`{"request_id":%q,"operator":"pit"}`, id))
	waitFor(t, "the sentinel's reply", 10*time.Second, func() bool { return r.count("cmd/ack/reply") > before })
}

// A command topic level that is not a command name (too long, upper case)
// is refused without a reply, and the refusal's record holds at most 64
// bytes of it; a short unknown name is still answered.
func TestCommandNameNotANameIsNotAnswered(t *testing.T) {
	r := newCommandRig(t)
	long := strings.Repeat("A", 60000)
	r.send(t, "sabot/T1/cmd/"+long, `{"request_id":"p1","operator":"x"}`)
	r.send(t, "sabot/T1/cmd/"+strings.Repeat("a", MaxCommandName+1), `{"request_id":"p2","operator":"x"}`)
	r.send(t, "sabot/T1/cmd/Ack", `{"request_id":"p3","operator":"x"}`)
	r.send(t, "sabot/T1/cmd/reboot", `{"request_id":"p4","operator":"x"}`)
	r.sentinel(t, "s1")
	for _, m := range r.pit.got.snapshot() {
		if strings.HasSuffix(m.topic, "/reply") && m.topic != "cmd/ack/reply" && m.topic != "cmd/reboot/reply" {
			t.Errorf("a reply on %.60s", m.topic)
		}
	}
	if n := r.count("cmd/reboot/reply"); n != 1 {
		t.Errorf("%d replies to the unknown but well-formed command reboot, want 1", n)
	}
	if st := r.p.Status(); st.CommandsRefused != 4 || st.CommandsRefusedQuietly != 0 {
		t.Errorf("CommandsRefused %d, quietly %d; want 4, 0", st.CommandsRefused, st.CommandsRefusedQuietly)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.names) != 4 {
		t.Fatalf("%d refusals recorded, want 4", len(r.names))
	}
	for _, n := range r.names {
		if len(n) > 64 {
			t.Errorf("a refusal's record holds a %d-byte name", len(n))
		}
	}
}

// A command reply sent to a command topic is never carried out nor
// answered (a daemon must not consume its own replies, nor two daemons
// answer each other).
func TestReplyOnACommandTopicIsNotAnswered(t *testing.T) {
	r := newCommandRig(t)
	r.send(t, "sabot/T1/cmd/void", `{"table":"T1","id":"T1/cmd/x/1","command":"void","request_id":"q","operator":"o","accepted":false,"reason":"bad"}`)
	r.sentinel(t, "s1")
	if n := r.count("cmd/void/reply"); n != 0 {
		t.Errorf("%d replies to a reply, want none", n)
	}
	if st := r.p.Status(); st.CommandsRefused != 1 {
		t.Errorf("CommandsRefused = %d, want 1", st.CommandsRefused)
	}
}

// Refusals are recorded, logged and answered at most rejectRate a second
// in bursts of rejectBurst; the rest are counted.
func TestCommandRefusalsAreRateBounded(t *testing.T) {
	r := newCommandRig(t)
	const bad = 120
	start := time.Now()
	for i := range bad {
		r.send(t, "sabot/T1/cmd/void", fmt.Sprintf(`{"request_id":"b%d"}`, i)) // no operator
	}
	// Each is refused (by validation, or as busy: the command queue full)
	// or dropped (both queues full).
	busy := func() int {
		n := 0
		for _, m := range r.pit.got.snapshot() {
			if m.topic == "cmd/void/reply" && strings.Contains(string(m.payload), `"reason":"busy:`) {
				n++
			}
		}
		return n
	}
	waitFor(t, "every bad command handled", 20*time.Second, func() bool {
		st := r.p.Status()
		return st.CommandsRefused+st.CommandsDropped == bad
	})
	elapsed := time.Since(start)
	r.sentinel(t, "s1")
	st := r.p.Status()
	rec := int(r.recorded.Load())
	limit := rejectBurst + int(float64(rejectRate)*elapsed.Seconds()) + 1
	if rec > limit || rec < min(rejectBurst, st.CommandsRefused) {
		t.Errorf("%d refusals recorded in %v, want %d to %d", rec, elapsed, rejectBurst, limit)
	}
	if st.CommandsRefusedQuietly != st.CommandsRefused-rec {
		t.Errorf("CommandsRefusedQuietly = %d, want %d refused - %d recorded", st.CommandsRefusedQuietly, st.CommandsRefused, rec)
	}
	if n := r.count("cmd/void/reply"); n != rec {
		t.Errorf("%d replies to refused commands, want one per recorded refusal (%d)", n, rec)
	}
	if st.CommandsRefused < bad/2 {
		t.Fatalf("only %d of %d bad commands were refused (%d dropped): the rate was not exercised", st.CommandsRefused, bad, st.CommandsDropped)
	}
	t.Logf("%d bad commands in %v: %d recorded and answered (%d of them busy), %d counted only, %d dropped", bad, elapsed, rec, st.CommandsRefusedQuietly, busy(), st.CommandsDropped)
}

// An outbox message no broker can take (here a 300-byte topic, as an older
// version could leave) is dropped with a report, and what follows it is
// delivered; before, it was sent at every connection for ever.
func TestUndeliverableOutboxMessageDropped(t *testing.T) {
	b, err := embedded.StartOpen("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dir := t.TempDir()
	box, err := openOutbox(dir, 100)
	if err != nil {
		t.Fatal(err)
	}
	bad := Message{Topic: "cmd/" + strings.Repeat("A", 300), Payload: []byte(`{}`)}
	good := Message{Topic: TopicCard, Payload: []byte(`{"id":"T1/s/1/card/1"}`)}
	if err := box.append(context.Background(), []Message{bad, good}, false); err != nil {
		t.Fatal(err)
	}
	box.close()

	sub := newSubscriber(t, b.URL(), "sub", "sabot/T1/#", nil)
	o := testOptions("T1", dir, b.URL())
	var mu sync.Mutex
	var reports []string
	o.OnUndeliverable = func(topic string, size int, err error) {
		mu.Lock()
		reports = append(reports, fmt.Sprintf("%d %d %v", len(topic), size, err != nil))
		mu.Unlock()
	}
	p := startPublisher(t, o)
	waitFor(t, "the card delivered", 10*time.Second, func() bool {
		for _, m := range sub.got.snapshot() {
			if m.topic == TopicCard {
				return true
			}
		}
		return false
	})
	waitFor(t, "the outbox empty", 10*time.Second, func() bool { return p.Status().Backlog == 0 })
	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 1 || reports[0] != "64 2 true" {
		t.Errorf("reports %q, want one: a 64-byte topic, 2 bytes, an error", reports)
	}
	if st := p.Status(); st.Undeliverable != 1 {
		t.Errorf("Undeliverable = %d, want 1", st.Undeliverable)
	}
	for _, m := range sub.got.snapshot() {
		if strings.HasPrefix(m.topic, "cmd/") {
			t.Errorf("the undeliverable message was sent (as %.40s)", m.topic)
		}
	}
}
