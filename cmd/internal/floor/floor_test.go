//go:build linux

package floor

import (
	"fmt"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/testenv"

	"github.com/sabot-table/sabot/drivers/testenv/mochihook"
)

// The floor's subscriber leaves a broker that refuses one of its
// subscriptions for longer than the refusal bound: with brokers [A, B]
// and A refusing the card filter for ever, it ends up receiving the cards
// published on B. Before, it subscribed once on A, ignored the refusal and
// never received a card. A SUBSCRIBE that A leaves unanswered counts as
// refused (before, the subscriber waited 60 s for A's answer).
func TestFloorSubscriberFailoverOnRefusal(t *testing.T) {
	t.Run("refused", func(t *testing.T) { floorFailoverOnRefusal(t, false) })
	t.Run("unanswered", func(t *testing.T) { floorFailoverOnRefusal(t, true) })
}

// floorFailoverOnRefusal: A refuses the card filter for ever, or (silent)
// leaves it unanswered.
func floorFailoverOnRefusal(t *testing.T, silent bool) {
	ha := mochihook.RefuseSubscribe("sabot/+/card", 1<<30)
	if silent {
		ha = mochihook.RefuseSubscribe("sabot/+/card", 0)
		ha.HoldSubscribe(true)
	}
	a := mochihook.Serve(t, ha)
	b := mochihook.Serve(t, mochihook.RefuseSubscribe("", 0))
	sub := newFloorSub()
	topics := map[string]byte{"sabot/+/card": 1, "sabot/+/coup": 1}
	fc := &floorConn{brokers: []string{a, b}, clientID: "floor-test", topics: topics, refusal: time.Second, sub: sub}
	if err := fc.start(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	defer fc.close()
	if !silent {
		testenv.Wait(t, "A asked for the card filter", 10*time.Second, func() bool { return ha.Asked() >= 1 })
	}
	refused := time.Now()
	pb := testenv.PahoClient(t, b, "table")
	// A card reaches the subscriber only once it has subscribed on B:
	// publish (each with a new id) until one does.
	deadline := time.Now().Add(fc.refusal + 20*time.Second)
	for n := 1; ; n++ {
		testenv.PahoPublish(t, pb, "sabot/T1/card", false, []byte(fmt.Sprintf(`{"id":"T1/s/0/card/%d","time":%q}`, n, time.Now().UTC().Format(time.RFC3339Nano))))
		time.Sleep(100 * time.Millisecond)
		sub.mu.Lock()
		got := sub.cards["T1"]
		sub.mu.Unlock()
		if got > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no card published on B reached the subscriber")
		}
	}
	t.Logf("receiving from B %v after A was first asked (bound %v)", time.Since(refused).Round(time.Millisecond), fc.refusal)
	if silent && ha.Asked() != 0 {
		t.Errorf("A answered %d subscriptions to the card filter while holding them", ha.Asked())
	}
}

// fakeMsg is a received MQTT message for floorSub.handle.
type fakeMsg struct {
	topic   string
	payload string
}

func (m fakeMsg) Duplicate() bool   { return false }
func (m fakeMsg) Qos() byte         { return 1 }
func (m fakeMsg) Retained() bool    { return false }
func (m fakeMsg) Topic() string     { return m.topic }
func (m fakeMsg) MessageID() uint16 { return 0 }
func (m fakeMsg) Payload() []byte   { return []byte(m.payload) }
func (m fakeMsg) Ack()              {}

// The floor subscriber tells gaps from the messages' own sequences: a
// card's in_shoe within its shoe, the coup numbers of a shoe (a void
// fills its number); a copy of an id counts once, as a duplicate.
func TestFloorSubGaps(t *testing.T) {
	s := newFloorSub()
	msg := func(kind, id, shoe string, coup, inShoe int) {
		s.handle(nil, fakeMsg{"sabot/T1/" + kind, fmt.Sprintf(`{"id":%q,"time":"2026-12-01T10:00:00Z","shoe_id":%q,"coup":%d,"in_shoe":%d}`,
			id, shoe, coup, inShoe)})
	}
	for _, n := range []int{1, 2, 4, 7} { // cards 3, 5 and 6 of shoe A never came
		msg("card", fmt.Sprintf("T1/A/1/card/%d", n), "A", 1, n)
	}
	msg("card", "T1/A/1/card/2", "A", 1, 2) // a copy
	msg("coup", "T1/A/1/coup/1", "A", 1, 0)
	msg("void", "T1/A/2/void/1", "A", 2, 0)
	msg("coup", "T1/A/4/coup/1", "A", 4, 0) // coup 3 never came
	msg("card", "T1/B/0/card/1", "B", 0, 1) // the next shoe starts at 1
	if g := s.gaps(); g != 4 {
		t.Errorf("gaps %d, want 4 (cards 3, 5, 6 and coup 3)", g)
	}
	if s.dups != 1 || s.cards["T1"] != 5 || s.coups["T1"] != 2 {
		t.Errorf("duplicates %d, cards %d, coups %d; want 1, 5, 2", s.dups, s.cards["T1"], s.coups["T1"])
	}
}

// statusMsg is a table's status payload (as the pit console's tests make
// it).
func statusMsg(status string, conn uint64, instance, shoeState string, extra string) []byte {
	return []byte(fmt.Sprintf(`{"schema":1,"id":"T/status/x/%d-%s","table":"T","shoe_id":"","time":"2026-12-01T10:00:00Z",`+
		`"status":%q,"version":"0.1.0","shoe_state":%q,"conn":%d,"instance":%q%s}`, conn, status, status, shoeState, conn, instance, extra))
}
