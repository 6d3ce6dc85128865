package daemon

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
)

// TestRecallAfterRestart: three shoes (more than recallKept coups) through
// the daemon; its recall equals the last recallKept coups of an
// independent replay of the whole journal, every card's time is its
// journal record's; after a restart, which replays only from the newest
// snapshot, /recall gives the same coups; N is bounded.
func TestRecallAfterRestart(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	dir := t.TempDir()
	d := testDaemon(t, dir)
	d.recall = newRecallRing()
	at := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	for i, in := range shoeInputs(t, 3, 9) {
		if err := d.process(t.Context(), inputReq{in: in, recv: at.Add(time.Duration(i) * 1500 * time.Millisecond)}); err != nil {
			t.Fatal(err)
		}
	}
	before := d.recall.last(recallKept)
	if len(before) != recallKept {
		t.Fatalf("%d coups kept, want %d", len(before), recallKept)
	}

	// The reference: every record through a fresh table.
	tb, err := d.cfg.NewTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := tableau.NewRecall(recallKept)
	times := map[uint64]time.Time{}
	var outs []tableau.Output
	d.journal.Replay(1, func(r journal.Record) error {
		var in tableau.Input
		json.Unmarshal(r.Data, &in)
		outs = tb.Apply(r.Seq, r.Time, in, outs[:0])
		ref.Add(outs)
		times[r.Seq] = r.Time
		return nil
	})
	if want := ref.Last(recallKept); !reflect.DeepEqual(before, want) {
		t.Fatalf("daemon recall differs from a full replay:\n got %+v\nwant %+v", before[0], want[0])
	}
	cards, voids := 0, 0
	for _, c := range before {
		for _, k := range c.Cards {
			if !k.Time.Equal(times[k.Seq]) {
				t.Fatalf("coup %d card %s at %v, its record %d at %v", c.Coup, k.Card, k.Time, k.Seq, times[k.Seq])
			}
			cards++
		}
		if c.Result == "void" {
			voids++
		}
	}
	if cards < 4*recallKept || voids == 0 {
		t.Fatalf("%d cards, %d voids in the recall", cards, voids)
	}
	if raw, err := d.recall.snapshot(nil); err == nil {
		t.Logf("recall ring of %d coups in a snapshot: %d bytes (%d a coup)", recallKept, len(raw), len(raw)/recallKept)
	}
	d.journal.Close()

	r := testDaemon(t, dir)
	defer r.journal.Close()
	r.recall = newRecallRing()
	if _, _, err := r.replay(); err != nil {
		t.Fatal(err)
	}
	if r.snaps.seq == 0 || r.journal.Last()-r.snaps.seq > snapshotEvery {
		t.Fatalf("restart replayed from snapshot %d of %d records", r.snaps.seq, r.journal.Last())
	}
	h := serveRecall(r.recall.last)
	get := func(q string) (int, string) {
		w := httptest.NewRecorder()
		h(w, httptest.NewRequest("GET", "/recall"+q, nil))
		return w.Code, w.Body.String()
	}
	code, body := get("?last=200")
	want, _ := json.Marshal(before)
	if code != 200 || strings.TrimSpace(body) != string(want) {
		t.Fatalf("/recall after the restart: %d\n%.300s\nwant\n%.300s", code, body, want)
	}
	code, body = get("?last=3")
	var three []tableau.RecallCoup
	json.Unmarshal([]byte(body), &three)
	if code != 200 || len(three) != 3 || three[2].Coup != before[recallKept-1].Coup || three[0].Coup != before[recallKept-3].Coup {
		t.Fatalf("last=3: %d %s", code, body)
	}
	if code, body = get("?last=3&format=text"); code != 200 || strings.Count(body, " coup ") != 3 {
		t.Fatalf("text: %d\n%s", code, body)
	}
	for _, q := range []string{"?last=0", "?last=201", "?last=x"} {
		if code, body := get(q); code != http.StatusBadRequest || !strings.Contains(body, "from 1 to 200") {
			t.Errorf("%s: %d %s", q, code, body)
		}
	}
	if code, body := get(""); code != 200 || strings.Count(body, `"coup":`) != recallDefault {
		t.Errorf("default: %d %s", code, body)
	}
}
