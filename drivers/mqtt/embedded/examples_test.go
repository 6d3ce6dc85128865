package embedded

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/testenv"
	"github.com/sabot-table/sabot/drivers/testenv/natscluster"
)

// The shipped example files (docs/brokers): a Mosquitto password file and
// ACL for tables T1 and T2, the pit console and a scoreboard. The
// passwords are example-<user>-password.
var (
	examplePasswd = filepath.Join("..", "..", "..", "docs", "brokers", "mosquitto.passwd")
	exampleACL    = filepath.Join("..", "..", "..", "docs", "brokers", "mosquitto.acl")
)

// TestExampleACLEmbedded: the example files on the embedded broker.
func TestExampleACLEmbedded(t *testing.T) {
	t.Parallel()
	b, err := Start(Options{PasswordFile: examplePasswd, ACLFile: exampleACL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	checkExampleACL(t, b.URL(), false)
	if all, _ := b.LoginsRefused(); all != 2 {
		t.Errorf("%d logins refused, want 2 (anonymous, a wrong password)", all)
	}
}

// TestExampleACLMosquitto: the same files on Mosquitto give the same
// answers: one [mqtt] section and one set of files serve both, and the
// embedded broker's reading of them is Mosquitto's.
func TestExampleACLMosquitto(t *testing.T) {
	t.Parallel()
	pw, _ := filepath.Abs(examplePasswd)
	acl, _ := filepath.Abs(exampleACL)
	m := testenv.StartMosquittoWith(t, testenv.MosquittoOptions{
		Listener: "listener %PORT% 127.0.0.1\nallow_anonymous false\npassword_file " + pw + "\nacl_file " + acl + "\n"})
	checkExampleACL(t, m.URL, false)
}

// TestExampleNATSAccounts: docs/brokers/nats-accounts.conf gives the same
// users the same rights on NATS Server's MQTT listener (a 3-node
// cluster with JetStream, as on a floor).
func TestExampleNATSAccounts(t *testing.T) {
	t.Parallel()
	conf, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "brokers", "nats-accounts.conf"))
	if err != nil {
		t.Fatal(err)
	}
	// An include is read from the including file's directory.
	c := natscluster.New(t, natscluster.Options{Extra: "include \"sabot-accounts.conf\"\n"})
	for i := range c.Len() {
		if err := os.WriteFile(filepath.Join(c.Node(i).Dir, "sabot-accounts.conf"), conf, 0o600); err != nil {
			t.Fatal(err)
		}
		c.Node(i).Start()
	}
	c.WaitReady(t)
	checkExampleACL(t, c.Node(0).URL(), true)
}

// exampleClient connects user (password example-<user>-password; "" is
// anonymous) or returns the connection's error.
func exampleClient(url, user, id string, onLost func()) (paho.Client, error) {
	o := paho.NewClientOptions().AddBroker(url).SetClientID(id).SetCleanSession(true).
		SetAutoReconnect(false).SetConnectRetry(false).SetConnectTimeout(5 * time.Second).SetProtocolVersion(4)
	if user != "" {
		o.SetUsername(user).SetPassword("example-" + user + "-password")
	}
	if onLost != nil {
		o.SetConnectionLostHandler(func(paho.Client, error) { onLost() })
	}
	c := paho.NewClient(o)
	tok := c.Connect()
	if !tok.WaitTimeout(10 * time.Second) {
		return nil, fmt.Errorf("connect %s: no answer", user)
	}
	return c, tok.Error()
}

// got collects what a reader receives, by topic.
type got struct {
	mu     sync.Mutex
	topics map[string]bool
}

func (g *got) add(_ paho.Client, m paho.Message) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.topics[m.Topic()] = true
}

func (g *got) has(topic string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.topics[topic]
}

// checkExampleACL: who may connect, who may publish where, who receives
// what, on the broker at url with the example files.
func checkExampleACL(t *testing.T, url string, nats bool) {
	// Logins: the four users with their passwords; not anonymous, not a
	// wrong password.
	for _, u := range []string{"T1", "T2", "pit", "scoreboard"} {
		c, err := exampleClient(url, u, "login-"+u, nil)
		if err != nil {
			t.Fatalf("%s cannot log in: %v", u, err)
		}
		c.Disconnect(50)
	}
	if c, err := exampleClient(url, "", "anon", nil); err == nil {
		c.Disconnect(50)
		t.Error("an anonymous client was let in")
	}
	o := paho.NewClientOptions().AddBroker(url).SetClientID("wrong").SetUsername("pit").SetPassword("example-T1-password").
		SetAutoReconnect(false).SetConnectTimeout(5 * time.Second).SetProtocolVersion(4)
	if c := paho.NewClient(o); c.Connect().WaitTimeout(10*time.Second) && c.IsConnected() {
		c.Disconnect(50)
		t.Error("pit was let in with T1's password")
	}

	// Readers, each with a subscription under test and one to its markers.
	readers := []struct {
		user, filter string
	}{
		{"T1", "sabot/T1/cmd/+"},        // its commands
		{"T1", "sabot/T1/card"},         // not even its own cards
		{"T2", "sabot/T1/#"},            // nothing of another table
		{"T2", "sabot/+/cmd/+"},         // of the commands, only its own
		{"scoreboard", "sabot/#"},       // every table
		{"pit", "sabot/#"},              // every table
		{"T2", "sabot/T2/cmd/+"},        // its own commands
		{"scoreboard", "sabot/+/cmd/+"}, // reads the commands sent
	}
	// Each reader's marker, an exact topic it may read: it comes after
	// the writes, on the same connection, so the writes that reach the
	// reader have reached it once the marker has.
	markers := map[string]string{"T1": "sabot/T1/cmd/zz-marker", "T2": "sabot/T2/cmd/zz-marker",
		"pit": "sabot/T1/cmd/zz-marker", "scoreboard": "sabot/T1/cmd/zz-marker"}
	gots := make([]*got, len(readers))
	marked := make([]*got, len(readers))
	for i, r := range readers {
		gots[i], marked[i] = &got{topics: map[string]bool{}}, &got{topics: map[string]bool{}}
		c, err := exampleClient(url, r.user, fmt.Sprintf("reader-%d", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Disconnect(50)
		for f, h := range map[string]paho.MessageHandler{r.filter: gots[i].add, markers[r.user]: marked[i].add} {
			tok := c.Subscribe(f, 1, h)
			if !tok.WaitTimeout(10 * time.Second) {
				t.Fatalf("%s: subscribing to %s: no SUBACK", r.user, f)
			}
		}
	}

	// Writes, each on a connection of its own (the embedded broker, as
	// mochi-mqtt does for MQTT 3.1.1, disconnects a client whose publish
	// it refuses; Mosquitto acknowledges it and drops it).
	writes := []struct {
		user, topic string
		ok          bool
	}{
		{"T1", "sabot/T1/card", true},
		{"T1", "sabot/T1/alert/ack", true},
		{"T1", "sabot/T1/cmd/void/reply", true},
		{"T1", "sabot/T2/card", false},     // another table's topic
		{"T1", "sabot/T2/status", false},   // another table's status
		{"T1", "sabot/T1/cmd/void", false}, // a command to itself
		{"T2", "sabot/T1/cmd/void", false}, // a command to another table
		{"T2", "sabot/T1/coup", false},
		{"scoreboard", "sabot/T1/cmd/new-shoe", false},
		{"scoreboard", "sabot/T1/card", false},
		{"pit", "sabot/T1/cmd/void", true},
		{"pit", "sabot/T2/cmd/dealer", true},
		{"pit", "sabot/T1/card", false}, // the pit sends commands only
		{"pit", "sabot/T1/cmd/void/reply", false},
		{"T2", "sabot/T1/status", false}, // retained (below)
		{"T1", "sabot/T1/status", true},  // retained
	}
	for i, w := range writes {
		c, err := exampleClient(url, w.user, fmt.Sprintf("writer-%d", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Publish(w.topic, 1, strings.HasSuffix(w.topic, "/status"), []byte(fmt.Sprintf(`{"n":%d}`, i))).WaitTimeout(5 * time.Second)
		c.Disconnect(50)
	}
	pit, err := exampleClient(url, "pit", "marker", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pit.Disconnect(50)
	for _, m := range []string{"sabot/T1/cmd/zz-marker", "sabot/T2/cmd/zz-marker"} {
		if tok := pit.Publish(m, 1, false, []byte("{}")); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Fatalf("marker %s: %v", m, tok.Error())
		}
	}
	for i, r := range readers {
		m := markers[r.user]
		deadline := time.Now().Add(testenv.Deadline(10 * time.Second))
		for !marked[i].has(m) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !marked[i].has(m) {
			t.Fatalf("reader %d (%s) never got its marker %s", i, r.user, m)
		}
	}

	// What each reader received of the writes: a write arrives where its
	// writer may publish and the reader may read.
	want := map[string][]string{
		"T1 sabot/T1/cmd/+":        {"sabot/T1/cmd/void"},
		"T1 sabot/T1/card":         nil,
		"T2 sabot/T1/#":            nil,
		"T2 sabot/+/cmd/+":         {"sabot/T2/cmd/dealer"}, // its own, not T1's (NATS: refused, below)
		"T2 sabot/T2/cmd/+":        {"sabot/T2/cmd/dealer"},
		"scoreboard sabot/#":       {"sabot/T1/alert/ack", "sabot/T1/card", "sabot/T1/cmd/void", "sabot/T1/cmd/void/reply", "sabot/T1/status", "sabot/T2/cmd/dealer"},
		"pit sabot/#":              {"sabot/T1/alert/ack", "sabot/T1/card", "sabot/T1/cmd/void", "sabot/T1/cmd/void/reply", "sabot/T1/status", "sabot/T2/cmd/dealer"},
		"scoreboard sabot/+/cmd/+": {"sabot/T1/cmd/void", "sabot/T2/cmd/dealer"},
	}
	if nats {
		// NATS Server grants a subscription only within the subjects
		// allowed (sabot.*.cmd.* is wider than sabot.T2.cmd.*): T2 gets
		// none of it, where Mosquitto and the embedded broker deliver
		// what T2 may read of it. Either way T1's commands stay T1's.
		want["T2 sabot/+/cmd/+"] = nil
	}
	for i, r := range readers {
		var have []string
		gots[i].mu.Lock()
		for tp := range gots[i].topics {
			if !strings.HasSuffix(tp, "zz-marker") {
				have = append(have, tp)
			}
		}
		gots[i].mu.Unlock()
		sort.Strings(have)
		key := r.user + " " + r.filter
		if strings.Join(have, " ") != strings.Join(want[key], " ") {
			t.Errorf("%s received %v, want %v", key, have, want[key])
		}
	}

	// Retained messages, sent on subscribing, are read-checked too: T1's
	// retained status reaches the scoreboard, not T2 (which may read its
	// own status).
	for _, late := range []struct {
		user string
		want bool
	}{{"T2", false}, {"scoreboard", true}} {
		g, mk := &got{topics: map[string]bool{}}, &got{topics: map[string]bool{}}
		c, err := exampleClient(url, late.user, "late-"+late.user, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Subscribe("sabot/+/status", 1, g.add).WaitTimeout(10 * time.Second)
		c.Subscribe(markers[late.user], 1, mk.add).WaitTimeout(10 * time.Second)
		pit.Publish(markers[late.user], 1, false, []byte("{}")).WaitTimeout(10 * time.Second)
		deadline := time.Now().Add(testenv.Deadline(10 * time.Second))
		for !mk.has(markers[late.user]) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !mk.has(markers[late.user]) {
			t.Fatalf("late %s never got its marker", late.user)
		}
		if g.has("sabot/T1/status") != late.want {
			t.Errorf("late %s subscribing to sabot/+/status got T1's retained status: %v, want %v", late.user, g.has("sabot/T1/status"), late.want)
		}
		c.Disconnect(50)
	}
}
