package mqtt

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
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
