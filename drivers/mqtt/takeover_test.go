package mqtt

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// takeovers records OnTakeover calls.
type takeovers struct {
	mu  sync.Mutex
	got []Takeover
}

func (r *takeovers) add(tk Takeover) { r.mu.Lock(); r.got = append(r.got, tk); r.mu.Unlock() }
func (r *takeovers) list() []Takeover {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Takeover(nil), r.got...)
}

// mosquittoLog is m's whole log (every run).
func mosquittoLog(t testing.TB, m *testenv.Mosquitto) string {
	b, err := os.ReadFile(m.Log)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Two publishers for one table (two state directories: two Pis with the
// same table name) on Mosquitto. The second looks before it connects,
// sees the first's online, and stays away: it never connects under the
// table's client id, so the first keeps its session and its retained
// online; the second reports the takeover once and keeps its messages.
func TestMosquittoSecondPublisherStaysAway(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	m := newMosquitto(t, "", "")
	m.Start()
	sub := newSubscriber(t, m.URL, "watch-2", "sabot/T1/status", nil)
	a := startPublisher(t, testOptions("T1", t.TempDir(), m.URL))
	waitFor(t, "the first online", 10*time.Second, func() bool { return lastStatus(t, sub.got.snapshot()) == StatusOnline })
	first := statuses(t, sub.got.snapshot())

	var tk takeovers
	o := testOptions("T1", t.TempDir(), m.URL)
	o.OnTakeover, o.TakeoverBackoff = tk.add, time.Hour
	b := startPublisher(t, o)
	waitFor(t, "the second publisher's takeover report", 10*time.Second, func() bool { return len(tk.list()) == 1 })
	if got := tk.list()[0]; got.Instance != a.box.instance || got.Conn != first[0].Conn || got.ClientID != "sabotd-T1" {
		t.Fatalf("takeover %+v, want the first publisher's instance %s conn %d", got, a.box.instance, first[0].Conn)
	}
	events := shoeEvents(t, "T1")
	publishEvents(t, b, events[:3], 0)
	time.Sleep(time.Second) // a wrong connect would show by now
	if log := mosquittoLog(t, m); strings.Count(log, " as sabotd-T1 ") != 1 || strings.Contains(log, "already connected") {
		t.Fatalf("mosquitto saw the table's client id connect more than once:\n%s", log)
	}
	if st := statuses(t, sub.got.snapshot()); len(st) != len(first) {
		t.Fatalf("statuses %+v after the second publisher, want only the first's %+v", st, first)
	}
	if !a.Status().Connected || b.Status().Connected || !strings.Contains(b.Status().LastError, "session taken over") {
		t.Fatalf("first %+v, second %+v", a.Status(), b.Status())
	}
	if n := b.Status().Backlog; n == 0 {
		t.Fatal("the second publisher's messages are not kept in its outbox")
	}
}

// A client that does not look first (a sabotd from before instances, or
// any client) connects with the table's client id and publishes its
// online: Mosquitto closes the running publisher's connection (MQTT 3.1.1:
// no reason given). The publisher probes before reconnecting, sees the
// other online, reports the takeover and stays away for TakeoverBackoff,
// keeping its outbox; once the other has gone (its offline), it connects
// again, with a higher conn, and delivers the outbox.
func TestMosquittoSessionTakeoverBacksOff(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	m := newMosquitto(t, "", "")
	m.Start()
	sub := newSubscriber(t, m.URL, "watch-3", "sabot/T1/#", nil)
	var tk takeovers
	o := testOptions("T1", t.TempDir(), m.URL)
	o.OnTakeover, o.TakeoverBackoff = tk.add, 4*time.Second
	a := startPublisher(t, o)
	waitFor(t, "the online", 10*time.Second, func() bool { return lastStatus(t, sub.got.snapshot()) == StatusOnline })
	aConn := statuses(t, sub.got.snapshot())[0].Conn

	// The intruder: same client id, its own online.
	intruder := paho.NewClient(paho.NewClientOptions().AddBroker(m.URL).SetClientID("sabotd-T1").
		SetCleanSession(true).SetAutoReconnect(false))
	if tok := intruder.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("intruder connect: %v", tok.Error())
	}
	status := func(n int, s string) []byte {
		b, _ := json.Marshal(map[string]any{"schema": 1, "id": fmt.Sprintf("T1/status/other/%d", n), "table": "T1", "shoe_id": "",
			"time": time.Now().UTC().Format(time.RFC3339Nano), "status": s, "version": "0.0.9", "shoe_state": "online",
			"conn": 1, "instance": "00000000000000ff"})
		return b
	}
	online := status(1, StatusOnline)
	if tok := intruder.Publish("sabot/T1/status", 1, true, online); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("intruder publish: %v", tok.Error())
	}
	waitFor(t, "the takeover report", 15*time.Second, func() bool { return len(tk.list()) == 1 })
	detected := time.Now()
	if a.Status().Connected {
		t.Fatal("still connected after the takeover")
	}
	events := shoeEvents(t, "T1")
	publishEvents(t, a, events[:5], 0)
	// No fight: the intruder keeps its session through the back-off.
	time.Sleep(2 * time.Second)
	if !intruder.IsConnectionOpen() {
		t.Fatal("the publisher took the session back during its back-off")
	}
	if n := strings.Count(mosquittoLog(t, m), "already connected"); n != 1 {
		t.Fatalf("%d session takeovers in mosquitto's log, want 1 (the intruder's):\n%s", n, mosquittoLog(t, m))
	}
	// The intruder stops cleanly with its offline: after the back-off the
	// publisher comes back and delivers what it kept.
	intruder.Publish("sabot/T1/status", 1, true, status(2, StatusOffline)).WaitTimeout(5 * time.Second)
	intruder.Disconnect(100)
	assertDelivery(t, sub, expectedIDs(t, events[:5]), 30*time.Second)
	if since := time.Since(detected); since < 3*time.Second {
		t.Fatalf("reconnected %v after the takeover, want the 4 s back-off", since)
	}
	st := statuses(t, sub.got.snapshot())
	if last := st[len(st)-1]; last.Status != StatusOnline || last.Conn <= aConn || last.Instance != a.box.instance {
		t.Fatalf("last status %+v, want the publisher's online above conn %d", last, aConn)
	}
	if len(tk.list()) != 1 {
		t.Fatalf("takeover reported %d times, want once", len(tk.list()))
	}
}
