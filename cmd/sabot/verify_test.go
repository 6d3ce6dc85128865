package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"

	bolt "go.etcd.io/bbolt"

	"github.com/sabot-table/sabot/tableau"
)

func verifyRun(t *testing.T, dir string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"export", "--verify", "--state", dir}, nil, &out, &errb)
	if code == 2 {
		t.Fatalf("export --verify: %s", errb.String())
	}
	return out.String(), code
}

// TestExportVerify: `sabot export --verify` of an untouched journal exits
// 0 with the count and the head; after one byte of one record is changed
// (with bbolt, in a copy) it exits 1 naming that record's sequence number
// and time; after a record is deleted it names the record after the gap.
func TestExportVerify(t *testing.T) {
	dir := journalFrom(t, "shoe 9h 2c 5d Kh 8s 3c | 4d 4h 7c 2s |\n", tableau.Options{Decks: 8, Markers: true})
	out, code := verifyRun(t, dir)
	if code != 0 || !strings.HasPrefix(out, "verified 15 records (1 to 15)\nhead 15 sha256:") {
		t.Fatalf("untouched: exit %d\n%s", code, out)
	}
	// Record 4 is the second card (5d) at 22:00:03 (journalFrom: one a
	// second from 22:00:00, the alarm and ack after the 5th token).
	edit := func(fn func(ev, chain *bolt.Bucket) error) string {
		cp := t.TempDir()
		b, err := os.ReadFile(filepath.Join(dir, "journal.db"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(cp, "journal.db"), b, 0o640)
		db, err := bolt.Open(filepath.Join(cp, "journal.db"), 0o640, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Update(func(tx *bolt.Tx) error { return fn(tx.Bucket([]byte("events")), tx.Bucket([]byte("chain"))) }); err != nil {
			t.Fatal(err)
		}
		db.Close()
		return cp
	}
	key := func(n byte) []byte { return []byte{0, 0, 0, 0, 0, 0, 0, n} }
	cp := edit(func(ev, _ *bolt.Bucket) error {
		v := append([]byte(nil), ev.Get(key(4))...)
		i := bytes.Index(v, []byte(`"5D"`))
		if i < 0 {
			t.Fatalf("record 4 is %s", v[8:])
		}
		v[i+1] = '6' // 5D → 6D
		return ev.Put(key(4), v)
	})
	out, code = verifyRun(t, cp)
	if code != 1 || !strings.HasPrefix(out, "FAILED at record 4 (2026-11-30T22:00:03Z) in "+filepath.Join(cp, "journal.db")+": ") ||
		!strings.Contains(out, "3 records before it matched") {
		t.Fatalf("edited: exit %d\n%s", code, out)
	}
	cp = edit(func(ev, chain *bolt.Bucket) error {
		ev.Delete(key(9))
		return chain.Delete(key(9))
	})
	out, code = verifyRun(t, cp)
	if code != 1 || !strings.HasPrefix(out, "FAILED at record 10 (2026-11-30T22:00:09Z)") || !strings.Contains(out, "record 9 is missing") {
		t.Fatalf("deleted: exit %d\n%s", code, out)
	}
}

// TestExportEvents: significant events appear in the export as comments
// with their type, text and hash, and the transcript around them is kept.
func TestExportEvents(t *testing.T) {
	dir := t.TempDir()
	j, err := journal.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	sha := strings.Repeat("5a", 32)
	for i, in := range []tableau.Input{
		{Kind: tableau.InputEvent, Code: "power-up", Text: "unclean", Ref: sha, Source: "sabotd"},
		{Kind: tableau.InputShoe},
		{Kind: tableau.InputEvent, Code: "lid-open", Text: "the shoe's cover is open", Source: "shoe"},
	} {
		b, _ := json.Marshal(in)
		if _, err := j.Append(at.Add(time.Duration(i)*time.Second), b); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"export", "--state", dir}, nil, &out, &errb); code != 0 {
		t.Fatalf("export: %s", errb.String())
	}
	for _, want := range []string{
		`# 2026-12-01T09:00:00.000Z event "power-up" "unclean" "` + sha + `"` + "\n",
		"shoe\n",
		`# 2026-12-01T09:00:02.000Z event "lid-open" "the shoe's cover is open"` + "\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("export lacks %q:\n%s", want, out.String())
		}
	}
}
