package daemon

import (
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestRetentionArchivesAndCap: ten days of records, each day a new shoe
// and 400 shoe alarms with 748 bytes of base64 of random bytes (so that five
// days of archives pass a 1 MiB cap). With retain_days = 90 on day 95,
// days 0–4 move to one archive file each and leave the live journal; the
// archive is then over archive_max_mb = 1, so the oldest file (day 0) is
// removed, logged as a warning and raised as archive-pruned through the
// table (journaled and latched). A restart replays to the same view, and
// the records kept — archives, then the live journal — read back in
// order from the first record of day 1.
func TestRetentionArchivesAndCap(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	dir := t.TempDir()
	d := testDaemon(t, dir)
	logs := &syncBuffer{}
	d.log = slog.New(slog.NewTextHandler(logs, nil))
	d.cfg.State.RetainDays, d.cfg.State.ArchiveMaxMB = 90, 1
	day0 := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(5, 5))
	raw := make([]byte, 560) // 4 files (with their 32-byte chain hashes) stay under the cap, 5 do not
	var dayFirst []uint64
	for day := range 10 {
		at := day0.Add(time.Duration(day) * 24 * time.Hour)
		dayFirst = append(dayFirst, d.journal.Last()+1)
		ins := []tableau.Input{{Kind: tableau.InputShoe, Source: "gpio"}}
		for range 400 {
			for i := range raw {
				raw[i] = byte(rng.Uint32())
			}
			ins = append(ins, tableau.Input{Kind: tableau.InputAlarm, Code: "E9", Text: base64.StdEncoding.EncodeToString(raw), Source: "shoe"})
		}
		for i, in := range ins {
			if err := d.process(t.Context(), inputReq{in: in, recv: at.Add(time.Duration(i) * time.Second)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	d.clock = clockwork.NewFakeClockAt(day0.Add(95 * 24 * time.Hour))
	stop := runLoop(t, d)
	d.retainOnce(t.Context())
	stop()

	// Days 0–4 (records before day 5's first) were old enough, and each
	// day began with a snapshot; day 0's file went to the cap.
	if got := d.journal.First(); got != dayFirst[5] {
		t.Fatalf("live journal starts at %d, want %d (day 5)", got, dayFirst[5])
	}
	files, err := journal.Archives(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 || files[0].First != dayFirst[1] || files[0].Date != "20260102" || files[3].Last != dayFirst[5]-1 {
		t.Fatalf("archive files %+v", files)
	}
	var total int64
	for _, f := range files {
		total += f.Size
	}
	if total > 1<<20 || total < 700<<10 {
		t.Fatalf("archive holds %d bytes (cap 1 MiB)", total)
	}
	removed := "journal-0000000000000001-" // day 0's file
	if !strings.Contains(logs.String(), "oldest archive removed") || !strings.Contains(logs.String(), removed) {
		t.Fatalf("no warning for the removed archive:\n%s", logs.String())
	}
	latched := d.table.Latched()
	var pruned *tableau.LatchedAlert
	for i := range latched {
		if latched[i].Code == baccarat.AlertArchivePruned {
			pruned = &latched[i]
		}
	}
	if pruned == nil || !strings.Contains(pruned.Text, removed) || !strings.Contains(pruned.Text, "archive_max_mb = 1") {
		t.Fatalf("archive-pruned not latched: %+v", latched)
	}
	var last tableau.Input
	d.journal.Replay(d.journal.Last(), func(r journal.Record) error { return json.Unmarshal(r.Data, &last) })
	if last.Kind != tableau.InputArchivePruned {
		t.Fatalf("last record %+v, want the archive-pruned input", last)
	}
	want, _ := json.Marshal(d.table.View())
	d.journal.Close()

	r := testDaemon(t, dir)
	defer r.journal.Close()
	if _, _, err := r.replay(); err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(r.table.View()); string(got) != string(want) {
		t.Fatalf("view after restart:\n got %s\nwant %s", got, want)
	}
	next := dayFirst[1]
	err = r.journal.ReplayAll(func(rec journal.Record) error {
		if rec.Seq != next {
			t.Fatalf("record %d, want %d", rec.Seq, next)
		}
		next++
		return nil
	})
	if err != nil || next != r.journal.Last()+1 {
		t.Fatalf("ReplayAll: %v, ended before %d of %d", err, next, r.journal.Last())
	}
}

// TestRetentionConfig: the [state] retention keys default to 90 days and
// 1024 MiB, and a negative value is refused naming the key and line.
func TestRetentionConfig(t *testing.T) {
	base := "table = \"R\"\n[shoe]\ndevice = \"/dev/null\"\n[state]\ndir = \"/tmp/x\"\n"
	c, err := config.Parse([]byte(base), "r.toml")
	if err != nil {
		t.Fatal(err)
	}
	if c.State.RetainDays != 90 || c.State.ArchiveMaxMB != 1024 {
		t.Fatalf("defaults: %+v", c.State)
	}
	for key, line := range map[string]string{"state.retain_days": "retain_days = -1", "state.archive_max_mb": "archive_max_mb = -5"} {
		_, err := config.Parse([]byte(base+line+"\n"), "r.toml")
		if err == nil || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "r.toml:6") {
			t.Errorf("%s: %v", line, err)
		}
	}
}
