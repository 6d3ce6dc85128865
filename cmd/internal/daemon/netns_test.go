package daemon

// sabotd and the 3-node NATS cluster on test hosts of their own: network
// namespaces joined by a bridge (drivers/testenv/netns), so the network
// between a table and the cluster can be cut, and made slow and lossy.

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/testenv/natscluster"
	"github.com/sabot-table/sabot/drivers/testenv/netns"
)

// netnsPartition is how long the whole cluster is cut off from the table
// in TestNetnsFloor: SABOT_NETNS_PARTITION (a Go duration; "30s" is the
// issue's form), by default 12 s, enough for the daemon to notice (keepalive
// 5 s + ping timeout 5 s) and to fail to reconnect, short enough for the
// default test run.
func netnsPartition(t *testing.T) time.Duration {
	v := os.Getenv("SABOT_NETNS_PARTITION")
	if v == "" {
		return 12 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second {
		t.Fatalf("SABOT_NETNS_PARTITION=%q: want a duration of at least 1s, e.g. 30s", v)
	}
	return d
}

// netnsConfig is the configuration of a daemon on host h: brokers (the
// nodes, or relays in front of them), the HTTP listener on h's address
// (the test reaches it through the bridge) and a 5 s keepalive.
func netnsConfig(table, device string, h *netns.Host, brokers []string, state string) string {
	conf := e2eConfig(table, device, "sabot", "auto", "", state, "")
	var q []string
	for _, u := range brokers {
		q = append(q, fmt.Sprintf("%q", u))
	}
	conf = strings.Replace(conf, `brokers = [""]`, "brokers = ["+strings.Join(q, ", ")+"]\nkeepalive = \"5s\"", 1)
	return strings.Replace(conf, `addr = "127.0.0.1:0"`, fmt.Sprintf("addr = \"%s:0\"", h.IP), 1)
}

// TestNetnsFloor puts the three NATS nodes and two table daemons on hosts
// of their own (network namespaces on a bridge; the test process, with the
// consumer, on the bridge itself) and checks, each time that every coup,
// alert and void reached the consumer with a persistent session exactly
// once after de-duplication, in `sabot check`'s order, with no id carrying
// two payloads:
//
//  1. A partition between the daemon and the node it uses (every packet
//     dropped both ways) while the other nodes stay reachable: the daemon
//     notices (keepalive) and fails over to another node.
//  2. Then a partition of the whole cluster from the daemon for
//     SABOT_NETNS_PARTITION (default 12 s; the 30 s with
//     SABOT_NETNS_PARTITION=30s): the outbox holds everything (the backlog
//     grows) and delivers it, in order, once the network is back.
//  3. Another daemon on a slow, lossy link to the cluster for a whole
//     8-deck shoe: every chunk of data held 200 ms each way (a relay per
//     node: this kernel has no netem) and 5% of its packets lost each way
//     (iptables); the card → consumer latency is reported.
func TestNetnsFloor(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	start := time.Now()
	n := netns.New(t)
	var nodes []*netns.Host
	var ips []string
	for i := range 3 {
		h := n.Host(fmt.Sprintf("n%d", i+1))
		nodes = append(nodes, h)
		ips = append(ips, h.IP)
	}
	dCut, dSlow := n.Host("d1"), n.Host("d2")
	c := natscluster.Start(t, natscluster.Options{Hosts: ips, Wrap: func(i int) []string { return nodes[i].Wrap() }})
	urls := c.URLs()
	r := newReceived()
	var mu sync.Mutex
	var lat []time.Duration
	sub := newSessionSubscriber(t, urls[2], "sabot", r, func(p map[string]any, at time.Time) {
		if p["table"] != "NETNS-SLOW" {
			return
		}
		ts, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(p["time"]))
		mu.Lock()
		lat = append(lat, at.Sub(ts))
		mu.Unlock()
	})
	t.Logf("MEASURE setup (namespaces, cluster ready) %v", time.Since(start).Round(time.Millisecond))

	// 1 and 2: partitions.
	part := netnsPartition(t)
	tr := floorTranscript(t, 31)
	want := expectedCheck(t, tr)
	// About 25 s of dealing plus the partition.
	rate := fmt.Sprintf("%.1f", 450/(25+part.Seconds()))
	shoe := startShoeSim(t, tr, "--rate", rate, "--seed", "7")
	p := startSabotdIn(t, netnsConfig("NETNS-CUT", shoe.link, dCut, urls, t.TempDir()), dCut.Wrap())
	waitFor(t, "NETNS-CUT connected", 30*time.Second, func() bool { u, _ := p.connectedTo(); return u != "" })
	waitFor(t, "coups of NETNS-CUT", 30*time.Second, func() bool { return len(byTable(r.events())["NETNS-CUT"]) >= 3 })
	u, before := p.connectedTo()
	used := c.NodeOf(u)
	dCut.Cut(nodes[used].IP)
	cut := time.Now()
	waitFor(t, "NETNS-CUT on another node", 60*time.Second, func() bool {
		u, k := p.connectedTo()
		return k > before && c.NodeOf(u) != used
	})
	t.Logf("MEASURE partition from node %s: the daemon on another node %v later", c.Node(used).Name, time.Since(cut).Round(time.Millisecond))
	dCut.Heal()
	time.Sleep(time.Second)
	_, before = p.connectedTo()
	dCut.Cut(ips...)
	cut = time.Now()
	backlog := 0
	for time.Since(cut) < part {
		backlog = max(backlog, healthOf(t, p).Backlog)
		time.Sleep(200 * time.Millisecond)
	}
	dCut.Heal()
	healed := time.Now()
	if backlog == 0 {
		t.Errorf("the outbox stayed empty during a %v partition of the whole cluster", part)
	}
	waitFor(t, "NETNS-CUT delivering again", 90*time.Second, func() bool {
		h := healthOf(t, p)
		return h.Broker && h.Backlog < backlog/2
	})
	_, after := p.connectedTo()
	t.Logf("MEASURE %v partition of the whole cluster: outbox up to %d messages, delivering again %v after the network came back (%d reconnections)",
		part, backlog, time.Since(healed).Round(time.Millisecond), after-before)
	shoe.wait(t, 120*time.Second)
	waitFor(t, "NETNS-CUT's outbox delivered", 60*time.Second, func() bool { h := healthOf(t, p); return h.Broker && h.Backlog == 0 })
	nw := countLines(want)
	waitFor(t, fmt.Sprintf("NETNS-CUT: %d events", nw), 30*time.Second, func() bool {
		return len(withoutLink(byTable(r.events())["NETNS-CUT"])) >= nw
	})

	// 3: a slow, lossy link for a whole shoe.
	slowStart := time.Now()
	var relays []string
	for i := range c.Len() {
		relays = append(relays, "tcp://"+netns.Relay(t, n.BridgeIP(), fmt.Sprintf("%s:%d", ips[i], c.Node(i).MQTTPort), 200*time.Millisecond))
	}
	dSlow.Loss(0.05)
	tr2 := floorTranscript(t, 32)
	want2 := expectedCheck(t, tr2)
	shoe2 := startShoeSim(t, tr2, "--rate", "30", "--seed", "8")
	p2 := startSabotdIn(t, netnsConfig("NETNS-SLOW", shoe2.link, dSlow, relays, t.TempDir()), dSlow.Wrap())
	shoe2.wait(t, 120*time.Second)
	waitFor(t, "NETNS-SLOW's outbox delivered", 90*time.Second, func() bool { h := healthOf(t, p2); return h.Broker && h.Backlog == 0 })
	nw2 := countLines(want2)
	waitFor(t, fmt.Sprintf("NETNS-SLOW: %d events", nw2), 30*time.Second, func() bool {
		return len(withoutLink(byTable(r.events())["NETNS-SLOW"])) >= nw2
	})
	time.Sleep(time.Second) // late duplicates or extras would show by now
	by := byTable(r.events())
	matchEvents(t, withoutLink(by["NETNS-CUT"]), want)
	matchEvents(t, withoutLink(by["NETNS-SLOW"]), want2)
	if len(r.dupes) > 0 {
		t.Fatalf("ids with two different payloads: %v", r.dupes)
	}
	sub.CheckSessions(t)
	mu.Lock()
	t.Logf("MEASURE slow lossy link (200 ms each way, 5%% packet loss each way): card→subscriber p50 %v p99 %v over %d cards; the shoe took %v",
		percentile(lat, 0.5).Round(time.Millisecond), percentile(lat, 0.99).Round(time.Millisecond), len(lat), time.Since(slowStart).Round(time.Millisecond))
	mu.Unlock()
	t.Logf("MEASURE test took %v", time.Since(start).Round(time.Millisecond))
}
