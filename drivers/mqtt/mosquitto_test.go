package mqtt

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// A full shoe while the broker crashes (SIGKILL) and stays down for 5 s in
// the middle: the publisher keeps accepting events (they wait in the
// outbox), reconnects and sends the backlog first, in order, then the rest;
// what the crashed broker never acknowledged is sent again. The broker runs
// with the persistence settings README.md recommends, so the subscriber's
// persistent session survives the crash.
//
// The crash comes once the broker has acknowledged and delivered what it
// got and has been frozen (SIGSTOP) with more events published to it. A
// SIGKILL at a random moment can also hit Mosquitto between sending a
// PUBACK and saving the message (it saves between passes of its event loop,
// src/loop.c, even with autosave_on_changes): an acknowledged message lost
// by the broker, which no publisher can send again, and the test would fail
// now and then for the broker's reason.
func TestMosquittoFullShoeBrokerRestart(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	m := newMosquitto(t, "", "")
	m.Start()
	sub := newSubscriber(t, m.URL, "surveillance-1", "sabot/T1/#", nil)
	events := shoeEvents(t, "T1")
	p := startPublisher(t, testOptions("T1", t.TempDir(), m.URL))
	half := len(events) / 2
	publishEvents(t, p, events[:half], time.Millisecond)
	waitFor(t, "the first half acknowledged", 30*time.Second, func() bool { return p.Status().Backlog == 0 })
	sub.waitIDs(t, expectedIDs(t, events[:half]), 30*time.Second)
	m.Freeze()
	// Sent to the frozen broker (or still in the outbox): never acknowledged.
	publishEvents(t, p, events[half:half+20], 0)
	m.Kill() // SIGKILL: a broker crash, not a clean stop
	stopped := time.Now()
	// Events keep coming while the broker is down.
	publishEvents(t, p, events[half+20:half+120], 10*time.Millisecond)
	waitFor(t, "the publisher to notice the broker is down", 10*time.Second, func() bool { return !p.Status().Connected })
	if st := p.Status(); st.Backlog < 120 {
		t.Fatalf("backlog %d while the broker is down, want >= 120", st.Backlog)
	}
	time.Sleep(5*time.Second - time.Since(stopped))
	m.Start()
	publishEvents(t, p, events[half+120:], time.Millisecond)
	assertDelivery(t, sub, expectedIDs(t, events), 60*time.Second)
}

// The publisher starts while the broker is down: it queues (the daemon
// works meanwhile), keeps retrying, and delivers everything in order once
// the broker is up. The subscriber's persistent session, created before,
// holds the messages for it while it reconnects too.
func TestMosquittoPublisherStartsBeforeBroker(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	m := newMosquitto(t, "", "")
	m.Start()
	sub := newSubscriber(t, m.URL, "pit-1", "sabot/T1/#", nil)
	m.Stop()
	events := shoeEvents(t, "T1")
	p := startPublisher(t, testOptions("T1", t.TempDir(), m.URL))
	third := len(events) / 3
	publishEvents(t, p, events[:third], 0)
	waitFor(t, "two failed connection attempts", 10*time.Second, func() bool { return p.Status().ConnectAttempts >= 2 })
	st := p.Status()
	if st.Connected || st.Backlog < len(expectedIDs(t, events[:third])) || !strings.Contains(st.LastError, "connection refused") {
		t.Fatalf("status while the broker is down: %+v", st)
	}
	m.Start()
	publishEvents(t, p, events[third:], 0)
	assertDelivery(t, sub, expectedIDs(t, events), 60*time.Second)
}

// helperEnv switches the test binary into a publisher process for
// TestMosquittoPublisherKill9.
const helperEnv = "SABOT_MQTT_TEST_PUBLISHER"

// TestHelperPublisher is not a test: run by TestMosquittoPublisherKill9 as a
// child process, it publishes events FROM..TO of the test traffic to BROKER
// with the outbox in STATE, printing "durable N" once event N is in the
// outbox, then waits to be killed.
func TestHelperPublisher(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("helper process for TestMosquittoPublisherKill9")
	}
	from, _ := strconv.Atoi(os.Getenv("FROM"))
	to, _ := strconv.Atoi(os.Getenv("TO"))
	events := shoeEvents(t, "T1")
	p, err := New(testOptions("T1", os.Getenv("STATE"), os.Getenv("BROKER")))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	p.Start(context.Background())
	for i := from; i < to; i++ {
		if err := p.Publish(context.Background(), events[i]...); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("durable", i)
		time.Sleep(2 * time.Millisecond)
	}
	fmt.Println("done")
	select {} // wait for SIGKILL
}

// runHelper starts a publisher process for events from..to and kills it
// with SIGKILL once it reports event killAt durable. It returns the last
// event the child reported durable.
func runHelper(t *testing.T, state, broker string, from, to, killAt int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperPublisher$", "-test.count=1", "-test.v=false")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "STATE="+state, "BROKER="+broker,
		"FROM="+strconv.Itoa(from), "TO="+strconv.Itoa(to))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	last := -1
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "durable" {
			last, _ = strconv.Atoi(f[1])
			if last >= killAt {
				break
			}
		} else if len(f) > 0 && f[0] == "error" {
			t.Fatalf("helper: %s", sc.Text())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if last < killAt {
		t.Fatalf("helper stopped at event %d before %d", last, killAt)
	}
	return last
}

// The publisher process is killed with SIGKILL twice in one shoe, once with
// the broker up (messages in flight) and once with the broker down (a
// backlog in the outbox), and restarted on the same state directory: the
// subscriber gets every message at least once, in order after removing
// duplicates, and no id with two payloads. The broker publishes the last
// will "offline" for the killed process.
func TestMosquittoPublisherKill9(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	m := newMosquitto(t, "", "")
	m.Start()
	sub := newSubscriber(t, m.URL, "surveillance-2", "sabot/T1/#", nil)
	events := shoeEvents(t, "T1")
	state := t.TempDir()
	n := len(events)

	// 1: broker up, killed mid-stream.
	last := runHelper(t, state, m.URL, 0, n, n/4)
	waitFor(t, "the last will", 10*time.Second, func() bool { return lastStatus(t, sub.got.snapshot()) == StatusOffline })
	// The will is the killed connection's: the same conn and instance as
	// its online, though its time is older (registered at connect).
	st := uniqueStatuses(t, sub.got.snapshot())
	will, online := st[len(st)-1], st[len(st)-2]
	if online.Status != StatusOnline || will.Conn != online.Conn || will.Instance != online.Instance || will.Conn == 0 {
		t.Fatalf("online %+v then will %+v: want one connection's", online, will)
	}

	// 2: broker down: the second process only queues, then is killed.
	m.Stop()
	last = runHelper(t, state, m.URL, last+1, n, n/2)

	// 3: broker up again; a new publisher on the same state directory sends
	// the backlog of both dead processes first, then the rest of the shoe.
	m.Start()
	p := startPublisher(t, testOptions("T1", state, m.URL))
	if b := p.Status().Backlog; b == 0 {
		t.Fatal("no backlog left by the killed processes")
	}
	publishEvents(t, p, events[last+1:], 0)
	assertDelivery(t, sub, expectedIDs(t, events), 60*time.Second)
	// Every connection numbered above the one before, on one instance:
	// the consumer's rule (highest conn, offline over online within one)
	// makes the third publisher's online current.
	st = uniqueStatuses(t, sub.got.snapshot())
	for i := 1; i < len(st); i++ {
		if st[i].Instance != will.Instance {
			t.Fatalf("status %d from instance %s, want %s", i, st[i].Instance, will.Instance)
		}
		if st[i].Conn < st[i-1].Conn || st[i].Conn == st[i-1].Conn && st[i-1].Status == StatusOffline {
			t.Fatalf("status %d %+v does not supersede %+v", i, st[i], st[i-1])
		}
	}
	if last := st[len(st)-1]; last.Status != StatusOnline || last.Conn <= will.Conn {
		t.Fatalf("last status %+v, want an online above conn %d", last, will.Conn)
	}
}

// MQTT over WebSocket (ws://) to Mosquitto's websockets listener.
func TestMosquittoWebSocket(t *testing.T) {
	wsPort := testenv.FreePort(t)
	m := newMosquitto(t, fmt.Sprintf("listener %%PORT%% 127.0.0.1\nallow_anonymous true\nlistener %d 127.0.0.1\nprotocol websockets\n", wsPort), "")
	m.Start()
	sub := newSubscriber(t, m.URL, "scoreboard-ws", "sabot/T1/#", nil)
	events := shoeEvents(t, "T1")[:40]
	url := fmt.Sprintf("ws://127.0.0.1:%d/mqtt", wsPort)
	p := startPublisher(t, testOptions("T1", t.TempDir(), url))
	publishEvents(t, p, events, 0)
	assertDelivery(t, sub, expectedIDs(t, events), 30*time.Second)
	if st := p.Status(); st.Broker != url {
		t.Fatalf("connected to %q, want %q", st.Broker, url)
	}
}

// uniqueStatuses is statuses de-duplicated by id, as consumers do (QoS 1
// delivers some twice).
func uniqueStatuses(t testing.TB, msgs []received) []StatusPayload {
	seen := map[string]bool{}
	return slices.DeleteFunc(statuses(t, msgs), func(p StatusPayload) bool {
		dup := seen[p.ID]
		seen[p.ID] = true
		return dup
	})
}
