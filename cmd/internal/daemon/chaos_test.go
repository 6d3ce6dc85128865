package daemon

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/testenv"
	"github.com/sabot-table/sabot/drivers/testenv/sessionsub"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
)

// newSessionSubscriber is a consumer with a persistent session
// (sessionsub) of everything under prefix, handing each message to r and
// each card's payload, with the time it arrived, to onCard (if not nil).
func newSessionSubscriber(t *testing.T, url, prefix string, r *received, onCard func(map[string]any, time.Time)) *sessionsub.Subscriber {
	t.Helper()
	handler := func(_ paho.Client, m paho.Message) {
		now := time.Now()
		if err := r.handle(m.Topic(), m.Payload(), m.Duplicate()); err != nil {
			t.Errorf("bad payload on %s: %v", m.Topic(), err)
		}
		if onCard != nil && strings.HasSuffix(m.Topic(), "/card") {
			var p map[string]any
			json.Unmarshal(m.Payload(), &p)
			onCard(p, now)
		}
	}
	return sessionsub.Start(t, sessionsub.Options{Broker: url, ClientID: "e2e-session-sub", Filter: prefix + "/#", Handler: handler})
}

// withoutLink drops the link alerts (shoe-offline, shoe-online): the
// virtual shoe closes its pty when it has dealt everything, and chaos
// pulls the cable; those alerts are the daemon's, not `sabot check`'s.
func withoutLink(evs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if c := e["code"]; c != "shoe-offline" && c != "shoe-online" {
			out = append(out, e)
		}
	}
	return out
}

// projected renders each event as the keys of the matching expected line,
// so received events compare with `sabot check` lines as sorted sets.
func projectedSet(t *testing.T, got []map[string]any, wantJSONL string) (g, w []string) {
	t.Helper()
	var want []map[string]any
	keys := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(wantJSONL), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		want = append(want, m)
		for k := range m {
			keys[k] = true
		}
	}
	project := func(m map[string]any) string {
		p := map[string]any{}
		for k := range keys {
			if v, ok := m[k]; ok {
				p[k] = v
			}
		}
		return canonical(p)
	}
	for _, m := range want {
		w = append(w, project(m))
	}
	for _, m := range got {
		g = append(g, project(m))
	}
	sort.Strings(g)
	sort.Strings(w)
	return g, w
}

// missingOf counts the entries of want (sorted, as projectedSet returns
// them) that got (sorted) lacks, each entry matched once.
func missingOf(got, want []string) int {
	n, i := 0, 0
	for _, w := range want {
		for i < len(got) && got[i] < w {
			i++
		}
		if i < len(got) && got[i] == w {
			i++
			continue
		}
		n++
	}
	return n
}

// repeated returns r.repeats.
func (r *received) repeated() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.repeats
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p * float64(len(s)-1))
	return s[i]
}

var httpAddrRE = regexp.MustCompile(`"msg":"http listening","addr":"([^"]+)"`)

// metricsOf reads the daemon's /metrics.
func metricsOf(t *testing.T, p *sabotdProc) string {
	t.Helper()
	m := httpAddrRE.FindStringSubmatch(p.logs.String())
	if m == nil {
		t.Fatalf("no http address in the log")
	}
	resp, err := probeClient.Get("http://" + m[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return b.String()
}

// histogramQuantile estimates a quantile from a Prometheus histogram's
// cumulative buckets (the upper bound of the bucket it falls in).
func histogramQuantile(metrics, name string, q float64) (string, float64) {
	re := regexp.MustCompile(name + `_bucket\{le="([^"]+)"\} (\d+)`)
	var les []string
	var counts []float64
	for _, m := range re.FindAllStringSubmatch(metrics, -1) {
		c, _ := strconv.ParseFloat(m[2], 64)
		les, counts = append(les, m[1]), append(counts, c)
	}
	if len(counts) == 0 || counts[len(counts)-1] == 0 {
		return "", 0
	}
	total := counts[len(counts)-1]
	for i, c := range counts {
		if c >= q*total {
			return "≤" + les[i] + "s", total
		}
	}
	return "+Inf", total
}

// procStat returns a process's user+system CPU time and resident set size.
func procStat(t *testing.T, pid int) (cpu time.Duration, rssKiB int) {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	cpu = time.Duration(ut+st) * time.Second / 100 // USER_HZ
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			rssKiB, _ = strconv.Atoi(strings.Fields(v)[0])
		}
	}
	return cpu, rssKiB
}

// shoeSim is a `sabot shoe-sim --link` process: the virtual shoe on a
// pseudo-terminal whose device is reached through a symbolic link.
type shoeSim struct {
	cmd  *exec.Cmd
	link string
	out  *syncBuffer
	done chan error
}

func startShoeSim(t *testing.T, transcript string, args ...string) *shoeSim {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "shoe.txt")
	if err := os.WriteFile(file, []byte(transcript), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &shoeSim{link: filepath.Join(dir, "sabot-shoe"), out: &syncBuffer{}, done: make(chan error, 1)}
	s.cmd = exec.Command(filepath.Join(binaries(t), "sabot"),
		append([]string{"shoe-sim", "--link", s.link, "--transcript", file}, args...)...)
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	s.cmd.SysProcAttr = dieWithTest()
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		if t.Failed() {
			t.Logf("shoe-sim output:\n%s", s.out.String())
		}
	})
	waitFor(t, "the shoe-sim link", 10*time.Second, func() bool { _, err := os.Stat(s.link); return err == nil })
	return s
}

// wait waits for shoe-sim to exit (0: every event acknowledged by sabotd).
func (s *shoeSim) wait(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("sabot shoe-sim: %v\n%s", err, s.out.String())
		}
	case <-time.After(d):
		t.Fatalf("sabot shoe-sim did not finish in %v\n%s", d, s.out.String())
	}
}

// TestE2EVirtualShoe deals the clean 8-deck sample shoe from `sabot shoe-sim
// --transcript` (sabot protocol) on a pty to a real sabotd
// publishing to Mosquitto: the coups equal `sabot check`. It measures card
// event → display and card event → broker → subscriber latency, idle CPU
// and RSS after the full shoe.
func TestE2EVirtualShoe(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	broker := testenv.StartMosquitto(t)
	file := "../../../tableau/testdata/clean-8deck.shoe"
	src, _ := os.ReadFile(file)
	toks, err := tableau.ParseTranscript(bytes.NewReader(src), file)
	if err != nil {
		t.Fatal(err)
	}
	want := expectedCheck(t, string(src))
	r := newReceived()
	var mu sync.Mutex
	var brokerLat []time.Duration
	sub := newSessionSubscriber(t, broker.URL, "sabot/E2E-VS", r, func(p map[string]any, at time.Time) {
		ts, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(p["time"]))
		mu.Lock()
		brokerLat = append(brokerLat, at.Sub(ts))
		mu.Unlock()
	})
	shoe := startShoeSim(t, string(src), "--rate", "100", "--seed", "3")
	// The virtual shoe has a gate: sabotd locks it whenever the tableau
	// needs no card (a complete coup until the coup button), and the shoe
	// holds its next card while it is locked.
	conf := strings.Replace(e2eConfig("E2E-VS", shoe.link, "sabot", "auto", broker.URL, t.TempDir(), ""),
		`markers = "auto"`, "markers = \"auto\"\ngate = true", 1)
	p := startSabotd(t, conf+"[gpio]\nbackend = \"fake\"\n")
	shoe.wait(t, 60*time.Second)
	n := countLines(want)
	waitFor(t, fmt.Sprintf("%d events", n), 20*time.Second, func() bool { return len(withoutLink(r.events())) >= n })
	matchEvents(t, withoutLink(r.events()), want)
	sub.CheckSessions(t)
	_, rss := procStat(t, p.cmd.Process.Pid)
	metrics := metricsOf(t, p)
	if m := regexp.MustCompile(`sabot_gate_commands_total\{state="locked"\} (\d+)`).FindStringSubmatch(metrics); m == nil || m[1] != strconv.Itoa(strings.Count(want, `"type":"coup"`)) {
		t.Errorf("gate not locked once per coup (%d coups):\n%s", strings.Count(want, `"type":"coup"`), grepLines(metrics, "sabot_gate"))
	}
	d50, cards := histogramQuantile(metrics, "sabot_card_to_display_seconds", 0.5)
	d99, _ := histogramQuantile(metrics, "sabot_card_to_display_seconds", 0.99)
	mu.Lock()
	b50, b99 := percentile(brokerLat, 0.5), percentile(brokerLat, 0.99)
	nb := len(brokerLat)
	mu.Unlock()
	t.Logf("MEASURE card→display p50 %s p99 %s over %.0f cards (histogram buckets)", d50, d99, cards)
	t.Logf("MEASURE card→broker→subscriber p50 %v p99 %v over %d cards", b50, b99, nb)
	// card → broker acknowledgement (PUBACK), from the daemon's histogram:
	// one observation per card message (burn cards included).
	cardMsgs := 0
	for _, tok := range toks {
		if tok.Kind == tableau.TokCard {
			cardMsgs++
		}
	}
	waitFor(t, "every card acknowledged", 10*time.Second, func() bool {
		_, n := histogramQuantile(metricsOf(t, p), "sabot_card_to_broker_ack_seconds", 0.5)
		return n >= float64(cardMsgs)
	})
	metrics = metricsOf(t, p)
	a50, acks := histogramQuantile(metrics, "sabot_card_to_broker_ack_seconds", 0.5)
	a99, _ := histogramQuantile(metrics, "sabot_card_to_broker_ack_seconds", 0.99)
	if acks != float64(cardMsgs) {
		t.Errorf("card → broker-ack observed %.0f times, want once per card message (%d)", acks, cardMsgs)
	}
	t.Logf("MEASURE card→broker-ack (PUBACK) p50 %s p99 %s over %.0f cards (histogram buckets)", a50, a99, acks)
	t.Logf("MEASURE RSS after a full shoe %d KiB", rss)
	if rss > 30*1024 {
		t.Errorf("RSS after a full shoe %d KiB, target under 30 MiB", rss)
	}
	if took, err := p.term(); err != nil || took > 10*time.Second {
		t.Fatalf("SIGTERM: %v after %v", err, took)
	}
}

// TestE2EChaos deals one shoe from the virtual shoe while sabotd is killed
// with SIGKILL at random points several times, 1% of the serial bytes are
// corrupted, the virtual cable is pulled, and the broker is restarted once
// mid-shoe: the union of the coups, alerts and voids received, de-duplicated
// by id, is exactly what `sabot check` says for the shoe, and no id carries
// two different payloads.
//
// The guarantee checked at the broker's restart is the one an integrator
// gets from a persistent broker and a persistent session: the broker is
// stopped with SIGTERM (a service restart; it saves its database) while the
// subscriber is away, and the subscriber stays away until sabotd has
// reconnected and the restarted broker has acknowledged card messages and
// every message of sabotd's outbox. The subscriber never
// subscribes again, so everything it gets after the restart came through
// the session the broker saved and restored: every reconnect must find its
// session present. (A SIGKILLed Mosquitto can lose messages it has already
// acknowledged, which no publisher can send again: see
// testenv.Mosquitto.Stop.)
func TestE2EChaos(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	broker := testenv.StartMosquittoWith(t, testenv.MosquittoOptions{Persist: true})

	toks, err := sim.DealShoes(11, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	var tr bytes.Buffer
	tableau.FormatTranscript(&tr, toks)
	want := expectedCheck(t, tr.String())

	r := newReceived()
	var latMu sync.Mutex
	var worst time.Duration // card time → arrival, the longest
	sub := newSessionSubscriber(t, broker.URL, "sabot/E2E-CH", r, func(p map[string]any, at time.Time) {
		if ts, err := time.Parse(time.RFC3339Nano, fmt.Sprint(p["time"])); err == nil {
			latMu.Lock()
			worst = max(worst, at.Sub(ts))
			latMu.Unlock()
		}
	})
	// The virtual shoe: 1% of the bytes corrupted, the cable pulled (the
	// pty replaced, its symlink re-pointed) before 1% of the cards.
	shoe := startShoeSim(t, tr.String(), "--rate", "120", "--seed", "5", "--faults", "corrupt=0.01,pull=0.01", "--pull-time", "300ms")
	state := t.TempDir()
	cfg := e2eConfig("E2E-CH", shoe.link, "sabot", "auto", broker.URL, state, "")
	p := startSabotd(t, cfg)
	simDone := shoe.done

	rng := rand.New(rand.NewPCG(5, 8))
	kills, brokerRestarts := 0, 0
	for i := 0; i < 6; i++ {
		select {
		case err := <-simDone:
			simDone <- err
			i = 6
			continue
		case <-time.After(time.Duration(300+rng.IntN(700)) * time.Millisecond):
		}
		if i == 2 {
			restartBrokerWhileAway(t, broker, sub, p)
			brokerRestarts++
			continue
		}
		p.kill()
		kills++
		p = startSabotd(t, cfg)
	}
	select {
	case err := <-simDone:
		if err != nil {
			t.Fatalf("sabot shoe-sim: %v\n%s", err, shoe.out.String())
		}
	case <-time.After(90 * time.Second):
		t.Fatalf("sabot shoe-sim did not finish\n%s", shoe.out.String())
	}
	pulls := strings.Count(shoe.out.String(), "/dev/pts/") - 1 // the device is printed again after every pull
	if kills < 3 || pulls < 1 || brokerRestarts != 1 {
		t.Fatalf("chaos too mild: %d kills, %d cable pulls, %d broker restarts", kills, pulls, brokerRestarts)
	}
	reconnects := sub.CheckSessions(t) // a lost session explains missing events
	n := countLines(want)
	events := func() []map[string]any { return withoutLink(r.events()) }
	for d := time.Now().Add(30 * time.Second); len(events()) < n && time.Now().Before(d); {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	g, w := projectedSet(t, events(), want)
	latMu.Lock()
	testenv.ReportDelivery(t, "", testenv.Delivery{Expected: len(w), Lost: missingOf(g, w), Duplicated: r.repeated(), Worst: worst})
	latMu.Unlock()
	if !slices.Equal(g, w) {
		t.Fatalf("received (deduplicated) differs from sabot check:\n got %d: %v\nwant %d: %v", len(g), g, len(w), w)
	}
	if len(r.dupes) > 0 {
		t.Fatalf("ids with two different payloads: %v", r.dupes)
	}
	t.Logf("chaos: %d kills of sabotd, the broker restarted once, %d cable pulls, 1%% of the bytes corrupted; the subscriber reconnected %d times", kills, pulls, reconnects)
}

// restartBrokerWhileAway stops the broker (SIGTERM) and starts it again
// with the subscriber held away, and lets the subscriber back only once
// sabotd p is connected to the new broker, which has acknowledged at least
// one card message and everything in p's outbox: what the old broker had
// not delivered and what the new one got can reach the subscriber only
// through the session the broker saved.
func restartBrokerWhileAway(t *testing.T, broker *testenv.Mosquitto, sub *sessionsub.Subscriber, p *sabotdProc) {
	t.Helper()
	_, acked := histogramQuantile(metricsOf(t, p), "sabot_card_to_broker_ack_seconds", 0.5)
	sub.Hold()
	broker.Stop()
	time.Sleep(time.Second)
	broker.Start()
	waitFor(t, "sabotd to deliver to the restarted broker", 30*time.Second, func() bool {
		h := healthOf(t, p)
		_, n := histogramQuantile(metricsOf(t, p), "sabot_card_to_broker_ack_seconds", 0.5)
		return h.Broker && h.Backlog == 0 && n > acked
	})
	sub.Release(t)
}

// probeClient is the tests' HTTP client for a daemon's /metrics and
// /healthz: one connection per request, closed after it, so that what the
// tests count of a daemon's open descriptors (TestSoak) holds no idle
// keep-alive socket of the tests' own.
var probeClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}

// healthOf reads the daemon's /healthz.
func healthOf(t *testing.T, p *sabotdProc) health {
	t.Helper()
	m := httpAddrRE.FindStringSubmatch(p.logs.String())
	if m == nil {
		t.Fatalf("no http address in the log")
	}
	resp, err := probeClient.Get("http://" + m[1] + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatalf("/healthz: %v", err)
	}
	return h
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestE2EIdle measures sabotd's CPU use while the shoe is connected and
// idle (heartbeats only, no cards): a virtual shoe dealing one card every
// 20 s.
func TestE2EIdle(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	broker := testenv.StartMosquitto(t)
	shoe := startShoeSim(t, "shoe 2H 3C", "--rate", "0.05")
	p := startSabotd(t, e2eConfig("E2E-IDLE", shoe.link, "sabot", "auto", broker.URL, t.TempDir(), ""))
	p.waitOnline(t)
	time.Sleep(500 * time.Millisecond)
	cpu0, _ := procStat(t, p.cmd.Process.Pid)
	time.Sleep(5 * time.Second)
	cpu1, rss := procStat(t, p.cmd.Process.Pid)
	if strings.Contains(p.logs.String(), `"msg":"shoe offline"`) {
		t.Fatalf("the shoe went offline while idle:\n%s", p.logs.String())
	}
	pct := 100 * (cpu1 - cpu0).Seconds() / 5
	t.Logf("MEASURE idle CPU %.2f%% of one core (5 s, shoe connected, heartbeats only); RSS %d KiB", pct, rss)
	if pct > 5 {
		t.Errorf("idle CPU %.2f%% of one core: something spins", pct)
	}
	// A graceful stop with the broker gone still ends, with exit 0, within
	// 10 s: the outbox is flushed for a few seconds at most and keeps the
	// rest for the next start.
	broker.Kill()
	time.Sleep(200 * time.Millisecond)
	if took, err := p.term(); err != nil || took > 10*time.Second {
		t.Fatalf("SIGTERM with the broker down: %v after %v", err, took)
	}
}
