// Package sessionsub is a test consumer with a persistent MQTT session, as
// drivers/mqtt/README.md tells integrators to run one: a fixed client id,
// clean session off, one QoS 1 subscription made once (its SUBACK awaited
// before Start returns). It never subscribes again: after a reconnect it
// gets exactly what the broker kept in the session, so a broker that lost
// the session cannot pass unnoticed (a subscriber that subscribed again
// would get the messages published after its new subscription, and miss,
// or not, those published before it: a test passing by luck). It
// reconnects by itself after a lost connection, unless held, and records
// for each reconnect whether the broker still had the session (CONNACK's
// session-present flag); CheckSessions fails the test on a lost one.
//
//	s := sessionsub.Start(t, sessionsub.Options{Broker: url, ClientID: "pit-1", Filter: "sabot/#", Handler: h})
//	s.Hold() ... restart the broker ... s.Release(t)
//	s.CheckSessions(t)
package sessionsub

import (
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// Timeouts (generous: the tests share a loaded machine).
const (
	// ConnectTimeout is the client's connect timeout (Options.Client may
	// change it).
	ConnectTimeout = 5 * time.Second
	// startWait bounds the first connect and the subscription's SUBACK.
	startWait = 10 * time.Second
	// reconnectEvery is the pause between reconnect attempts.
	reconnectEvery = 100 * time.Millisecond
	// releaseWait bounds Release's wait for the reconnect.
	releaseWait = 30 * time.Second
)

// Options configure a subscriber.
type Options struct {
	Broker   string // the broker's URL
	ClientID string
	Filter   string // the one subscription's filter, at QoS 1
	// Handler takes every message: the subscription's and those of the
	// session that arrive before any subscription is made.
	Handler paho.MessageHandler
	// Client, when not nil, changes the client's options after the
	// subscriber's own (keep-alive, timeouts, TLS, credentials); it must
	// leave auto-reconnect off and the connection-lost handler alone.
	Client func(*paho.ClientOptions)
}

// Subscriber is a consumer with a persistent session (see the package
// comment). Its methods are safe for concurrent use.
type Subscriber struct {
	// C is the client, connected and subscribed by Start, to publish
	// through as well.
	C    paho.Client
	done chan struct{} // closed at the test's end: stop reconnecting

	mu      sync.Mutex
	held    bool
	heldAt  int    // len(resumed) when held
	resumed []bool // per reconnect: the broker still had the session
}

// Start connects a subscriber and subscribes it; it disconnects when the
// test ends. A connect or subscription that fails or is not done within
// 10 s fails the test.
func Start(t testing.TB, o Options) *Subscriber {
	t.Helper()
	s := &Subscriber{done: make(chan struct{})}
	// Auto-reconnect off: paho's does not tell whether the session was
	// still there; reconnectLoop does.
	co := paho.NewClientOptions().AddBroker(o.Broker).SetClientID(o.ClientID).SetCleanSession(false).
		SetAutoReconnect(false).SetConnectTimeout(ConnectTimeout)
	co.SetDefaultPublishHandler(o.Handler) // and the subscription's (its own handler is nil)
	co.SetConnectionLostHandler(func(paho.Client, error) { go s.reconnectLoop() })
	if o.Client != nil {
		o.Client(co)
	}
	s.C = paho.NewClient(co)
	if tok := s.C.Connect(); !tok.WaitTimeout(startWait) || tok.Error() != nil {
		t.Fatalf("sessionsub: %s: connect: %v", o.ClientID, tok.Error())
	}
	if tok := s.C.Subscribe(o.Filter, 1, nil); !tok.WaitTimeout(startWait) || tok.Error() != nil {
		t.Fatalf("sessionsub: %s: subscribe %s: %v", o.ClientID, o.Filter, tok.Error())
	}
	t.Cleanup(func() {
		close(s.done)
		s.C.Disconnect(50)
	})
	return s
}

// reconnectLoop connects again every reconnectEvery until it succeeds
// (waiting while held) and records whether the broker had kept the
// session.
func (s *Subscriber) reconnectLoop() {
	for {
		select {
		case <-s.done:
			return
		case <-time.After(reconnectEvery):
		}
		s.mu.Lock()
		held := s.held
		s.mu.Unlock()
		if held {
			continue
		}
		tok := s.C.Connect()
		select {
		case <-tok.Done(): // bounded by the connect timeout
		case <-s.done:
			return
		}
		if tok.Error() != nil {
			continue
		}
		s.mu.Lock()
		s.resumed = append(s.resumed, tok.(*paho.ConnectToken).SessionPresent())
		s.mu.Unlock()
		return
	}
}

// Hold keeps the subscriber away from the broker once its connection is
// lost, until Release.
func (s *Subscriber) Hold() {
	s.mu.Lock()
	s.held, s.heldAt = true, len(s.resumed)
	s.mu.Unlock()
}

// Release lets it reconnect and waits (at most 30 s) until it has: a
// connection lost and made again since Hold.
func (s *Subscriber) Release(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	s.held = false
	s.mu.Unlock()
	for deadline := time.Now().Add(releaseWait); ; time.Sleep(20 * time.Millisecond) {
		s.mu.Lock()
		back := len(s.resumed) > s.heldAt
		s.mu.Unlock()
		if back {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessionsub: the subscriber did not reconnect within %v", releaseWait)
		}
	}
}

// CheckSessions fails the test (Errorf) for each reconnect that found the
// session gone, and returns how many reconnects there were.
func (s *Subscriber) CheckSessions(t testing.TB) int {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, present := range s.resumed {
		if !present {
			t.Errorf("reconnect %d of the subscriber: the broker no longer had its session (what was queued for it is lost)", i+1)
		}
	}
	return len(s.resumed)
}
