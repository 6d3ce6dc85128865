package main

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
// exits before it connects to the broker: Mosquitto sees one client with
// the table's client id, no status message comes from the second daemon,
// and the first daemon's retained status stays online. Before the locks
// were taken first, the second daemon connected, took over the session,
// published online and offline, and left the retained status offline.
func TestSecondDaemonNeverConnects(t *testing.T) {
	broker := startMosquitto(t)
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	// Held to the end: a master the test drops is closed by the garbage
	// collector, which hangs up the daemon's shoe at a random moment.
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	ptmx2, tty2, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	// Held to the end: a master the test drops is closed by the garbage
	// collector, which hangs up the daemon's shoe at a random moment.
	t.Cleanup(func() { ptmx2.Close(); tty2.Close() })
	const table = "ONE-1"
	topic := "sabot/" + table + "/status"
	watch := watchStatus(t, broker.url(), topic)
	state := t.TempDir()
	first := startSabotd(t, e2eConfig(table, tty.Name(), "beetek", "off", broker.url(), state, ""))
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
	connects := func() int { return strings.Count(broker.log.String(), " as sabotd-"+table+" ") }
	waitFor(t, "mosquitto's log of the first connect", 5*time.Second, func() bool { return connects() == 1 })

	for _, tc := range []struct {
		name, device, state string
		code                int
		msg                 string
	}{
		{"same shoe", tty.Name(), t.TempDir(), 2, "is another sabotd running for this shoe?"},
		{"same state directory", tty2.Name(), state, 1, "is another sabotd running with this state directory?"},
	} {
		code, out := runSabotdToExit(t, e2eConfig(table, tc.device, "beetek", "off", broker.url(), tc.state, ""))
		if code != tc.code || !strings.Contains(out, tc.msg) {
			t.Fatalf("%s: second sabotd exited %d, want %d with %q:\n%s", tc.name, code, tc.code, tc.msg, out)
		}
		if strings.Contains(out, `"msg":"mqtt: connected"`) {
			t.Fatalf("%s: the second sabotd connected to the broker:\n%s", tc.name, out)
		}
	}
	// A status the second daemon published would have reached the
	// watcher before the marker's retained status reaches the marker.
	marker := watchStatus(t, broker.url(), topic)
	waitFor(t, "the retained status", 5*time.Second, func() bool { return marker.last() != nil })
	if got := watch.all(); len(got) != before {
		t.Fatalf("status messages %v, want only the first daemon's %d", got, before)
	}
	if m := marker.last(); m["id"] != online["id"] || m["status"] != "online" {
		t.Fatalf("retained status %v, want the first daemon's online %v", m, online)
	}
	if n := connects(); n != 1 || strings.Contains(broker.log.String(), "already connected") {
		t.Fatalf("mosquitto saw %d connects as sabotd-%s, want 1:\n%s", n, table, broker.log.String())
	}
	select {
	case <-first.done:
		t.Fatalf("the first sabotd exited: %v", first.err)
	default:
	}
}

// Two sabotd for one table name on two "Pis" (other shoe device, other
// state directory: no local lock can see it) on Mosquitto: the second
// looks before it connects, sees the first's online, raises
// session-takeover (journaled, logged) and stays off the broker; it never
// connects under the table's client id, so the first keeps its session and
// its retained online.
func TestSameTableTwoDaemons(t *testing.T) {
	broker := startMosquitto(t)
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	// Held to the end: a master the test drops is closed by the garbage
	// collector, which hangs up the daemon's shoe at a random moment.
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	ptmx2, tty2, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	// Held to the end: a master the test drops is closed by the garbage
	// collector, which hangs up the daemon's shoe at a random moment.
	t.Cleanup(func() { ptmx2.Close(); tty2.Close() })
	const table = "ONE-2"
	topic := "sabot/" + table + "/status"
	watch := watchStatus(t, broker.url(), topic)
	first := startSabotd(t, e2eConfig(table, tty.Name(), "beetek", "off", broker.url(), t.TempDir(), ""))
	waitFor(t, "the first daemon's online", 10*time.Second, func() bool {
		m := watch.last()
		return m != nil && m["status"] == "online" && m["shoe_state"] == "online"
	})
	online := watch.last()
	before := len(watch.all())

	second := startSabotd(t, e2eConfig(table, tty2.Name(), "beetek", "off", broker.url(), t.TempDir(), ""))
	waitFor(t, "the second daemon's session-takeover alert", 15*time.Second, func() bool {
		l := second.logs.String()
		return strings.Contains(l, `"msg":"mqtt: session takeover: another daemon publishes as this table with the same client id; not reconnecting into a fight"`) &&
			strings.Contains(l, `"msg":"alert","code":"session-takeover"`)
	})
	time.Sleep(time.Second) // a wrong connect would show by now
	if strings.Contains(second.logs.String(), `"msg":"mqtt: connected"`) {
		t.Fatalf("the second daemon connected:\n%s", second.logs.String())
	}
	if n := strings.Count(broker.log.String(), " as sabotd-"+table+" "); n != 1 || strings.Contains(broker.log.String(), "already connected") {
		t.Fatalf("mosquitto saw %d connects as sabotd-%s, want 1:\n%s", n, table, broker.log.String())
	}
	if got := watch.all(); len(got) != before || got[len(got)-1]["id"] != online["id"] {
		t.Fatalf("status messages %v, want only the first daemon's %d", got, before)
	}
	select {
	case <-first.done:
		t.Fatalf("the first sabotd exited: %v", first.err)
	default:
	}
}
