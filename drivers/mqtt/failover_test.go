package mqtt

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/testenv/mochihook"
)

// cutProxy forwards TCP connections to target; cut closes the ones open
// (the listener stays: the broker looks up again).
type cutProxy struct {
	l     net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{l: l}
	t.Cleanup(func() { l.Close(); p.cut() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go func() { io.Copy(u, c); u.Close() }()
			go func() { io.Copy(c, u); c.Close() }()
		}
	}()
	return p
}

func (p *cutProxy) url() string { return "tcp://" + p.l.Addr().String() }

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// After losing its connection the publisher tries the next broker of the
// list first, not the one it lost (which may have gone silent, costing a
// connect timeout at every reconnection): with brokers [A, B] and A's
// connection cut while A still answers, it reconnects to B; cut B's, and it
// comes back to A. Nothing published meanwhile is lost.
func TestFailoverTriesNextBrokerFirst(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	m := newMosquitto(t, "", "")
	m.Start()
	a, b := newCutProxy(t, m.URL[len("tcp://"):]), newCutProxy(t, m.URL[len("tcp://"):])
	sub := newSubscriber(t, m.URL, "failover-1", "sabot/T1/#", nil)
	o := testOptions("T1", t.TempDir(), a.url(), b.url())
	p := startPublisher(t, o)
	waitFor(t, "connected to A", 10*time.Second, func() bool { st := p.Status(); return st.Connected && st.Broker == a.url() })
	events := shoeEvents(t, "T1")
	publishEvents(t, p, events[:20], 0)
	a.cut()
	waitFor(t, "connected to B", 20*time.Second, func() bool { st := p.Status(); return st.Connected && st.Broker == b.url() })
	publishEvents(t, p, events[20:40], 0)
	b.cut()
	waitFor(t, "connected to A again", 20*time.Second, func() bool { st := p.Status(); return st.Connected && st.Broker == a.url() })
	publishEvents(t, p, events[40:60], 0)
	assertDelivery(t, sub, expectedIDs(t, events[:60]), 30*time.Second)
}

// A broker that refuses the command subscription for longer than
// RefusalTimeout is left for the next one of the list: with brokers
// [A, B], A refusing cmd/+ for ever, the publisher ends up on B, where
// commands work. Before, it asked A again on the same connection for ever.
func TestFailoverWhenCommandsRefused(t *testing.T) {
	ha := mochihook.RefuseSubscribe("sabot/T1/cmd/+", 1<<30)
	a := mochihook.Serve(t, ha)
	hb := mochihook.RefuseSubscribe("", 0)
	b := mochihook.Serve(t, hb)
	o := testOptions("T1", t.TempDir(), a, b)
	o.Commands = true
	o.RefusalTimeout = 2 * time.Second
	received := recordCommands(&o)
	p := startPublisher(t, o)
	waitFor(t, "A asked for the command subscription", 10*time.Second, func() bool { return ha.Asked() >= 1 })
	refused := time.Now()
	waitFor(t, "connected to B", o.RefusalTimeout+20*time.Second, func() bool { st := p.Status(); return st.Connected && st.Broker == b })
	t.Logf("on B %v after A was first asked (bound %v)", time.Since(refused).Round(time.Millisecond), o.RefusalTimeout)
	// A command reaches the daemon only once it has subscribed on B.
	ackUntilReceived(t, b, 20*time.Second, received)
	if n := ha.Connects("sabotd-T1"); n != 1 {
		t.Errorf("connected to A %d times, want 1", n)
	}
	// On B it looked for another daemon first (the takeover probe), then
	// connected once.
	if p, n := hb.Connects("sabotd-T1-probe"), hb.Connects("sabotd-T1"); p != 1 || n != 1 {
		t.Errorf("on B: %d probes and %d connections, want 1 and 1", p, n)
	}
}

// A broker that takes messages without acknowledging them (no PUBACK)
// for longer than RefusalTimeout is left for the next one, and every
// message of the outbox is delivered there, in order: nothing the first
// broker swallowed is lost. Before, the publisher sent them to A again
// on the same connection for ever.
func TestFailoverWhenPubacksWithheld(t *testing.T) {
	ha := mochihook.RefuseSubscribe("", 0)
	ha.WithholdPubacks(true)
	a := mochihook.Serve(t, ha)
	b := mochihook.Serve(t, mochihook.RefuseSubscribe("", 0))
	sub := newSubscriber(t, b, "failover-puback", "sabot/T1/#", nil)
	o := testOptions("T1", t.TempDir(), a, b)
	o.RefusalTimeout = 2 * time.Second
	p := startPublisher(t, o)
	events := shoeEvents(t, "T1")
	publishEvents(t, p, events[:20], 0)
	waitFor(t, "A withheld a PUBACK", 10*time.Second, func() bool { return ha.Withheld() >= 1 })
	refused := time.Now()
	waitFor(t, "connected to B", o.RefusalTimeout+o.AckTimeout+20*time.Second, func() bool { st := p.Status(); return st.Connected && st.Broker == b })
	t.Logf("on B %v after A first withheld a PUBACK (bound %v); A withheld %d", time.Since(refused).Round(time.Millisecond), o.RefusalTimeout, ha.Withheld())
	publishEvents(t, p, events[20:40], 0)
	assertDelivery(t, sub, expectedIDs(t, events[:40]), 30*time.Second)
	waitFor(t, "the outbox empty", 10*time.Second, func() bool { return p.Status().Backlog == 0 })
}
