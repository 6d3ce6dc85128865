package natscluster

import (
	"fmt"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

func connect(t *testing.T, url, id string) paho.Client {
	t.Helper()
	c := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID(id).SetAutoReconnect(false).SetConnectTimeout(5 * time.Second))
	if tok := c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("connect %s to %s: %v", id, url, tok.Error())
	}
	t.Cleanup(func() { c.Disconnect(50) })
	return c
}

// retained reads the retained message of topic through url: what a new
// subscription gets within 5 s, or "".
func retained(t *testing.T, url, topic string) string {
	t.Helper()
	c := connect(t, url, fmt.Sprintf("reader-%d", time.Now().UnixNano()))
	defer c.Disconnect(50)
	got := make(chan string, 1)
	tok := c.Subscribe(topic, 1, func(_ paho.Client, m paho.Message) {
		select {
		case got <- string(m.Payload()):
		default:
		}
	})
	if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	select {
	case s := <-got:
		return s
	case <-time.After(5 * time.Second):
		return ""
	}
}

// retainedEventually reads the retained message with a new subscription
// every time, for up to 30 s, until it is there: nats-server 2.9 loads a
// retained message from its stream when a subscription is made, and skips
// it if that JetStream request times out (as it can while the cluster
// recovers from a lost node): drivers/mqtt/README.md tells consumers to
// subscribe again when no retained message came. It returns the message
// and the number of subscriptions made.
func retainedEventually(t *testing.T, url, topic, want string) (string, int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for n := 1; ; n++ {
		got := retained(t, url, topic)
		if got == want || time.Now().After(deadline) {
			return got, n
		}
	}
}

// The cluster comes up with a meta leader; a retained message published on
// one node is read on the others, and on that node after it was SIGKILLed
// and started again on the same ports and store (the message is in the
// replicated $MQTT_rmsgs stream); the client ids connected to a node are
// listed.
func TestClusterRetainedSurvivesNodeKill(t *testing.T) {
	c := Start(t, Options{})
	leader := c.Leader()
	if c.Len() != 3 || leader < 0 {
		t.Fatalf("%d nodes, leader %d", c.Len(), leader)
	}
	// The victim is not the JetStream meta leader: losing the leader adds
	// an election (measured in cmd/sabotd's TestNATSClusterNodeCrash,
	// which kills whichever node the daemons use), and this test of the
	// harness stays short.
	v := (leader + 1) % 3
	urls := c.URLs()
	p := connect(t, urls[v], "harness-pub")
	if tok := p.Publish("sabot/H1/state", 1, true, "v1"); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publish: %v", tok.Error())
	}
	ids, err := c.Node(v).MQTTClients()
	if err != nil || len(ids) != 1 || ids[0] != "harness-pub" {
		t.Fatalf("%s's MQTT clients %v, %v; want [harness-pub]", c.Node(v).Name, ids, err)
	}
	for i, u := range urls {
		if i == v {
			continue
		}
		if got := retained(t, u, "sabot/H1/state"); got != "v1" {
			t.Fatalf("retained via %s: %q, want v1", u, got)
		}
	}
	c.Node(v).Kill()
	if c.Node(v).Running() {
		t.Fatal("the node still runs after Kill")
	}
	// Without the node, the retained message is still in the replicated
	// stream: the survivors have it once JetStream has new leaders (10–50
	// s on the loaded test machine, so not waited for here: cmd/sabotd's
	// TestNATSClusterNodeCrash runs daemons through that).
	time.Sleep(time.Second)
	c.Node(v).Start()
	started := time.Now()
	c.WaitMQTT(t)
	t.Logf("MEASURE MQTT through all three nodes %v after the restart of the killed node", time.Since(started).Round(time.Millisecond))
	if got, n := retainedEventually(t, urls[v], "sabot/H1/state", "v1"); got != "v1" {
		t.Fatalf("retained via the restarted node: %q after %d subscriptions, want v1", got, n)
	}
	if c.NodeOf(urls[2]) != 2 || c.NodeOf("tcp://127.0.0.1:1") != -1 {
		t.Fatalf("NodeOf wrong")
	}
}
