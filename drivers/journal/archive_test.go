package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fillDays appends perDay records a day for days days from start, record
// i's payload "r<i>", and returns the journal.
func fillDays(t *testing.T, dir string, start time.Time, days, perDay int) *Journal {
	t.Helper()
	j, err := Open(dir, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	var batch []Entry
	for d := range days {
		for i := range perDay {
			n := d*perDay + i + 1
			batch = append(batch, Entry{Time: start.Add(time.Duration(d)*24*time.Hour + time.Duration(i)*time.Minute), Data: []byte(fmt.Sprintf("r%d", n))})
		}
	}
	if _, err := j.AppendBatch(batch); err != nil {
		t.Fatal(err)
	}
	return j
}

func replayAllText(t *testing.T, j *Journal) (first, last uint64, n int) {
	t.Helper()
	err := j.ReplayAll(func(r Record) error {
		if string(r.Data) != fmt.Sprintf("r%d", r.Seq) {
			t.Fatalf("record %d holds %q", r.Seq, r.Data)
		}
		if first == 0 {
			first = r.Seq
		} else if r.Seq != last+1 {
			t.Fatalf("record %d after %d", r.Seq, last)
		}
		last = r.Seq
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return first, last, n
}

// TestRetainMovesOldRecords: records stamped before the cutoff, and up to
// the replay start, move into one gzip archive file per UTC day; the live
// journal keeps the rest; ReplayAll reads both, each record once, in
// order; the files are named by their records and date; a reopen keeps it
// all.
func TestRetainMovesOldRecords(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	j := fillDays(t, dir, start, 10, 50) // records 1–500, 50 a day
	defer func() { j.Close() }()
	res, err := j.Retain(RetainOptions{Before: start.Add(6 * 24 * time.Hour), UpTo: 280})
	if err != nil {
		t.Fatal(err)
	}
	// Days 0–5 are old enough (records 1–300), the replay start stops at 280.
	if res.Moved != 280 || len(res.Written) != 6 || len(res.Removed) != 0 {
		t.Fatalf("moved %d into %d files (%+v)", res.Moved, len(res.Written), res.Written)
	}
	if w := res.Written[5]; w.First != 251 || w.Last != 280 || w.Date != "20260106" ||
		filepath.Base(w.Path) != "journal-0000000000000251-0000000000000280-20260106.gz" {
		t.Fatalf("last file written: %+v", w)
	}
	if j.First() != 281 || j.Last() != 500 {
		t.Fatalf("live journal %d–%d", j.First(), j.Last())
	}
	if err := j.Replay(1, func(Record) error { return nil }); err == nil || !strings.Contains(err.Error(), "moved to the archive") {
		t.Fatalf("Replay(1) of a journal starting at 281: %v", err)
	}
	if f, l, n := replayAllText(t, j); f != 1 || l != 500 || n != 500 {
		t.Fatalf("ReplayAll: %d–%d, %d records", f, l, n)
	}
	files, _ := Archives(dir)
	if len(files) != 6 || files[0].First != 1 || files[0].Size == 0 {
		t.Fatalf("archives %+v", files)
	}
	// Nothing more is old enough: a second call moves nothing.
	if res, err := j.Retain(RetainOptions{Before: start.Add(6 * 24 * time.Hour), UpTo: 280}); err != nil || res.Moved != 0 {
		t.Fatalf("second Retain: %+v %v", res, err)
	}
	// Everything old, up to the last record: the last record stays.
	if res, err := j.Retain(RetainOptions{Before: start.Add(100 * 24 * time.Hour), UpTo: 500}); err != nil || res.Moved != 219 {
		t.Fatalf("Retain of all: %+v %v", res, err)
	}
	if j.First() != 500 || j.Last() != 500 {
		t.Fatalf("live journal %d–%d after moving all", j.First(), j.Last())
	}
	j.Close()
	j, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if seq, err := j.Append(start, []byte("r501")); err != nil || seq != 501 {
		t.Fatalf("append after reopen: %d %v", seq, err)
	}
	if f, l, n := replayAllText(t, j); f != 1 || l != 501 || n != 501 {
		t.Fatalf("ReplayAll after reopen: %d–%d, %d records", f, l, n)
	}
}

// TestRetainCapRemovesOldest: past MaxBytes the oldest archive files are
// removed, reported in Removed; ReplayAll then starts at the oldest record
// kept.
func TestRetainCapRemovesOldest(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	j := fillDays(t, dir, start, 8, 200)
	defer j.Close()
	res, err := j.Retain(RetainOptions{Before: start.Add(7 * 24 * time.Hour), UpTo: 1400})
	if err != nil || res.Moved != 1400 || len(res.Written) != 7 {
		t.Fatalf("Retain: %+v %v", res, err)
	}
	var total int64
	for _, f := range res.Written {
		total += f.Size
	}
	// A cap that holds all but about two files.
	cap := total - res.Written[0].Size - res.Written[1].Size/2
	res, err = j.Retain(RetainOptions{Before: start, UpTo: 1400, MaxBytes: cap})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 2 || res.Removed[0].First != 1 || res.Removed[1].First != 201 {
		t.Fatalf("removed %+v", res.Removed)
	}
	for _, f := range res.Removed {
		if _, err := os.Stat(f.Path); !os.IsNotExist(err) {
			t.Fatalf("%s still there: %v", f.Path, err)
		}
	}
	files, _ := Archives(dir)
	var left int64
	for _, f := range files {
		left += f.Size
	}
	if left > cap || len(files) != 5 {
		t.Fatalf("%d bytes in %d files left, cap %d", left, len(files), cap)
	}
	if f, l, n := replayAllText(t, j); f != 401 || l != 1600 || n != 1200 {
		t.Fatalf("ReplayAll after the cap: %d–%d, %d records", f, l, n)
	}
	// A file missing in the middle (removed by hand) is an error naming
	// the records, not a silent gap.
	os.Remove(files[2].Path)
	err = j.ReplayAll(func(Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("records %d to %d are missing", files[2].First, files[2].Last)) {
		t.Fatalf("ReplayAll with a file missing: %v", err)
	}
}

// TestRetainInterrupted: an archive file written whose records are still
// in the live journal (a crash between the two steps) is completed by the
// next Retain, never archived twice; a leftover temporary file is removed.
func TestRetainInterrupted(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	j := fillDays(t, dir, start, 3, 10)
	defer j.Close()
	adir := filepath.Join(dir, ArchiveDir)
	os.MkdirAll(adir, 0o750)
	af, n, err := j.writeArchive(adir, 1, 100, start.Add(24*time.Hour), archiveFileRecords)
	if err != nil || n != 10 {
		t.Fatalf("writeArchive: %d %v", n, err)
	}
	os.WriteFile(filepath.Join(adir, ".tmp-123"), []byte("partial"), 0o640)
	if j.First() != 1 {
		t.Fatal("records left the journal")
	}
	res, err := j.Retain(RetainOptions{Before: start.Add(2 * 24 * time.Hour), UpTo: 30})
	if err != nil {
		t.Fatal(err)
	}
	if res.Moved != 10 || len(res.Written) != 1 || res.Written[0].First != 11 || j.First() != 21 {
		t.Fatalf("after the interrupted move: %+v, live from %d (first file %s)", res, j.First(), af.Path)
	}
	if _, err := os.Stat(filepath.Join(adir, ".tmp-123")); !os.IsNotExist(err) {
		t.Fatal("temporary file left")
	}
	if f, l, n := replayAllText(t, j); f != 1 || l != 30 || n != 30 {
		t.Fatalf("ReplayAll: %d–%d, %d", f, l, n)
	}
}

// TestReadArchiveErrors: a damaged or foreign archive file is an error
// naming it, never a panic.
func TestReadArchiveErrors(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"plain.gz": "not gzip", "empty.gz": ""} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o640)
		if err := ReadArchive(p, func(Record) error { return nil }); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A truncated archive: the records before the cut are read, then an
	// error.
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	j := fillDays(t, dir, start, 2, 300)
	defer j.Close()
	res, err := j.Retain(RetainOptions{Before: start.Add(24 * time.Hour), UpTo: 1000})
	if err != nil || len(res.Written) != 1 {
		t.Fatal(res, err)
	}
	b, _ := os.ReadFile(res.Written[0].Path)
	os.WriteFile(res.Written[0].Path, b[:len(b)/2], 0o640)
	n := 0
	if err := ReadArchive(res.Written[0].Path, func(Record) error { n++; return nil }); err == nil || !strings.Contains(err.Error(), res.Written[0].Path) {
		t.Fatalf("truncated archive: %v after %d records", err, n)
	}
}
