package mqtt

import (
	"testing"
	"time"
)

// A full shoe while the broker is stopped for 5 s in the middle: the
// publisher keeps accepting events (they wait in the outbox), reconnects and
// sends the backlog first, in order, then the rest.
func TestMosquittoFullShoeBrokerRestart(t *testing.T) {
	m := newMosquitto(t, "", "")
	m.start()
	sub := newSubscriber(t, m.url(), "surveillance-1", "sabot/T1", "sabot/T1/#", nil)
	events := shoeEvents(t, "T1")
	p := startPublisher(t, testOptions("T1", t.TempDir(), m.url()))
	half := len(events) / 2
	publishEvents(t, p, events[:half], time.Millisecond)
	m.stop()
	stopped := time.Now()
	// Events keep coming while the broker is down.
	publishEvents(t, p, events[half:half+100], 10*time.Millisecond)
	waitFor(t, "the publisher to notice the broker is down", 10*time.Second, func() bool { return !p.Status().Connected })
	if st := p.Status(); st.Backlog < 100 {
		t.Fatalf("backlog %d while the broker is down, want >= 100", st.Backlog)
	}
	time.Sleep(5*time.Second - time.Since(stopped))
	m.start()
	publishEvents(t, p, events[half+100:], time.Millisecond)
	assertDelivery(t, sub, expectedIDs(t, events), 60*time.Second)
}
