package mqtt

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/sabot-table/sabot/drivers/testenv"
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

// subscriber is a test consumer: a persistent session (clean session false)
// at QoS 1, as the README tells integrators to run. It subscribes once and
// never again: after a reconnect it gets what the broker kept in the
// session, so a broker that lost the session cannot pass unnoticed (a
// subscriber that subscribed again would get what was published after its
// new subscription and miss, or not, what came before it: a test passing
// by luck). It reconnects by itself after a lost connection and records
// CONNACK's session-present flag each time; assertDelivery fails on a lost
// session.
type subscriber struct {
	c    paho.Client
	got  *collector
	base string        // topic prefix stripped from received topics
	done chan struct{} // closed at the test's end: stop reconnecting

	mu      sync.Mutex
	resumed []bool // per reconnect: the broker still had the session
}

func newSubscriber(t testing.TB, broker, clientID, base, filter string, extra func(*paho.ClientOptions)) *subscriber {
	t.Helper()
	s := &subscriber{got: &collector{}, base: base, done: make(chan struct{})}
	// Auto-reconnect off: paho's does not tell whether the session was
	// still there; reconnectLoop does.
	o := paho.NewClientOptions().AddBroker(broker).SetClientID(clientID).SetCleanSession(false).
		SetAutoReconnect(false).SetKeepAlive(2 * time.Second).SetPingTimeout(time.Second).
		SetConnectTimeout(2 * time.Second)
	o.SetDefaultPublishHandler(func(_ paho.Client, m paho.Message) {
		// Strip "<prefix>/<table>/".
		topic := m.Topic()
		if parts := strings.SplitN(topic, "/", 3); len(parts) == 3 {
			topic = parts[2]
		}
		s.got.add(received{topic: topic, payload: m.Payload(), retained: m.Retained()})
	})
	o.SetConnectionLostHandler(func(paho.Client, error) { go s.reconnectLoop() })
	if extra != nil {
		extra(o)
	}
	s.c = paho.NewClient(o)
	if tok := s.c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("subscriber connect: %v", tok.Error())
	}
	if tok := s.c.Subscribe(filter, 1, nil); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe %s: %v", filter, tok.Error())
	}
	t.Cleanup(func() {
		close(s.done)
		s.c.Disconnect(50)
	})
	return s
}

// reconnectLoop connects again every 100 ms until it succeeds and records
// whether the broker had kept the session.
func (s *subscriber) reconnectLoop() {
	for {
		select {
		case <-s.done:
			return
		case <-time.After(100 * time.Millisecond):
		}
		tok := s.c.Connect()
		select {
		case <-tok.Done(): // bounded by the connect timeout
		case <-s.done:
			return
		}
		if tok.Error() != nil {
			continue
		}
		s.mu.Lock()
		s.resumed = append(s.resumed, tok.(*paho.ConnectToken).SessionPresent())
		s.mu.Unlock()
		return
	}
}

// checkSessions fails the test if a reconnect found the session gone.
func (s *subscriber) checkSessions(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, present := range s.resumed {
		if !present {
			t.Errorf("reconnect %d of the subscriber: the broker no longer had its session (what was queued for it is lost)", i+1)
		}
	}
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
			s.checkSessions(t) // a lost session explains missing messages
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
	s.checkSessions(t)
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

func waitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func logTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
