package daemon

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sabot-table/sabot/tableau"
)

// TestDealerKeySequence: n presses of the dealer key, each within the gap
// of the one before, sign in the n-th dealer of the roster; the same count
// again signs that dealer out; a count past the roster is refused; a pause
// longer than the gap starts a new sequence. Driven with the presses'
// times, no clock.
func TestDealerKeySequence(t *testing.T) {
	k := &keySequence{gap: 1500 * time.Millisecond, roster: []string{"D1042", "D2210", "D3307"}}
	at := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	presses := func(n int, every time.Duration) {
		for range n {
			k.press(at)
			at = at.Add(every)
		}
	}
	if _, ok := k.end(""); ok {
		t.Fatal("a sequence without a press")
	}
	presses(2, 400*time.Millisecond)
	if due := k.due(); !due.Equal(at.Add(-400 * time.Millisecond).Add(1500 * time.Millisecond)) {
		t.Fatalf("due %v", due)
	}
	for _, c := range []struct {
		n        int
		signedIn string
		kind     tableau.InputKind
		dealer   string
	}{
		{0, "", tableau.InputDealer, "D2210"},       // the two presses above
		{3, "D2210", tableau.InputDealer, "D3307"},  // another dealer: signs D2210 out, D3307 in
		{3, "D3307", tableau.InputDealer, ""},       // the same count again: sign-out
		{4, "", tableau.InputRejected, ""},          // past the roster
		{1, "D3307", tableau.InputDealer, "D1042"},  // one press
		{20, "D1042", tableau.InputRejected, ""},    // a stuck key
		{2, "D1042", tableau.InputDealer, "D2210"},  // after a refusal, counting starts again
		{-1, "D2210", tableau.InputDealer, "D1042"}, // a long pause splits: only the last press counts
		{-2, "D1042", tableau.InputDealer, "D2210"}, // two presses just within the gap
		{-3, "D2210", tableau.InputDealer, "D1042"}, // two presses just past the gap: two sequences, the last counts
		{-4, "", tableau.InputDealer, "D1042"},      // the due time of one press
		{1, "D1042", tableau.InputDealer, ""},       // and the same press again signs out
	} {
		switch c.n {
		case -1:
			presses(2, 0)
			at = at.Add(5 * time.Second)
			presses(1, 0)
		case -2:
			presses(2, 1500*time.Millisecond)
		case -3:
			presses(2, 1501*time.Millisecond)
		case -4:
			presses(1, 0)
			if !k.due().Equal(at.Add(1500 * time.Millisecond)) {
				t.Fatalf("due %v", k.due())
			}
		default:
			presses(c.n, 300*time.Millisecond)
		}
		in, ok := k.end(c.signedIn)
		if !ok || in.Kind != c.kind || in.Dealer != c.dealer || in.Source != "gpio" {
			t.Fatalf("%d presses with %q signed in: %+v, want %s %q", c.n, c.signedIn, in, c.kind, c.dealer)
		}
		if c.kind == tableau.InputRejected && (in.Code != "dealer" || !strings.Contains(in.Text, "roster has 3")) {
			t.Fatalf("refusal %+v", in)
		}
		at = at.Add(10 * time.Second)
	}
}

// TestDaemonDealer: the whole path, on a daemon with the virtual shoe on a
// pty and the embedded broker. The shoe's DEALER signs D1042 in: the coup
// and the alert it deals are published with "dealer"; the pit's MQTT dealer
// command signs ANNA.B-7 in (a bad id is refused with a reply naming it);
// the dealer key pressed twice signs in the roster's second dealer, whose
// coup follows; the retained state and /metrics carry the shift's
// per-dealer counts; after a restart the dealer and the counts are
// replayed from the journal.
func TestDaemonDealer(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	dir := t.TempDir()
	link := filepath.Join(dir, "ttySHOE")
	conf := fmt.Sprintf(`table = "T-D"
[shoe]
device = %q
protocol = "sabot"
markers = "on"
[mqtt]
embedded_addr = "127.0.0.1:0"
commands = true
[display]
kind = "fake"
[gpio]
dealer_key = "GPIO26"
[dealer]
roster = ["D7", "K.LEE"]
key_gap_ms = 400
shift_start = ["00:00"]
time_zone = "UTC"
[state]
dir = %q
`, link, filepath.Join(dir, "state"))
	m, _ := bootDaemon(t, conf)
	r := newReceived()
	cmds := subscribe(t, ownURL(m.d.broker), "sabot/T-D", r)
	deal := func(src string) { t.Helper(); dealVirtualShoe(t, link, src, 5) }
	// The coups and the dealer's alerts (not the link's shoe-offline and
	// shoe-online between the virtual shoe's runs).
	dealt := func() []map[string]any {
		var out []map[string]any
		for _, e := range r.events() {
			if c := e["code"]; c != "shoe-offline" && c != "shoe-online" {
				out = append(out, e)
			}
		}
		return out
	}
	lastState := func() map[string]any {
		s := r.kind("state")
		if len(s) == 0 {
			return nil
		}
		return s[len(s)-1]
	}
	deal("shoe dealer D1042 2H 3C 4D | 5S 5H AC 2D 7C |")
	waitFor(t, "coup 1 and its extra-card", 10*time.Second, func() bool { return len(dealt()) >= 2 })
	for _, e := range dealt()[:2] {
		if e["dealer"] != "D1042" {
			t.Fatalf("%s without the shoe's dealer: %v", e["type"], e)
		}
	}

	// The pit system signs a dealer in; a bad id is refused.
	cmds.Publish("sabot/T-D/cmd/dealer", 1, false, `{"request_id":"p1","operator":"pit","dealer":"ANNA.B-7"}`).WaitTimeout(time.Second)
	cmds.Publish("sabot/T-D/cmd/dealer", 1, false, `{"request_id":"p2","operator":"pit","dealer":"no spaces"}`).WaitTimeout(time.Second)
	cmds.Publish("sabot/T-D/cmd/ack", 1, false, `{"request_id":"p3","operator":"pit","dealer":"D1"}`).WaitTimeout(time.Second)
	replies := map[string]map[string]any{}
	waitFor(t, "the dealer command replies", 10*time.Second, func() bool {
		for _, c := range r.kind("cmd") { // the commands and their replies
			if _, reply := c["accepted"]; reply {
				replies[c["request_id"].(string)] = c
			}
		}
		return len(replies) == 3
	})
	if replies["p1"]["accepted"] != true || replies["p2"]["accepted"] != false ||
		!strings.Contains(fmt.Sprint(replies["p2"]["reason"]), `dealer "no spaces": byte 3`) ||
		!strings.Contains(fmt.Sprint(replies["p3"]["reason"]), "field dealer belongs to the dealer command") {
		t.Fatalf("replies %v", replies)
	}
	waitFor(t, "the state with ANNA.B-7", 10*time.Second, func() bool { s := lastState(); return s != nil && s["dealer"] == "ANNA.B-7" })

	// The dealer key: two presses sign in the roster's second dealer.
	for range 2 {
		if err := m.d.board.Fake.Press("dealer_key"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(60 * time.Millisecond) // past the 30 ms debounce, well within the 400 ms gap
		if err := m.d.board.Fake.Release("dealer_key"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(60 * time.Millisecond)
	}
	waitFor(t, "the state with K.LEE", 10*time.Second, func() bool { s := lastState(); return s != nil && s["dealer"] == "K.LEE" })
	// Each sign-in is a significant event on <prefix>/event, with how.
	waitFor(t, "the sign-in events", 10*time.Second, func() bool {
		var got []string
		for _, e := range r.kind("event") {
			if e["type"] == "dealer-sign-in" {
				got = append(got, fmt.Sprintf("%v/%v/%v", e["dealer"], e["source"], e["operator"]))
			}
		}
		return strings.Join(got, " ") == "D1042/shoe/<nil> ANNA.B-7/mqtt/pit K.LEE/gpio/dealer-key"
	})
	deal("9S 2H KC 3D |")
	waitFor(t, "coup 2", 10*time.Second, func() bool { return len(dealt()) >= 3 })
	if e := dealt()[2]; e["type"] != "coup" || e["coup"] != float64(2) || e["dealer"] != "K.LEE" {
		t.Fatalf("coup 2: %v", e)
	}
	// Each dealer's coups and extra-card alerts, in sign-in order.
	wantShift := "D1042:1:1 ANNA.B-7:0:<nil> K.LEE:1:<nil>"
	shiftOf := func(s map[string]any) string {
		sh, _ := s["shift"].(map[string]any)
		ds, _ := sh["dealers"].([]any)
		var b []string
		for _, d := range ds {
			d := d.(map[string]any)
			b = append(b, fmt.Sprintf("%v:%v:%v", d["dealer"], d["coups"], d["alerts"].(map[string]any)["extra-card"]))
		}
		return strings.Join(b, " ")
	}
	waitFor(t, "the state with coup 2's count", 10*time.Second, func() bool {
		s := lastState()
		return s != nil && shiftOf(s) == wantShift
	})
	metrics := func(m *Main) string {
		resp, err := http.Get("http://" + m.d.http.addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	wantMetrics := []string{`sabot_dealer_coups{dealer="D1042"} 1`, `sabot_dealer_coups{dealer="K.LEE"} 1`,
		`sabot_dealer_alerts{code="extra-card",dealer="D1042"} 1`, `sabot_dealer_signed_in{dealer="K.LEE"} 1`, `sabot_dealer_coups{dealer="ANNA.B-7"} 0`}
	got := metrics(m)
	for _, w := range wantMetrics {
		if !strings.Contains(got, w) {
			t.Fatalf("/metrics lacks %s:\n%s", w, dealerLines(got))
		}
	}

	// Restart: the journal replays the sign-ins and the counts.
	m.Close()
	m2, _ := bootDaemon(t, conf)
	got = metrics(m2)
	for _, w := range wantMetrics {
		if !strings.Contains(got, w) {
			t.Fatalf("after restart /metrics lacks %s:\n%s", w, dealerLines(got))
		}
	}
	if v := m2.d.metrics.dealers.current(); v != "K.LEE" {
		t.Fatalf("after restart the dealer is %q", v)
	}
}

func dealerLines(s string) string {
	sub := "sabot_dealer"
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestDaemonDealerShift: the shift boundary in the daemon, on an injected
// clock. Dealers sign in and deal through 13:59:59 and past 14:00 (UTC,
// [dealer] shift_start): /metrics' per-dealer counts and the retained
// state's shift restart at 14:00, the dealer at the table carrying on into
// the new shift with zero counts; a restart (the journal replayed) gives
// the same counts.
func TestDaemonDealerShift(t *testing.T) {
	dir := t.TempDir()
	newDaemon := func() *daemon {
		d := testDaemon(t, dir)
		d.cfg.Dealer.TimeZone = "UTC" // the daemon's table is made from cfg again in replay
		d.cfg.Alerts.Misdeal = "alert-only"
		var err error
		if d.table, err = d.cfg.NewTable(nil); err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := newDaemon()
	fc := clockwork.NewFakeClockAt(time.Date(2026, 12, 1, 13, 59, 30, 0, time.UTC))
	d.clock = fc
	if _, _, err := d.replay(); err != nil {
		t.Fatal(err)
	}
	stop := runLoop(t, d)
	feed := func(src string, step time.Duration) {
		t.Helper()
		toks, err := tableau.ParseTranscript(strings.NewReader(src), "feed")
		if err != nil {
			t.Fatal(err)
		}
		for _, tok := range toks {
			fc.Advance(step)
			if err := d.submit(t.Context(), tableau.TokenInput(tok)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The morning shift (06:00–14:00): D1 deals a coup, D2 a coup with a
	// surplus card, between 13:59:30 and 14:00.
	feed("shoe dealer D1 2H 3C 4D | 5S 5H AC 2D | dealer D2 9S 2H KC 3D 7C |", time.Second)
	scrape := func(d *daemon) string {
		var b strings.Builder
		for _, l := range strings.Split(metricsText(t, d), "\n") {
			if strings.HasPrefix(l, "sabot_dealer_") || strings.HasPrefix(l, "sabot_shift_") {
				b.WriteString(l + "\n")
			}
		}
		return b.String()
	}
	before := scrape(d)
	for _, w := range []string{`sabot_dealer_coups{dealer="D1"} 1`, `sabot_dealer_coups{dealer="D2"} 1`,
		`sabot_dealer_alerts{code="extra-card",dealer="D2"} 1`, `sabot_dealer_signed_in{dealer="D2"} 1`,
		fmt.Sprintf("sabot_shift_start_timestamp_seconds %g", float64(time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC).Unix()))} {
		if !strings.Contains(before, w) {
			t.Fatalf("before 14:00, no %s in\n%s", w, before)
		}
	}
	// 14:00 passes: the next input opens the afternoon shift (steps within
	// the clock-jump tolerance: this is time passing, not a jump).
	if now := fc.Now(); now.Hour() != 13 {
		t.Fatalf("the morning's inputs ran to %v", now)
	}
	fc.Advance(10 * time.Second)
	feed("KS 9D QS QD |", time.Second)
	after := scrape(d)
	v := d.table.View()
	if v.Shift.Start != time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC) || len(v.Shift.Dealers) != 1 ||
		v.Shift.Dealers[0].Dealer != "D2" || v.Shift.Dealers[0].Coups != 1 {
		t.Fatalf("afternoon shift %+v", v.Shift)
	}
	if strings.Contains(after, `dealer="D1"`) || !strings.Contains(after, `sabot_dealer_coups{dealer="D2"} 1`) ||
		strings.Contains(after, "extra-card") {
		t.Fatalf("after 14:00:\n%s", after)
	}
	msg, err := d.builder.State(v, 99, fc.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(msg.Payload), `"dealer":"D2","shift":{"start":"2026-12-01T14:00:00Z","dealers":[{"dealer":"D2","coups":1,"voids":0,"alerts":{}}]}`) {
		t.Fatalf("state %s", msg.Payload)
	}
	stop()
	d.journal.Close()

	r := newDaemon()
	r.clock = fc
	if _, _, err := r.replay(); err != nil {
		t.Fatal(err)
	}
	r.metrics.dealers.note(r.table.View()) // as start does after the replay
	if got := scrape(r); got != after {
		t.Fatalf("after the restart:\n%s\nwant\n%s", got, after)
	}
}

// metricsText is what /metrics serves for d's registry.
func metricsText(t *testing.T, d *daemon) string {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(d.metrics.reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}
