package mqtt

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestOutboxFormatNewerRefused: an outbox written by a newer sabotd
// (played by raising OutboxFormat while writing) is refused by this one
// with a message naming the file, the version found and the versions
// read; its messages are untouched and the newer one still reads them.
func TestOutboxFormatNewerRefused(t *testing.T) {
	dir := t.TempDir()
	cur := OutboxFormat
	defer func() { OutboxFormat = cur }()
	OutboxFormat = cur + 1 // the newer sabotd
	o, err := openOutbox(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.append(t.Context(), []Message{msg("a", "1"), msg("b", "2")}, false); err != nil {
		t.Fatal(err)
	}
	o.close()

	OutboxFormat = cur // this, older, sabotd
	_, err = openOutbox(dir, 10)
	if !errors.Is(err, ErrNewerOutbox) {
		t.Fatalf("older sabotd opened a newer outbox: %v", err)
	}
	for _, want := range []string{filepath.Join(dir, OutboxFile), fmt.Sprintf("format version %d", cur+1),
		fmt.Sprintf("reads versions 1 to %d", cur), "newer"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	OutboxFormat = cur + 1
	o, err = openOutbox(dir, 10)
	if err != nil {
		t.Fatalf("the newer sabotd after the refusal: %v", err)
	}
	defer o.close()
	if recs := readAll(t, o); len(recs) != 2 || string(recs[1].payload) != "2" {
		t.Fatalf("messages after the refusal: %+v", recs)
	}
}

// TestOutboxFormatOlderRead: an outbox from before format versions (no
// meta bucket) and one of an older version are read by this sabotd, their
// queued messages kept, and stamped with the current version.
func TestOutboxFormatOlderRead(t *testing.T) {
	dir := t.TempDir()
	o, err := openOutbox(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.append(t.Context(), []Message{msg("a", "1")}, false); err != nil {
		t.Fatal(err)
	}
	o.close()
	// Make it an outbox of before versions.
	db, err := bolt.Open(filepath.Join(dir, OutboxFile), 0o640, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketMeta) }); err != nil {
		t.Fatal(err)
	}
	db.Close()

	cur := OutboxFormat
	defer func() { OutboxFormat = cur }()
	OutboxFormat = cur + 1 // a newer sabotd reads it
	o, err = openOutbox(dir, 10)
	if err != nil {
		t.Fatalf("unversioned outbox: %v", err)
	}
	if recs := readAll(t, o); len(recs) != 1 || string(recs[0].payload) != "1" {
		t.Fatalf("messages of the unversioned outbox: %+v", recs)
	}
	o.close()
	db, err = bolt.Open(filepath.Join(dir, OutboxFile), 0o640, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		if v := string(tx.Bucket(bucketMeta).Get(keyFormat)); v != fmt.Sprint(cur+1) {
			t.Errorf("format after the newer sabotd opened it: %q", v)
		}
		return nil
	})
}
