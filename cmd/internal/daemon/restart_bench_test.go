package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
)

// BenchmarkStartAfterYears measures a sabotd start — open the journal,
// restore the newest snapshot, replay the records after it — on a state
// directory holding 5 years of a busy table in the live journal (no
// retention: the worst case): 10 shoes a day (SABOT_BENCH_YEARS changes
// the years), each the sample 8-deck shoe with its markers and shoe
// references, about 500 records a shoe, 9 million records in all, with the
// snapshots sabotd writes. The setup applies every record to a table, so
// it takes minutes; the figure is the start. Goal: under 2 s.
//
//	go test -run '^$' -bench StartAfterYears -benchtime 3x ./cmd/sabotd/
func BenchmarkStartAfterYears(b *testing.B) {
	years := 5.0
	if v := os.Getenv("SABOT_BENCH_YEARS"); v != "" {
		years, _ = strconv.ParseFloat(v, 64)
	}
	shoes := int(years * 365 * 10)
	dir := b.TempDir()
	d := testDaemon(b, dir)
	d.cfg.Shoe.Markers = "on"
	var err error
	if d.table, err = d.cfg.NewTable(nil); err != nil {
		b.Fatal(err)
	}
	one := shoeInputs(b, 1, 1)
	// Pre-encode the shoe's records; the shoe reference is the only part
	// that changes.
	type rec struct {
		in   tableau.Input
		data []byte
	}
	recs := make([]rec, len(one))
	for i, in := range one {
		in.Ref = ""
		data, _ := json.Marshal(in)
		recs[i] = rec{in: in, data: data}
	}
	start := time.Date(2021, 1, 1, 10, 0, 0, 0, time.UTC)
	var outs []tableau.Output
	batch := make([]journal.Entry, 0, len(recs))
	seq := uint64(0)
	ref := 0
	for s := range shoes {
		at := start.Add(time.Duration(s/10)*24*time.Hour + time.Duration(s%10)*80*time.Minute)
		batch = batch[:0]
		for i, r := range recs {
			seq++
			in := r.in
			data := r.data
			if in.Source == "shoe" {
				ref++
				in.Ref = "1:" + strconv.Itoa(ref)
				data = append(append(append([]byte(nil), data[:len(data)-1]...), `,"ref":"`+in.Ref+`"`...), '}')
			}
			t := at.Add(time.Duration(i) * 9 * time.Second)
			outs = d.table.Apply(seq, t, in, outs[:0])
			d.snaps.noteInput(in)
			d.maybeSnapshot(seq, d.table.View())
			batch = append(batch, journal.Entry{Time: t, Data: data})
		}
		if _, err := d.journal.AppendBatch(batch); err != nil {
			b.Fatal(err)
		}
		d.journal.SetMark(markPublished, seq)
	}
	endOfShoe, err := d.encodeSnapshot() // the largest: a whole shoe's counters and results
	if err != nil {
		b.Fatal(err)
	}
	d.journal.Close()
	fi, err := os.Stat(filepath.Join(dir, journal.FileName))
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d shoes, %d records, journal %d MB", shoes, seq, fi.Size()>>20)
	var replayed uint64
	for b.Loop() {
		r := testDaemon(b, dir)
		r.cfg.Shoe.Markers = "on"
		if r.table, err = r.cfg.NewTable(nil); err != nil {
			b.Fatal(err)
		}
		if _, _, err := r.replay(); err != nil {
			b.Fatal(err)
		}
		if r.table.LastSeq() != seq {
			b.Fatalf("restarted at record %d, want %d", r.table.LastSeq(), seq)
		}
		replayed = seq - r.snaps.seq
		r.journal.Close()
	}
	b.ReportMetric(float64(seq), "records")
	b.ReportMetric(float64(replayed), "replayed")
	b.ReportMetric(float64(fi.Size()>>20), "journal-MB")
	b.ReportMetric(float64(len(endOfShoe)), "snapshot-B")
}

// BenchmarkRetain measures moving records to the archive (sabotd's
// retention pass): 30 days of the busy table of BenchmarkStartAfterYears
// (10 shoes a day, about 165,000 records) archived in one pass, with
// fsync. It reports the archive's bytes per record, which sizes
// [state] archive_max_mb: at 10 shoes a day, a year is about 1.8 million
// records.
//
//	go test -run '^$' -bench Retain -benchtime 3x ./cmd/sabotd/
func BenchmarkRetain(b *testing.B) {
	one := shoeInputs(b, 1, 1)
	var recs [][]byte
	for _, in := range one {
		data, _ := json.Marshal(in)
		recs = append(recs, data)
	}
	start := time.Date(2021, 1, 1, 10, 0, 0, 0, time.UTC)
	var bytesPerRecord, recordsPerSec float64
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		j, err := journal.Open(dir, &journal.Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for s := range 300 {
			at := start.Add(time.Duration(s/10)*24*time.Hour + time.Duration(s%10)*80*time.Minute)
			batch := make([]journal.Entry, len(recs))
			for i, data := range recs {
				batch[i] = journal.Entry{Time: at.Add(time.Duration(i) * 9 * time.Second), Data: data}
			}
			if _, err := j.AppendBatch(batch); err != nil {
				b.Fatal(err)
			}
			n += len(batch)
		}
		j.Close()
		if j, err = journal.Open(dir, nil); err != nil { // with fsync, as sabotd
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		res, err := j.Retain(journal.RetainOptions{Before: start.Add(365 * 24 * time.Hour), UpTo: uint64(n)})
		el := time.Since(t0)
		b.StopTimer()
		if err != nil || res.Moved != n-1 {
			b.Fatalf("moved %d of %d: %v", res.Moved, n, err)
		}
		var size int64
		for _, f := range res.Written {
			size += f.Size
		}
		bytesPerRecord = float64(size) / float64(res.Moved)
		recordsPerSec = float64(res.Moved) / el.Seconds()
		j.Close()
		b.StartTimer()
	}
	b.ReportMetric(bytesPerRecord, "archive-B/record")
	b.ReportMetric(recordsPerSec, "records/s")
}
