// Package mochihook runs an in-process mochi-mqtt broker for tests, with
// hooks that make it misbehave as real brokers do: RefuseSubscribe
// refuses a subscription in its SUBACK (as NATS Server answers while its
// JetStream elects new leaders after a node's death), and
// WithholdPubacks takes QoS 1 publishes without ever acknowledging them,
// and HoldSubscribe leaves a SUBSCRIBE unanswered (as a loaded NATS node
// recovering from another's death did for 18 s).
//
//	h := mochihook.RefuseSubscribe("sabot/+/state", 2) // refused twice, then granted
//	url := mochihook.Serve(t, h)                       // tcp://127.0.0.1:<port>
//	... h.Asked() ...                                  // subscriptions asked for so far
//	h.WithholdPubacks(true)                            // QoS 1 publishes dropped, no PUBACK
//	h.HoldSubscribe(true)                              // SUBSCRIBEs to the filter unanswered
//	... h.Connects("sabotd-T1") ...                    // connections made with a client id
package mochihook

import (
	"fmt"
	"sync"
	"testing"
	"time"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// Refuse is a hook that lets every client in (no authentication) and
// refuses one filter's subscription the first times it is asked for;
// every other subscription is allowed, and every publish unless
// WithholdPubacks is on. It is safe for concurrent use.
type Refuse struct {
	mochi.HookBase
	filter string

	mu       sync.Mutex
	left     int            // refusals still to make
	asked    int            // subscriptions to filter asked for
	withhold bool           // WithholdPubacks
	withheld int            // publishes dropped without a PUBACK
	hold     bool           // HoldSubscribe
	connects map[string]int // connections by client id
}

// RefuseSubscribe returns a hook refusing a subscription to filter (the
// filter exactly as the client sends it, wildcards and all) the first
// times times it is asked for and granting it afterwards.
func RefuseSubscribe(filter string, times int) *Refuse {
	return &Refuse{filter: filter, left: times, connects: map[string]int{}}
}

// WithholdPubacks, while on, makes the broker drop every QoS 1 or 2
// publish it receives without acknowledging it (no PUBACK, no delivery),
// as a node does that takes a publish and never stores it.
func (h *Refuse) WithholdPubacks(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.withhold = on
}

// HoldSubscribe, while on, leaves every SUBSCRIBE that asks for the
// filter unanswered (no SUBACK) until the client's connection ends or it
// is turned off; the client's later packets wait behind it, as they do on
// a broker that is slow to answer. It does not count as asked until it
// is answered.
func (h *Refuse) HoldSubscribe(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hold = on
}

// holding reports whether HoldSubscribe is on.
func (h *Refuse) holding() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hold
}

// Withheld is how many publishes were dropped without a PUBACK.
func (h *Refuse) Withheld() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.withheld
}

// Connects is how many connections were made with clientID.
func (h *Refuse) Connects(clientID string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.connects[clientID]
}

// Asked is how many times the filter was asked for, refused or not.
func (h *Refuse) Asked() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.asked
}

// ID names the hook to the broker.
func (h *Refuse) ID() string { return "refuse-subscribe" }

// Provides tells the broker which events the hook takes.
func (h *Refuse) Provides(b byte) bool {
	return b == mochi.OnConnectAuthenticate || b == mochi.OnACLCheck || b == mochi.OnConnect || b == mochi.OnPublish
}

// OnConnectAuthenticate lets every client in.
func (h *Refuse) OnConnectAuthenticate(*mochi.Client, packets.Packet) bool { return true }

// OnConnect counts the connection under its client id.
func (h *Refuse) OnConnect(cl *mochi.Client, _ packets.Packet) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.connects[cl.ID]++
	return nil
}

// OnPublish drops a QoS 1 or 2 publish without a PUBACK while
// WithholdPubacks is on, and passes every other publish on.
func (h *Refuse) OnPublish(cl *mochi.Client, pk packets.Packet) (packets.Packet, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.withhold && pk.FixedHeader.Qos > 0 && !cl.Net.Inline {
		h.withheld++
		return pk, packets.ErrRejectPacket
	}
	return pk, nil
}

// OnACLCheck refuses reading topic while refusals are left, when topic is
// the filter, after holding it while HoldSubscribe is on; it allows
// everything else.
func (h *Refuse) OnACLCheck(cl *mochi.Client, topic string, write bool) bool {
	if write || topic != h.filter {
		return true
	}
	for h.holding() && !cl.Closed() {
		time.Sleep(20 * time.Millisecond)
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

// Serve runs a mochi broker with hooks on a free loopback port until the
// test ends and returns its URL (tcp://127.0.0.1:PORT). With no hook that
// authenticates, mochi lets no client in.
func Serve(t testing.TB, hooks ...mochi.Hook) string {
	t.Helper()
	srv := mochi.New(&mochi.Options{})
	for _, h := range hooks {
		if err := srv.AddHook(h, nil); err != nil {
			t.Fatal(err)
		}
	}
	addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	if err := srv.AddListener(listeners.NewTCP(listeners.Config{ID: "t", Address: addr})); err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return "tcp://" + addr
}
