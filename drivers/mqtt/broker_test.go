package mqtt

import (
	"context"
	"encoding/json"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
)

func TestEmbeddedBrokerFullShoe(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	b, err := embedded.StartOpen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !strings.HasPrefix(b.URL(), "tcp://127.0.0.1:") || strings.HasSuffix(b.URL(), ":0") {
		t.Fatalf("URL = %q", b.URL())
	}
	sub := newSubscriber(t, b.URL(), "scoreboard-1", "sabot/T1/#", nil)
	events := shoeEvents(t, "T1")
	opts := testOptions("T1", t.TempDir(), b.URL())
	var ackMu sync.Mutex
	var acked []string // "topic id" of each acknowledged message, in order
	opts.OnAck = func(topic string, payload []byte) {
		var env Envelope
		json.Unmarshal(payload, &env)
		ackMu.Lock()
		acked = append(acked, topic+" "+env.ID)
		ackMu.Unlock()
	}
	p := startPublisher(t, opts)
	publishEvents(t, p, events, 0)
	assertDelivery(t, sub, expectedIDs(t, events), 30*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// OnAck reported every event message published, once each, in order.
	var wantAcks []string
	for _, ev := range events {
		for _, m := range ev {
			var env Envelope
			json.Unmarshal(m.Payload, &env)
			if !m.Retained { // a retained state may be superseded before it is sent
				wantAcks = append(wantAcks, m.Topic+" "+env.ID)
			}
		}
	}
	ackMu.Lock()
	got := slices.DeleteFunc(slices.Clone(acked), func(s string) bool {
		return strings.HasPrefix(s, TopicStatus+" ") || strings.HasPrefix(s, TopicState+" ") || strings.HasPrefix(s, TopicRoads+" ")
	})
	ackMu.Unlock()
	if !slices.Equal(got, wantAcks) {
		t.Fatalf("OnAck reported %d messages, want the %d published, once each, in order", len(got), len(wantAcks))
	}
	if st := p.Status(); !st.Connected || st.Backlog != 0 || st.Broker != b.URL() {
		t.Fatalf("status %+v", st)
	}
	// A clean stop publishes "offline" itself.
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "offline status", 5*time.Second, func() bool {
		return lastStatus(t, sub.got.snapshot()) == StatusOffline
	})
	// A late scoreboard gets the retained state and status at once.
	late := newSubscriber(t, b.URL(), "scoreboard-late", "sabot/T1/+", nil)
	// (The subscriber subscribes twice, on connect and once connected, so
	// the broker may send each retained message twice: count topics.)
	waitFor(t, "retained state", 5*time.Second, func() bool {
		seen := map[string]bool{}
		for _, m := range late.got.snapshot() {
			if m.retained && (m.topic == TopicState || m.topic == TopicStatus) {
				seen[m.topic] = true
			}
		}
		return len(seen) == 2
	})
	var st StatePayload
	for _, m := range late.got.snapshot() {
		if m.topic == TopicState {
			if err := json.Unmarshal(m.payload, &st); err != nil {
				t.Fatal(err)
			}
		}
	}
	var want StatePayload
	for _, ev := range events {
		for _, m := range ev {
			if m.Topic == TopicState {
				json.Unmarshal(m.Payload, &want)
			}
		}
	}
	if st.ID != want.ID || st.CardsDrawn != want.CardsDrawn || st.Coup != want.Coup {
		t.Fatalf("retained state %+v, want the last one %+v", st.Envelope, want.Envelope)
	}
}

// lastStatus returns the status value of the last status message in msgs.
func lastStatus(t testing.TB, msgs []received) string {
	s := ""
	for _, m := range msgs {
		if m.topic == TopicStatus {
			var p StatusPayload
			if err := json.Unmarshal(m.payload, &p); err != nil {
				t.Fatal(err)
			}
			s = p.Status
		}
	}
	return s
}

func TestEmbeddedBrokerLoopbackOnly(t *testing.T) {
	if _, err := embedded.StartOpen("0.0.0.0:0", nil); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("err = %v", err)
	}
}

// Closing the embedded broker while clients connect and disconnect is
// race-free and prompt. Under -race this failed (a data race between
// mochi-mqtt's Server.Close and Server.EstablishConnection, upstream issue
// 541) until Close first shut the listener down and waited for the broker
// to let go of every connection.
func TestEmbeddedBrokerCloseWhileConnecting(t *testing.T) {
	connect := []byte{0x10, 13, 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 30, 0, 1, 'c'} // MQTT 3.1.1 CONNECT, id "c"
	for i := range 100 {
		b, err := embedded.StartOpen("", nil)
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.Dial("tcp", b.Addr())
				if err != nil {
					return // closed
				}
				c.Write(connect)
				c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
				c.Read(make([]byte, 4)) // CONNACK, or nothing once closing
				c.Close()
			}
		}()
		time.Sleep(time.Duration(i%7) * time.Millisecond)
		closed := make(chan error, 1)
		go func() { closed <- b.Close() }()
		select {
		case err := <-closed:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Close did not return within 10 s")
		}
		close(stop)
		<-done
	}
}

// statuses decodes every status message in msgs, in order.
func statuses(t testing.TB, msgs []received) []StatusPayload {
	t.Helper()
	var out []StatusPayload
	for _, m := range msgs {
		if m.topic == TopicStatus {
			if err := validatePayload(t, TopicStatus, m.payload); err != nil {
				t.Fatalf("status %s: %v", m.payload, err)
			}
			var p StatusPayload
			if err := json.Unmarshal(m.payload, &p); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}
