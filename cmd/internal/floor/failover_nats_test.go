//go:build linux

package floor

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/testenv"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/cmd/internal/pit"
	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/drivers/testenv/natscluster"
)

// TestFailoverNATSNodeCrash kills (SIGKILL) the NATS node every client is
// connected to, under load, and measures how long each kind of client
// takes from the kill to a working subscription on another node: three
// daemons' publishers (commands on, each publishing 50 cards a second),
// the pit console and the floor's subscriber, every one given the three
// nodes in the same order. A subscription works when it delivers what
// is published through a surviving node after the kill: a command the
// daemon receives, a table's status on the console, a card the floor's
// subscriber receives. Survivors refuse new subscriptions while
// JetStream elects new leaders (drivers/mqtt/README.md, "On NATS
// Server"), one of them sometimes far longer than the other: the clients
// leave a node that refuses for RefusalTimeout (10 s). At the end every
// card published reached the floor's subscriber and every outbox is empty:
// the failovers lost nothing. SABOT_FAILOVER_KILL=leader puts the
// JetStream meta leader first in the lists, so that it is the node killed;
// SABOT_FAILOVER_LOG=1 logs every client's log.
func TestFailoverNATSNodeCrash(t *testing.T) {
	c := natscluster.Start(t, natscluster.Options{})
	c.WaitMQTT(t)
	urls := c.URLs()
	leader := c.Leader()
	if os.Getenv("SABOT_FAILOVER_KILL") == "leader" && leader > 0 {
		urls = append(urls[leader:], urls[:leader]...)
	}
	victim := c.NodeOf(urls[0])
	survivors := slices.Delete(slices.Clone(urls), 0, 1)

	const tables = 3
	type table struct {
		name    string
		p       *mqtt.Publisher
		logs    testenv.LogBuffer
		mu      sync.Mutex
		cmdAt   time.Time // the first command received after the kill
		sent    []string  // card ids published
		stopped chan struct{}
	}
	var killed time.Time
	var killedMu sync.Mutex
	killTime := func() time.Time { killedMu.Lock(); defer killedMu.Unlock(); return killed }
	var ts []*table
	for i := range tables {
		tb := &table{name: fmt.Sprintf("FO-%d", i+1), stopped: make(chan struct{})}
		p, err := mqtt.New(mqtt.Options{Table: tb.name, Brokers: urls, StateDir: t.TempDir(), Version: "test",
			Commands: true, Logger: slog.New(slog.NewTextHandler(&tb.logs, nil)),
			OnCommand: func(mqtt.Command) error {
				if k := killTime(); !k.IsZero() {
					tb.mu.Lock()
					if tb.cmdAt.IsZero() {
						tb.cmdAt = time.Now()
					}
					tb.mu.Unlock()
				}
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		tb.p = p
		p.Start(context.Background())
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			p.Close(ctx)
			if t.Failed() {
				t.Logf("%s log:\n%s", tb.name, tb.logs.String())
			}
		})
		ts = append(ts, tb)
	}

	// The floor's subscriber and the pit console.
	sub := newFloorSub()
	fc := &floorConn{brokers: urls, clientID: "floor-failover", topics: map[string]byte{"sabot/+/card": 1, "sabot/+/status": 1},
		refusal: mqtt.DefaultRefusalTimeout, sub: sub}
	if err := fc.start(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fc.close)
	var pitLogs testenv.LogBuffer
	model := pit.NewModel(0, nil, nil)
	console, err := pit.NewSubscriber(pit.BrokerOptions{Brokers: urls, Logger: slog.New(slog.NewTextHandler(&pitLogs, nil))}, model)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		console.Close()
		if t.Failed() {
			t.Logf("pit log:\n%s", pitLogs.String())
		}
	})

	// Every client on the first node, the load running and delivered.
	for _, tb := range ts {
		testenv.Wait(t, tb.name+" connected to the first node", 60*time.Second, func() bool { st := tb.p.Status(); return st.Connected && st.Broker == urls[0] })
	}
	testenv.Wait(t, "the console connected to the first node", 60*time.Second, func() bool { ok, b := console.Link(); return ok && b == urls[0] })
	var load sync.WaitGroup
	for _, tb := range ts {
		load.Add(1)
		go func() {
			defer load.Done()
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for n := 1; ; n++ {
				select {
				case <-tb.stopped:
					return
				case <-tick.C:
				}
				id := fmt.Sprintf("%s/s/0/card/%d", tb.name, n)
				m := mqtt.Message{Topic: mqtt.TopicCard, Payload: []byte(fmt.Sprintf(`{"id":%q,"time":%q}`, id, time.Now().UTC().Format(time.RFC3339Nano)))}
				if err := tb.p.Publish(context.Background(), m); err != nil {
					t.Errorf("%s: %v", tb.name, err)
					return
				}
				tb.mu.Lock()
				tb.sent = append(tb.sent, id)
				tb.mu.Unlock()
			}
		}()
	}
	stopLoad := func() {
		for _, tb := range ts {
			select {
			case <-tb.stopped:
			default:
				close(tb.stopped)
			}
		}
		load.Wait()
	}
	t.Cleanup(stopLoad)
	testenv.Wait(t, "cards of every table at the floor's subscriber", 30*time.Second, func() bool {
		sub.mu.Lock()
		defer sub.mu.Unlock()
		for _, tb := range ts {
			if sub.cards[tb.name] < 20 {
				return false
			}
		}
		return true
	})

	// Probes through the survivors, from clients connected before the
	// kill (reconnecting by themselves: a recovering node may drop them):
	// a command to every table, a table's status and a card.
	var probes []paho.Client
	for i, u := range survivors {
		o := paho.NewClientOptions().AddBroker(u).SetClientID(fmt.Sprintf("failover-probe-%d", i)).SetCleanSession(true).
			SetAutoReconnect(true).SetConnectRetry(true).SetConnectTimeout(5 * time.Second)
		cl := paho.NewClient(o)
		if tok := cl.Connect(); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
			t.Fatalf("probe client on %s: %v", u, tok.Error())
		}
		t.Cleanup(func() { cl.Disconnect(50) })
		probes = append(probes, cl)
	}

	c.Node(victim).Kill()
	killedMu.Lock()
	killed = time.Now()
	killedMu.Unlock()
	t.Logf("killed node %s (SIGKILL; the JetStream meta leader: %v) under %d publishers, the console and the floor's subscriber",
		c.Node(victim).Name, victim == leader, tables)

	stopProbes := make(chan struct{})
	var probeWG sync.WaitGroup
	probeWG.Add(1)
	go func() {
		defer probeWG.Done()
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for n := 1; ; n++ {
			for i, cl := range probes {
				// Not waited for: a survivor may take seconds to answer.
				for _, tb := range ts {
					cl.Publish("sabot/"+tb.name+"/cmd/ack", 1, false, fmt.Sprintf(`{"request_id":"probe-%d-%d","operator":"test"}`, i, n))
				}
				cl.Publish("sabot/PROBE/status", 1, true, statusMsg("online", uint64(n), "00000000000000aa", "online", ""))
				cl.Publish("sabot/PROBE/card", 1, false, fmt.Sprintf(`{"id":"PROBE/s/0/card/%d-%d","time":%q}`, i, n, time.Now().UTC().Format(time.RFC3339Nano)))
			}
			select {
			case <-stopProbes:
				return
			case <-tick.C:
			}
		}
	}()
	stop := func() {
		select {
		case <-stopProbes:
		default:
			close(stopProbes)
			probeWG.Wait()
		}
	}
	t.Cleanup(stop)

	// Each client's time to a working subscription on another node.
	times := map[string]time.Duration{}
	onVictim := func(u string) bool { return c.NodeOf(u) == victim }
	deadline := time.Now().Add(120 * time.Second)
	for len(times) < tables+2 {
		for _, tb := range ts {
			tb.mu.Lock()
			at := tb.cmdAt
			tb.mu.Unlock()
			if st := tb.p.Status(); times[tb.name] == 0 && !at.IsZero() && st.Connected && !onVictim(st.Broker) {
				times[tb.name] = at.Sub(killed)
			}
		}
		if ok, b := console.Link(); times["pit"] == 0 && ok && !onVictim(b) && model.Has("PROBE") {
			times["pit"] = time.Since(killed)
		}
		sub.mu.Lock()
		probeCard := sub.lastCard["PROBE"]
		sub.mu.Unlock()
		if times["floor"] == 0 && probeCard.After(killed) {
			times["floor"] = time.Since(killed)
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 120 s, working subscriptions on another node: %v of %d publishers, the console and the floor's subscriber", times, tables)
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	var all []time.Duration
	var parts []string
	for _, k := range []string{"FO-1", "FO-2", "FO-3", "pit", "floor"} {
		all = append(all, times[k])
		parts = append(parts, fmt.Sprintf("%s %v", k, times[k].Round(10*time.Millisecond)))
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	t.Logf("MEASURE SIGKILL of %s (meta leader %v) → working subscription on another node: %s; worst %v",
		c.Node(victim).Name, victim == leader, strings.Join(parts, ", "), all[len(all)-1].Round(100*time.Millisecond))
	moves := 0
	for _, tb := range ts {
		moves += strings.Count(tb.logs.String(), "mqtt: the broker refuses; moving to the next broker")
	}
	t.Logf("MEASURE moves for refusals: publishers %d, console %d, floor's subscriber: %d connections in all", moves,
		strings.Count(pitLogs.String(), "pit: the broker refuses subscriptions; moving to the next broker"), func() int {
			sub.mu.Lock()
			defer sub.mu.Unlock()
			return sub.connects
		}())

	if os.Getenv("SABOT_FAILOVER_LOG") != "" {
		t.Logf("pit log:\n%s", pitLogs.String())
		for _, tb := range ts {
			t.Logf("%s log:\n%s", tb.name, tb.logs.String())
		}
	}

	// Nothing lost: every card published reached the floor's subscriber.
	stopLoad()
	for _, tb := range ts {
		testenv.Wait(t, tb.name+"'s outbox delivered", 90*time.Second, func() bool { return tb.p.Status().Backlog == 0 })
	}
	for _, tb := range ts {
		tb.mu.Lock()
		sent := slices.Clone(tb.sent)
		tb.mu.Unlock()
		testenv.Wait(t, fmt.Sprintf("%s's %d cards at the floor's subscriber", tb.name, len(sent)), 60*time.Second, func() bool {
			sub.mu.Lock()
			defer sub.mu.Unlock()
			for _, id := range sent {
				if !sub.seen[id] {
					return false
				}
			}
			return true
		})
	}
}
