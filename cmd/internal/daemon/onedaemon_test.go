package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/testenv"
	"github.com/sabot-table/sabot/drivers/testenv/natscluster"
)

// statusLog records every message on one table's status topic, retained or
// live, in arrival order.
type statusLog struct {
	mu   sync.Mutex
	msgs []map[string]any
}

func (l *statusLog) all() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]map[string]any(nil), l.msgs...)
}

func (l *statusLog) last() map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.msgs) == 0 {
		return nil
	}
	return l.msgs[len(l.msgs)-1]
}

// watchStatus subscribes to topic with a fresh client (clean session).
func watchStatus(t *testing.T, url, topic string) *statusLog {
	t.Helper()
	l := &statusLog{}
	o := paho.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("status-watch-%d", time.Now().UnixNano())).
		SetCleanSession(true).SetAutoReconnect(false)
	c := paho.NewClient(o)
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("status watcher connect: %v", tok.Error())
	}
	tok := c.Subscribe(topic, 1, func(_ paho.Client, m paho.Message) {
		var v map[string]any
		if err := json.Unmarshal(m.Payload(), &v); err != nil {
			t.Errorf("status payload %q: %v", m.Payload(), err)
			return
		}
		l.mu.Lock()
		l.msgs = append(l.msgs, v)
		l.mu.Unlock()
	})
	if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("status watcher subscribe: %v", tok.Error())
	}
	t.Cleanup(func() { c.Disconnect(100) })
	return l
}

// oneBroker is a broker (Mosquitto or the NATS cluster) for the one-daemon
// tests.
type oneBroker struct {
	watch string // a broker URL for the status watchers
	// config and secondConfig give a daemon's configuration (the second
	// daemon of a table: on NATS, the nodes in another order).
	config, secondConfig func(table, device, state string) string
	// checkOneClient fails the test unless the broker has seen the client
	// id connect exactly once (Mosquitto: its log) or has it connected to
	// exactly one node now (NATS: /connz of every node).
	checkOneClient func(t *testing.T, clientID string)
}

func mosquittoOneBroker(t *testing.T) oneBroker {
	m := testenv.StartMosquitto(t)
	conf := func(table, device, state string) string {
		return e2eConfig(table, device, "beetek", "off", m.URL, state, "")
	}
	return oneBroker{watch: m.URL, config: conf, secondConfig: conf,
		checkOneClient: func(t *testing.T, id string) {
			t.Helper()
			connects := func() int { return strings.Count(m.Output(), " as "+id+" ") }
			waitFor(t, "mosquitto's log of the first connect", 5*time.Second, func() bool { return connects() >= 1 })
			if n := connects(); n != 1 || strings.Contains(m.Output(), "already connected") {
				t.Fatalf("mosquitto saw %d connects as %s, want 1:\n%s", n, id, m.Output())
			}
		}}
}

func natsOneBroker(t *testing.T, c *natscluster.Cluster) oneBroker {
	urls := c.URLs()
	withBrokers := func(conf string, urls []string) string {
		var q []string
		for _, u := range urls {
			q = append(q, fmt.Sprintf("%q", u))
		}
		return strings.Replace(conf, `brokers = [""]`, "brokers = ["+strings.Join(q, ", ")+"]", 1)
	}
	return oneBroker{watch: urls[2],
		config: func(table, device, state string) string {
			return withBrokers(e2eConfig(table, device, "beetek", "off", "", state, ""), urls)
		},
		secondConfig: func(table, device, state string) string {
			return withBrokers(e2eConfig(table, device, "beetek", "off", "", state, ""), []string{urls[1], urls[2], urls[0]})
		},
		checkOneClient: func(t *testing.T, id string) {
			t.Helper()
			var on []string
			for i := range c.Len() {
				ids, err := c.Node(i).MQTTClients()
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range ids {
					if x == id {
						on = append(on, c.Node(i).Name)
					}
				}
			}
			if len(on) != 1 {
				t.Fatalf("client id %s connected to nodes %v, want one", id, on)
			}
		}}
}

// oneBrokers are the brokers every one-daemon scenario runs on, each as
// a subtest of the scenario's test named after it (go test -run
// 'TestSameTableTwoDaemons/NATS'; -run '/NATS' for every scenario on the
// cluster), each with its own broker and its own table names.
var oneBrokers = []struct {
	name   string // the subtest's name
	prefix string // the prefix of its tables' names
	start  func(t *testing.T) oneBroker
}{
	{"Mosquitto", "ONE-", mosquittoOneBroker},
	{"NATS", "NONE-", func(t *testing.T) oneBroker { // the 3-node cluster
		return natsOneBroker(t, natscluster.Start(t, natscluster.Options{}))
	}},
}

// onEachOneBroker runs scenario once on each of oneBrokers, one after the
// other, as subtests, the table named the broker's prefix and n.
func onEachOneBroker(t *testing.T, n string, scenario func(t *testing.T, broker oneBroker, table string)) {
	for _, b := range oneBrokers {
		t.Run(b.name, func(t *testing.T) { scenario(t, b.start(t), b.prefix+n) })
	}
}

// heldPTY opens a pseudo-terminal for a daemon's shoe and returns its
// terminal end. Both ends are held to the test's end: a master the test
// drops is closed by the garbage collector, which hangs up the daemon's
// shoe at a random moment.
func heldPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	return tty
}

// runSabotdToExit runs sabotd on conf and waits (up to 20 s) for it to
// exit; it returns the exit status and the output.
func runSabotdToExit(t *testing.T, conf string) (int, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sabotd.toml")
	conf = strings.Replace(conf, "\n[state]\n", "\n[state]\nclock_wait = \"0s\"\n", 1)
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	cmd := exec.Command(filepath.Join(binaries(t), "sabotd"), "--config", path)
	cmd.SysProcAttr = dieWithTest()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, out.String()
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the second sabotd did not exit:\n%s", out.String())
		return 0, ""
	}
}

// A second sabotd for the same table and the same shoe device (another
// config, another state directory), or with the same state directory,
// exits before it connects to the broker: the broker sees one client with
// the table's client id, no status message comes from the second daemon,
// and the first daemon's retained status stays online. Before the locks
// were taken first, the second daemon connected, took over the session,
// published online and offline, and left the retained status offline.
//
// On each of oneBrokers (the NATS cluster: every node in [mqtt] brokers).
func TestSecondDaemonNeverConnects(t *testing.T) {
	t.Parallel()
	onEachOneBroker(t, "1", secondDaemonNeverConnects)
}

func secondDaemonNeverConnects(t *testing.T, broker oneBroker, table string) {
	tty, tty2 := heldPTY(t), heldPTY(t)
	topic := "sabot/" + table + "/status"
	watch := watchStatus(t, broker.watch, topic)
	state := t.TempDir()
	first := startSabotd(t, broker.config(table, tty.Name(), state))
	defer func() {
		if t.Failed() {
			t.Logf("status messages: %v", watch.all())
		}
	}()
	waitFor(t, "the first daemon's online", 10*time.Second, func() bool {
		m := watch.last()
		return m != nil && m["status"] == "online" && m["shoe_state"] == "online"
	})
	online := watch.last()
	before := len(watch.all())
	broker.checkOneClient(t, "sabotd-"+table)

	for _, tc := range []struct {
		name, device, state string
		code                int
		msg                 string
	}{
		{"same shoe", tty.Name(), t.TempDir(), 2, "is another sabotd running for this shoe?"},
		{"same state directory", tty2.Name(), state, 1, "is another sabotd running with this state directory?"},
	} {
		code, out := runSabotdToExit(t, broker.config(table, tc.device, tc.state))
		if code != tc.code || !strings.Contains(out, tc.msg) {
			t.Fatalf("%s: second sabotd exited %d, want %d with %q:\n%s", tc.name, code, tc.code, tc.msg, out)
		}
		if strings.Contains(out, `"msg":"mqtt: connected"`) {
			t.Fatalf("%s: the second sabotd connected to the broker:\n%s", tc.name, out)
		}
	}
	// A status the second daemon published would have reached the
	// watcher before the marker's retained status reaches the marker.
	marker := watchStatus(t, broker.watch, topic)
	waitFor(t, "the retained status", 5*time.Second, func() bool { return marker.last() != nil })
	if got := watch.all(); len(got) != before {
		t.Fatalf("status messages %v, want only the first daemon's %d", got, before)
	}
	if m := marker.last(); m["id"] != online["id"] || m["status"] != "online" {
		t.Fatalf("retained status %v, want the first daemon's online %v", m, online)
	}
	firstUndisturbed(t, broker, table, first)
}

// firstUndisturbed fails the test unless the broker has the table's client
// id connected once and the first daemon, still running, never lost its
// connection.
func firstUndisturbed(t *testing.T, broker oneBroker, table string, first *sabotdProc) {
	t.Helper()
	broker.checkOneClient(t, "sabotd-"+table)
	if _, n := first.connectedTo(); n != 1 || strings.Contains(first.logs.String(), "connection lost") {
		t.Fatalf("the first sabotd lost its connection:\n%s", first.logs.String())
	}
	select {
	case <-first.done:
		t.Fatalf("the first sabotd exited: %v", first.err)
	default:
	}
}

// Two sabotd for one table name on two "Pis" (other shoe device, other
// state directory: no local lock can see it): the second looks before it
// connects, sees the first's online, raises session-takeover (journaled,
// logged) and stays off the broker; it never connects under the table's
// client id, so the first keeps its session and its retained online.
//
// On each of oneBrokers (the NATS cluster: the first daemon on one node,
// the second given the nodes in another order, so it looks through
// another node).
func TestSameTableTwoDaemons(t *testing.T) {
	t.Parallel()
	onEachOneBroker(t, "2", sameTableTwoDaemons)
}

func sameTableTwoDaemons(t *testing.T, broker oneBroker, table string) {
	tty, tty2 := heldPTY(t), heldPTY(t)
	topic := "sabot/" + table + "/status"
	watch := watchStatus(t, broker.watch, topic)
	first := startSabotd(t, broker.config(table, tty.Name(), t.TempDir()))
	waitFor(t, "the first daemon's online", 10*time.Second, func() bool {
		m := watch.last()
		return m != nil && m["status"] == "online" && m["shoe_state"] == "online"
	})
	online := watch.last()
	before := len(watch.all())

	second := startSabotd(t, broker.secondConfig(table, tty2.Name(), t.TempDir()))
	waitFor(t, "the second daemon's session-takeover alert", 15*time.Second, func() bool {
		l := second.logs.String()
		return strings.Contains(l, `"msg":"mqtt: session takeover: another daemon publishes as this table with the same client id; not reconnecting into a fight"`) &&
			strings.Contains(l, `"msg":"alert","code":"session-takeover"`)
	})
	time.Sleep(time.Second) // a wrong connect would show by now
	if strings.Contains(second.logs.String(), `"msg":"mqtt: connected"`) {
		t.Fatalf("the second daemon connected:\n%s", second.logs.String())
	}
	if got := watch.all(); len(got) != before || got[len(got)-1]["id"] != online["id"] {
		t.Fatalf("status messages %v, want only the first daemon's %d", got, before)
	}
	firstUndisturbed(t, broker, table, first)
}

// A sabotd killed with SIGKILL: the broker publishes its last will, an
// offline with the conn and instance of the online it replaces (its time
// and id are older: the will was registered at connect); the daemon
// started again on the same state directory publishes an online with a
// higher conn, which is the retained status at the end. The consumer's
// rule (drivers/mqtt/README.md, "Which status is current") thus keeps the
// right one on each of oneBrokers.
func TestKilledDaemonWill(t *testing.T) {
	t.Parallel()
	onEachOneBroker(t, "3", killedDaemonWill)
}

func killedDaemonWill(t *testing.T, broker oneBroker, table string) {
	tty := heldPTY(t)
	topic := "sabot/" + table + "/status"
	watch := watchStatus(t, broker.watch, topic)
	defer func() {
		if t.Failed() {
			t.Logf("status messages: %v", watch.all())
		}
	}()
	conf := broker.config(table, tty.Name(), t.TempDir())
	p := startSabotd(t, conf)
	waitFor(t, "the daemon's online", 20*time.Second, func() bool {
		m := watch.last()
		return m != nil && m["status"] == "online" && m["shoe_state"] == "online"
	})
	p.kill()
	waitFor(t, "the last will", 20*time.Second, func() bool { m := watch.last(); return m != nil && m["status"] == "offline" })
	unique := func() []map[string]any {
		seen := map[any]bool{}
		var out []map[string]any
		for _, m := range watch.all() {
			if !seen[m["id"]] {
				seen[m["id"]] = true
				out = append(out, m)
			}
		}
		return out
	}
	st := unique()
	will, online := st[len(st)-1], st[len(st)-2]
	if online["status"] != "online" || will["conn"] != online["conn"] || will["instance"] != online["instance"] || will["conn"] == nil {
		t.Fatalf("online %v then will %v: want one connection's conn and instance", online, will)
	}
	if wt, ot := fmt.Sprint(will["time"]), fmt.Sprint(online["time"]); wt > ot {
		t.Errorf("the will's time %s is after the online's %s: the test no longer shows why conn is needed", wt, ot)
	}
	startSabotd(t, conf)
	var back map[string]any
	waitFor(t, "the restarted daemon's online", 30*time.Second, func() bool {
		m := watch.last()
		if m != nil && m["status"] == "online" && m["conn"].(float64) > will["conn"].(float64) {
			back = m
			return true
		}
		return false
	})
	if back["instance"] != will["instance"] {
		t.Fatalf("restarted on the same state directory with instance %v, want %v", back["instance"], will["instance"])
	}
	got, _ := readRetained(t, broker.watch, topic)
	if got["status"] != "online" || got["conn"] != back["conn"] {
		t.Fatalf("retained status %v, want an online of conn %v", got, back["conn"])
	}
}
