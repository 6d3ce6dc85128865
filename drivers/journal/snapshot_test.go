package journal

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func appendN(t *testing.T, j *Journal, n int) {
	t.Helper()
	for range n {
		if _, err := j.Append(time.Unix(1_800_000_000, 0), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSnapshotWithAppend: a snapshot set before record seq's Append is
// written in that transaction; Snapshot finds the newest at or before a
// record; PruneSnapshots keeps the newest at or before its argument and
// all later ones; everything survives a reopen.
func TestSnapshotWithAppend(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 2)
	// Snapshot of the state after record 3, set before record 3 exists:
	// not visible, not written by Flush, until record 3 is appended.
	j.SetSnapshot(3, []byte("s3"))
	if seq, _, _ := j.Snapshot(100); seq != 0 {
		t.Fatalf("snapshot of a record not yet appended visible: %d", seq)
	}
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	if s, _ := j.Snapshots(); len(s) != 0 {
		t.Fatalf("Flush wrote a snapshot of a future record: %v", s)
	}
	appendN(t, j, 1) // record 3, with its snapshot
	for _, seq := range []uint64{10, 20, 30} {
		appendN(t, j, int(seq-j.Last()-1))
		j.SetSnapshot(seq, []byte(fmt.Sprintf("s%d", seq)))
		appendN(t, j, 1)
	}
	if s, _ := j.Snapshots(); fmt.Sprint(s) != "[3 10 20 30]" {
		t.Fatalf("snapshots %v", s)
	}
	for _, c := range []struct {
		atMost uint64
		seq    uint64
		data   string
	}{{2, 0, ""}, {3, 3, "s3"}, {19, 10, "s10"}, {20, 20, "s20"}, {1000, 30, "s30"}, {^uint64(0), 30, "s30"}} {
		seq, data, err := j.Snapshot(c.atMost)
		if err != nil || seq != c.seq || string(data) != c.data {
			t.Errorf("Snapshot(%d) = %d %q %v, want %d %q", c.atMost, seq, data, err, c.seq, c.data)
		}
	}
	j.PruneSnapshots(25) // keeps 20 (newest ≤ 25) and 30
	appendN(t, j, 1)
	if s, _ := j.Snapshots(); fmt.Sprint(s) != "[20 30]" {
		t.Fatalf("after PruneSnapshots(25): %v", s)
	}
	// A lagging mark: the newest at or before it and the two newest stay.
	for seq := uint64(40); seq <= 80; seq += 10 {
		appendN(t, j, int(seq-j.Last()-1))
		j.SetSnapshot(seq, []byte(fmt.Sprintf("s%d", seq)))
		j.PruneSnapshots(25)
		appendN(t, j, 1)
	}
	if s, _ := j.Snapshots(); fmt.Sprint(s) != "[20 70 80]" {
		t.Fatalf("with the mark at 25: %v", s)
	}
	j.PruneSnapshots(5) // none at or before 5: nothing deleted
	appendN(t, j, 1)
	if s, _ := j.Snapshots(); fmt.Sprint(s) != "[20 70 80]" {
		t.Fatalf("after PruneSnapshots(5): %v", s)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if s, _ := j.Snapshots(); fmt.Sprint(s) != "[20 70 80]" {
		t.Fatalf("after reopen: %v", s)
	}
	if seq, data, _ := j.Snapshot(69); seq != 20 || string(data) != "s20" {
		t.Fatalf("Snapshot(69) after reopen = %d %q", seq, data)
	}
}

// setFormat rewrites the journal's format value (a journal written by
// another version).
func setFormat(t *testing.T, dir, value string) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o640, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		if value == "v1" { // exactly what a format-1 sabotd leaves
			if err := tx.DeleteBucket(bucketSnapshots); err != nil {
				return err
			}
			value = "sabot-journal-1"
		}
		return tx.Bucket(bucketMeta).Put(keyFormat, []byte(value))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFormatNewerRefused: a sabotd that reads only older formats (played
// by lowering FormatVersion) refuses a state directory written by this
// one, naming the file, the version found and the versions it reads; it
// does not touch the file, and this version opens it again afterwards.
func TestFormatNewerRefused(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 3)
	j.Close()

	cur := FormatVersion
	FormatVersion = cur - 1 // an older sabotd
	for _, ro := range []bool{false, true} {
		_, err = Open(dir, &Options{ReadOnly: ro})
		if !errors.Is(err, ErrNewerFormat) {
			FormatVersion = cur
			t.Fatalf("older sabotd (read-only %v) opened a newer journal: %v", ro, err)
		}
		for _, want := range []string{filepath.Join(dir, FileName), fmt.Sprintf("format version %d", cur),
			fmt.Sprintf("reads versions 1 to %d", cur-1), "newer"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	}
	FormatVersion = cur
	j, err = Open(dir, nil)
	if err != nil {
		t.Fatalf("reopen after the refusal: %v", err)
	}
	defer j.Close()
	if j.Last() != 3 {
		t.Fatalf("Last = %d after the refusal", j.Last())
	}
	// Not a journal format at all.
	j.Close()
	setFormat(t, dir, "something-else")
	if _, err := Open(dir, nil); err == nil || !strings.Contains(err.Error(), "not a sabot journal") {
		t.Fatalf("foreign format: %v", err)
	}
}

// TestFormatOlderUpgraded: a journal of format 1 (no snapshots bucket) is
// read by this version, read-only without change (export) and upgraded in
// place by a writable open; its records and marks are kept.
func TestFormatOlderUpgraded(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 4)
	j.SetMark("published", 4)
	j.Close()
	setFormat(t, dir, "v1")

	ro, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open of a format-1 journal: %v", err)
	}
	if seq, _, err := ro.Snapshot(10); seq != 0 || err != nil {
		t.Fatalf("format-1 journal snapshot: %d %v", seq, err)
	}
	n := 0
	if err := ro.Replay(1, func(Record) error { n++; return nil }); err != nil || n != 4 {
		t.Fatalf("replay of format 1: %d records, %v", n, err)
	}
	ro.Close()

	j, err = Open(dir, nil)
	if err != nil {
		t.Fatalf("open of a format-1 journal: %v", err)
	}
	if m, _ := j.Mark("published"); m != 4 || j.Last() != 4 {
		t.Fatalf("after upgrade: mark %d, last %d", m, j.Last())
	}
	j.SetSnapshot(4, []byte("s"))
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	j.Close()
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o640, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		if v := string(tx.Bucket(bucketMeta).Get(keyFormat)); v != fmt.Sprintf("sabot-journal-%d", FormatVersion) {
			t.Errorf("format after upgrade %q", v)
		}
		return nil
	})
}
