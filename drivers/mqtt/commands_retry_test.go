package mqtt

import (
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"
)

// refuseFilter lets every client in and refuses one filter's
// subscription the first `left` times it is asked for.
type refuseFilter struct {
	mochi.HookBase
	filter string
	mu     sync.Mutex
	left   int
	asked  int
}

func (h *refuseFilter) ID() string { return "refuse-filter" }
func (h *refuseFilter) Provides(b byte) bool {
	return b == mochi.OnConnectAuthenticate || b == mochi.OnACLCheck
}
func (h *refuseFilter) OnConnectAuthenticate(*mochi.Client, packets.Packet) bool { return true }
func (h *refuseFilter) OnACLCheck(_ *mochi.Client, topic string, write bool) bool {
	if write || topic != h.filter {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked++
	if h.left > 0 {
		h.left--
		return false
	}
	return true
}

// A command subscription the broker refuses (a SUBACK failure: NATS
// Server answers so while its JetStream elects new leaders after a node's
// death) is asked for again until granted: commands work afterwards.
// Before, the daemon logged the refusal once and took no command on that
// connection.
func TestCommandSubscriptionRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv := mochi.New(&mochi.Options{})
	h := &refuseFilter{filter: "sabot/T1/cmd/+", left: 2}
	if err := srv.AddHook(h, nil); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddListener(listeners.NewTCP(listeners.Config{ID: "t", Address: addr})); err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := "tcp://" + addr
	o := testOptions("T1", t.TempDir(), url)
	o.Commands = true
	var mu sync.Mutex
	var got []Command
	o.OnCommand = func(c Command) error {
		mu.Lock()
		got = append(got, c)
		mu.Unlock()
		return nil
	}
	startPublisher(t, o)
	waitFor(t, "the third subscription", 20*time.Second, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.asked >= 3 })
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
}
