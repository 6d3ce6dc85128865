package mqtt

import (
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
)

// Wildcard subscriptions racing retained publishes and retained wills on
// the embedded broker are race-free. Under -race this failed (mochi-mqtt
// v2.7.9's TopicsIndex.scanMessages reads a topic's retainPath unlocked
// while RetainMessage writes it; seen in CI as TestDaemonDealer failing)
// until the broker serialised the two (retainGuard).
func TestEmbeddedBrokerRetainWhileSubscribing(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	b, err := embedded.StartOpen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	connect := func(id string) paho.Client {
		o := paho.NewClientOptions().AddBroker(b.URL()).SetClientID(id).SetAutoReconnect(false).SetConnectTimeout(5 * time.Second)
		c := paho.NewClient(o)
		if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatalf("connect %s: %v", id, tok.Error())
		}
		return c
	}
	pub := connect("pub")
	defer pub.Disconnect(100)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // retained publishes on new and old topics
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			pub.Publish(fmt.Sprintf("sabot/T%d/state", i%50), 1, true, `{"id":"x"}`).WaitTimeout(time.Second)
		}
	}()
	go func() { // clients whose retained wills fire as their connections drop
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			willClient(t, b.Addr(), fmt.Sprintf("w%d", i%20), fmt.Sprintf("sabot/W%d/state", i%20), `{"status":"offline"}`)
		}
	}()
	got := 0
	deadline := time.Now().Add(3 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		c := connect(fmt.Sprintf("sub%d", i))
		var mu sync.Mutex
		n := 0
		tok := c.Subscribe("sabot/+/state", 1, func(paho.Client, paho.Message) { mu.Lock(); n++; mu.Unlock() })
		if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatalf("subscribe: %v", tok.Error())
		}
		c.Subscribe("sabot/#", 1, nil).WaitTimeout(5 * time.Second)
		c.Disconnect(0)
		mu.Lock()
		got += n
		mu.Unlock()
	}
	close(stop)
	wg.Wait()
	if got == 0 {
		t.Error("no retained state reached a subscriber")
	}
}

// willClient connects to addr as id with a retained QoS 1 will (an MQTT
// 3.1.1 CONNECT written by hand), reads the CONNACK and drops the
// connection without a DISCONNECT, so the broker publishes the will.
func willClient(t *testing.T, addr, id, topic, msg string) {
	str := func(s string) []byte { return append([]byte{byte(len(s) >> 8), byte(len(s))}, s...) }
	body := append([]byte{0, 4, 'M', 'Q', 'T', 'T', 4, 0x2e, 0, 30}, str(id)...) // will, QoS 1, retain, clean
	body = append(body, str(topic)...)
	body = append(body, str(msg)...)
	if len(body) > 127 {
		t.Fatalf("CONNECT of %d bytes: one length byte only", len(body))
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return // the broker is closing
	}
	defer c.Close()
	c.Write(append([]byte{0x10, byte(len(body))}, body...))
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	c.Read(make([]byte, 4))
}
