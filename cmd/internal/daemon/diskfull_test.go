package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/drivers/testenv"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// mountTmpfs mounts a tmpfs of size bytes on dir (root only). Under
// CI=true a failure to mount fails the test; otherwise it skips it.
func mountTmpfs(t *testing.T, dir string, size int) {
	t.Helper()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		if testenv.CI() {
			t.Fatalf("cannot mount a tmpfs on %s (the disk-full test needs root): %v %s", dir, err, out)
		}
		t.Skipf("cannot mount a tmpfs (needs root): %v %s", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
}

// fillDisk writes path until the file system is full (ENOSPC).
func fillDisk(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	var n int64
	for {
		w, err := f.Write(chunk)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			return n
		}
		if err != nil {
			t.Fatalf("filling %s: %v", path, err)
		}
	}
}

// TestDaemonJournalDiskFull fills the file system of the state directory (a
// real tmpfs of 4 MiB, mounted by the test; no simulated writer) while a
// virtual sabot-protocol shoe deals two decks: the daemon keeps running and
// shows journal-failed (E16) on the display with the alarm lamp at once,
// /healthz answers 503, it stops acknowledging the shoe (which holds the
// events in its ring), a key press is answered with a refusal, and once the
// filler file is removed it recovers by itself: every event of the shoe is
// journaled exactly once and in order, the coups published are exactly
// `sabot check`'s for the shoe, and journal-failed is journaled and
// published once.
func TestDaemonJournalDiskFull(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	mountTmpfs(t, state, 4<<20)
	toks, err := sim.DealShoes(3, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	var tr bytes.Buffer
	tableau.FormatTranscript(&tr, toks)
	want := expectedCheck(t, tr.String())

	link := filepath.Join(dir, "ttySHOE")
	conf := fmt.Sprintf(`table = "T-DF"
[shoe]
device = %q
protocol = "sabot"
markers = "on"
[mqtt]
embedded_addr = "127.0.0.1:0"
[display]
kind = "fake"
[gpio]
lamp = "GPIO17"
ack_key = "GPIO5"
[state]
dir = %q
[http]
addr = "127.0.0.1:0"
`, link, state)
	m, logs := bootDaemon(t, conf)
	r := newReceived()
	subscribe(t, ownURL(m.d.broker), "sabot/T-DF", r)

	filler := filepath.Join(state, "filler")
	filled := fillDisk(t, filler)
	t.Logf("filled the state file system with %d bytes", filled)

	vs, err := sim.New(sim.Options{Tokens: toks, BootID: 0xD15CF011})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	simDone := make(chan error, 1)
	go func() { simDone <- vs.Run(ctx, sim.NewPTY(link)) }()

	waitFor(t, "the journal to fail", 60*time.Second, func() bool {
		h := m.d.health()
		return !h.OK && strings.Contains(h.Problem, "journal")
	})
	resp, err := http.Get("http://" + m.d.http.addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "no space left on device") {
		t.Fatalf("/healthz while the journal fails: %d %s", resp.StatusCode, body)
	}
	waitFor(t, "E16 on the display", 5*time.Second, func() bool { return strings.HasSuffix(m.d.fakeFrame(), "[E][1][6]") })
	if !m.d.lampOn() {
		t.Error("alarm lamp off while the journal fails")
	}
	// Nothing is journaled, nothing acknowledged: the shoe holds what it
	// has dealt and waits.
	last := m.d.journal.Last()
	t.Logf("the journal failed after record %d", last)
	time.Sleep(1500 * time.Millisecond)
	if got := m.d.journal.Last(); got != last {
		t.Fatalf("journal went on from %d to %d on a full disk", last, got)
	}
	if st := vs.Stats(); st.Pending == 0 {
		t.Fatalf("the shoe holds no unacknowledged event: %+v", st)
	}
	select {
	case err := <-simDone:
		t.Fatalf("the shoe finished while the journal was failing: %v", err)
	default:
	}
	// The keys are still read and answered.
	if err := m.d.board.Fake.Press("ack_key"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the key press answered", 5*time.Second, func() bool {
		return strings.Contains(logs.String(), "key press not applied")
	})
	if m.d.err() != nil {
		t.Fatalf("the daemon stopped: %v", m.d.err())
	}

	// Space again: the daemon recovers by itself and the shoe's ring drains.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-simDone:
		if err != nil {
			t.Fatalf("virtual shoe: %v (%+v)", err, vs.Stats())
		}
	case <-time.After(90 * time.Second):
		t.Fatalf("the shoe's events were not all acknowledged after the space came back: %+v\n%s", vs.Stats(), logs.String())
	}
	waitFor(t, "/healthz back", 10*time.Second, func() bool { return !strings.Contains(m.d.health().Problem, "journal") })

	// The journal: every event of the shoe once, in order; one
	// journal-failed record.
	var cards []string
	refs := map[string]int{}
	failed := 0
	if err := m.d.journal.Replay(1, func(rec journal.Record) error {
		var in tableau.Input
		if err := json.Unmarshal(rec.Data, &in); err != nil {
			return err
		}
		if in.Source == "shoe" && in.Ref != "" {
			refs[in.Ref]++
			if refs[in.Ref] > 1 {
				t.Errorf("shoe event %s journaled twice", in.Ref)
			}
		}
		if in.Kind == tableau.InputCard {
			cards = append(cards, in.Card.String())
		}
		if in.Kind == tableau.InputJournalFailed {
			failed++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var dealt []string
	for _, tok := range toks {
		if tok.Kind == tableau.TokCard {
			dealt = append(dealt, tok.Card.String())
		}
	}
	if !slices.Equal(cards, dealt) {
		t.Fatalf("journaled %d cards, dealt %d:\n%v\n%v", len(cards), len(dealt), cards, dealt)
	}
	if failed != 1 {
		t.Errorf("%d journal-failed records, want 1", failed)
	}
	// MQTT: sabot check's coups and alerts, plus one journal-failed alert.
	n := countLines(want)
	events := func() []map[string]any {
		var out []map[string]any
		for _, e := range withoutLink(r.events()) {
			if e["code"] != string(baccarat.AlertJournalFailed) {
				out = append(out, e)
			}
		}
		return out
	}
	waitFor(t, fmt.Sprintf("%d events", n), 30*time.Second, func() bool { return len(events()) >= n })
	g, w := projectedSet(t, events(), want)
	if !slices.Equal(g, w) {
		t.Fatalf("published (deduplicated) differs from sabot check:\n got %d: %v\nwant %d: %v", len(g), g, len(w), w)
	}
	jf := 0
	for _, e := range r.events() {
		if e["code"] == string(baccarat.AlertJournalFailed) {
			jf++
		}
	}
	if jf != 1 {
		t.Errorf("%d journal-failed alerts published, want 1", jf)
	}
	if len(r.dupes) > 0 {
		t.Fatalf("ids with two payloads: %v", r.dupes)
	}
	t.Logf("shoe %+v", vs.Stats())
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "journal:") {
			t.Log(l)
		}
	}
}
