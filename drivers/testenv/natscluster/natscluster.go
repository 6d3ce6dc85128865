// Package natscluster starts a NATS Server cluster with JetStream and the
// MQTT listener for tests: Debian's nats-server (2.9.x), one process per
// node, each with its own client, cluster, MQTT and monitoring ports
// (chosen free at run time and kept across restarts) and its own
// JetStream store directory under the test's temporary directory. A test
// can SIGKILL a node and start it again on the same ports and store.
//
// The program is looked up with testenv.NeedProgram: the test skips
// without it on a developer machine and fails under CI=true.
//
//	c := natscluster.Start(t, natscluster.Options{})  // 3 nodes, ready
//	brokers := c.URLs()                               // tcp://127.0.0.1:<mqtt port> per node
//	i := c.NodeOf(url)                                // which node a URL is
//	c.Node(i).Kill()                                  // SIGKILL
//	c.Node(i).Start(); c.WaitReady(t)                 // same ports, same store
//
// Every node is stopped (SIGKILL) when the test ends; with the test failed,
// the tail of each node's log is logged.
package natscluster

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// Options configures a cluster; zero fields take the defaults named.
type Options struct {
	// Nodes is the number of nodes (default 3).
	Nodes int
	// Hosts, if set, gives each node's IP address (one per node): it
	// listens there and is reached there. Default 127.0.0.1 for every node.
	Hosts []string
	// Wrap, if set, returns a command prefix for node i, e.g.
	// {"ip", "netns", "exec", "ns1"} to run it in a network namespace
	// (a prefix that execs, so that the process started is nats-server
	// itself and Kill reaches it).
	Wrap func(i int) []string
	// StreamReplicas is the MQTT streams' replica count (mqtt
	// stream_replicas; default Nodes).
	StreamReplicas int
	// MaxAckPending is mqtt max_ack_pending (default 0: the server's,
	// 1024): QoS 1 messages in flight to one session's subscriptions.
	MaxAckPending int
	// AckWait is mqtt ack_wait (default 0: the server's, 30 s): how long
	// the server waits for a subscriber's PUBACK before it redelivers.
	AckWait time.Duration
	// Extra is appended to every node's configuration file.
	Extra string
}

// Cluster is a running NATS cluster.
type Cluster struct {
	t     testing.TB
	bin   string
	opts  Options
	nodes []*Node
}

// Node is one nats-server of a Cluster.
type Node struct {
	c *Cluster
	// Name is the server_name (n1, n2, ...).
	Name string
	// Host is the IP address it listens on.
	Host string
	// Ports: client (NATS), cluster (routes), MQTT, HTTP monitoring.
	ClientPort, ClusterPort, MQTTPort, HTTPPort int
	// Dir holds the node's configuration, log and JetStream store.
	Dir string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	log  *testenv.LogBuffer
}

// freePort returns a loopback port from testenv.FreePort (never one it
// gave before in this process) and records it in used.
func freePort(t testing.TB, used map[int]bool) int {
	t.Helper()
	p := testenv.FreePort(t)
	used[p] = true
	return p
}

// Start writes the nodes' configurations, starts every node and waits
// until the cluster is ready (WaitReady). It fails the test (or skips it,
// outside CI, without nats-server) on any error.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	c := New(t, o)
	for _, n := range c.nodes {
		n.Start()
	}
	c.WaitReady(t)
	return c
}

// New writes the configurations without starting any node.
func New(t testing.TB, o Options) *Cluster {
	t.Helper()
	bin := testenv.NeedProgram(t, "nats-server")
	if o.Nodes <= 0 {
		o.Nodes = 3
	}
	if o.Hosts != nil && len(o.Hosts) != o.Nodes {
		t.Fatalf("natscluster: %d hosts for %d nodes", len(o.Hosts), o.Nodes)
	}
	if o.StreamReplicas <= 0 {
		o.StreamReplicas = o.Nodes
	}
	c := &Cluster{t: t, bin: bin, opts: o}
	dir := t.TempDir()
	used := map[int]bool{}
	for i := 0; i < o.Nodes; i++ {
		host := "127.0.0.1"
		if o.Hosts != nil {
			host = o.Hosts[i]
		}
		n := &Node{c: c, Name: fmt.Sprintf("n%d", i+1), Host: host, Dir: filepath.Join(dir, fmt.Sprintf("n%d", i+1)),
			ClientPort: freePort(t, used), ClusterPort: freePort(t, used), MQTTPort: freePort(t, used), HTTPPort: freePort(t, used)}
		if err := os.MkdirAll(n.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		c.nodes = append(c.nodes, n)
	}
	var routes []string
	for _, n := range c.nodes {
		routes = append(routes, fmt.Sprintf("nats-route://%s:%d", n.Host, n.ClusterPort))
	}
	for _, n := range c.nodes {
		if err := os.WriteFile(n.conf(), []byte(c.config(n, routes)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, n := range c.nodes {
			n.Kill()
		}
		if t.Failed() {
			for _, n := range c.nodes {
				l := n.Log()
				if len(l) > 6000 {
					l = l[len(l)-6000:]
					l = l[strings.IndexByte(l, '\n')+1:]
				}
				t.Logf("nats-server %s log (tail):\n%s", n.Name, l)
			}
		}
	})
	return c
}

// Config returns the configuration file of node i, e.g. for documentation.
func (c *Cluster) Config(i int) string {
	b, _ := os.ReadFile(c.nodes[i].conf())
	return string(b)
}

func (n *Node) conf() string { return filepath.Join(n.Dir, "nats.conf") }

func (c *Cluster) config(n *Node, routes []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "server_name: %s\nlisten: \"%s:%d\"\nhttp: \"%s:%d\"\n", n.Name, n.Host, n.ClientPort, n.Host, n.HTTPPort)
	fmt.Fprintf(&b, "jetstream {\n  store_dir: %q\n  max_memory_store: 64MB\n  max_file_store: 1GB\n}\n", filepath.Join(n.Dir, "js"))
	fmt.Fprintf(&b, "cluster {\n  name: sabot\n  listen: \"%s:%d\"\n  routes: [\n", n.Host, n.ClusterPort)
	for _, r := range routes {
		fmt.Fprintf(&b, "    %q\n", r)
	}
	b.WriteString("  ]\n}\n")
	fmt.Fprintf(&b, "mqtt {\n  listen: \"%s:%d\"\n  stream_replicas: %d\n", n.Host, n.MQTTPort, c.opts.StreamReplicas)
	if c.opts.MaxAckPending > 0 {
		fmt.Fprintf(&b, "  max_ack_pending: %d\n", c.opts.MaxAckPending)
	}
	if c.opts.AckWait > 0 {
		fmt.Fprintf(&b, "  ack_wait: %q\n", c.opts.AckWait.String())
	}
	b.WriteString("}\n")
	b.WriteString(c.opts.Extra)
	return b.String()
}

// Node returns node i (0-based).
func (c *Cluster) Node(i int) *Node { return c.nodes[i] }

// Len is the number of nodes.
func (c *Cluster) Len() int { return len(c.nodes) }

// URLs lists every node's MQTT URL, in node order: what [mqtt] brokers
// takes.
func (c *Cluster) URLs() []string {
	var out []string
	for _, n := range c.nodes {
		out = append(out, n.URL())
	}
	return out
}

// NodeOf returns the index of the node whose MQTT URL (or host:port) is
// url, or -1.
func (c *Cluster) NodeOf(url string) int {
	for i, n := range c.nodes {
		if url == n.URL() || strings.HasSuffix(url, fmt.Sprintf("//%s:%d", n.Host, n.MQTTPort)) || url == fmt.Sprintf("%s:%d", n.Host, n.MQTTPort) {
			return i
		}
	}
	return -1
}

// URL is the node's MQTT URL, tcp://host:port.
func (n *Node) URL() string { return fmt.Sprintf("tcp://%s:%d", n.Host, n.MQTTPort) }

// Log returns what the node has written (its last MiB).
func (n *Node) Log() string {
	n.mu.Lock()
	l := n.log
	n.mu.Unlock()
	if l == nil {
		return ""
	}
	return l.String()
}

// Running reports whether the node's process is running.
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil {
		return false
	}
	select {
	case <-n.done:
		return false
	default:
		return true
	}
}

// Pid is the node's process id (0 when not running).
func (n *Node) Pid() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil || n.cmd.Process == nil {
		return 0
	}
	return n.cmd.Process.Pid
}

// Start starts the node (on its ports, with its store) and waits until its
// MQTT port accepts connections; it does not wait for JetStream (WaitReady
// does). Starting a running node fails the test.
func (n *Node) Start() {
	t := n.c.t
	t.Helper()
	if n.Running() {
		t.Fatalf("natscluster: %s is already running", n.Name)
	}
	var argv []string
	if n.c.opts.Wrap != nil {
		argv = append(argv, n.c.opts.Wrap(n.idx())...)
	}
	argv = append(argv, n.c.bin, "-c", n.conf())
	cmd := exec.Command(argv[0], argv[1:]...)
	// A node outlives no test binary (a timeout, an interrupt).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	log := &testenv.LogBuffer{Tail: 1 << 20} // the last MiB of the node's log
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("natscluster: start %s: %v", n.Name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	n.mu.Lock()
	n.cmd, n.done, n.log = cmd, done, log
	n.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-done:
			t.Fatalf("natscluster: %s exited at start:\n%s", n.Name, log.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("%s:%d", n.Host, n.MQTTPort), 200*time.Millisecond); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("natscluster: %s does not listen on MQTT port %d:\n%s", n.Name, n.MQTTPort, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (n *Node) idx() int {
	for i, m := range n.c.nodes {
		if m == n {
			return i
		}
	}
	return -1
}

// Kill sends SIGKILL (a crash: nothing saved, no goodbye to the routes) and
// waits for the process to end. Killing a stopped node does nothing.
func (n *Node) Kill() { n.signal(syscall.SIGKILL) }

// Stop sends SIGTERM (a clean shutdown) and waits for the process to end.
func (n *Node) Stop() { n.signal(syscall.SIGTERM) }

func (n *Node) signal(sig syscall.Signal) {
	n.mu.Lock()
	cmd, done := n.cmd, n.done
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(sig)
	<-done
	n.mu.Lock()
	if n.cmd == cmd {
		n.cmd = nil
	}
	n.mu.Unlock()
}

// jsz is the part of /jsz read here.
type jsz struct {
	Meta *struct {
		Leader      string `json:"leader"`
		ClusterSize int    `json:"cluster_size"`
	} `json:"meta_cluster"`
}

var httpClient = &http.Client{Timeout: 2 * time.Second}

func (n *Node) get(path string) (int, []byte, error) {
	resp, err := httpClient.Get(fmt.Sprintf("http://%s:%d%s", n.Host, n.HTTPPort, path))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

// ready reports whether the node has JetStream up with a meta leader
// (returned) and is healthy (/healthz 200: current with the meta leader and
// its streams).
func (n *Node) ready() (leader string, why string) {
	code, b, err := n.get("/healthz")
	if err != nil {
		return "", err.Error()
	}
	if code != http.StatusOK {
		return "", fmt.Sprintf("/healthz %d %s", code, strings.TrimSpace(string(b)))
	}
	code, b, err = n.get("/jsz")
	if err != nil || code != http.StatusOK {
		return "", fmt.Sprintf("/jsz %d %v", code, err)
	}
	var j jsz
	if err := json.Unmarshal(b, &j); err != nil {
		return "", fmt.Sprintf("/jsz: %v", err)
	}
	if j.Meta == nil || j.Meta.Leader == "" {
		return "", "no JetStream meta leader yet"
	}
	return j.Meta.Leader, ""
}

// WaitReady waits (up to 60 s) until every running node is healthy and all
// agree on the JetStream meta leader (elected, so streams can be created
// and written).
func (c *Cluster) WaitReady(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		why := ""
		leader := ""
		for _, n := range c.nodes {
			if !n.Running() {
				continue
			}
			l, w := n.ready()
			switch {
			case w != "":
				why = n.Name + ": " + w
			case leader == "":
				leader = l
			case l != leader:
				why = fmt.Sprintf("%s sees meta leader %s, another node %s", n.Name, l, leader)
			}
			if why != "" {
				break
			}
		}
		if why == "" && leader != "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("natscluster: not ready after 60 s: %s", why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Leader returns the current JetStream meta leader's index as seen by the
// first running node, or -1.
func (c *Cluster) Leader() int {
	for _, n := range c.nodes {
		if !n.Running() {
			continue
		}
		l, w := n.ready()
		if w != "" {
			continue
		}
		for i, m := range c.nodes {
			if m.Name == l {
				return i
			}
		}
	}
	return -1
}

// MQTTClients returns the MQTT client ids connected to node n (its /connz;
// nats-server 2.9 reports them as mqtt_client).
func (n *Node) MQTTClients() ([]string, error) {
	code, b, err := n.get("/connz?limit=10000")
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("natscluster: %s /connz: %d", n.Name, code)
	}
	var cz struct {
		Conns []struct {
			MQTT string `json:"mqtt_client"`
		} `json:"connections"`
	}
	if err := json.Unmarshal(b, &cz); err != nil {
		return nil, err
	}
	var ids []string
	for _, c := range cz.Conns {
		if c.MQTT != "" {
			ids = append(ids, c.MQTT)
		}
	}
	return ids, nil
}

// WaitMQTT waits (up to 90 s) until WaitReady holds and MQTT works end to
// end through every running node: a client connects, subscribes at QoS 1
// (which needs JetStream: nats-server keeps QoS 1 subscriptions as
// consumers), and receives its own QoS 1 message. After a node is lost,
// the survivors answer MQTT only once JetStream has new leaders for the
// MQTT streams and consumers (10–50 s measured on the loaded 2-core test
// machine); this is what to wait for before asserting anything
// timing-bound.
func (c *Cluster) WaitMQTT(t testing.TB) {
	t.Helper()
	c.WaitReady(t)
	deadline := time.Now().Add(90 * time.Second)
	for _, n := range c.nodes {
		if !n.Running() {
			continue
		}
		for {
			err := n.roundTrip()
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("natscluster: MQTT through %s does not work after 90 s: %v", n.Name, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// roundTrip connects to the node's MQTT listener, subscribes at QoS 1 and
// receives its own QoS 1 message, each step within 10 s.
func (n *Node) roundTrip() error {
	id := fmt.Sprintf("natscluster-ready-%s-%d", n.Name, time.Now().UnixNano())
	o := paho.NewClientOptions().AddBroker(n.URL()).SetClientID(id).SetCleanSession(true).
		SetAutoReconnect(false).SetConnectTimeout(10 * time.Second)
	cl := paho.NewClient(o)
	if tok := cl.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		go func() { tok.Wait(); cl.Disconnect(0) }()
		return fmt.Errorf("connect: %v", tok.Error())
	}
	defer cl.Disconnect(50)
	topic := "natscluster/ready/" + n.Name
	got := make(chan struct{}, 1)
	tok := cl.Subscribe(topic, 1, func(_ paho.Client, m paho.Message) {
		if string(m.Payload()) == id {
			select {
			case got <- struct{}{}:
			default:
			}
		}
	})
	if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		return fmt.Errorf("subscribe: no SUBACK in 10 s (%v)", tok.Error())
	}
	if tok := cl.Publish(topic, 1, false, id); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		return fmt.Errorf("publish: no PUBACK in 10 s (%v)", tok.Error())
	}
	select {
	case <-got:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("own message not received in 10 s")
	}
}
