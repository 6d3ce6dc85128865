package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
)

// The soak: a virtual sabot-protocol shoe and a virtual Bee-Tek-style shoe
// each deal soakCoups() coups to a real sabotd publishing to Mosquitto,
// most of them without a new shoe, while sabotd is killed with SIGKILL and
// the broker restarted along the way. At the end every coup (alert, void)
// has been received, once after de-duplication by id, with the same
// payload under each id, exactly as `sabot check` says; RSS and open file
// descriptors of the last sabotd are flat (start, middle, end reported);
// the retained state stays under 8 KiB; restart time stays flat.
//
// Short form (in the test command): 600 coups each, well under 2 minutes.
// Long form (a month of play, ≥ 10,000 coups each):
//
//	SABOT_SOAK_COUPS=10000 go test -count=1 -timeout 60m -run TestSoak -v ./cmd/sabotd/
const soakShortCoups = 600

// maxStatePayload is the bound the soak checks on the retained state.
const maxStatePayload = 8 << 10

// soakWait is how long the soak waits for the daemon to catch up: a
// minute, plus 20 ms a coup (about 5 ms a card, ten times what the
// development machine takes) for the long form.
func soakWait(coups int) time.Duration {
	return time.Minute + time.Duration(coups)*20*time.Millisecond
}

func soakCoups(t *testing.T) int {
	if s := os.Getenv("SABOT_SOAK_COUPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("SABOT_SOAK_COUPS=%q: want a positive number of coups", s)
		}
		return n
	}
	return soakShortCoups
}

// soakTokens deals coups coups from seeded 8-deck shoes, keeping the
// new-shoe token of one shoe in keepEvery only (the first always): the
// other shoes run on without one, as with a shoe or a key that never says
// so.
func soakTokens(t *testing.T, seed uint64, coups, keepEvery int) []tableau.Token {
	t.Helper()
	toks, err := sim.DealShoes(seed, 8, coups/60+2)
	if err != nil {
		t.Fatal(err)
	}
	var out []tableau.Token
	shoes, n := 0, 0
	inBurn := false
	for _, tok := range toks {
		switch tok.Kind {
		case tableau.TokShoe:
			shoes++
			inBurn = true
			if shoes > 1 && (shoes-1)%keepEvery != 0 {
				continue
			}
		case tableau.TokMarker:
			if inBurn {
				inBurn = false
			} else if n++; n > coups {
				return out
			}
		}
		out = append(out, tok)
	}
	return out
}

// soakWatch is the soak's subscriber: a persistent session at QoS 1 that
// collects coups, alerts and voids (received) and the largest retained
// state payload.
type soakWatch struct {
	r        *received
	mu       sync.Mutex
	maxState int
	coups    map[string]bool
	opts     *paho.ClientOptions
	c        paho.Client
}

// connect (re)connects the subscriber: its session on the broker carries
// what it has not yet received.
func (w *soakWatch) connect(t *testing.T) {
	t.Helper()
	w.c = paho.NewClient(w.opts)
	if tok := w.c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("subscriber connect: %v", tok.Error())
	}
}

func (w *soakWatch) coupCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.coups)
}

func newSoakWatch(t *testing.T, url, prefix string) *soakWatch {
	t.Helper()
	w := &soakWatch{r: newReceived(), coups: map[string]bool{}}
	o := paho.NewClientOptions().AddBroker(url).SetClientID("soak-" + strings.ReplaceAll(prefix, "/", "-")).SetCleanSession(false).
		SetAutoReconnect(true).SetConnectRetry(true).SetConnectRetryInterval(100 * time.Millisecond).
		SetMaxReconnectInterval(200 * time.Millisecond).SetOrderMatters(true)
	handler := func(_ paho.Client, m paho.Message) {
		if err := w.r.handle(m.Topic(), m.Payload()); err != nil {
			t.Errorf("bad payload on %s: %v", m.Topic(), err)
		}
		w.mu.Lock()
		switch {
		case strings.HasSuffix(m.Topic(), "/state"):
			w.maxState = max(w.maxState, len(m.Payload()))
		case strings.HasSuffix(m.Topic(), "/coup"):
			w.coups[jsonID(m.Payload())] = true
		}
		w.mu.Unlock()
	}
	o.SetDefaultPublishHandler(handler)
	o.SetOnConnectHandler(func(c paho.Client) { c.Subscribe(prefix+"/#", 1, handler) })
	w.opts = o
	w.connect(t)
	t.Cleanup(func() { w.c.Disconnect(100) })
	return w
}

// persistentMosquitto is a Mosquitto whose restarts keep the subscriber's
// session (persistence on).
func persistentMosquitto(t *testing.T) *mosquitto {
	t.Helper()
	broker := startMosquitto(t)
	conf, _ := os.ReadFile(broker.conf)
	conf = bytes.Replace(conf, []byte("persistence false"), []byte("persistence true\npersistence_location "+t.TempDir()+"/"), 1)
	os.WriteFile(broker.conf, conf, 0o600)
	broker.stop()
	broker.start()
	return broker
}

// backlogOf reads the daemon's outbox backlog from /healthz.
func backlogOf(t *testing.T, p *sabotdProc) int {
	t.Helper()
	m := httpAddrRE.FindStringSubmatch(p.logs.String())
	if m == nil {
		t.Fatalf("no http address in the log")
	}
	resp, err := http.Get("http://" + m[1] + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h.Backlog
}

// brokerOutage stops the broker while the table plays on, then starts it
// again: the daemon's outbox holds what is dealt meanwhile and delivers it
// after the reconnect. The broker is stopped only once sabotd's outbox is
// empty and the input paused (pause, resume): Mosquitto (2.0.11 here) can
// lose QoS 1 messages it acknowledged in the moments before a SIGTERM, to
// connected and disconnected persistent sessions alike — reproduced with a
// plain paho publisher and subscriber, no sabotd — and the soak checks the
// daemon, not the broker.
//
// The subscriber leaves before the broker stops and comes back after it
// has started (its persistent session keeps what is published meanwhile):
// a paho subscriber kept connected through the restart sometimes received
// nothing more after it.
func brokerOutage(t *testing.T, b *mosquitto, p *sabotdProc, w *soakWatch, pause, resume func(), during func()) {
	t.Helper()
	pause()
	waitFor(t, "the outbox empty", 60*time.Second, func() bool { return backlogOf(t, p) == 0 })
	time.Sleep(300 * time.Millisecond) // the subscriber's last messages
	w.c.Disconnect(500)
	b.cmd.Process.Signal(syscall.SIGTERM)
	b.cmd.Wait()
	resume()
	during()
	b.start()
	w.connect(t)
}

// openFDs counts a process's open file descriptors.
func openFDs(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// soakSample is one reading of the last sabotd's resources.
type soakSample struct {
	at         string
	coups      int
	rssKiB     int
	fds        int
	journalKiB int64
}

func (s soakSample) String() string {
	return fmt.Sprintf("%s (%d coups received): RSS %d KiB, %d fds, journal %d KiB", s.at, s.coups, s.rssKiB, s.fds, s.journalKiB)
}

func sample(t *testing.T, p *sabotdProc, state, at string, coups int) soakSample {
	t.Helper()
	_, rss := procStat(t, p.cmd.Process.Pid)
	var size int64
	filepath.Walk(state, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			size += fi.Size()
		}
		return nil
	})
	return soakSample{at: at, coups: coups, rssKiB: rss, fds: openFDs(t, p.cmd.Process.Pid), journalKiB: size >> 10}
}

// checkFlat fails if the last sabotd's resources grew from the middle of
// its run to the end (the start is reported: it includes the warm-up).
func checkFlat(t *testing.T, s []soakSample) {
	t.Helper()
	for _, x := range s {
		t.Logf("MEASURE soak %s", x)
	}
	mid, end := s[1], s[2]
	if end.fds > mid.fds+2 {
		t.Errorf("open file descriptors grew from %d to %d", mid.fds, end.fds)
	}
	if end.rssKiB > mid.rssKiB+mid.rssKiB/2+4096 {
		t.Errorf("RSS grew from %d KiB to %d KiB", mid.rssKiB, end.rssKiB)
	}
}

// startTimed starts sabotd and returns how long it took to be ready.
func startTimed(t *testing.T, conf string) (*sabotdProc, time.Duration) {
	t.Helper()
	start := time.Now()
	p := startSabotd(t, conf)
	return p, time.Since(start)
}

func TestSoak(t *testing.T) {
	coups := soakCoups(t)
	t.Run("sabot-shoe", func(t *testing.T) { soakSabot(t, coups) })
	t.Run("beetek-shoe", func(t *testing.T) { soakBeetek(t, coups) })
}

// soakSabot: the virtual sabot shoe (acknowledged protocol: nothing is
// lost across a kill -9, the shoe sends again what was not acknowledged).
func soakSabot(t *testing.T, coups int) {
	broker := persistentMosquitto(t)
	toks := soakTokens(t, 21, coups, 3)
	var tr bytes.Buffer
	tableau.FormatTranscript(&tr, toks)
	want := expectedCheck(t, tr.String())
	wantCoups := strings.Count(want, `"type":"coup"`)
	w := newSoakWatch(t, broker.url(), "sabot/SOAK-S")
	shoe := startShoeSim(t, tr.String(), "--rate", "0", "--seed", "9")
	state := t.TempDir()
	cfg := e2eConfig("SOAK-S", shoe.link, "sabot", "auto", broker.url(), state, "")
	p, first := startTimed(t, cfg)
	restarts := []time.Duration{first}
	// Along the way: kill -9 at 20% and 45% of the coups, the broker
	// restarted at 30% and 70%; the last sabotd runs from 45% to the end.
	type step struct {
		at   int // percent of the coups received
		what string
	}
	steps := []step{{20, "kill"}, {30, "broker"}, {45, "kill"}, {70, "broker"}}
	var samples []soakSample
	deadline := time.Now().Add(time.Duration(coups)*200*time.Millisecond + time.Minute)
	for done := false; !done; {
		select {
		case err := <-shoe.done:
			if err != nil {
				t.Fatalf("sabot shoe-sim: %v\n%s", err, shoe.out.String())
			}
			done = true
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the soak did not finish: %d of %d coups received", w.coupCount(), wantCoups)
		}
		pct := 100 * w.coupCount() / wantCoups
		if len(steps) > 0 && pct >= steps[0].at {
			switch steps[0].what {
			case "kill":
				p.kill()
				var took time.Duration
				p, took = startTimed(t, cfg)
				restarts = append(restarts, took)
			case "broker":
				brokerOutage(t, broker, p, w,
					func() { shoe.cmd.Process.Signal(syscall.SIGSTOP) },
					func() { shoe.cmd.Process.Signal(syscall.SIGCONT) },
					func() { time.Sleep(time.Second) })
			}
			steps = steps[1:]
			switch len(steps) {
			case 1: // just after the last kill
				samples = append(samples, sample(t, p, state, "start", w.coupCount()))
			case 0: // the last sabotd's run half done
				samples = append(samples, sample(t, p, state, "middle", w.coupCount()))
			}
		}
	}
	if len(steps) > 0 || len(samples) != 2 {
		t.Fatalf("the shoe finished before the chaos did (%d steps left)", len(steps))
	}
	n := countLines(want)
	// Without the daemon's own alerts: the link's, and shoe-overrun (once
	// in each shoe that runs on past the decks), which `sabot check` does
	// not raise.
	overruns := map[any]int{}
	events := func() []map[string]any {
		clear(overruns)
		var evs []map[string]any
		for _, e := range withoutLink(w.r.events()) {
			if e["code"] == "shoe-overrun" {
				overruns[e["shoe"]]++
				continue
			}
			evs = append(evs, e)
		}
		return evs
	}
	for end := time.Now().Add(soakWait(coups)); len(events()) < n && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	samples = append(samples, sample(t, p, state, "end", w.coupCount()))
	g, wnt := projectedSet(t, events(), want)
	if !slices.Equal(g, wnt) {
		t.Fatalf("received (de-duplicated) differs from sabot check: got %d events, want %d; %s", len(g), len(wnt), setDiff(g, wnt))
	}
	if len(w.r.dupes) > 0 {
		t.Fatalf("ids with two different payloads: %v", w.r.dupes)
	}
	shoes := 0
	for _, tok := range toks {
		if tok.Kind == tableau.TokShoe {
			shoes++
		}
	}
	if len(overruns) == 0 || len(overruns) > shoes {
		t.Errorf("shoe-overrun in %d shoes, want 1 to %d", len(overruns), shoes)
	}
	for shoe, n := range overruns {
		if n != 1 {
			t.Errorf("shoe-overrun raised %d times in shoe %v, want once", n, shoe)
		}
	}
	soakEnd(t, p, cfg, w, samples, restarts, wantCoups)
}

// soakEnd checks and reports what both soaks end with: resources flat, the
// retained state bounded, a restart after the soak as fast as before.
func soakEnd(t *testing.T, p *sabotdProc, cfg string, w *soakWatch, samples []soakSample, restarts []time.Duration, coups int) {
	t.Helper()
	checkFlat(t, samples)
	w.mu.Lock()
	maxState := w.maxState
	w.mu.Unlock()
	t.Logf("MEASURE soak: %d coups; largest retained state %d bytes", coups, maxState)
	if maxState == 0 || maxState >= maxStatePayload {
		t.Errorf("largest retained state %d bytes, want some under %d", maxState, maxStatePayload)
	}
	if took, err := p.term(); err != nil {
		t.Fatalf("SIGTERM after the soak: %v after %v", err, took)
	}
	p, took := startTimed(t, cfg)
	restarts = append(restarts, took)
	t.Logf("MEASURE soak restart times (first start, after each kill -9, after the soak): %v", restarts)
	// Flat: the restart after the soak takes no longer than the slowest
	// restart before it, with a margin for the machine's load.
	slowest := slices.Max(restarts[:len(restarts)-1])
	if took > 2*slowest+time.Second {
		t.Errorf("restart after the soak took %v, before at most %v", took, slowest)
	}
	p.term()
}

// soakBeetek: the Bee-Tek-style shoe (no acknowledgements, no new-shoe
// event, no coup button): the stream is written in pieces; the kill -9
// comes while the writer pauses (what a Bee-Tek shoe sends while no one
// reads is lost — that is the protocol's, not the daemon's, and is tested
// elsewhere), the broker restarts while it writes.
func soakBeetek(t *testing.T, coups int) {
	broker := persistentMosquitto(t)
	toks := soakTokens(t, 22, coups, coups) // one shoe: it never ends
	var plain []string
	for _, tok := range toks {
		// The stream has cards only: no coup button, no cut card.
		if tok.Kind != tableau.TokMarker && tok.Kind != tableau.TokCut {
			plain = append(plain, tok.String())
		}
	}
	want := expectedCheck(t, strings.Join(plain, " "), "--markers", "off")
	wantCoups := strings.Count(want, `"type":"coup"`)
	burn := toks[1].Card.Value()
	if burn == 0 {
		burn = 10
	}
	stream, alarms, unreadable := beetekStream(toks, burn+1)
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	w := newSoakWatch(t, broker.url(), "sabot/SOAK-B")
	state := t.TempDir()
	cfg := e2eConfig("SOAK-B", tty.Name(), "beetek", "auto", broker.url(), state, "")
	p, first := startTimed(t, cfg)
	p.waitOnline(t)
	restarts := []time.Duration{first}
	var samples []soakSample
	// Events the daemon has journaled: wait for it to take everything
	// written so far.
	settle := func(what string, cond func() bool) { waitFor(t, what, soakWait(coups), cond) }
	written := 0
	write := func(upTo int) {
		for i, n := written, 0; i < upTo; i += n {
			n = min(1+(i*7)%23, upTo-i)
			if _, err := ptmx.Write(stream[i : i+n]); err != nil {
				t.Fatal(err)
			}
			if i%64 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		written = upTo
	}
	// Cut points between records: after a card record.
	cut := func(frac float64) int {
		i := int(float64(len(stream)) * frac)
		j := bytes.Index(stream[i:], []byte("> "))
		if j < 0 {
			return len(stream)
		}
		return i + j + 2
	}
	write(cut(0.25))
	// Kill only once every card record written has been journaled (the
	// cut is after a card record).
	cards := bytes.Count(stream[:written], []byte("<Card:"))
	cardsRE := regexp.MustCompile(`sabot_input_events_total\{kind="card"\} (\d+)`)
	settle("the first quarter journaled", func() bool {
		m := cardsRE.FindStringSubmatch(metricsOf(t, p))
		return m != nil && m[1] == strconv.Itoa(cards)
	})
	p.kill()
	p, took := startTimed(t, cfg)
	p.waitOnline(t)
	restarts = append(restarts, took)
	samples = append(samples, sample(t, p, state, "start", w.coupCount()))
	write(cut(0.5))
	brokerOutage(t, broker, p, w, func() {}, func() {}, func() {
		write(cut(0.6)) // dealt while the broker is down
		time.Sleep(500 * time.Millisecond)
	})
	write(cut(0.75))
	settle("three quarters", func() bool { return w.coupCount() >= wantCoups*7/10 })
	samples = append(samples, sample(t, p, state, "middle", w.coupCount()))
	write(len(stream))
	n := countLines(want) + alarms + unreadable + 1 // and shoe-overrun
	events := func() []map[string]any {
		var evs []map[string]any
		for _, e := range w.r.events() {
			if c := e["code"]; c != "shoe-online" && c != "shoe-offline" {
				evs = append(evs, e)
			}
		}
		return evs
	}
	for end := time.Now().Add(soakWait(coups)); len(events()) < n && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	if got := len(events()); got < n {
		kinds := map[string]int{}
		for _, e := range events() {
			kinds[fmt.Sprint(e["type"], " ", e["code"])]++
		}
		wk := map[string]int{}
		for _, l := range strings.Split(strings.TrimSpace(want), "\n") {
			var m map[string]any
			json.Unmarshal([]byte(l), &m)
			wk[fmt.Sprint(m["type"], " ", m["code"])]++
		}
		t.Fatalf("%d events received, want %d (+%d alarms, %d unreadable):\n got %v\nwant %v", got, n, alarms, unreadable, kinds, wk)
	}
	samples = append(samples, sample(t, p, state, "end", w.coupCount()))
	// The daemon's own alerts: the shoe's alarms and unreadable reads, and
	// shoe-overrun once (the shoe never ends).
	var checkEvents []map[string]any
	overruns := 0
	for _, e := range events() {
		switch e["code"] {
		case "shoe-alarm", "unreadable-card":
		case "shoe-overrun":
			overruns++
		default:
			checkEvents = append(checkEvents, e)
		}
	}
	if overruns != 1 {
		t.Errorf("shoe-overrun raised %d times in a shoe that never ends, want once", overruns)
	}
	g, wnt := projectedSet(t, checkEvents, want)
	if !slices.Equal(g, wnt) {
		t.Fatalf("received (de-duplicated) differs from sabot check: got %d events, want %d; %s", len(g), len(wnt), setDiff(g, wnt))
	}
	if len(w.r.dupes) > 0 {
		t.Fatalf("ids with two different payloads: %v", w.r.dupes)
	}
	soakEnd(t, p, cfg, w, samples, restarts, wantCoups)
}

// setDiff describes the difference of two sorted multisets (at most 10 of
// each side).
func setDiff(got, want []string) string {
	var extra, missing []string
	i, j := 0, 0
	for i < len(got) || j < len(want) {
		switch {
		case j == len(want) || (i < len(got) && got[i] < want[j]):
			extra = append(extra, got[i])
			i++
		case i == len(got) || want[j] < got[i]:
			missing = append(missing, want[j])
			j++
		default:
			i++
			j++
		}
	}
	return fmt.Sprintf("received but not expected (%d): %v; expected but not received (%d): %v",
		len(extra), extra[:min(10, len(extra))], len(missing), missing[:min(10, len(missing))])
}
