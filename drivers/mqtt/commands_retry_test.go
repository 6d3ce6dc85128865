package mqtt

import (
	"fmt"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/testenv/mochihook"
)

// A command subscription the broker refuses (a SUBACK failure: NATS
// Server answers so while its JetStream elects new leaders after a node's
// death) is asked for again until granted: commands work afterwards.
// Before, the daemon logged the refusal once and took no command on that
// connection. With a single broker it asks on the same connection however
// long the refusal lasts (here longer than RefusalTimeout): there is no
// other broker to move to.
func TestCommandSubscriptionRetried(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	h := mochihook.RefuseSubscribe("sabot/T1/cmd/+", 2)
	url := mochihook.Serve(t, h)
	o := testOptions("T1", t.TempDir(), url)
	o.Commands = true
	o.RefusalTimeout = time.Second
	var mu sync.Mutex
	var got []Command
	o.OnCommand = func(c Command) error {
		mu.Lock()
		got = append(got, c)
		mu.Unlock()
		return nil
	}
	startPublisher(t, o)
	waitFor(t, "the third subscription", 20*time.Second, func() bool { return h.Asked() >= 3 })
	c := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID("pit"))
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	defer c.Disconnect(50)
	for n := 1; ; n++ {
		if tok := c.Publish("sabot/T1/cmd/ack", 1, false, fmt.Sprintf(`{"request_id":"r-%d","operator":"alice"}`, n)); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		k := len(got)
		mu.Unlock()
		if k > 0 {
			break
		}
		if n > 50 {
			t.Fatal("no command reached the publisher after the subscription was granted")
		}
	}
	if n := h.Connects("sabotd-T1"); n != 1 {
		t.Errorf("connected %d times, want 1: one broker is not left for refusing", n)
	}
}
