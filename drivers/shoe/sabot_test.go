package shoe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	fwproto "github.com/sabot-table/sabot/firmware-proto"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
)

// ptyLink is the virtual shoe's end of a USB serial adapter made of
// pseudo-terminals: each Open plugs in a new pty and points the stable
// symlink at it (as udev does for /dev/serial/by-id); Close, or the test's
// pull, unplugs it: both ends close and the symlink goes.
type ptyLink struct {
	name string

	mu     sync.Mutex
	cur    *os.File // master of the plugged-in pty
	slave  *os.File
	out    bool // the cable is out: Open fails
	opened int
}

func (l *ptyLink) Open(ctx context.Context) (io.ReadWriteCloser, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.out {
		return nil, errors.New("test: the cable is out")
	}
	m, s, err := openPTY()
	if err != nil {
		return nil, err
	}
	if err := rawMode(int(s.Fd())); err != nil {
		m.Close()
		s.Close()
		return nil, err
	}
	tmp := l.name + ".new"
	os.Remove(tmp)
	if err := os.Symlink(s.Name(), tmp); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, l.name); err != nil {
		return nil, err
	}
	l.cur, l.slave = m, s
	l.opened++
	return &ptyConn{l: l, m: m, s: s}, nil
}

// pull unplugs the cable until plug is called.
func (l *ptyLink) pull() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.out = true
	l.unplugLocked(l.cur)
}

func (l *ptyLink) plug() {
	l.mu.Lock()
	l.out = false
	l.mu.Unlock()
}

func (l *ptyLink) unplugLocked(m *os.File) {
	if m == nil || m != l.cur {
		return
	}
	os.Remove(l.name)
	l.cur.Close()
	l.slave.Close()
	l.cur, l.slave = nil, nil
}

type ptyConn struct {
	l    *ptyLink
	m, s *os.File
}

func (c *ptyConn) Read(p []byte) (int, error)  { return c.m.Read(p) }
func (c *ptyConn) Write(p []byte) (int, error) { return c.m.Write(p) }
func (c *ptyConn) Close() error {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	c.l.unplugLocked(c.m)
	return nil
}

// expectedEvents is what the host must deliver for a dealt transcript, in
// the Event.String form (HELLO, online and offline excluded).
func expectedEvents(toks []tableau.Token) []string {
	var out []string
	for _, t := range toks {
		switch t.Kind {
		case tableau.TokCard:
			out = append(out, "card "+t.Card.String())
		case tableau.TokMarker:
			out = append(out, "button coup pressed")
		case tableau.TokVoid:
			out = append(out, "button void pressed")
		case tableau.TokCut:
			out = append(out, "cut-card")
		case tableau.TokShoe:
			out = append(out, "state loaded,new-shoe")
		case tableau.TokDealer:
			if t.Dealer == "" {
				out = append(out, "dealer sign-out")
			} else {
				out = append(out, "dealer "+t.Dealer)
			}
		}
	}
	return out
}

// shoeEvents keeps the deal's events (not the link's) from what the host
// delivered.
func shoeEvents(evs []Event) []string {
	var out []string
	for _, ev := range evs {
		switch ev.Kind {
		case KindOnline, KindOffline:
			continue
		}
		out = append(out, ev.String())
	}
	return out
}

func count(evs []Event, k Kind) int {
	n := 0
	for _, ev := range evs {
		if ev.Kind == k {
			n++
		}
	}
	return n
}

// checkExactlyOnce compares delivered events with the deal, reporting the
// first difference, and checks (boot, seq) never repeats or goes back.
func checkExactlyOnce(t *testing.T, evs []Event, toks []tableau.Token) {
	t.Helper()
	got, want := shoeEvents(evs), expectedEvents(toks)
	for i := 0; i < len(got) || i < len(want); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Fatalf("event %d: got %q, want %q (%d delivered, %d dealt)", i, g, w, len(got), len(want))
		}
	}
	seen := map[[2]uint32]bool{}
	for _, ev := range evs {
		if ev.Seq == 0 {
			continue
		}
		k := [2]uint32{ev.BootID, ev.Seq}
		if seen[k] {
			t.Fatalf("(boot %#x, seq %d) delivered twice", ev.BootID, ev.Seq)
		}
		seen[k] = true
	}
	// Online and offline alternate.
	state := 0
	for _, ev := range evs {
		switch ev.Kind {
		case KindOnline:
			if state == 1 {
				t.Fatalf("online twice in a row")
			}
			state = 1
		case KindOffline:
			if state == -1 {
				t.Fatalf("offline twice in a row")
			}
			state = -1
		}
	}
}

type simRun struct {
	shoe *sim.Shoe
	link *ptyLink
	done chan struct{} // closed when Run returned
	err  error
}

// startSim starts a virtual shoe on a pty behind a symlink.
func startSim(t *testing.T, opts sim.Options) *simRun {
	t.Helper()
	return startSimOn(t, &ptyLink{name: symlinkPath(t)}, opts)
}

// startSimOn starts a virtual shoe on link (a second run on the same port).
func startSimOn(t *testing.T, link *ptyLink, opts sim.Options) *simRun {
	t.Helper()
	vs, err := sim.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r := &simRun{shoe: vs, link: link, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		r.err = vs.Run(ctx, r.link)
		close(r.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	return r
}

// wait waits for the virtual shoe to have every event acknowledged.
func (r *simRun) wait(t *testing.T, limit time.Duration) {
	t.Helper()
	select {
	case <-r.done:
		if r.err != nil {
			t.Fatalf("virtual shoe: %v", r.err)
		}
	case <-time.After(limit):
		t.Fatalf("virtual shoe not done after %v: %+v", limit, r.shoe.Stats())
	}
}

func sabotOptions(path string) Options {
	return Options{Path: path, Protocol: "sabot", ReadTimeout: 50 * time.Millisecond,
		RetryMin: 20 * time.Millisecond, RetryMax: 200 * time.Millisecond}
}

func TestSabotCleanShoe(t *testing.T) {
	r := startSim(t, sim.Options{Seed: 1, Decks: 8})
	s, rec, _ := startShoe(t, sabotOptions(r.link.name))
	start := time.Now()
	r.wait(t, 60*time.Second)
	t.Logf("dealt in %v", time.Since(start))
	evs := rec.events()
	checkExactlyOnce(t, evs, r.shoe.Tokens())
	for i := 1; i < len(evs); i++ {
		if d := evs[i].Time.Sub(evs[i-1].Time); d > 100*time.Millisecond {
			t.Logf("gap of %v before event %d %v", d, i, evs[i])
		}
	}
	if n := count(evs, KindCard); n < 300 {
		t.Fatalf("only %d cards in an 8-deck shoe", n)
	}
	var first Event // the first online (the first event may be offline: the pty was not there yet)
	for _, ev := range evs {
		if ev.Kind == KindOnline {
			first = ev
			break
		}
	}
	if first.Kind != KindOnline || first.Info == nil || first.Info.Model != "SABOT-SIM" || first.Info.Serial != "SIM-1" ||
		first.Info.Caps&CapGate == 0 || first.Info.BootID == 0 || first.Seq != 1 {
		t.Errorf("first event %+v (info %+v)", first, first.Info)
	}
	for _, ev := range evs {
		if ev.Kind == KindCard && (ev.Quality < 90 || ev.Quality > 100 || ev.BootID != first.Info.BootID || ev.Seq < 2) {
			t.Fatalf("card event fields: %+v", ev)
		}
	}
	if st := s.Stats(); st.Duplicates != 0 || st.BadFrames != 0 || st.Offline > 2 { // before the pty appeared, after the shoe finished
		t.Errorf("clean run stats %+v", st)
	}
}

func TestSabotFaultyLine(t *testing.T) {
	t.Parallel() // wall time, not CPU: overlaps with the long cable pull
	r := startSim(t, sim.Options{Seed: 7, Decks: 8,
		Faults: sim.Faults{Corrupt: 0.01, Drop: 0.005, Dup: 0.01, Split: 0.05}})
	s, rec, _ := startShoe(t, sabotOptions(r.link.name))
	r.wait(t, 120*time.Second)
	checkExactlyOnce(t, rec.events(), r.shoe.Tokens())
	vs := r.shoe.Stats()
	if vs.CorruptBytes == 0 || vs.Dropped == 0 || vs.Duplicated == 0 || vs.Split == 0 {
		t.Fatalf("faults not injected: %+v", vs)
	}
	// The host must have seen the damage: corrupted frames, and the gaps
	// that dropped frames leave. A duplicated frame is not necessarily
	// counted as a duplicate: when its first copy arrived after a gap (the
	// shoe streams on while a lost frame waits to be resent), both copies
	// are gaps, so how many duplicates the host counts depends on timing
	// (0 of 68 was seen under load); exactly-once delivery, checked above,
	// is what matters.
	st := s.Stats()
	if st.BadFrames == 0 || st.Gaps == 0 {
		t.Errorf("host saw no damage: %+v", st)
	}
	t.Logf("virtual shoe %+v", vs)
	t.Logf("host %+v", st)
}

// A cable pull in the middle of a coup: offline within 1 s, online again
// after, every card once, in order.
func TestSabotCablePull(t *testing.T) {
	for _, out := range []time.Duration{2 * time.Second, 30 * time.Second} {
		t.Run(out.String(), func(t *testing.T) {
			if out > 10*time.Second && testing.Short() {
				t.Skip("long pull skipped with -short")
			}
			t.Parallel()
			r := startSim(t, sim.Options{Seed: 3, Decks: 2, Rate: 100})
			_, rec, _ := startShoe(t, sabotOptions(r.link.name))
			// Wait for the second card of coup 5: mid-coup.
			coups, cards := 0, 0
			for coups < 5 || cards < 2 {
				ev := rec.next(t, 30*time.Second)
				switch {
				case ev.Kind == KindButton && ev.Button == ButtonCoup:
					coups++
					cards = 0
				case ev.Kind == KindCard:
					cards++
				}
			}
			pulled := time.Now()
			r.link.pull()
			for {
				ev := rec.next(t, 5*time.Second)
				if ev.Kind == KindOffline {
					if d := ev.Time.Sub(pulled); d > time.Second {
						t.Errorf("offline %v after the pull, want ≤ 1 s", d)
					}
					break
				}
			}
			time.Sleep(out)
			r.link.plug()
			r.wait(t, 60*time.Second)
			evs := rec.events()
			checkExactlyOnce(t, evs, r.shoe.Tokens())
			if on := count(evs, KindOnline); on < 2 {
				t.Errorf("%d online events, want 2 (before and after the pull)", on)
			}
		})
	}
}

// Reboots mid-shoe (new boot id, sequence restarts): nothing lost or
// duplicated; each reboot shows as offline then online.
func TestSabotReboot(t *testing.T) {
	r := startSim(t, sim.Options{Seed: 7, Decks: 2, Faults: sim.Faults{Reboot: 0.02}})
	_, rec, _ := startShoe(t, sabotOptions(r.link.name))
	r.wait(t, 60*time.Second)
	evs := rec.events()
	checkExactlyOnce(t, evs, r.shoe.Tokens())
	reboots := r.shoe.Stats().Reboots
	if reboots == 0 {
		t.Fatal("no reboot happened; pick another seed")
	}
	// Each reboot: offline ("shoe restarted"), then online with the new
	// boot id. (Other offline/online pairs may come from the pty itself:
	// before it exists, after the shoe is done.)
	restarts := 0
	for i, ev := range evs {
		if ev.Kind != KindOffline || !strings.Contains(ev.Reason, "shoe restarted") {
			continue
		}
		restarts++
		if i+1 >= len(evs) || evs[i+1].Kind != KindOnline || evs[i+1].Info.BootID == 0 || evs[i+1].Seq != 1 {
			t.Fatalf("restart not followed by the new boot's online: %v", evs[i:min(i+2, len(evs))])
		}
	}
	if restarts != reboots {
		t.Errorf("%d reboots gave %d restart events", reboots, restarts)
	}
	boots := map[uint32]bool{}
	for _, ev := range evs {
		if ev.Kind == KindOnline {
			boots[ev.Info.BootID] = true
		}
		if ev.Kind == KindAlarm {
			t.Errorf("alarm %v", ev)
		}
	}
	if len(boots) != reboots+1 {
		t.Errorf("%d boot ids online, want %d", len(boots), reboots+1)
	}
}

// Heartbeat supervision: a shoe that falls silent (the port stays open) is
// reported offline after the heartbeat timeout, and online when it talks
// again.
func TestSabotSilenceOffline(t *testing.T) {
	p := newPTY(t)
	vs, err := sim.New(sim.Options{Seed: 5, Decks: 1, Rate: 50, HeartbeatInterval: 50 * time.Millisecond,
		PullTime: 600 * time.Millisecond, Faults: sim.Faults{Pull: 0.03}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- vs.Run(context.Background(), sim.Stream(p.master)) }()
	opts := sabotOptions(p.dev)
	opts.HeartbeatTimeout = 200 * time.Millisecond
	_, rec, _ := startShoe(t, opts)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("virtual shoe not done")
	}
	evs := rec.events()
	checkExactlyOnce(t, evs, vs.Tokens())
	pulls := vs.Stats().Pulls
	if pulls == 0 {
		t.Fatal("no silence happened; pick another seed")
	}
	// Offline while the shoe was silent mid-deal, and online again when
	// it spoke (pulls that follow each other closely make one silence;
	// the shoe also falls silent when it has dealt everything).
	midDeal := 0
	for i, ev := range evs {
		if ev.Kind != KindOffline {
			continue
		}
		if !strings.Contains(ev.Reason, "heartbeats missed") {
			t.Errorf("offline reason %q", ev.Reason)
		}
		if len(shoeEvents(evs[i:])) > 0 {
			midDeal++
		}
	}
	if midDeal == 0 || midDeal > pulls {
		t.Errorf("%d silences gave %d offline events mid-deal", pulls, midDeal)
	}
}

// A shoe that never answers: offline is reported once; the link keeps
// asking (STATUS_REQUEST) at a bounded rate and does not spin.
func TestSabotSilentShoeNoBusyLoop(t *testing.T) {
	p := newPTY(t)
	co := &countingOpen{open: OpenSerial}
	opts := sabotOptions(p.dev)
	opts.HeartbeatTimeout = 300 * time.Millisecond
	opts.Open = co.Open
	s, rec, _ := startShoe(t, opts)
	ev := rec.next(t, 5*time.Second)
	if ev.Kind != KindOffline || !strings.Contains(ev.Reason, "no HELLO") {
		t.Fatalf("got %v, want offline (no HELLO)", ev)
	}
	_, _, r0 := co.counts()
	time.Sleep(time.Second)
	_, _, r1 := co.counts()
	if n := r1 - r0; n < 5 || n > 30 {
		t.Errorf("%d reads in 1 s of silence with a 50 ms timeout; want about 20", n)
	}
	// What the host sent: STATUS_REQUESTs, about one per 100 ms.
	buf := make([]byte, 4096)
	p.master.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	n, _ := p.master.Read(buf)
	dec := fwproto.NewDecoder(strings.NewReader(string(buf[:n])))
	reqs := 0
	for {
		f, err := dec.Decode()
		if err != nil {
			break
		}
		if f.Type() != fwproto.TypeStatusRequest {
			t.Errorf("host sent %v", f)
		}
		reqs++
	}
	if reqs < 5 || reqs > 30 {
		t.Errorf("%d STATUS_REQUESTs in about 1.3 s; want about one per 100 ms", reqs)
	}
	select {
	case ev := <-rec.ch:
		t.Errorf("unexpected event %v", ev)
	default:
	}
	if st := s.Stats(); st.Offline != 1 {
		t.Errorf("stats %+v", st)
	}
}

// GATE and INDICATOR reach the shoe, are acknowledged, and the gate holds
// the next card until it is unlocked.
func TestSabotGateIndicator(t *testing.T) {
	r := startSim(t, sim.Options{Seed: 2, Decks: 1, Rate: 200})
	s, err := New(Options{Path: r.link.name, ReadTimeout: 50 * time.Millisecond, RetryMin: 20 * time.Millisecond, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Gate(false); !errors.Is(err, ErrOffline) {
		t.Errorf("Gate before connecting: %v, want ErrOffline", err)
	}
	type got struct {
		ev    Event
		cards int
		gate  error
	}
	ch := make(chan got, 1000)
	cards := 0
	go s.Run(context.Background(), func(ev Event) error {
		if ev.Kind == KindCard {
			cards++
		}
		g := got{ev: ev, cards: cards}
		if ev.Kind == KindCard && cards == 10 {
			// From inside the handler, as the controller does.
			g.gate = s.Gate(true)
		}
		ch <- g
		return nil
	})
	for {
		g := <-ch
		if g.ev.Kind == KindCard && g.cards >= 10 {
			if g.gate != nil {
				t.Fatalf("Gate: %v", g.gate)
			}
			break
		}
	}
	// GATE reaches the shoe (how soon depends on the machine's load): from
	// then on the shoe creates no card, and every card it created before is
	// delivered to the host.
	deadline := time.Now().Add(30 * time.Second)
	for !r.shoe.Stats().GateLocked {
		if time.Now().After(deadline) {
			t.Fatal("virtual shoe gate not locked")
		}
		time.Sleep(time.Millisecond)
	}
	atLock := r.shoe.Stats().Cards
	// Twenty card times at the shoe's rate, and the delivered cards catch up.
	time.Sleep(100 * time.Millisecond)
	if n := r.shoe.Stats().Cards; n != atLock {
		t.Errorf("%d cards drawn through a locked gate", n-atLock)
	}
	delivered := 10
	for delivered < atLock && time.Now().Before(deadline) {
		select {
		case g := <-ch:
			if g.ev.Kind == KindCard {
				delivered++
			}
		case <-time.After(time.Until(deadline)):
		}
	}
	if delivered != atLock {
		t.Errorf("host got %d cards, the shoe drew %d before its gate locked", delivered, atLock)
	}
	select {
	case g := <-ch:
		if g.ev.Kind == KindCard {
			t.Errorf("card %v delivered after the shoe's gate locked", g.ev)
		}
	case <-time.After(50 * time.Millisecond):
	}
	if err := s.Indicator(Indicator{Lamps: 3, Blink: 1, BeepMs: 250}); err != nil {
		t.Fatal(err)
	}
	if err := s.Gate(false); err != nil {
		t.Fatal(err)
	}
	r.wait(t, 30*time.Second)
	if ind := r.shoe.Stats().Indicator; ind.Lamps != 3 || ind.Blink != 1 || ind.BeepMS != 250 {
		t.Errorf("indicator at the shoe %+v", ind)
	}
	if r.shoe.Stats().GateLocked {
		t.Errorf("gate still locked")
	}
}

// Resume: a host restarted with the last delivered (boot, seq) from its
// journal does not deliver that event or earlier ones again.
func TestSabotResume(t *testing.T) {
	s := NewSabot(ProtocolConfig{Logger: quietLogger(), Resume: Position{BootID: 0xB00F, Seq: 5}})
	out := &captureSender{}
	var got []string
	emit := func(ev Event) error { got = append(got, fmt.Sprintf("%v seq %d", ev, ev.Seq)); return nil }
	now := time.Now()
	if err := s.Connect(out, now, emit); err != nil {
		t.Fatal(err)
	}
	var wire []byte
	for seq := uint32(4); seq <= 7; seq++ {
		wire, _ = fwproto.AppendFrame(wire, fwproto.Frame{Boot: 0xB00F, Seq: seq, Msg: &fwproto.Card{Rank: uint8(seq), Suit: 1, Quality: 99}})
	}
	if err := s.Feed(wire, now, emit); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "card 6S seq 6,card 7S seq 7" {
		t.Errorf("delivered %q", got)
	}
	// What the host answered: STATUS_REQUEST on connect, the duplicates 4
	// and 5 acknowledged again (cumulatively, up to 5), then 6 and 7.
	var sent []string
	for _, f := range out.frames(t) {
		switch m := f.Msg.(type) {
		case *fwproto.Ack:
			sent = append(sent, fmt.Sprintf("ACK %#x %d", f.Boot, m.Seq))
		default:
			sent = append(sent, f.Type().String())
		}
	}
	if want := "STATUS_REQUEST,ACK 0xb00f 5,ACK 0xb00f 5,ACK 0xb00f 6,ACK 0xb00f 7"; strings.Join(sent, ",") != want {
		t.Errorf("host sent %q, want %q", sent, want)
	}
}

type captureSender struct {
	mu  sync.Mutex
	buf []byte
}

func (c *captureSender) Send(p []byte) error {
	c.mu.Lock()
	c.buf = append(c.buf, p...)
	c.mu.Unlock()
	return nil
}

func (c *captureSender) frames(t testing.TB) []fwproto.Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	dec := fwproto.NewDecoder(strings.NewReader(string(c.buf)))
	var out []fwproto.Frame
	for {
		f, err := dec.Decode()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("host sent a bad frame: %v", err)
		}
		out = append(out, fwproto.Clone(f))
	}
}

// simEvents is what the host must deliver, from the frames the virtual
// shoe created (HELLOs excluded), in Event.String form.
func simEvents(t *testing.T, evs []sim.Event) []string {
	t.Helper()
	var out []string
	for _, e := range evs {
		switch m := e.Frame.Msg.(type) {
		case *fwproto.Hello:
		case *fwproto.Card:
			out = append(out, "card "+tableau.Card{Rank: tableau.Rank(m.Rank), Suit: tableau.Suit(m.Suit)}.String())
		case *fwproto.CardUnreadable:
			out = append(out, "unreadable")
		case *fwproto.Button:
			out = append(out, map[uint8]string{fwproto.ButtonCoup: "button coup pressed", fwproto.ButtonSupervisor: "button void pressed"}[m.Button])
		case *fwproto.CutCard:
			out = append(out, "cut-card")
		case *fwproto.ShoeState:
			out = append(out, "state "+State(m.Flags).String())
		default:
			t.Fatalf("unexpected frame from the virtual shoe: %v", e.Frame)
		}
	}
	return out
}

// Everything at once, through the virtual shoe's own pty link (as `sabot
// shoe-sim` runs it): cable pulls (the pty unplugged, its link removed, a
// new one plugged in after PullTime) and reboots at random cards,
// unreadable cards, corrupted bytes, split frames, two shoes.
func TestSabotChaosSimPTY(t *testing.T) {
	t.Parallel()
	vs, err := sim.New(sim.Options{Seed: 21, Decks: 1, Shoes: 2, PullTime: 300 * time.Millisecond, UID: true,
		Faults: sim.Faults{Pull: 0.02, Reboot: 0.01, Unreadable: 0.05, Corrupt: 0.002, Split: 0.05, Dup: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	// The virtual shoe's own pty link, as `sabot shoe-sim` uses it.
	name := symlinkPath(t)
	link := sim.NewPTY(name)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- vs.Run(ctx, link) }()
	_, rec, _ := startShoe(t, sabotOptions(name))
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(90 * time.Second):
		t.Fatalf("virtual shoe not done: %+v", vs.Stats())
	}
	evs := rec.events()
	got, want := shoeEvents(evs), simEvents(t, vs.Events())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("event %d: got %q, want %q", i, got[i], want[i])
			}
		}
		t.Fatalf("%d events delivered, %d created", len(got), len(want))
	}
	st := vs.Stats()
	if st.Pulls == 0 || st.Reboots == 0 || st.Unreadable == 0 {
		t.Fatalf("faults not exercised: %+v", st)
	}
	// Each time the shoe unplugged the pty (pulls during a pull merge into
	// one), the host reported it offline.
	if off := count(evs, KindOffline); off < st.Reopens || off == 0 {
		t.Errorf("%d reconnections but %d offline events", st.Reopens, off)
	}
	for _, ev := range evs {
		if ev.Kind == KindCard && len(ev.Card.UID) != 14 {
			t.Fatalf("card without its 7-byte UID: %+v", ev)
		}
	}
	t.Logf("virtual shoe %+v", st)
}

// The host side never panics on any byte stream, and how the bytes are
// split across reads does not change what it delivers or answers.
func FuzzSabotFeed(f *testing.F) {
	var seed []byte
	seed, _ = fwproto.AppendFrame(seed, fwproto.Frame{Boot: 9, Seq: 1, Msg: &fwproto.Hello{Caps: fwproto.CapGate, Model: "F"}})
	seed, _ = fwproto.AppendFrame(seed, fwproto.Frame{Boot: 9, Seq: 2, Msg: &fwproto.Card{Rank: 12, Suit: 2, Quality: 90}})
	seed, _ = fwproto.AppendFrame(seed, fwproto.Frame{Boot: 9, Seq: 2, Msg: &fwproto.Card{Rank: 12, Suit: 2, Quality: 90}})
	seed, _ = fwproto.AppendFrame(seed, fwproto.Frame{Boot: 9, Seq: 4, Msg: &fwproto.CutCard{}})
	seed, _ = fwproto.AppendFrame(seed, fwproto.Frame{Boot: 9, Msg: &fwproto.Heartbeat{LastSeq: 4, Unacked: 1}})
	f.Add(seed, uint8(5))
	f.Add(append([]byte{1, 2, 3, 0, 0xff}, seed[3:]...), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, split uint8) {
		run := func(chunks [][]byte) ([]string, []byte) {
			s := NewSabot(ProtocolConfig{Logger: quietLogger()})
			out := &captureSender{}
			var got []string
			emit := func(ev Event) error {
				got = append(got, fmt.Sprintf("%v %d %d", ev, ev.BootID, ev.Seq))
				return nil
			}
			now := time.Unix(100, 0)
			if err := s.Connect(out, now, emit); err != nil {
				t.Fatal(err)
			}
			for _, c := range chunks {
				if err := s.Feed(c, now, emit); err != nil {
					t.Fatal(err)
				}
			}
			return got, out.buf
		}
		whole, wholeOut := run([][]byte{in})
		parts, partsOut := run(splitEvery(in, int(split)%17+1))
		if strings.Join(whole, "\n") != strings.Join(parts, "\n") || string(wholeOut) != string(partsOut) {
			t.Fatalf("split reads change the result:\n%q\n%q", whole, parts)
		}
		seen := map[string]bool{}
		for _, e := range whole {
			if !strings.HasSuffix(e, " 0 0") && seen[e] {
				t.Fatalf("delivered twice: %s", e)
			}
			seen[e] = true
		}
	})
}

// A shoe that announces CapTimeSync gets the host's clock after its HELLO;
// the wanted gate state is sent again after every HELLO (a rebooted shoe
// forgets it); a shoe without a gate refuses Gate.
func TestSabotHelloFollowUps(t *testing.T) {
	s := NewSabot(ProtocolConfig{Logger: quietLogger()})
	out := &captureSender{}
	emit := func(Event) error { return nil }
	now := time.Now()
	if err := s.Connect(out, now, emit); err != nil {
		t.Fatal(err)
	}
	if err := s.Gate(true); err != nil {
		t.Fatalf("Gate while connected, before HELLO: %v", err)
	}
	hello, _ := fwproto.AppendFrame(nil, fwproto.Frame{Boot: 3, Seq: 1, Msg: &fwproto.Hello{Caps: fwproto.CapGate | fwproto.CapTimeSync}})
	if err := s.Feed(hello, now, emit); err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, f := range out.frames(t) {
		switch m := f.Msg.(type) {
		case *fwproto.TimeSync:
			if d := time.UnixMilli(m.UnixMS).Sub(now); d < -time.Second || d > time.Second {
				t.Errorf("TIME_SYNC %v, now %v", time.UnixMilli(m.UnixMS), now)
			}
			sent = append(sent, "TIME_SYNC")
		case *fwproto.Gate:
			sent = append(sent, fmt.Sprintf("GATE %v seq %d", m.Lock, f.Seq))
		case *fwproto.Ack:
			sent = append(sent, fmt.Sprintf("ACK %d", m.Seq))
		default:
			sent = append(sent, f.Type().String())
		}
	}
	if want := "STATUS_REQUEST,GATE true seq 2,GATE true seq 3,TIME_SYNC,ACK 1"; strings.Join(sent, ",") != want {
		t.Errorf("host sent %q, want %q", sent, want)
	}
	// Not acknowledged: sent again, with the same sequence, until it is.
	gates := func() (n int, seqs []uint32) {
		for _, f := range out.frames(t) {
			if _, ok := f.Msg.(*fwproto.Gate); ok {
				n++
				seqs = append(seqs, f.Seq)
			}
		}
		return n, seqs
	}
	// PROTOCOL.md 4.7: resent after 250 ms, then 500 ms, 1 s, 2 s, 2 s.
	for _, tc := range []struct {
		at   time.Duration
		sent int
	}{{100, 2}, {260, 3}, {700, 3}, {770, 4}, {1700, 4}, {1780, 5}, {3700, 5}, {3790, 6}, {5700, 6}, {5800, 7}} {
		if err := s.Tick(now.Add(tc.at*time.Millisecond), emit); err != nil {
			t.Fatal(err)
		}
		if n, seqs := gates(); n != tc.sent || seqs[n-1] != 3 {
			t.Fatalf("after %d ms: %d GATEs sent %v, want %d (all with sequence 3 after the first)", tc.at, n, seqs, tc.sent)
		}
	}
	ack, _ := fwproto.AppendFrame(nil, fwproto.Frame{Boot: 3, Msg: &fwproto.Ack{Seq: 3}})
	s.Feed(ack, now.Add(5900*time.Millisecond), emit)
	s.Tick(now.Add(9*time.Second), emit)
	if n, _ := gates(); n != 7 {
		t.Errorf("GATE resent after the shoe acknowledged it: %d", n)
	}
	// A shoe without a gate.
	hello, _ = fwproto.AppendFrame(nil, fwproto.Frame{Boot: 4, Seq: 1, Msg: &fwproto.Hello{Caps: fwproto.CapSuit}})
	if err := s.Feed(hello, now, emit); err != nil {
		t.Fatal(err)
	}
	if err := s.Gate(false); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Gate on a shoe without one: %v", err)
	}
}

// An event with a good CRC but a malformed payload (a firmware bug): NAK
// (bad payload) each time, and one alarm, however often it is resent.
func TestSabotMalformedEvent(t *testing.T) {
	s := NewSabot(ProtocolConfig{Logger: quietLogger()})
	out := &captureSender{}
	var got []string
	emit := func(ev Event) error { got = append(got, ev.Kind.String()+" "+ev.Alarm.Code); return nil }
	now := time.Now()
	s.Connect(out, now, emit)
	hello, _ := fwproto.AppendFrame(nil, fwproto.Frame{Boot: 5, Seq: 1, Msg: &fwproto.Hello{}})
	s.Feed(hello, now, emit)
	// A CARD with rank 14: build a rank-1 card and patch the rank byte.
	good, _ := fwproto.AppendFrame(nil, fwproto.Frame{Boot: 5, Seq: 2, Msg: &fwproto.Card{Rank: 1, Suit: 1}})
	bad := malformedCard(t, good)
	for range 3 {
		if err := s.Feed(bad, now, emit); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, ",") != "online ,alarm bad-event" {
		t.Errorf("events %q", got)
	}
	naks := 0
	for _, f := range out.frames(t) {
		if m, ok := f.Msg.(*fwproto.Nak); ok && m.Reason == fwproto.NakBadPayload && m.Seq == 2 && f.Boot == 5 {
			naks++
		}
	}
	if naks == 0 {
		t.Errorf("no NAK(bad payload) sent")
	}
}

// malformedCard re-encodes a CARD frame with rank 14 and a correct CRC.
func malformedCard(t *testing.T, wire []byte) []byte {
	t.Helper()
	raw := cobsDecode(wire[:len(wire)-1])
	raw[fwproto.HeaderLen] = 14 // the rank byte
	n := len(raw) - fwproto.CRCLen
	crc := fwproto.CRC16(raw[:n])
	raw[n], raw[n+1] = byte(crc), byte(crc>>8)
	return append(cobsEncode(raw), 0)
}

func cobsDecode(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		code := int(b[i])
		i++
		for j := 1; j < code && i < len(b); j++ {
			out = append(out, b[i])
			i++
		}
		if code < 0xff && i < len(b) {
			out = append(out, 0)
		}
	}
	return out
}

func cobsEncode(b []byte) []byte {
	out := []byte{0}
	codeAt, code := 0, byte(1)
	for _, c := range b {
		if c == 0 {
			out[codeAt] = code
			out = append(out, 0)
			codeAt, code = len(out)-1, 1
			continue
		}
		out = append(out, c)
		code++
		if code == 0xff {
			out[codeAt] = code
			out = append(out, 0)
			codeAt, code = len(out)-1, 1
		}
	}
	out[codeAt] = code
	return out
}

func TestSabotUID(t *testing.T) {
	s := NewSabot(ProtocolConfig{Logger: quietLogger()})
	if got := s.uid([]byte{0x04, 0xa1, 0xff, 0x00}); got != "04A1FF00" {
		t.Errorf("uid %q", got)
	}
	if s.uid(nil) != "" {
		t.Error("empty UID")
	}
	if n := testing.AllocsPerRun(100, func() { s.uid([]byte{0x04, 0xa1, 0xff, 0x00}) }); n != 0 {
		t.Errorf("%v allocations for a UID seen before", n)
	}
}

// Frames of another protocol version are dropped and reported once.
func TestSabotOtherVersion(t *testing.T) {
	var log strings.Builder
	s := NewSabot(ProtocolConfig{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	var got []Event
	emit := func(ev Event) error { got = append(got, ev); return nil }
	now := time.Now()
	s.Connect(&captureSender{}, now, emit)
	good, _ := fwproto.AppendFrame(nil, fwproto.Frame{Boot: 5, Seq: 1, Msg: &fwproto.Hello{}})
	raw := cobsDecode(good[:len(good)-1])
	raw[0] = 2 // version 2
	n := len(raw) - fwproto.CRCLen
	crc := fwproto.CRC16(raw[:n])
	raw[n], raw[n+1] = byte(crc), byte(crc>>8)
	v2 := append(cobsEncode(raw), 0)
	for range 3 {
		s.Feed(v2, now, emit)
	}
	if len(got) != 0 {
		t.Errorf("events from a version-2 shoe: %v", got)
	}
	if c := strings.Count(log.String(), "another version"); c != 1 {
		t.Errorf("reported %d times, want once:\n%s", c, log.String())
	}
	if st := s.Stats(); st.BadFrames != 3 {
		t.Errorf("stats %+v", st)
	}
}

// TestSabotDealer: the virtual shoe's DEALER events (minor version 1)
// arrive exactly once, in order among the cards, as KindDealer with the
// dealer's id ("" for a sign-out); a badge that stores no id gives its UID
// in hex; a DEALER with an unknown action is acknowledged and skipped.
func TestSabotDealer(t *testing.T) {
	toks, err := tableau.ParseTranscript(strings.NewReader("shoe dealer D1042 2H 3C 4D | 5S 5H AC 2D | dealer ANNA.B-7 9S 2H KC 3D | dealer -"), "t")
	if err != nil {
		t.Fatal(err)
	}
	r := startSim(t, sim.Options{Tokens: toks, Seed: 3})
	_, rec, _ := startShoe(t, sabotOptions(r.link.name))
	r.wait(t, 30*time.Second)
	evs := rec.events()
	checkExactlyOnce(t, evs, toks)
	var online *Info
	for _, ev := range evs {
		if ev.Kind == KindOnline {
			online = ev.Info
			break
		}
	}
	if online == nil || online.Caps&CapDealer == 0 {
		t.Fatalf("online info %+v: no dealer capability", online)
	}

	// Badge-only and unknown-action frames, straight into the protocol.
	s := NewSabot(ProtocolConfig{Logger: quietLogger()})
	var got []string
	emit := func(ev Event) error { got = append(got, ev.String()); return nil }
	var wire []byte
	for i, m := range []fwproto.Message{
		&fwproto.Hello{Minor: 1, Caps: fwproto.CapDealer},
		&fwproto.Dealer{Action: fwproto.DealerSignIn, Badge: fwproto.HexBytes{0x04, 0xa2, 0x24}},
		&fwproto.Dealer{Action: 7, ID: "X"},
		&fwproto.Dealer{Action: fwproto.DealerSignOut, ID: "D9"},
	} {
		wire, err = fwproto.AppendFrame(wire, fwproto.Frame{Boot: 0x77, Seq: uint32(i + 1), Msg: m})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Feed(wire, time.Now(), emit); err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(got, "|"); g != "online|dealer 04a224|dealer sign-out" {
		t.Fatalf("events %q", g)
	}
	if st := s.Stats(); st.Unknown != 1 {
		t.Fatalf("unknown %d, want 1 (the unknown action)", st.Unknown)
	}
}
