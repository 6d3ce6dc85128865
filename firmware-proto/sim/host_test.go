package sim_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau/card"

	fwproto "github.com/sabot-table/sabot/firmware-proto"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// pipeLink is a sim.Link whose every Open makes a new in-memory cable; the
// host end goes to hostEnds.
type pipeLink struct {
	hostEnds chan net.Conn
	opens    int
}

func newPipeLink() *pipeLink { return &pipeLink{hostEnds: make(chan net.Conn, 16)} }

func (l *pipeLink) Open(ctx context.Context) (io.ReadWriteCloser, error) {
	shoe, host := net.Pipe()
	l.opens++
	l.hostEnds <- host
	return shoe, nil
}

// testHost is a minimal host: it acknowledges everything per
// fwproto.Receiver and records delivered events.
type testHost struct {
	mu        sync.Mutex
	rcv       fwproto.Receiver
	delivered []fwproto.Frame
	damaged   int
	lost      uint32
	conns     int
	onEvent   func(f fwproto.Frame, enc *fwproto.Encoder) // optional, called with the delivered event
}

// serve runs the host over each connection the link opens until ctx ends.
func (h *testHost) serve(ctx context.Context, ends <-chan net.Conn) {
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-ends:
			h.mu.Lock()
			h.conns++
			h.mu.Unlock()
			go func() { <-ctx.Done(); c.Close() }()
			h.conn(c)
		}
	}
}

func (h *testHost) conn(c io.ReadWriter) {
	d := fwproto.NewDecoder(c)
	enc := fwproto.NewEncoder(c)
	for {
		f, err := d.Decode()
		var v fwproto.Verdict
		if err != nil {
			if !fwproto.IsFrameError(err) {
				return // hangup: wait for the next connection
			}
			h.mu.Lock()
			h.damaged++
			v = h.rcv.Damaged(err)
			h.mu.Unlock()
		} else {
			h.mu.Lock()
			v = h.rcv.Receive(f)
			if v.Action == fwproto.Deliver {
				h.delivered = append(h.delivered, fwproto.Clone(f))
				h.lost += v.Lost
			}
			h.mu.Unlock()
		}
		if v.Reply.Msg != nil {
			if enc.Encode(v.Reply) != nil {
				return
			}
		}
		if err == nil && v.Action == fwproto.Deliver && h.onEvent != nil {
			h.onEvent(f, enc)
		}
	}
}

func (h *testHost) events() []fwproto.Frame {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]fwproto.Frame(nil), h.delivered...)
}

func wire(t *testing.T, f fwproto.Frame) []byte {
	t.Helper()
	b, err := fwproto.AppendFrame(nil, f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runSim plays opts against a testHost over a pipeLink and returns both.
func runSim(t *testing.T, opts sim.Options, h *testHost, timeout time.Duration) (*sim.Shoe, *testHost, *pipeLink) {
	t.Helper()
	if opts.BootID == 0 {
		// A different boot id each run, as the shoe would pick (the
		// bytes, and so the faults' effects, differ with it), logged so
		// that a failing run can be replayed with Options.BootID.
		opts.BootID = mrand.Uint32() | 1
	}
	t.Logf("boot id %#08x", opts.BootID)
	s, err := sim.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if h == nil {
		h = &testHost{}
	}
	link := newPipeLink()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	hostCtx, stopHost := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); h.serve(hostCtx, link.hostEnds) }()
	err = s.Run(ctx, link)
	stopHost()
	wg.Wait()
	if err != nil {
		t.Fatalf("Run: %v (stats %+v)", err, s.Stats())
	}
	return s, h, link
}

// checkExactlyOnce asserts the host delivered exactly the events the shoe
// created, in order, each once, byte for byte.
func checkExactlyOnce(t *testing.T, s *sim.Shoe, h *testHost) {
	t.Helper()
	want := s.Events()
	got := h.events()
	if len(got) != len(want) {
		t.Fatalf("host delivered %d events, shoe created %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(wire(t, got[i]), wire(t, want[i].Frame)) {
			t.Fatalf("event %d: delivered %v, created %v", i, got[i], want[i].Frame)
		}
	}
}

func TestTranscriptNoFaults(t *testing.T) {
	toks, err := tableau.ParseTranscript(bytes.NewReader([]byte("shoe dealer D1042 2H 3C 4D | 5S 5H AC 2D 7C void | dealer D7 cut 9S 9H 9C 9D | dealer -")), "t")
	if err != nil {
		t.Fatal(err)
	}
	s, h, _ := runSim(t, sim.Options{Tokens: toks, Seed: 1}, nil, 10*time.Second)
	checkExactlyOnce(t, s, h)
	ev := h.events()
	// HELLO, then one event per token.
	if len(ev) != 1+len(toks) {
		t.Fatalf("%d events for %d tokens", len(ev), len(toks))
	}
	hello, ok := ev[0].Msg.(*fwproto.Hello)
	if !ok || ev[0].Seq != 1 || hello.Model != "SABOT-SIM" || hello.PrevBoot != 0 || hello.Minor != 1 || hello.Caps&fwproto.CapDealer == 0 {
		t.Fatalf("first event %v", ev[0])
	}
	for i, tok := range toks {
		f := ev[i+1]
		if f.Seq != uint32(i+2) || f.Boot != ev[0].Boot {
			t.Fatalf("token %d: boot/seq %#x/%d", i, f.Boot, f.Seq)
		}
		switch tok.Kind {
		case tableau.TokShoe:
			m, ok := f.Msg.(*fwproto.ShoeState)
			if !ok || m.Flags != fwproto.ShoeLoaded|fwproto.ShoeNew {
				t.Fatalf("token %d %v: %v", i, tok, f)
			}
		case tableau.TokCard:
			m, ok := f.Msg.(*fwproto.Card)
			if !ok || tableau.Rank(m.Rank) != tok.Card.Rank || tableau.Suit(m.Suit) != tok.Card.Suit {
				t.Fatalf("token %d %v: %v", i, tok, f)
			}
		case tableau.TokMarker:
			m, ok := f.Msg.(*fwproto.Button)
			if !ok || m.Button != fwproto.ButtonCoup || m.Position != 1 {
				t.Fatalf("token %d %v: %v", i, tok, f)
			}
		case tableau.TokVoid:
			m, ok := f.Msg.(*fwproto.Button)
			if !ok || m.Button != fwproto.ButtonSupervisor || m.Position != fwproto.KeyVoid {
				t.Fatalf("token %d %v: %v", i, tok, f)
			}
		case tableau.TokCut:
			if _, ok := f.Msg.(*fwproto.CutCard); !ok {
				t.Fatalf("token %d %v: %v", i, tok, f)
			}
		case tableau.TokDealer:
			m, ok := f.Msg.(*fwproto.Dealer)
			want := uint8(fwproto.DealerSignIn)
			if tok.Dealer == "" {
				want = fwproto.DealerSignOut
			}
			if !ok || m.Action != want || m.ID != tok.Dealer {
				t.Fatalf("token %d %v: %v", i, tok, f)
			}
		default:
			t.Fatalf("token %d %v: not checked", i, tok)
		}
	}
	if st := s.Stats(); st.Retransmits != 0 || st.Cards != 12 || st.Pending != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestSuitNumberingMatchesTableau(t *testing.T) {
	pairs := []struct {
		w fwproto.Suit
		t tableau.Suit
	}{{fwproto.SuitUnknown, card.SuitUnknown}, {fwproto.SuitSpades, card.Spades}, {fwproto.SuitHearts, card.Hearts}, {fwproto.SuitDiamonds, card.Diamonds}, {fwproto.SuitClubs, card.Clubs}}
	for _, p := range pairs {
		if uint8(p.w) != uint8(p.t) {
			t.Errorf("fwproto suit %d != tableau %v (%d)", p.w, p.t, p.t)
		}
	}
	if card.RankAce != 1 || card.RankKing != 13 {
		t.Fatal("tableau rank numbering changed")
	}
}

// TestFaultsExactlyOnce: with every fault but unreadable at high rates, the
// host still gets every event exactly once and in order.
func TestFaultsExactlyOnce(t *testing.T) {
	faults := sim.Faults{Corrupt: 0.002, Drop: 0.05, Dup: 0.05, Split: 0.1, Pull: 0.02, Reboot: 0.02, Unreadable: 0.02}
	opts := sim.Options{
		Seed: 42, Decks: 2, Shoes: 2, Faults: faults,
		RetransmitTimeout: 10 * time.Millisecond, PullTime: 5 * time.Millisecond,
		ReopenDelay: 5 * time.Millisecond, HeartbeatInterval: 20 * time.Millisecond, SplitPause: 100 * time.Microsecond,
		RingSize: 16,
	}
	s, h, link := runSim(t, opts, nil, 60*time.Second)
	checkExactlyOnce(t, s, h)
	st := s.Stats()
	t.Logf("stats %+v; host damaged %d", st, h.damaged)
	if st.Dropped == 0 || st.Duplicated == 0 || st.Split == 0 || st.CorruptBytes == 0 || st.Pulls == 0 || st.Reboots == 0 || st.Unreadable == 0 || st.Retransmits == 0 {
		t.Fatalf("some fault never happened: %+v", st)
	}
	if link.opens != 1+st.Pulls+0 && link.opens < 1+st.Pulls {
		t.Fatalf("%d opens for %d pulls", link.opens, st.Pulls)
	}
	if h.lost != 0 {
		t.Fatalf("host counted %d lost events from a persistent shoe", h.lost)
	}
	// The cards delivered, unreadable ones aside, are the transcript's.
	var want, got []tableau.Card
	for _, tok := range s.Tokens() {
		if tok.Kind == tableau.TokCard {
			want = append(want, tok.Card)
		}
	}
	unread := 0
	for _, e := range s.Events() {
		switch m := e.Frame.Msg.(type) {
		case *fwproto.Card:
			got = append(got, tableau.Card{Rank: tableau.Rank(m.Rank), Suit: tableau.Suit(m.Suit)})
		case *fwproto.CardUnreadable:
			got = append(got, s.Tokens()[e.Token].Card)
			unread++
		}
	}
	if unread != st.Unreadable || len(got) != len(want) {
		t.Fatalf("%d cards (%d unreadable), want %d", len(got), unread, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("card %d: %v, want %v", i, got[i], want[i])
		}
	}
	// Boot ids: one per reboot plus the first, each HELLO seq 1.
	hellos := 0
	for _, e := range h.events() {
		if m, ok := e.Msg.(*fwproto.Hello); ok {
			hellos++
			if e.Seq != 1 || (hellos > 1 && m.PrevBoot == 0) {
				t.Fatalf("HELLO %v", e)
			}
		}
	}
	if hellos != 1+st.Reboots {
		t.Fatalf("%d HELLOs for %d reboots", hellos, st.Reboots)
	}
}

// TestDeterministic: the same seed and boot id give the same events (boot
// ids, sequence numbers, cards, faults), whatever the timing.
func TestDeterministic(t *testing.T) {
	opts := sim.Options{Seed: 7, BootID: 0x5AB07001, Decks: 1, Faults: sim.Faults{Reboot: 0.05, Unreadable: 0.05, Drop: 0.05, Dup: 0.05}, RetransmitTimeout: 20 * time.Millisecond}
	var runs [2][]string
	for i := range runs {
		s, _, _ := runSim(t, opts, nil, 20*time.Second)
		for _, e := range s.Events() {
			f := e.Frame
			switch m := f.Msg.(type) {
			case *fwproto.Card:
				m.Clock = 0
			case *fwproto.CardUnreadable:
				m.Clock = 0
			case *fwproto.Button:
				m.Clock = 0
			case *fwproto.ShoeState:
				m.Clock = 0
			case *fwproto.CutCard:
				m.Clock = 0
			}
			runs[i] = append(runs[i], f.String())
		}
	}
	if len(runs[0]) < 20 || len(runs[0]) != len(runs[1]) {
		t.Fatalf("runs differ in length: %d, %d", len(runs[0]), len(runs[1]))
	}
	for i := range runs[0] {
		if runs[0][i] != runs[1][i] {
			t.Fatalf("event %d differs:\n%s\n%s", i, runs[0][i], runs[1][i])
		}
	}
}

// TestGate: while the host holds the gate locked no card is dealt.
func TestGate(t *testing.T) {
	toks, _ := tableau.ParseTranscript(bytes.NewReader([]byte("shoe 2H 3C 4D | 5S 5H 2C 2D |")), "t")
	var mu sync.Mutex
	var log []string
	locked := false
	var cmdSeq uint32
	h := &testHost{}
	var unlockOnce sync.Once
	h.onEvent = func(f fwproto.Frame, enc *fwproto.Encoder) {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := f.Msg.(*fwproto.Card); ok && locked {
			log = append(log, "card while locked")
		}
		// Lock the gate after the burn's "|"; unlock 100 ms later.
		if b, ok := f.Msg.(*fwproto.Button); ok && b.Button == fwproto.ButtonCoup && !locked && f.Seq == 6 {
			cmdSeq++
			locked = true
			enc.Encode(fwproto.Frame{Boot: f.Boot, Seq: cmdSeq, Msg: &fwproto.Gate{Lock: true}})
			unlockOnce.Do(func() {
				go func() {
					time.Sleep(100 * time.Millisecond)
					mu.Lock()
					locked = false
					cmdSeq++
					seq := cmdSeq
					mu.Unlock()
					enc.Encode(fwproto.Frame{Boot: f.Boot, Seq: seq, Msg: &fwproto.Gate{Lock: false}})
				}()
			})
		}
	}
	start := time.Now()
	s, _, _ := runSim(t, sim.Options{Tokens: toks, Seed: 3, Rate: 20}, h, 10*time.Second)
	if len(log) != 0 {
		t.Fatal(log)
	}
	if el := time.Since(start); el < 100*time.Millisecond {
		t.Fatalf("finished in %v: the gate did not hold the cards", el)
	}
	if st := s.Stats(); st.Commands != 2 || st.GateLocked {
		t.Fatalf("stats %+v", st)
	}
}

func TestStreamLink(t *testing.T) {
	a, b := net.Pipe()
	s, err := sim.New(sim.Options{Seed: 5, Decks: 1})
	if err != nil {
		t.Fatal(err)
	}
	h := &testHost{}
	go h.conn(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Run(ctx, sim.Stream(a)); err != nil {
		t.Fatal(err)
	}
	checkExactlyOnce(t, s, h)
	// A host that goes away ends a Stream run with an error.
	a2, b2 := net.Pipe()
	b2.Close()
	s2, _ := sim.New(sim.Options{Seed: 5, Decks: 1})
	if err := s2.Run(ctx, sim.Stream(a2)); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run on a closed stream: %v", err)
	}
}

func TestParseFaults(t *testing.T) {
	f, err := sim.ParseFaults("corrupt=0.01, drop=0.005,dup=1,split=0,pull=0.1,reboot=0.2,unreadable=0.3")
	if err != nil {
		t.Fatal(err)
	}
	want := sim.Faults{Corrupt: 0.01, Drop: 0.005, Dup: 1, Pull: 0.1, Reboot: 0.2, Unreadable: 0.3}
	if f != want {
		t.Fatalf("%+v", f)
	}
	if f.String() != "corrupt=0.01,drop=0.005,dup=1,pull=0.1,reboot=0.2,unreadable=0.3" {
		t.Fatal(f.String())
	}
	for _, bad := range []string{"corrupt", "jam=0.1", "drop=2", "drop=-0.1", "drop=x", "drop=NaN"} {
		if _, err := sim.ParseFaults(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestDealShoesFoldsClean(t *testing.T) {
	for _, decks := range []int{1, 6, 8} {
		toks, err := sim.DealShoes(uint64(decks)*99, decks, 3)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := tableau.FoldTokens(tableau.Options{Decks: decks, Markers: true}, toks)
		if err != nil {
			t.Fatal(err)
		}
		coups, shoes, cuts := 0, 0, 0
		for _, e := range evs {
			if e.Kind != baccarat.EventCoup {
				t.Fatalf("decks %d: unexpected %v event %+v", decks, e.Kind, e)
			}
			coups++
		}
		for _, tk := range toks {
			switch tk.Kind {
			case tableau.TokShoe:
				shoes++
			case tableau.TokCut:
				cuts++
			}
		}
		if shoes != 3 || cuts != 3 || coups < 3*(52*decks*3/4)/6 {
			t.Fatalf("decks %d: %d shoes, %d cuts, %d coups", decks, shoes, cuts, coups)
		}
	}
	a, _ := sim.DealShoes(1, 8, 1)
	b, _ := sim.DealShoes(1, 8, 1)
	c, _ := sim.DealShoes(2, 8, 1)
	if len(a) != len(b) || tableau.Token(a[5]).Card != b[5].Card || (len(a) == len(c) && a[5].Card == c[5].Card && a[9].Card == c[9].Card && a[20].Card == c[20].Card) {
		t.Fatal("seeding is not deterministic, or ignores the seed")
	}
}

// TestRunStopsWhileWriteBlocked: a host that never reads blocks the shoe's
// writes; cancelling the context still ends Run promptly.
func TestRunStopsWhileWriteBlocked(t *testing.T) {
	s, err := sim.New(sim.Options{Seed: 1, Decks: 1})
	if err != nil {
		t.Fatal(err)
	}
	link := newPipeLink() // nobody reads the host ends
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = s.Run(ctx, link)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run: %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("Run took %v to stop", el)
	}
}

// TestHostRestart: the host stops after some events (closing its end); a
// new host takes over on the next connection, either restoring the last
// delivered sequence (as from a journal) or knowing nothing and learning the
// shoe's last acknowledged event from its status HELLO. Between them, every
// event is delivered exactly once.
func TestHostRestart(t *testing.T) {
	for _, restore := range []bool{true, false} {
		t.Run(fmt.Sprintf("restore=%v", restore), func(t *testing.T) {
			s, err := sim.New(sim.Options{Seed: 8, Decks: 1, RetransmitTimeout: 20 * time.Millisecond, ReopenDelay: 5 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			link := newPipeLink()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var first []fwproto.Frame
			var boot, last uint32
			hostB := &testHost{}
			go func() {
				// Host A: deliver 20 events, then close the connection.
				c := <-link.hostEnds
				var rcv fwproto.Receiver
				d, e := fwproto.NewDecoder(c), fwproto.NewEncoder(c)
				for len(first) < 20 {
					f, err := d.Decode()
					if err != nil {
						continue
					}
					v := rcv.Receive(f)
					if v.Action == fwproto.Deliver {
						first = append(first, fwproto.Clone(f))
						boot, last = f.Boot, f.Seq
					}
					if v.Reply.Msg != nil {
						e.Encode(v.Reply)
					}
				}
				c.Close()
				if restore {
					hostB.rcv.Restore(boot, last)
				}
				hostB.serve(ctx, link.hostEnds)
			}()
			if err := s.Run(ctx, link); err != nil {
				t.Fatalf("%v: %+v, link opens %d, host B conns %d delivered %d", err, s.Stats(), link.opens, hostB.conns, len(hostB.events()))
			}
			all := append(first, hostB.events()...)
			want := s.Events()
			if len(all) != len(want) {
				t.Fatalf("delivered %d+%d events, shoe created %d", len(first), len(hostB.events()), len(want))
			}
			for i := range want {
				if !bytes.Equal(wire(t, all[i]), wire(t, want[i].Frame)) {
					t.Fatalf("event %d: %v, want %v", i, all[i], want[i].Frame)
				}
			}
		})
	}
}

func TestBurnButton(t *testing.T) {
	toks, err := tableau.ParseTranscript(bytes.NewReader([]byte("shoe 2H 3C 4D | 5S 5H 2C 2D | shoe KD A 2 3 4 5 6 7 8 9 TS | 9S 9H 9C 9D |")), "t")
	if err != nil {
		t.Fatal(err)
	}
	s, h, _ := runSim(t, sim.Options{Tokens: toks, Seed: 1, BurnButton: true}, nil, 10*time.Second)
	checkExactlyOnce(t, s, h)
	var got []string
	for _, e := range h.events() {
		switch m := e.Msg.(type) {
		case *fwproto.Card:
			got = append(got, tableau.Card{Rank: tableau.Rank(m.Rank), Suit: tableau.Suit(m.Suit)}.String())
		case *fwproto.Button:
			got = append(got, fmt.Sprintf("b%d=%d", m.Button, m.Position))
		case *fwproto.ShoeState:
			got = append(got, "shoe")
		}
	}
	want := "shoe b2=1 2H 3C 4D b2=0 b1=1 5S 5H 2C 2D b1=1 shoe b2=1 KD A 2 3 4 5 6 7 8 9 TS b2=0 b1=1 9S 9H 9C 9D b1=1"
	if g := strings.Join(got, " "); g != want {
		t.Fatalf("events\n got %s\nwant %s", g, want)
	}
}
