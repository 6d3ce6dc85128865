package shoe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sabot-table/sabot/firmware-proto/sim"
)

// refusingHandler records accepted events and refuses (ErrRetryLater) every
// event from the from-th shoe event on while failing is set, as sabotd does
// while its journal cannot be written.
type refusingHandler struct {
	mu       sync.Mutex
	evs      []Event
	from     int  // start refusing when this many shoe events were accepted
	refusals int  // refusals so far
	until    int  // stop refusing after this many refusals
	started  bool // refusing has begun
}

func (h *refusingHandler) handle(ev Event) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	shoeEvent := ev.Kind != KindOnline && ev.Kind != KindOffline
	if shoeEvent && !h.started && len(shoeEvents(h.evs)) == h.from {
		h.started = true
	}
	if shoeEvent && h.started && h.refusals < h.until {
		h.refusals++
		return fmt.Errorf("journal: write: no space left on device: %w", ErrRetryLater)
	}
	h.evs = append(h.evs, ev)
	return nil
}

func (h *refusingHandler) events() []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Event(nil), h.evs...)
}

// A handler that refuses events for a while (its journal is full): the
// sabot protocol does not acknowledge them, the virtual shoe keeps them in
// its ring and sends them again, Run goes on, and once the handler accepts
// again every event of the deal is delivered exactly once and in order.
func TestSabotHandlerRefusesForAWhile(t *testing.T) {
	r := startSim(t, sim.Options{Seed: 5, Decks: 1})
	h := &refusingHandler{from: 10, until: 6}
	opts := sabotOptions(r.link.name)
	opts.Logger = quietLogger()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), h.handle) }()
	defer s.Close()
	select {
	case <-r.done:
		if r.err != nil {
			t.Fatalf("virtual shoe: %v", r.err)
		}
	case err := <-done:
		t.Fatalf("Run stopped on a refused event: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatalf("virtual shoe not done: %+v (refusals %d)", r.shoe.Stats(), h.refusals)
	}
	h.mu.Lock()
	refusals := h.refusals
	h.mu.Unlock()
	if refusals != h.until {
		t.Fatalf("%d refusals, want %d: the refused event was not offered again", refusals, h.until)
	}
	checkExactlyOnce(t, h.events(), r.shoe.Tokens())
	if st := r.shoe.Stats(); st.Retransmits == 0 {
		t.Fatalf("the shoe never retransmitted: %+v", st)
	}
	if st := s.Stats(); st.Refused != uint64(h.until) {
		t.Errorf("Stats.Refused %d, want %d", st.Refused, h.until)
	}
}

// Protocols that cannot resend (lines, beetek) lose a refused event: it is
// counted and logged, and Run goes on with the next one.
func TestLinesHandlerRefuses(t *testing.T) {
	p := newPTY(t)
	s, err := New(Options{Path: p.dev, Protocol: "lines", ReadTimeout: 50 * time.Millisecond, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := make(chan string, 10)
	done := make(chan error, 1)
	go func() {
		done <- s.Run(context.Background(), func(ev Event) error {
			if ev.Kind == KindCard && ev.Card.String() == "3C" {
				return fmt.Errorf("full: %w", ErrRetryLater)
			}
			got <- ev.String()
			return nil
		})
	}()
	time.Sleep(100 * time.Millisecond)
	p.master.Write([]byte("3C\n4C\n"))
	for _, want := range []string{"online", "card 4C"} {
		select {
		case g := <-got:
			if g != want {
				t.Fatalf("got %q, want %q", g, want)
			}
		case err := <-done:
			t.Fatalf("Run stopped: %v", err)
		case <-time.After(5 * time.Second):
			t.Fatalf("no %q", want)
		}
	}
	if st := s.Stats(); st.Refused != 1 {
		t.Errorf("Stats.Refused %d, want 1", st.Refused)
	}
	if err := s.Close(); err != nil || !errors.Is(<-done, nil) {
		t.Fatal(err)
	}
}
