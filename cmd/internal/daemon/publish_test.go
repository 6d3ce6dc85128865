package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/cmd/internal/demo"
	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
	"github.com/sabot-table/sabot/drivers/testenv"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// cleanTokens returns the tokens of the clean 8-deck sample shoe.
func cleanTokens(t testing.TB) []tableau.Token {
	t.Helper()
	src, err := os.ReadFile("../../../tableau/testdata/clean-8deck.shoe")
	if err != nil {
		t.Fatal(err)
	}
	toks, err := tableau.ParseTranscript(bytes.NewReader(src), "clean-8deck.shoe")
	if err != nil {
		t.Fatal(err)
	}
	return toks
}

// journalInputs returns the journal's inputs, in order.
func journalInputs(t *testing.T, j *journal.Journal) []tableau.Input {
	t.Helper()
	var ins []tableau.Input
	err := j.Replay(1, func(r journal.Record) error {
		var in tableau.Input
		if err := json.Unmarshal(r.Data, &in); err != nil {
			return err
		}
		ins = append(ins, in)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ins
}

// TestOutboxFullThenBrokerBack: the broker is away and the outbox (20
// messages here) fills. At 80% the table raises outbox-backlog: journaled
// as an input, latched, E13 on the display. At the limit the outbox refuses
// messages; the daemon keeps them, and once the broker is back they are
// published, in order, the alert among them, and the published mark
// catches up with the journal (before, one refusal stopped the mark for
// the rest of the process's life, and the publisher raised an alert of its
// own that was neither journaled, latched nor displayed).
func TestOutboxFullThenBrokerBack(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	port := testenv.FreePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	m, logs := bootDaemon(t, fmt.Sprintf(`table = "T-9"
[shoe]
device = %q
protocol = "lines"
[mqtt]
brokers = ["tcp://%s"]
backlog_limit = 20
[display]
kind = "fake"
[gpio]
lamp = "GPIO17"
[state]
dir = %q
`, tty.Name(), addr, t.TempDir()))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(logs.String())
		}
	})
	waitShoeOnline(t, m)
	d := m.d
	toks := cleanTokens(t)[:60]
	for _, tok := range toks {
		last := d.journal.Last()
		fmt.Fprintf(ptmx, "%s\n", tok)
		waitFor(t, "the token journaled", 5*time.Second, func() bool { return d.journal.Last() > last })
	}
	waitFor(t, "the outbox refusing messages", 5*time.Second, func() bool {
		return strings.Contains(logs.String(), "outputs not queued in the outbox")
	})
	// The alert went through the table: one backlog input in the journal,
	// latched, shown as E13.
	backlogs := 0
	for _, in := range journalInputs(t, d.journal) {
		if in.Kind == tableau.InputBacklog {
			backlogs++
		}
	}
	if backlogs != 1 {
		t.Fatalf("%d backlog inputs journaled, want 1", backlogs)
	}
	v := d.currentView()
	var alert tableau.LatchedAlert
	for _, a := range v.Alerts {
		if a.Code == baccarat.AlertOutboxBacklog {
			alert = a
		}
	}
	if alert.ID == "" {
		t.Fatalf("no latched outbox-backlog alert: %+v", v.Alerts)
	}
	waitFor(t, "E13 on the display", 5*time.Second, func() bool { return strings.HasSuffix(d.fakeFrame(), "[E][1][3]") })
	if !d.lampOn() {
		t.Error("alarm lamp off with outbox-backlog latched")
	}
	mark, _ := d.journal.Mark(markPublished)
	if mark >= d.journal.Last() {
		t.Fatalf("published mark %d with the outbox refusing messages (journal %d)", mark, d.journal.Last())
	}

	// The broker comes back.
	r := newReceived()
	b, err := embedded.StartOpen(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	subscribe(t, b.URL(), "sabot/T-9", r)
	coups := len(v.Results)
	waitFor(t, "the published mark to catch up", 60*time.Second, func() bool {
		mark, _ := d.journal.Mark(markPublished)
		return mark == d.journal.Last()
	})
	// The subscriber connected after the outbox had started draining; what
	// is still to come must arrive: the alert (its id from the table) and
	// the last coups.
	waitFor(t, "the alert and the last coup", 30*time.Second, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		_, a := r.byID[alert.ID]
		return a && len(r.all["coup"]) > 0 &&
			r.all["coup"][len(r.all["coup"])-1]["coup"] == float64(coups)
	})
	for _, a := range r.kind("alert") {
		if a["id"] == alert.ID && (a["code"] != "outbox-backlog" || a["awaits_ack"] != true) {
			t.Fatalf("alert payload %v", a)
		}
	}
	if len(r.dupes) > 0 {
		t.Fatalf("ids with two payloads: %v", r.dupes)
	}
}

// failingBuilder fails to encode the outputs whose id is in fail, and the
// state when failState.
type failingBuilder struct {
	*mqtt.Builder
	fail      map[string]bool
	failState bool
}

func (b failingBuilder) Output(o tableau.Output) (mqtt.Message, bool, error) {
	m, ok, err := b.Builder.Output(o)
	if b.fail[o.ID] {
		return mqtt.Message{}, false, errors.New("mqtt: injected: payload too large")
	}
	return m, ok, err
}

func (b failingBuilder) State(v tableau.TableView, seq uint64, at time.Time) (mqtt.Message, error) {
	if b.failState {
		return mqtt.Message{}, errors.New("mqtt: injected: state payload too large")
	}
	return b.Builder.State(v, seq, at)
}

// One message that cannot be encoded is left out alone: the other messages
// of the batch are built, and the error names the message's id.
func TestMessagesEncodeErrorIsPerMessage(t *testing.T) {
	tbl, err := config.Default().NewTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var outs []tableau.Output
	var seq uint64
	var coupID string
	for _, tok := range cleanTokens(t) {
		seq++
		outs = tbl.Apply(seq, at, tableau.TokenInput(tok), outs[:0])
		for _, o := range outs {
			if o.Kind == tableau.OutputCoup {
				coupID = o.ID
			}
		}
		if coupID != "" {
			break
		}
	}
	// This input's outputs hold the coup (and its last card): fail the
	// coup's message and keep the rest.
	if len(outs) < 2 {
		t.Fatalf("outputs %v, want a card and the coup", outs)
	}
	b := failingBuilder{Builder: mqtt.NewBuilder("T", tbl.Config().Fold.Rules), fail: map[string]bool{coupID: true}}
	msgs, errs := messages(b, outs, tbl.View(), seq, at, true)
	if len(errs) != 1 || errs[0].id != coupID {
		t.Fatalf("errors %v, want one for %s", errs, coupID)
	}
	// The outputs less the failed coup, then the state and the roads (a
	// coup changes them).
	if len(msgs) != len(outs)+1 || msgs[len(msgs)-2].Topic != mqtt.TopicState || msgs[len(msgs)-1].Topic != mqtt.TopicRoads {
		t.Fatalf("%d messages for %d outputs (one failed), the state and the roads: %v", len(msgs), len(outs), msgs)
	}
	b.fail, b.failState = nil, true
	msgs, errs = messages(b, outs, tbl.View(), seq, at, true)
	if len(errs) != 1 || errs[0].id != fmt.Sprintf("state/%d", seq) || len(msgs) != len(outs)+1 {
		t.Fatalf("state failing: %d messages, errors %v", len(msgs), errs)
	}
}

// growShoe journals one shoe dealt over and over without a new-shoe input
// (a Bee-Tek shoe never sends one) until coups coups: the retained state,
// which carries the bead plate, grows past mqtt.MaxPayload.
func growShoe(t *testing.T, dir string, coups int) *journal.Journal {
	t.Helper()
	j, err := journal.Open(dir, &journal.Options{NoSync: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	toks := cleanTokens(t)
	var batch []journal.Entry
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	add := func(tok tableau.Token) {
		data, _ := json.Marshal(tableau.TokenInput(tok))
		batch = append(batch, journal.Entry{Time: at, Data: data})
		at = at.Add(time.Second)
	}
	n := 0
	add(toks[0])                   // the only "shoe"
	for _, tok := range toks[5:] { // after the burn: coups only
		if n >= coups {
			break
		}
		if tok.Kind == tableau.TokShoe || tok.Kind == tableau.TokCut {
			continue
		}
		add(tok)
		if tok.Kind == tableau.TokMarker {
			n++
		}
	}
	for n < coups {
		for _, tok := range toks[5:] {
			if tok.Kind == tableau.TokShoe || tok.Kind == tableau.TokCut {
				continue
			}
			add(tok)
			if tok.Kind == tableau.TokMarker {
				if n++; n >= coups {
					break
				}
			}
		}
	}
	if _, err := j.AppendBatch(batch); err != nil {
		t.Fatal(err)
	}
	return j
}

// A state grown past the payload limit (4,000 coups without a new shoe) in
// the records after the published mark: the daemon starts (before, the
// replay failed on the state and the daemon could never start again),
// publishes the other messages of those records, logs each state left out
// with its id and counts it in sabot_mqtt_encode_errors_total; live inputs
// go on being published too.
func TestRestartWithOversizedState(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	state := t.TempDir()
	j := growShoe(t, state, 4000)
	last := j.Last()
	j.SetMark(markPublished, last-5)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := embedded.StartOpen("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r := newReceived()
	subscribe(t, b.URL(), "sabot/T-8", r)
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	m, logs := bootDaemon(t, fmt.Sprintf(`table = "T-8"
[shoe]
device = %q
protocol = "lines"
[mqtt]
brokers = [%q]
[state]
dir = %q
`, tty.Name(), b.URL(), state))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(logs.String())
		}
	})
	d := m.d
	v := d.currentView()
	// The table keeps the shoe's newest tableau.MaxShoeResults results.
	if v.Shoe != 1 || v.Coup < 3500 || len(v.Results) != tableau.MaxShoeResults || v.ResultsDropped.Coups+len(v.Results) < 3500 {
		t.Fatalf("replayed shoe %d, coup %d, with %d results (%d dropped)", v.Shoe, v.Coup, len(v.Results), v.ResultsDropped.Coups)
	}
	// Is the state still past the limit? (If the bead plate is ever
	// bounded, it is published instead; either way the daemon starts.)
	_, stateErr := mqtt.NewBuilder("T-8", d.rules).State(v, last, time.Now())
	// The five republished records' cards and coups arrive.
	ins := journalInputs(t, d.journal)
	wantCards := 0
	for _, in := range ins[last-5:] {
		if in.Kind == tableau.InputCard {
			wantCards++
		}
	}
	waitFor(t, "the republished cards", 10*time.Second, func() bool { return len(r.kind("card")) >= wantCards })
	// A live card is published too.
	waitShoeOnline(t, m)
	fmt.Fprintf(ptmx, "9H\n")
	waitFor(t, "the live card", 10*time.Second, func() bool {
		c := r.kind("card")
		return len(c) > wantCards && c[len(c)-1]["card"] == "9H"
	})
	var metric dto.Metric
	if err := d.metrics.encodeErrors.Write(&metric); err != nil {
		t.Fatal(err)
	}
	errs := metric.GetCounter().GetValue()
	if stateErr == nil {
		if errs != 0 {
			t.Fatalf("%v encode errors with a state that fits", errs)
		}
		t.Logf("the state fits in %d bytes: no encode error to check", mqtt.MaxPayload)
		return
	}
	// The state of each of the 5 republished records and of each live one
	// (the shoe online, the card).
	if want := d.journal.Last() - (last - 5); errs != float64(want) {
		t.Fatalf("sabot_mqtt_encode_errors_total = %v, want %d", errs, want)
	}
	if want := fmt.Sprintf("id=state/%d", d.journal.Last()); !strings.Contains(logs.String(), want) {
		t.Fatalf("no log line with %s", want)
	}
	mark, _ := d.journal.Mark(markPublished)
	if mark != d.journal.Last() {
		t.Fatalf("published mark %d, journal %d", mark, d.journal.Last())
	}
}

// A shoe reader that does not return when the shoe is closed: the stop
// says so (log and error) instead of going on as if it had, and still
// releases the rest.
func TestCloseReportsStuckShoeReader(t *testing.T) {
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	m, logs := bootDaemon(t, fmt.Sprintf(`table = "T-7"
[shoe]
device = %q
protocol = "lines"
[mqtt]
embedded_addr = "127.0.0.1:0"
[state]
dir = %q
`, tty.Name(), t.TempDir()))
	waitShoeOnline(t, m)
	m.d.shoeStop = 200 * time.Millisecond
	m.d.shoeWG.Add(1) // a reader that never returns
	defer m.d.shoeWG.Done()
	err = m.Close()
	if err == nil || !strings.Contains(err.Error(), "shoe reader did not finish within 200ms") {
		t.Fatalf("Close: %v", err)
	}
	if !strings.Contains(logs.String(), "the shoe reader did not finish in time") {
		t.Fatalf("no log line:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "sabotd stopped") {
		t.Fatalf("the stop did not go on:\n%s", logs.String())
	}
}

// The replay at a start does not stop on a message that cannot be encoded
// (before, it returned the encoding error and the daemon could not start):
// the other messages of the records after the published mark are
// republished, and the one left out is counted.
func TestReplaySkipsUnencodableMessage(t *testing.T) {
	dir := t.TempDir()
	d := testDaemon(t, dir)
	at := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	toks := cleanTokens(t)[:30]
	for i, tok := range toks {
		if err := d.process(t.Context(), inputReq{in: tableau.TokenInput(tok), recv: at.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	d.journal.SetMark(markPublished, 5) // records 6… are to be published again
	d.journal.Close()

	want := testDaemon(t, dir)
	wantMsgs, _, err := want.replay()
	want.journal.Close()
	if err != nil {
		t.Fatal(err)
	}
	var coupID string
	for _, m := range wantMsgs {
		if m.Topic == mqtt.TopicCoup {
			coupID = demo.JSONID(m.Payload)
			break
		}
	}
	if coupID == "" {
		t.Fatalf("no coup among the %d messages to republish", len(wantMsgs))
	}
	r := testDaemon(t, dir)
	defer r.journal.Close()
	r.builder = failingBuilder{Builder: r.builder.(*mqtt.Builder), fail: map[string]bool{coupID: true}}
	msgs, _, err := r.replay()
	if err != nil {
		t.Fatalf("replay stopped on an unencodable message: %v", err)
	}
	var wantText []string
	for _, m := range wantMsgs {
		if demo.JSONID(m.Payload) != coupID {
			wantText = append(wantText, messagesText([]mqtt.Message{m})...)
		}
	}
	if got := messagesText(msgs); strings.Join(got, "\n") != strings.Join(wantText, "\n") {
		t.Fatalf("republished %d messages, want the %d but %s", len(got), len(wantText), coupID)
	}
	var metric dto.Metric
	r.metrics.encodeErrors.Write(&metric)
	if n := metric.GetCounter().GetValue(); n != 1 {
		t.Fatalf("sabot_mqtt_encode_errors_total = %v, want 1", n)
	}
}

// A run that finished (stop(nil), as the demo does once every coup came
// back) stays finished: the shoe reader's late "stopping" error does not
// make it a failure. Before, the second stop replaced the nil and
// TestDemoFast failed now and then with "demo failed: sabotd: stopping".
func TestStopFirstCallDecides(t *testing.T) {
	d := &daemon{done: make(chan struct{})}
	d.stop(nil)
	d.stop(errStopping)
	if err := d.err(); err != nil {
		t.Fatalf("err() = %v after stop(nil), want nil", err)
	}
	d = &daemon{done: make(chan struct{})}
	d.stop(errors.New("journal: disk on fire"))
	d.stop(nil)
	if err := d.err(); err == nil || err.Error() != "journal: disk on fire" {
		t.Fatalf("err() = %v, want the first error", err)
	}
}
