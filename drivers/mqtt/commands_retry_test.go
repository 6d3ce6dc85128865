package mqtt

import (
	"fmt"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/testenv"
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
	received := recordCommands(&o)
	startPublisher(t, o)
	waitFor(t, "the third subscription", 20*time.Second, func() bool { return h.Asked() >= 3 })
	ackUntilReceived(t, url, 5*time.Second, received)
	if n := h.Connects("sabotd-T1"); n != 1 {
		t.Errorf("connected %d times, want 1: one broker is not left for refusing", n)
	}
}

// ackUntilReceived connects to url as the pit and publishes ack commands
// to table T1, each with a new request id, every 100 ms until received
// reports that one reached the publisher: a command reaches it only once
// its subscription is granted. It fails the test after timeout (scaled by
// testenv.Deadline).
func ackUntilReceived(t *testing.T, url string, timeout time.Duration, received func() bool) {
	t.Helper()
	c := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID("pit"))
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	defer c.Disconnect(50)
	deadline := time.Now().Add(testenv.Deadline(timeout))
	for n := 1; ; n++ {
		if tok := c.Publish("sabot/T1/cmd/ack", 1, false, fmt.Sprintf(`{"request_id":"r-%d","operator":"alice"}`, n)); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
		time.Sleep(100 * time.Millisecond)
		if received() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no command reached the publisher through %s in %v", url, timeout)
		}
	}
}

// recordCommands sets o.OnCommand to accept and record every command, and
// returns a function that reports whether one has been received.
func recordCommands(o *Options) func() bool {
	var mu sync.Mutex
	n := 0
	o.OnCommand = func(Command) error {
		mu.Lock()
		n++
		mu.Unlock()
		return nil
	}
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		return n > 0
	}
}
