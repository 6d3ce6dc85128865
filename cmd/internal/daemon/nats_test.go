package daemon

// sabotd on a 3-node NATS Server cluster (MQTT + JetStream), started by
// the test (drivers/testenv/natscluster): nodes crash under running
// daemons, a daemon is killed, and what a consumer with a persistent
// session receives is compared with `sabot check`.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/testenv"
	"github.com/sabot-table/sabot/drivers/testenv/natscluster"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
)

var connectedRE = regexp.MustCompile(`"msg":"mqtt: connected"[^\n]*?"broker":"([^"]+)"`)

// connectedTo returns the broker URL of the daemon's latest "mqtt:
// connected" log line and how many such lines there are.
func (p *sabotdProc) connectedTo() (string, int) {
	m := connectedRE.FindAllStringSubmatch(p.logs.String(), -1)
	if len(m) == 0 {
		return "", 0
	}
	return m[len(m)-1][1], len(m)
}

// natsConfig is e2eConfig with every node of the cluster in [mqtt]
// brokers, in the cluster's order.
func natsConfig(table, device string, c *natscluster.Cluster, state string) string {
	conf := e2eConfig(table, device, "sabot", "auto", "", state, "")
	var q []string
	for _, u := range c.URLs() {
		q = append(q, fmt.Sprintf("%q", u))
	}
	return strings.Replace(conf, `brokers = [""]`, "brokers = ["+strings.Join(q, ", ")+"]", 1)
}

// floorTranscript is a dealt 8-deck shoe (seed) followed by the sample
// shoes with a void and with an extra card, so every table's traffic has
// coups, voids and alerts.
func floorTranscript(t *testing.T, seed uint64) string {
	t.Helper()
	toks, err := sim.DealShoes(seed, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	tableau.FormatTranscript(&b, toks)
	for _, f := range []string{"void", "extra-card"} {
		b.WriteString("\n")
		b.Write(mustRead(t, "../../../tableau/testdata/"+f+".shoe"))
	}
	return b.String()
}

// byTable splits events by their table.
func byTable(evs []map[string]any) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	for _, e := range evs {
		tb, _ := e["table"].(string)
		out[tb] = append(out[tb], e)
	}
	return out
}

// payloadOrder is where a state or status payload stands in its table's
// own order, to compare as a tuple: a state by its time, then the number
// its id ends with (the journal record that caused it); a status by conn,
// then offline after online within one conn, then the number its id ends
// with (drivers/mqtt/README.md, "Which status is current"). The order of
// arrival is not it: after a NATS node's crash the cluster sends again
// messages already delivered (with the DUP flag), and an old state then
// arrives after newer ones.
func payloadOrder(kind string, m map[string]any) [3]int64 {
	id, _ := m["id"].(string)
	n, _ := strconv.ParseInt(id[strings.LastIndexByte(id, '/')+1:], 10, 64)
	if kind == "status" {
		conn, _ := m["conn"].(float64)
		off := int64(0)
		if m["status"] == "offline" {
			off = 1
		}
		return [3]int64{int64(conn), off, n}
	}
	at, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(m["time"]))
	return [3]int64{at.UnixNano(), n}
}

// newestOf returns the newest payload of kind (state, status) for table
// received, by payloadOrder, and how many of its messages arrived after a
// newer one (late), and of those how many carried the DUP flag.
func newestOf(r *received, kind, table string) (newest map[string]any, late, lateDup int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var top [3]int64
	for i, m := range r.all[kind] {
		if m["table"] != table {
			continue
		}
		o := payloadOrder(kind, m)
		switch {
		case newest == nil || slices.Compare(o[:], top[:]) > 0:
			newest, top = m, o
		case slices.Compare(o[:], top[:]) < 0:
			late++
			if r.dupFlag[kind][i] {
				lateDup++
			}
		}
	}
	return newest, late, lateDup
}

// receivedID reports whether a message of kind with id has been received.
func receivedID(r *received, kind, id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.all[kind] {
		if m["id"] == id {
			return true
		}
	}
	return false
}

// readRetained reads the retained message on topic through url with a new
// subscription; it subscribes again (a new connection each time) for up to
// 30 s until one comes: a NATS node skips the retained message of a new
// subscription when loading it from its stream takes too long (see
// drivers/mqtt/README.md, "On NATS Server"). It returns the payload and the
// subscriptions made.
func readRetained(t *testing.T, url, topic string) (map[string]any, int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for n := 1; ; n++ {
		o := paho.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("retained-reader-%d", time.Now().UnixNano())).
			SetCleanSession(true).SetAutoReconnect(false).SetConnectTimeout(10 * time.Second)
		c := paho.NewClient(o)
		got := make(chan []byte, 1)
		if tok := c.Connect(); tok.WaitTimeout(10*time.Second) && tok.Error() == nil {
			tok := c.Subscribe(topic, 1, func(_ paho.Client, m paho.Message) {
				if m.Retained() {
					select {
					case got <- m.Payload():
					default:
					}
				}
			})
			if tok.WaitTimeout(10*time.Second) && tok.Error() == nil {
				select {
				case b := <-got:
					c.Disconnect(50)
					var v map[string]any
					if err := json.Unmarshal(b, &v); err != nil {
						t.Fatalf("retained %s: %v", topic, err)
					}
					return v, n
				case <-time.After(3 * time.Second):
				}
			}
			c.Disconnect(50)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no retained message on %s through %s after %d subscriptions in 30 s", topic, url, n)
		}
	}
}

// TestNATSClusterNodeCrash runs three sabotd, each with a virtual shoe
// dealing an 8-deck shoe, a shoe with voids and one with an extra card,
// against a 3-node NATS cluster whose every node is in [mqtt] brokers;
// a consumer with a persistent session reads everything through the third
// node. During the shoes the node every daemon is connected to (the
// first: brokers are tried in order) is SIGKILLed and started again 10 s
// later, and one daemon is killed with SIGKILL and started again. At the
// end, after de-duplication by id, every coup, alert and void of every
// table reached the consumer exactly once, in the order `sabot check`
// gives for its transcript, no id carried two payloads, and the retained
// state and status of each table are the newest the consumer received
// (payloadOrder), and were received.
func TestNATSClusterNodeCrash(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	start := time.Now()
	c := natscluster.Start(t, natscluster.Options{})
	urls := c.URLs()
	r := newReceived()
	var mu sync.Mutex
	var lat []time.Duration
	sub := newSessionSubscriber(t, urls[2], "sabot", r, func(p map[string]any, at time.Time) {
		ts, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(p["time"]))
		mu.Lock()
		lat = append(lat, at.Sub(ts))
		mu.Unlock()
	})

	const tables = 3
	type table struct {
		name, conf, want string
		shoe             *shoeSim
		p                *sabotdProc
	}
	var ts []*table
	for i := range tables {
		tr := floorTranscript(t, uint64(20+i))
		tb := &table{name: fmt.Sprintf("NATS-%d", i+1), want: expectedCheck(t, tr)}
		// About 25 s a shoe: the node's crash and the cluster's recovery
		// (20–30 s) fall in the middle of it.
		tb.shoe = startShoeSim(t, tr, "--rate", "18", "--seed", fmt.Sprint(i+1))
		tb.conf = natsConfig(tb.name, tb.shoe.link, c, t.TempDir())
		tb.p = startSabotd(t, tb.conf)
		ts = append(ts, tb)
	}
	for _, tb := range ts {
		waitFor(t, tb.name+" connected", 30*time.Second, func() bool { u, _ := tb.p.connectedTo(); return u != "" })
	}
	waitFor(t, "coups of every table", 30*time.Second, func() bool {
		by := byTable(r.events())
		for _, tb := range ts {
			if len(by[tb.name]) < 3 {
				return false
			}
		}
		return true
	})
	victim := -1
	for _, tb := range ts {
		u, _ := tb.p.connectedTo()
		n := c.NodeOf(u)
		if n < 0 || (victim >= 0 && n != victim) {
			t.Fatalf("%s connected to %s; want the first node like the others", tb.name, u)
		}
		victim = n
	}
	_, before := ts[0].p.connectedTo()
	c.Node(victim).Kill()
	killed := time.Now()
	t.Logf("killed node %s (SIGKILL) under the three daemons", c.Node(victim).Name)

	time.Sleep(2 * time.Second)
	ts[1].p.kill()
	ts[1].p = startSabotd(t, ts[1].conf)
	t.Logf("killed %s (SIGKILL) and started it again", ts[1].name)

	for _, tb := range ts {
		waitFor(t, tb.name+" on another node", 90*time.Second, func() bool {
			u, n := tb.p.connectedTo()
			return u != "" && c.NodeOf(u) != victim && (tb != ts[0] || n > before)
		})
	}
	t.Logf("MEASURE every daemon connected to another node %v after the node's SIGKILL", time.Since(killed).Round(time.Millisecond))
	if d := 10*time.Second - time.Since(killed); d > 0 {
		time.Sleep(d)
	}
	c.Node(victim).Start()
	t.Logf("started node %s again", c.Node(victim).Name)

	for _, tb := range ts {
		tb.shoe.wait(t, 120*time.Second)
	}
	for _, tb := range ts {
		waitFor(t, tb.name+"'s outbox delivered", 60*time.Second, func() bool {
			h := healthOf(t, tb.p)
			return h.Broker && h.Backlog == 0
		})
	}
	for _, tb := range ts {
		n := countLines(tb.want)
		waitFor(t, fmt.Sprintf("%s: %d events", tb.name, n), 30*time.Second, func() bool {
			return len(withoutLink(byTable(r.events())[tb.name])) >= n
		})
	}
	time.Sleep(time.Second) // late duplicates or extras would show by now
	by := byTable(r.events())
	var d testenv.Delivery
	for _, tb := range ts {
		g, w := projectedSet(t, withoutLink(by[tb.name]), tb.want)
		d.Expected += len(w)
		d.Lost += missingOf(g, w)
	}
	d.Duplicated = r.repeated()
	mu.Lock()
	d.Worst = slices.Max(append(lat, 0))
	mu.Unlock()
	testenv.ReportDelivery(t, "", d)
	for _, tb := range ts {
		matchEvents(t, withoutLink(by[tb.name]), tb.want)
	}
	if len(r.dupes) > 0 {
		t.Fatalf("ids with two different payloads: %v", r.dupes)
	}
	sub.CheckSessions(t)
	// The retained state and status are the newest the consumer
	// received (by the payloads' own order), and a retained message the
	// consumer never received is a loss.
	for _, tb := range ts {
		for _, kind := range []string{"state", "status"} {
			want, late, lateDup := newestOf(r, kind, tb.name)
			got, n := readRetained(t, urls[0], "sabot/"+tb.name+"/"+kind)
			switch id, _ := got["id"].(string); {
			case !receivedID(r, kind, id):
				t.Errorf("%s: retained %s %v never reached the consumer (lost); the newest it received: %v", tb.name, kind, got, want)
			case want == nil || canonical(got) != canonical(want):
				t.Errorf("%s: retained %s %v, want the newest received %v", tb.name, kind, got, want)
			}
			if n > 1 {
				t.Logf("%s: the retained %s came at subscription %d", tb.name, kind, n)
			}
			if late > 0 {
				t.Logf("%s: %d %s messages arrived after a newer one, %d of them with the DUP flag (sent again by the cluster)", tb.name, late, kind, lateDup)
			}
		}
		if st, _, _ := newestOf(r, "status", tb.name); st["status"] != "online" {
			t.Errorf("%s: newest status %v, want online", tb.name, st)
		}
	}
	mu.Lock()
	t.Logf("MEASURE card→subscriber p50 %v p99 %v over %d cards (3 tables, a node crash, a daemon kill)",
		percentile(lat, 0.5), percentile(lat, 0.99), len(lat))
	mu.Unlock()
	if os.Getenv("SABOT_NATS_LOG") != "" {
		for _, tb := range ts {
			t.Logf("%s log:\n%s", tb.name, tb.p.logs.String())
		}
	}
	t.Logf("MEASURE test took %v", time.Since(start).Round(time.Millisecond))
}
