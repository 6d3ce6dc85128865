package mqtt

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/sabot-table/sabot/drivers/testenv"
	"github.com/sabot-table/sabot/drivers/testenv/sessionsub"
)

// newMosquitto writes the config of a broker this test runs (not started:
// Start does): the listener lines from listener ("" is
// testenv.DefaultMosquittoListener, %PORT% standing for the port), plus
// extra, with persistence saved on every change (as README.md recommends)
// so persistent sessions survive a restart, even a crash.
func newMosquitto(t testing.TB, listener, extra string) *testenv.Mosquitto {
	t.Helper()
	return testenv.NewMosquitto(t, testenv.MosquittoOptions{
		Listener: listener,
		Settings: "max_queued_messages 0\nmax_inflight_messages 20\nautosave_interval 1\nautosave_on_changes true\n",
		Persist:  true,
		Extra:    extra,
	})
}

// subscriber is a test consumer: a persistent session (clean session
// false) at QoS 1, as the README tells integrators to run
// (drivers/testenv/sessionsub: it subscribes once, reconnects by itself
// and records whether the broker kept the session); assertDelivery fails
// on a lost session.
type subscriber struct {
	*sessionsub.Subscriber
	got *collector
}

// newSubscriber starts a subscriber to filter with a 2 s keep-alive and
// connect timeout; each message is kept with its topic stripped of
// "<prefix>/<table>/". extra, when not nil, sets more client options.
func newSubscriber(t testing.TB, broker, clientID, filter string, extra func(*paho.ClientOptions)) *subscriber {
	t.Helper()
	s := &subscriber{got: &collector{}}
	s.Subscriber = sessionsub.Start(t, sessionsub.Options{Broker: broker, ClientID: clientID, Filter: filter,
		Handler: func(_ paho.Client, m paho.Message) {
			topic := m.Topic()
			if parts := strings.SplitN(topic, "/", 3); len(parts) == 3 {
				topic = parts[2]
			}
			s.got.add(received{topic: topic, payload: m.Payload(), retained: m.Retained()})
		},
		Client: func(o *paho.ClientOptions) {
			o.SetKeepAlive(2 * time.Second).SetPingTimeout(time.Second).SetConnectTimeout(2 * time.Second)
			if extra != nil {
				extra(o)
			}
		}})
	return s
}

// waitIDs waits until the subscriber has every id of want (after dedupe).
func (s *subscriber) waitIDs(t testing.TB, want []string, timeout time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := dedupeQuiet(s.got.snapshot())
		if containsAll(got, want) {
			return dedupe(t, s.got.snapshot())
		}
		if time.Now().After(deadline) {
			ids := dedupe(t, s.got.snapshot())
			missing := 0
			set := map[string]bool{}
			for _, id := range ids {
				set[id] = true
			}
			first := ""
			for _, id := range want {
				if !set[id] {
					if missing == 0 {
						first = id
					}
					missing++
				}
			}
			s.CheckSessions(t) // a lost session explains missing messages
			t.Fatalf("after %v the subscriber misses %d of %d messages (first %s)", timeout, missing, len(want), first)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dedupeQuiet is dedupe without checks (for polling).
func dedupeQuiet(msgs []received) []string {
	seen := map[string]bool{}
	var ids []string
	for _, m := range msgs {
		i := bytes.Index(m.payload, []byte(`"id":"`))
		if i < 0 {
			continue
		}
		rest := m.payload[i+6:]
		j := bytes.IndexByte(rest, '"')
		if j < 0 {
			continue
		}
		id := string(rest[:j])
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

// assertDelivery checks that got, de-duplicated, is exactly want in order,
// and logs how many duplicates there were.
func assertDelivery(t testing.TB, s *subscriber, want []string, timeout time.Duration) {
	t.Helper()
	got := s.waitIDs(t, want, timeout)
	s.CheckSessions(t)
	wantSet := map[string]bool{}
	for _, id := range want {
		wantSet[id] = true
	}
	var inWant []string
	for _, id := range got {
		if wantSet[id] {
			inWant = append(inWant, id)
		}
	}
	if len(inWant) != len(want) {
		t.Fatalf("got %d of %d ids", len(inWant), len(want))
	}
	for i := range want {
		if inWant[i] != want[i] {
			t.Fatalf("order broken at %d: got %s, want %s", i, inWant[i], want[i])
		}
	}
	total := 0
	for _, m := range s.got.snapshot() {
		if m.topic != TopicStatus && m.topic != TopicState {
			total++
		}
	}
	t.Logf("delivered %d messages in order; %d received in all (%d duplicates)", len(want), total, total-len(got))
}

// testOptions are short timeouts for tests on a small CI box.
func testOptions(table, dir string, brokers ...string) Options {
	return Options{
		Table: table, Brokers: brokers, StateDir: dir, Version: "test",
		KeepAlive: 2 * time.Second, ConnectTimeout: 2 * time.Second,
		ReconnectMin: 50 * time.Millisecond, ReconnectMax: 500 * time.Millisecond,
		AckTimeout: 3 * time.Second,
	}
}

func startPublisher(t testing.TB, o Options) *Publisher {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	p.Start(context.Background())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		p.Close(ctx)
	})
	return p
}

func publishEvents(t testing.TB, p *Publisher, events [][]Message, pace time.Duration) {
	t.Helper()
	for i, ev := range events {
		if err := p.Publish(context.Background(), ev...); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if pace > 0 {
			time.Sleep(pace)
		}
	}
}

// waitFor polls cond until it holds, failing the test after timeout
// (scaled by testenv.Deadline).
func waitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	timeout = testenv.Deadline(timeout)
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func logTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
