package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau"
	bolt "go.etcd.io/bbolt"
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
