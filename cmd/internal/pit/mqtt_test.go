package pit

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/testenv"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
	"github.com/sabot-table/sabot/drivers/testenv/mochihook"
)

// The console subscribes to every table on the first broker, fails over
// to the second when the first goes away (the retained messages come
// again from it), and publishes the ack command with the operator, whose
// reply reaches the tile.
func TestPitSubscriberFailoverAndAck(t *testing.T) {
	a, err := embedded.StartOpen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	var closeA sync.Once
	defer closeA.Do(func() { a.Close() })
	b, err := embedded.StartOpen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	m := NewModel(0, nil, nil)
	s, err := NewSubscriber(BrokerOptions{Brokers: []string{a.URL(), b.URL()}, ConnectTimeout: 2 * time.Second}, m)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testenv.Wait(t, "connected to the first broker", 10*time.Second, func() bool { c, br := s.Link(); return c && br == a.URL() })

	pa := testenv.PahoClient(t, a.URL(), "table-a")
	testenv.PahoPublish(t, pa, "sabot/T1/status", true, statusMsg("online", 3, "00000000000000aa", "online", ""))
	testenv.Wait(t, "T1 online", 5*time.Second, func() bool { return m.Has("T1") })

	// The same table publishes on the second broker (a cluster shares
	// retained messages; two embedded brokers do not, so the test puts
	// them there).
	pb := testenv.PahoClient(t, b.URL(), "table-b")
	testenv.PahoPublish(t, pb, "sabot/T1/status", true, statusMsg("online", 3, "00000000000000aa", "online", ""))
	testenv.PahoPublish(t, pb, "sabot/T2/status", true, statusMsg("online", 1, "00000000000000bb", "online", ""))
	closeA.Do(func() { a.Close() })
	testenv.Wait(t, "failover to the second broker", 20*time.Second, func() bool { c, br := s.Link(); return c && br == b.URL() })
	testenv.Wait(t, "T2 from the second broker", 5*time.Second, func() bool { return m.Has("T2") })
	testenv.PahoPublish(t, pb, "sabot/T1/alert", false, []byte(`{"schema":1,"id":"T1/s/1/alert/1","table":"T1","shoe_id":"s",`+
		`"time":"2026-12-01T10:00:00Z","type":"alert","shoe":1,"coup":1,"code":"extra-card","severity":"error","text":"x","awaits_ack":true}`))
	testenv.Wait(t, "the alert", 5*time.Second, func() bool { return len(oneTile(t, m, "T1").Alerts) == 1 })

	// The ack command, as a daemon with commands enabled receives it.
	var mu sync.Mutex
	var got []mqtt.Command
	if tok := pb.Subscribe("sabot/T1/cmd/ack", 1, func(_ paho.Client, msg paho.Message) {
		var c mqtt.Command
		if err := json.Unmarshal(msg.Payload(), &c); err != nil {
			t.Errorf("command %s: %v", msg.Payload(), err)
		}
		if msg.Retained() {
			t.Error("the command is retained")
		}
		mu.Lock()
		got = append(got, c)
		mu.Unlock()
	}); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	id, err := s.Ack(t.Context(), "T1", "alice")
	if err != nil {
		t.Fatal(err)
	}
	testenv.Wait(t, "the command", 5*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 1 })
	if c := got[0]; c.RequestID != id || c.Operator != "alice" || c.Table != "T1" {
		t.Errorf("command %+v, request id %s", c, id)
	}
	testenv.PahoPublish(t, pb, "sabot/T1/cmd/ack/reply", false, []byte(fmt.Sprintf(`{"schema":1,"id":"T1/cmd/1","table":"T1","shoe_id":"s",`+
		`"time":"2026-12-01T10:00:01Z","command":"ack","request_id":%q,"operator":"alice","accepted":true}`, id)))
	testenv.Wait(t, "the reply", 5*time.Second, func() bool { a := oneTile(t, m, "T1").Ack; return a != nil && a.State == "accepted" })

	if _, err := s.Ack(t.Context(), "T9", "alice"); err == nil {
		t.Error("ack to an unknown table sent")
	}
	if _, err := s.Ack(t.Context(), "T1/cmd", "alice"); err == nil {
		t.Error("ack to a bad table name sent")
	}
}

func TestPitSubscriberBadBrokers(t *testing.T) {
	for _, b := range [][]string{nil, {"localhost:1883"}, {"http://x:1"}, {"tcp://"}} {
		if _, err := NewSubscriber(BrokerOptions{Brokers: b}, NewModel(0, nil, nil)); err == nil {
			t.Errorf("brokers %q accepted", b)
		}
	}
}

// A refused coup subscription (not essential: states carry the result
// too) leaves the console connected while it asks again.
func TestPitSubscriberConnectedWithoutCoups(t *testing.T) {
	h := mochihook.RefuseSubscribe("sabot/+/coup", 1<<30)
	url := mochihook.Serve(t, h)
	s, err := NewSubscriber(BrokerOptions{Brokers: []string{url}}, NewModel(0, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testenv.Wait(t, "connected", 10*time.Second, func() bool { c, _ := s.Link(); return c })
	testenv.Wait(t, "the coup filter asked for again", 10*time.Second, func() bool { return h.Asked() >= 2 })
}

// A filter the broker refuses (SUBACK failure, as NATS Server answers
// while its JetStream elects new leaders) is asked for again until it is
// granted; only then is the console connected.
func TestPitSubscriberRetriesRefusedFilter(t *testing.T) {
	h := mochihook.RefuseSubscribe("sabot/+/state", 2)
	url := mochihook.Serve(t, h)
	pub := testenv.PahoClient(t, url, "table")
	f := newPitFeed(t, "T1")
	var state []byte
	for _, m := range f.transcript("../../../drivers/mqtt/testdata/extra-card.shoe") {
		if m.Topic == mqtt.TopicState {
			state = m.Payload
		}
	}
	testenv.PahoPublish(t, pub, "sabot/T1/state", true, state)
	testenv.PahoPublish(t, pub, "sabot/T1/status", true, statusMsg("online", 1, "00000000000000aa", "online", ""))

	var logs testenv.LogBuffer
	m := NewModel(0, nil, nil)
	s, err := NewSubscriber(BrokerOptions{Brokers: []string{url}, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, m)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testenv.Wait(t, "the state after the refusals", 20*time.Second, func() bool {
		tiles, _ := m.Tiles(0)
		return len(tiles) == 1 && tiles[0].Phase != "" && len(tiles[0].Alerts) == 1
	})
	testenv.Wait(t, "connected", 5*time.Second, func() bool { c, _ := s.Link(); return c })
	if asked := h.Asked(); asked != 3 {
		t.Errorf("the state filter was asked for %d times, want 3 (2 refused)", asked)
	}
	if n := strings.Count(logs.String(), "the broker refused subscriptions; will retry"); n != 2 {
		t.Errorf("%d refusals logged:\n%s", n, logs.String())
	}
}

// A broker that refuses an essential subscription for longer than
// RefusalTimeout is left for the next one: with brokers [A, B] and A
// refusing the state filter for ever, the console ends up connected to B,
// with B's tables. Before, it asked A again for ever and never connected.
func TestPitSubscriberFailoverOnRefusal(t *testing.T) {
	ha := mochihook.RefuseSubscribe("sabot/+/state", 1<<30)
	a := mochihook.Serve(t, ha)
	b := mochihook.Serve(t, mochihook.RefuseSubscribe("", 0))
	testenv.PahoPublish(t, testenv.PahoClient(t, b, "table"), "sabot/T1/status", true, statusMsg("online", 1, "00000000000000aa", "online", ""))
	var logs testenv.LogBuffer
	m := NewModel(0, nil, nil)
	o := BrokerOptions{Brokers: []string{a, b}, ConnectTimeout: 2 * time.Second, RefusalTimeout: time.Second,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	s, err := NewSubscriber(o, m)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testenv.Wait(t, "A asked for the state filter", 10*time.Second, func() bool { return ha.Asked() >= 1 })
	refused := time.Now()
	testenv.Wait(t, "connected to B", o.RefusalTimeout+20*time.Second, func() bool { c, br := s.Link(); return c && br == b })
	t.Logf("on B %v after A was first asked (bound %v)", time.Since(refused).Round(time.Millisecond), o.RefusalTimeout)
	testenv.Wait(t, "T1 from B", 5*time.Second, func() bool { return m.Has("T1") })
	if !strings.Contains(logs.String(), "pit: the broker refuses subscriptions; moving to the next broker") {
		t.Errorf("the move is not logged:\n%s", logs.String())
	}
}

// A broker that leaves the essential SUBSCRIBE unanswered counts as one
// that refuses it: with brokers [A, B] and A silent, the console is on B
// soon after RefusalTimeout. Before, it waited for A's answer for
// pitSubscribeWait (60 s; run 10's node took 18 s, past the test's
// deadline).
func TestPitSubscriberFailoverOnSilence(t *testing.T) {
	ha := mochihook.RefuseSubscribe("sabot/+/state", 0)
	ha.HoldSubscribe(true)
	a := mochihook.Serve(t, ha)
	b := mochihook.Serve(t, mochihook.RefuseSubscribe("", 0))
	testenv.PahoPublish(t, testenv.PahoClient(t, b, "table"), "sabot/T1/status", true, statusMsg("online", 1, "00000000000000aa", "online", ""))
	var logs testenv.LogBuffer
	m := NewModel(0, nil, nil)
	o := BrokerOptions{Brokers: []string{a, b}, ConnectTimeout: 2 * time.Second, RefusalTimeout: time.Second,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	s, err := NewSubscriber(o, m)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	testenv.Wait(t, "connected to B", o.RefusalTimeout+20*time.Second, func() bool { c, br := s.Link(); return c && br == b })
	if d := time.Since(start); d >= pitSubscribeWait {
		t.Errorf("on B after %v: the console waited for A's answer", d)
	}
	testenv.Wait(t, "T1 from B", 5*time.Second, func() bool { return m.Has("T1") })
	if !strings.Contains(logs.String(), "pit: the broker refuses subscriptions; moving to the next broker") {
		t.Errorf("the move is not logged:\n%s", logs.String())
	}
	if n := ha.Asked(); n != 0 {
		t.Errorf("A answered %d subscriptions to the state filter while holding them", n)
	}
}

// When every broker is silent the console does not leave each at the
// same bound for ever: the bound doubles for each broker left in a row
// (1 s, 2 s, 4 s with RefusalTimeout 1 s), so that a floor whose every
// node is slow still answers one of its waits; once a broker answers the
// console links to it.
func TestPitSubscriberSilentFloorBoundGrows(t *testing.T) {
	ha, hb := mochihook.RefuseSubscribe("sabot/+/state", 0), mochihook.RefuseSubscribe("sabot/+/state", 0)
	ha.HoldSubscribe(true)
	hb.HoldSubscribe(true)
	a, b := mochihook.Serve(t, ha), mochihook.Serve(t, hb)
	var logs testenv.LogBuffer
	m := NewModel(0, nil, nil)
	o := BrokerOptions{Brokers: []string{a, b}, ConnectTimeout: 2 * time.Second, RefusalTimeout: time.Second,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	s, err := NewSubscriber(o, m)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	moved := regexp.MustCompile(`moving to the next broker" broker=\S+ for=(\S+)`)
	testenv.Wait(t, "three moves", 60*time.Second, func() bool { return len(moved.FindAllString(logs.String(), -1)) >= 3 })
	ha.HoldSubscribe(false)
	hb.HoldSubscribe(false)
	var fors []time.Duration
	for _, g := range moved.FindAllStringSubmatch(logs.String(), -1)[:3] {
		d, err := time.ParseDuration(g[1])
		if err != nil {
			t.Fatal(err)
		}
		fors = append(fors, d)
	}
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		// At the bound, not long after (a loaded machine's scheduling).
		if fors[i] < want || fors[i] > want+time.Second {
			t.Errorf("move %d after %v, want %v (all: %v)", i+1, fors[i], want, fors)
		}
	}
	testenv.Wait(t, "connected once the brokers answer", 30*time.Second, func() bool { c, _ := s.Link(); return c })
}
