package mqtt

import (
	"fmt"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/testenv/natscluster"
)

func TestTableAndPrefixRules(t *testing.T) {
	for _, tc := range []struct {
		table string
		ok    bool
	}{
		{"T1", true}, {"BAC-07", true}, {"a_b-9", true}, {strings.Repeat("x", 64), true},
		{"", false}, {"T.1", false}, {"-T", false}, {"T 1", false}, {"T/1", false}, {"T+", false},
		{"T#", false}, {"T*", false}, {"é", false}, {strings.Repeat("x", 65), false},
	} {
		if got := TableProblem(tc.table) == ""; got != tc.ok {
			t.Errorf("TableProblem(%q) = %q, want ok %v", tc.table, TableProblem(tc.table), tc.ok)
		}
		_, err := (&Options{Table: tc.table, StateDir: t.TempDir()}).normalize()
		if (err == nil) != tc.ok {
			t.Errorf("Options{Table: %q}: %v, want ok %v", tc.table, err, tc.ok)
		}
	}
	for _, tc := range []struct {
		prefix string
		ok     bool
	}{
		{"sabot", true}, {"casino/floor-2", true}, {"étage", true}, {"a/b_c", true},
		{"sabot.floor", false}, {"my sabot", false}, {"a\tb", false}, {"a/*/b", false}, {">", false},
		{"a/+", false}, {"#", false}, {"/a", false}, {"a/", false}, {"a\x00", false},
	} {
		if got := TopicPrefixProblem(tc.prefix) == ""; got != tc.ok {
			t.Errorf("TopicPrefixProblem(%q) = %q, want ok %v", tc.prefix, TopicPrefixProblem(tc.prefix), tc.ok)
		}
	}
	if why := TableProblem("T.1"); !strings.Contains(why, "NATS") {
		t.Errorf("the '.' refusal does not say why: %q", why)
	}
}

// The rules are NATS Server's: on the 3-node cluster a QoS 1 retained
// publish to every topic of an allowed table and prefix is acknowledged on
// an open connection, and one with a refused '.' or space closes the
// connection (which a publisher would reconnect and resend into for ever).
// A QoS 2 subscription is granted QoS 1, and a QoS 2 publish closes the
// connection: sabotd uses QoS 1 only.
func TestNATSTopicRules(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	c := natscluster.Start(t, natscluster.Options{})
	url := c.URLs()[0]
	n := 0
	publish := func(topic string, qos byte) (acked, open bool) {
		n++
		cl := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("rules-%d", n)).SetAutoReconnect(false))
		if tok := cl.Connect(); !tok.WaitTimeout(20*time.Second) || tok.Error() != nil {
			t.Fatalf("connect: %v", tok.Error())
		}
		defer cl.Disconnect(50)
		tok := cl.Publish(topic, qos, true, "x")
		if !tok.WaitTimeout(20 * time.Second) {
			t.Fatalf("publish %q: no answer", topic)
		}
		time.Sleep(100 * time.Millisecond)
		return tok.Error() == nil, cl.IsConnectionOpen()
	}
	for _, topic := range []string{"sabot/BAC-07/status", "casino/floor-2/a_b-9/coup", "étage/T1/alert/ack", "sabot/T1/cmd/new-shoe/reply"} {
		if acked, open := publish(topic, 1); !acked || !open {
			t.Errorf("%q: acknowledged %v, connection open %v; want both", topic, acked, open)
		}
	}
	for _, topic := range []string{"sabot/T.1/status", "sabot floor/T1/status"} {
		if acked, open := publish(topic, 1); acked || open {
			t.Errorf("%q: acknowledged %v, connection open %v; want the connection closed (why the name is refused)", topic, acked, open)
		}
	}
	if acked, open := publish("sabot/T1/q2", 2); acked || open {
		t.Errorf("QoS 2 publish: acknowledged %v, open %v; nats-server 2.9 was expected to close the connection", acked, open)
	}
	cl := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID("rules-sub").SetAutoReconnect(false))
	if tok := cl.Connect(); !tok.WaitTimeout(20*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	defer cl.Disconnect(50)
	tok := cl.Subscribe("sabot/T1/#", 2, nil)
	if !tok.WaitTimeout(20*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	if q := tok.(*paho.SubscribeToken).Result()["sabot/T1/#"]; q != 1 {
		t.Errorf("QoS 2 subscription granted QoS %d, want 1", q)
	}
	// How long after SUBACK a retained message comes (the takeover
	// probe's window at startup must cover it).
	var worst time.Duration
	for i := range 5 {
		got := make(chan time.Time, 1)
		tok := cl.Subscribe("sabot/BAC-07/status", 1, func(_ paho.Client, m paho.Message) {
			select {
			case got <- time.Now():
			default:
			}
		})
		if !tok.WaitTimeout(20*time.Second) || tok.Error() != nil {
			t.Fatalf("subscribe: %v", tok.Error())
		}
		acked := time.Now()
		select {
		case at := <-got:
			worst = max(worst, at.Sub(acked))
		case <-time.After(5 * time.Second):
			t.Errorf("subscription %d: no retained status within 5 s", i+1)
		}
		cl.Unsubscribe("sabot/BAC-07/status").WaitTimeout(10 * time.Second)
	}
	t.Logf("MEASURE retained message after SUBACK on NATS: at most %v over 5 subscriptions (probe window at start %v)", worst, probeWindowStart)
	if worst > probeWindowStart/2 {
		t.Errorf("a retained status came %v after SUBACK: the takeover probe's start window %v leaves too little margin", worst, probeWindowStart)
	}
}
