package mqtt

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
)

// At 80% of the backlog limit the publisher reports it to OnBacklog (and
// queues no alert of its own); at the limit it refuses messages with
// ErrBacklogFull; once the broker has taken the backlog it reports the
// backlog cleared.
func TestBacklogAlertAndLimit(t *testing.T) {
	var mu sync.Mutex
	var calls []BacklogAlert
	o := testOptions("T1", t.TempDir())
	o.MaxBacklog = 10
	o.OnBacklog = func(a BacklogAlert) {
		mu.Lock()
		calls = append(calls, a)
		mu.Unlock()
	}
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	events := shoeEvents(t, "T1")
	var msgs []Message
	for _, ev := range events {
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
	mu.Lock()
	if len(calls) != 0 {
		t.Fatalf("alert below 80%%: %+v", calls)
	}
	mu.Unlock()
	if err := p.Publish(ctx, msgs[7]); err != nil { // 8 of 10
		t.Fatal(err)
	}
	mu.Lock()
	if len(calls) != 1 || !calls[0].Raised || calls[0].Queued != 8 || calls[0].Max != 10 {
		t.Fatalf("OnBacklog calls %+v", calls)
	}
	mu.Unlock()
	// The publisher queues no alert of its own (the daemon's table raises
	// it): 8 queued, two more fit, then the limit.
	if st := p.Status(); st.Backlog != 8 {
		t.Fatalf("backlog %d after the alert level, want 8 (no alert message of the publisher's own)", st.Backlog)
	}
	for _, m := range msgs[8:10] {
		if err := p.Publish(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	err = p.Publish(ctx, msgs[10])
	if !errors.Is(err, ErrBacklogFull) {
		t.Fatalf("at the limit: err = %v", err)
	}
	if st := p.Status(); st.Backlog != 10 || st.MaxBacklog != 10 {
		t.Fatalf("status %+v", st)
	}
	p.Close(ctx)

	// A restart with a broker delivers the backlog and clears the alert.
	b, err := embedded.StartOpen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sub := newSubscriber(t, b.URL(), "sub", "sabot/T1/#", nil)
	o.Brokers = []string{b.URL()}
	p = startPublisher(t, o)
	fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.Flush(fctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the alert cleared", 5*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		// Raised again at the restart (for the daemon), then cleared.
		return len(calls) == 3 && calls[1].Raised && !calls[2].Raised
	})
	want := []string{}
	for _, m := range msgs[:10] {
		want = append(want, payloadID(t, m.Payload))
	}
	got := sub.waitIDs(t, want, 10*time.Second)
	if len(got) != 10 {
		t.Fatalf("delivered %v", got)
	}
}

// Close returns promptly even while a connection attempt hangs (a broker
// that accepts TCP but never answers), keeping the backlog for next time.
func TestCloseIsPromptWhileConnecting(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it open, say nothing
		}
	}()
	dir := t.TempDir()
	o := testOptions("T1", dir, "tcp://"+l.Addr().String())
	o.ConnectTimeout, o.AckTimeout = 20*time.Second, 20*time.Second
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	p.Start(context.Background())
	if err := p.Publish(context.Background(), Message{Topic: TopicCoup, Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Close took %v", d)
	}
	box, err := openOutbox(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer box.close()
	if box.Len() != 1 {
		t.Fatalf("backlog after Close = %d, want the 1 undelivered message", box.Len())
	}
}

// Publish refuses invalid messages whole: nothing of the call is stored.
func TestPublishRefusesInvalidMessages(t *testing.T) {
	p, err := New(testOptions("T1", t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	ok := Message{Topic: TopicCoup, Payload: []byte(`{}`)}
	for _, c := range []struct {
		m    Message
		want string
	}{
		{Message{Topic: TopicCoup, Payload: make([]byte, MaxPayload)}, "4096 bytes, limit 4096"},
		{Message{Topic: "", Payload: []byte(`{}`)}, `topic ""`},
		{Message{Topic: "alert/#", Payload: []byte(`{}`)}, "wildcards"},
		{Message{Topic: "/coup", Payload: []byte(`{}`)}, "relative"},
	} {
		err := p.Publish(context.Background(), ok, c.m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.m.Topic, err, c.want)
		}
	}
	if n := p.Status().Backlog; n != 0 {
		t.Fatalf("backlog %d after refused calls", n)
	}
}
