package mqtt

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
)

// An online status carries the outbox backlog when it was built: the
// messages published while no broker answered (7 here) are in the online
// of the connection that then sends them; once they are acknowledged a
// status has none (the key is left out); a last will never has one.
func TestStatusBacklog(t *testing.T) {
	b, err := embedded.StartOpen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := New(testOptions("T1", t.TempDir(), b.URL()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var msgs []Message
	for _, ev := range shoeEvents(t, "T1") {
		for _, m := range ev {
			if !m.Retained {
				msgs = append(msgs, m)
			}
		}
	}
	for i := range 7 {
		if err := p.Publish(ctx, msgs[i]); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var statuses []StatusPayload
	sub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("status-watch"))
	if tok := sub.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	defer sub.Disconnect(50)
	if tok := sub.Subscribe("sabot/T1/status", 1, func(_ paho.Client, m paho.Message) {
		if err := validatePayload(t, TopicStatus, m.Payload()); err != nil {
			t.Errorf("status: %v\n%s", err, m.Payload())
		}
		var s StatusPayload
		json.Unmarshal(m.Payload(), &s)
		mu.Lock()
		statuses = append(statuses, s)
		mu.Unlock()
	}); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	p.Start(ctx)
	defer func() {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		p.Close(cctx)
	}()
	waitFor(t, "the online status", 10*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(statuses) > 0 })
	mu.Lock()
	first := statuses[0]
	mu.Unlock()
	if first.Status != StatusOnline || first.Backlog != 7 {
		t.Fatalf("first status %s with backlog %d, want online with 7", first.Status, first.Backlog)
	}
	waitFor(t, "the backlog sent", 10*time.Second, func() bool { return p.Status().Backlog == 0 })
	p.SetShoe("20261201T100000Z-1", "online") // a status again
	waitFor(t, "a second status", 10*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(statuses) > 1 })
	mu.Lock()
	last := statuses[len(statuses)-1]
	mu.Unlock()
	if last.Status != StatusOnline || last.Backlog != 0 {
		t.Errorf("status after the backlog: %s with backlog %d", last.Status, last.Backlog)
	}
	will, _, _ := p.statusPayload(StatusOffline)
	var w map[string]any
	json.Unmarshal(will, &w)
	if _, ok := w["backlog"]; ok {
		t.Errorf("an offline status has a backlog: %s", will)
	}
}
