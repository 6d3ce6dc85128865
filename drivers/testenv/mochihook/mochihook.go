// Package mochihook runs an in-process mochi-mqtt broker for tests, with
// hooks that make it misbehave as real brokers do: RefuseSubscribe
// refuses a subscription in its SUBACK (as NATS Server answers while its
// JetStream elects new leaders after a node's death).
//
//	h := mochihook.RefuseSubscribe("sabot/+/state", 2) // refused twice, then granted
//	url := mochihook.Serve(t, h)                       // tcp://127.0.0.1:<port>
//	... h.Asked() ...                                  // subscriptions asked for so far
package mochihook

import (
	"fmt"
	"sync"
	"testing"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// Refuse is a hook that lets every client in (no authentication) and
// refuses one filter's subscription the first times it is asked for;
// every other subscription and every publish is allowed. It is safe for
// concurrent use.
type Refuse struct {
	mochi.HookBase
	filter string

	mu    sync.Mutex
	left  int // refusals still to make
	asked int // subscriptions to filter asked for
}

// RefuseSubscribe returns a hook refusing a subscription to filter (the
// filter exactly as the client sends it, wildcards and all) the first
// times times it is asked for and granting it afterwards.
func RefuseSubscribe(filter string, times int) *Refuse {
	return &Refuse{filter: filter, left: times}
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
	return b == mochi.OnConnectAuthenticate || b == mochi.OnACLCheck
}

// OnConnectAuthenticate lets every client in.
func (h *Refuse) OnConnectAuthenticate(*mochi.Client, packets.Packet) bool { return true }

// OnACLCheck refuses reading topic while refusals are left, when topic is
// the filter; it allows everything else.
func (h *Refuse) OnACLCheck(_ *mochi.Client, topic string, write bool) bool {
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
