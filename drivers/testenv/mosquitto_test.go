package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// sessionAfterRestart connects a persistent-session client (clean session
// off) with one QoS 1 subscription to m, restarts m with SIGTERM (a service
// restart), connects the client again and returns whether the broker still
// had its session (CONNACK's session-present flag) and whether a message
// published after the restart reached it.
func sessionAfterRestart(t *testing.T, m *Mosquitto, stop func()) (present, delivered bool) {
	t.Helper()
	got := make(chan struct{}, 1)
	opts := paho.NewClientOptions().AddBroker(m.URL).SetClientID("testenv-session").SetCleanSession(false).
		SetAutoReconnect(false).SetConnectTimeout(5 * time.Second)
	opts.SetDefaultPublishHandler(func(paho.Client, paho.Message) {
		select {
		case got <- struct{}{}:
		default:
		}
	})
	c := paho.NewClient(opts)
	if tok := c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	if tok := c.Subscribe("t/#", 1, nil); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	c.Disconnect(50)
	stop()
	m.Start()
	// Published while the subscriber is away: only its session holds it.
	pub := paho.NewClient(paho.NewClientOptions().AddBroker(m.URL).SetClientID("testenv-pub"))
	if tok := pub.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publisher connect: %v", tok.Error())
	}
	if tok := pub.Publish("t/1", 1, false, "m"); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publish: %v", tok.Error())
	}
	pub.Disconnect(50)
	c = paho.NewClient(opts)
	tok := c.Connect()
	if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("reconnect: %v", tok.Error())
	}
	defer c.Disconnect(50)
	present = tok.(*paho.ConnectToken).SessionPresent()
	if present {
		// The session's queued message comes right after CONNACK.
		select {
		case <-got:
			delivered = true
		case <-time.After(10 * time.Second):
		}
	}
	return present, delivered
}

// A persistent broker (MosquittoOptions.Persist) keeps a subscriber's
// session and what was queued for it across a restart. A broker whose
// persistence directory the user "mosquitto" cannot write (the test's
// root-owned 0700 TempDir, without "user root"), as TestSoak's first
// version had it, logs "Error saving in-memory database" at the stop and
// comes back without the session: a subscriber then subscribes again, and
// what the daemons published in between went to nobody (TestSoak once
// received 611 of 612 coups so). Stop reports that error as a failure.
func TestMosquittoRestartKeepsSessions(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mosquitto changes to the user mosquitto only when started as root")
	}
	m := StartMosquittoWith(t, MosquittoOptions{Persist: true})
	if present, delivered := sessionAfterRestart(t, m, m.Stop); !present || !delivered {
		t.Errorf("persistent broker: session present %v, queued message delivered %v; want both", present, delivered)
	}

	dir := t.TempDir()
	bad := StartMosquittoWith(t, MosquittoOptions{Extra: "persistence true\npersistence_location " + dir + "/\n"})
	present, _ := sessionAfterRestart(t, bad, bad.Stop) // Stop checks no save without Persist
	if present {
		t.Errorf("a broker that cannot save kept the session")
	}
	log, _ := os.ReadFile(bad.Log)
	if !strings.Contains(string(log), "Error saving in-memory database") {
		t.Errorf("no save error in the log of a broker that cannot write %s:\n%s", dir, log)
	}
	if _, err := os.Stat(filepath.Join(dir, "mosquitto.db")); err == nil {
		t.Errorf("mosquitto.db written in %s", dir)
	}
}
