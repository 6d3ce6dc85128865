package journal

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// chainT0 is when the test journals' records begin: one a minute on
// two UTC days (two archive files).
var chainT0 = time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC)

// manualChain computes the chain of records "r1".."rN" stamped one a
// minute from chainT0 with crypto/sha256 directly, byte by byte as the
// format says (not through ChainHash).
func manualChain(n int) [][32]byte {
	var prev [32]byte
	out := make([][32]byte, n+1)
	for i := 1; i <= n; i++ {
		var buf bytes.Buffer
		buf.Write(prev[:])
		binary.Write(&buf, binary.BigEndian, uint64(i))
		binary.Write(&buf, binary.BigEndian, chainT0.Add(time.Duration(i-1)*time.Minute).UnixNano())
		buf.WriteString("r" + itoa(i))
		prev = sha256.Sum256(buf.Bytes())
		out[i] = prev
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

// chainJournal writes n records (see manualChain) in dir and closes it.
func chainJournal(t *testing.T, dir string, n int) {
	t.Helper()
	j, err := Open(dir, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if _, err := j.Append(chainT0.Add(time.Duration(i-1)*time.Minute), []byte("r"+itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

func verifyDir(t *testing.T, dir string) VerifyReport {
	t.Helper()
	j, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	rep, err := j.Verify()
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// copyDir copies the state directory src (journal and archives).
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o750)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o640)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// boltEdit runs fn on the copied journal file itself, as someone with the
// file and bbolt would.
func boltEdit(t *testing.T, dir string, fn func(ev, chain *bolt.Bucket) error) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o640, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error { return fn(tx.Bucket(bucketEvents), tx.Bucket(bucketChain)) }); err != nil {
		t.Fatal(err)
	}
}

// TestChainHeadAndVerify: the head after n appends is the hash computed
// independently; Verify of an untouched journal checks every record and
// ends at that head; the head survives a reopen and the chain continues.
func TestChainHeadAndVerify(t *testing.T) {
	dir := t.TempDir()
	chainJournal(t, dir, 40)
	want := manualChain(41)
	rep := verifyDir(t, dir)
	if rep.Bad != nil {
		t.Fatalf("untouched journal: %v", rep.Bad)
	}
	if rep.Records != 40 || rep.Chained != 40 || rep.Unchained != 0 || rep.First != 1 || rep.Anchor != 0 {
		t.Fatalf("report %+v", rep)
	}
	if rep.Head.Seq != 40 || rep.Head.Hash != want[40] {
		t.Fatalf("head %v, want 40:%x", rep.Head, want[40])
	}
	j, err := Open(dir, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if h := j.Head(); h.Seq != 40 || h.Hash != want[40] {
		t.Fatalf("reopened head %v", h)
	}
	if _, err := j.Append(chainT0.Add(40*time.Minute), []byte("r41")); err != nil {
		t.Fatal(err)
	}
	if h := j.Head(); h.Seq != 41 || h.Hash != want[41] {
		t.Fatalf("head after one more %v, want %x", h, want[41])
	}
	var got [32]byte
	j.Replay(41, func(r Record) error { got = r.Hash; return nil })
	if got != want[41] {
		t.Fatalf("Replay's Record.Hash %x", got)
	}
	j.Close()
}

// TestVerifyFindsEditedRecord: one byte of one record's payload changed
// with bbolt in a copy of the journal is found, with its sequence number
// and time; so is a changed time, and a changed stored hash.
func TestVerifyFindsEditedRecord(t *testing.T) {
	src := t.TempDir()
	chainJournal(t, src, 40)
	cases := []struct {
		name string
		edit func(ev, chain *bolt.Bucket) error
		seq  uint64
	}{
		{"payload byte", func(ev, _ *bolt.Bucket) error {
			v := append([]byte(nil), ev.Get(seqKey(23))...)
			v[8] ^= 0x01 // "r23" → "s23"
			return ev.Put(seqKey(23), v)
		}, 23},
		{"time", func(ev, _ *bolt.Bucket) error {
			v := append([]byte(nil), ev.Get(seqKey(7))...)
			v[7]++ // one nanosecond later
			return ev.Put(seqKey(7), v)
		}, 7},
		{"stored hash", func(_, chain *bolt.Bucket) error {
			h := append([]byte(nil), chain.Get(seqKey(31))...)
			h[0] ^= 0x80
			return chain.Put(seqKey(31), h)
		}, 31},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, src)
			boltEdit(t, dir, c.edit)
			rep := verifyDir(t, dir)
			if rep.Bad == nil {
				t.Fatalf("edit not found: %+v", rep)
			}
			wantTime := chainT0.Add(time.Duration(c.seq-1) * time.Minute)
			if c.name == "time" {
				wantTime = wantTime.Add(time.Nanosecond)
			}
			if rep.Bad.Seq != c.seq || !rep.Bad.Time.Equal(wantTime) || rep.Bad.File != filepath.Join(dir, FileName) {
				t.Fatalf("found %v, want record %d at %v", rep.Bad, c.seq, wantTime)
			}
			if rep.Chained != c.seq-1 {
				t.Fatalf("%d records verified before the edit, want %d", rep.Chained, c.seq-1)
			}
		})
	}
}

// TestVerifyFindsDeletedRecord: a record removed from a copy (its event
// and its hash) is found as a gap at the record after it.
func TestVerifyFindsDeletedRecord(t *testing.T) {
	src := t.TempDir()
	chainJournal(t, src, 40)
	dir := copyDir(t, src)
	boltEdit(t, dir, func(ev, chain *bolt.Bucket) error {
		if err := ev.Delete(seqKey(30)); err != nil {
			return err
		}
		return chain.Delete(seqKey(30))
	})
	rep := verifyDir(t, dir)
	if rep.Bad == nil || rep.Bad.Seq != 31 || !rep.Bad.Time.Equal(chainT0.Add(30*time.Minute)) ||
		!strings.Contains(rep.Bad.Reason, "record 30 is missing") {
		t.Fatalf("gap: %v", rep.Bad)
	}
	// Renumbering the records after the gap does not hide it: their hashes
	// cover their numbers.
	dir = copyDir(t, src)
	boltEdit(t, dir, func(ev, chain *bolt.Bucket) error {
		for s := uint64(30); s < 40; s++ {
			ev.Put(seqKey(s), append([]byte(nil), ev.Get(seqKey(s+1))...))
			chain.Put(seqKey(s), append([]byte(nil), chain.Get(seqKey(s+1))...))
		}
		ev.Delete(seqKey(40))
		return chain.Delete(seqKey(40))
	})
	if rep := verifyDir(t, dir); rep.Bad == nil || rep.Bad.Seq != 30 {
		t.Fatalf("renumbered: %v", rep.Bad)
	}
}

// archiveRewrite decompresses the archive file at path, lets edit change
// its bytes, and compresses it again (a valid gzip file: only the chain
// can tell).
func archiveRewrite(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	raw = edit(raw)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(raw)
	zw.Close()
	if err := os.WriteFile(path, out.Bytes(), 0o640); err != nil {
		t.Fatal(err)
	}
}

// recordOffset is the offset of record seq's header in an archive file's
// decompressed bytes (format 2).
func recordOffset(t *testing.T, raw []byte, seq uint64) int {
	t.Helper()
	off := bytes.IndexByte(raw, '\n') + 1
	for off+52 <= len(raw) {
		if binary.BigEndian.Uint64(raw[off:]) == seq {
			return off
		}
		off += 52 + int(binary.BigEndian.Uint32(raw[off+16:]))
	}
	t.Fatalf("record %d not in the archive", seq)
	return 0
}

// TestChainSpansArchives: records moved to archive files keep their
// hashes: Verify checks archives then live journal as one chain; a byte
// edited in an archive record (the file recompressed, so gzip's own CRC
// holds) and a record dropped from an archive are found with their
// sequence numbers.
func TestChainSpansArchives(t *testing.T) {
	src := t.TempDir()
	chainJournal(t, src, 60)
	j, err := Open(src, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Retain(RetainOptions{Before: chainT0.Add(24 * time.Hour), UpTo: 50})
	j.Close()
	if err != nil || res.Moved != 50 || len(res.Written) != 2 {
		t.Fatalf("retain: %+v %v", res, err)
	}
	rep := verifyDir(t, src)
	want := manualChain(60)
	if rep.Bad != nil || rep.Chained != 60 || rep.Head.Hash != want[60] {
		t.Fatalf("archives + live: %+v", rep)
	}
	// The first file holds records 1-30 (23:30 to 23:59), the second 31-50.
	second := res.Written[1]
	if second.First != 31 {
		t.Fatalf("second archive %+v", second)
	}

	dir := copyDir(t, src)
	path := filepath.Join(dir, ArchiveDir, filepath.Base(second.Path))
	archiveRewrite(t, path, func(raw []byte) []byte {
		off := recordOffset(t, raw, 42)
		raw[off+52+1] ^= 0x04 // "r42" → "r02"
		return raw
	})
	rep = verifyDir(t, dir)
	if rep.Bad == nil || rep.Bad.Seq != 42 || rep.Bad.File != path || !rep.Bad.Time.Equal(chainT0.Add(41*time.Minute)) {
		t.Fatalf("archive edit: %v", rep.Bad)
	}

	dir = copyDir(t, src)
	path = filepath.Join(dir, ArchiveDir, filepath.Base(second.Path))
	archiveRewrite(t, path, func(raw []byte) []byte {
		off := recordOffset(t, raw, 35)
		end := recordOffset(t, raw, 36)
		return append(raw[:off:off], raw[end:]...)
	})
	rep = verifyDir(t, dir)
	if rep.Bad == nil || rep.Bad.Seq != 36 || !strings.Contains(rep.Bad.Reason, "record 35 is missing") {
		t.Fatalf("archive gap: %v", rep.Bad)
	}

	// The oldest file removed (the archive cap): the check starts from the
	// first record kept, taking its hash as given.
	dir = copyDir(t, src)
	os.Remove(filepath.Join(dir, ArchiveDir, filepath.Base(res.Written[0].Path)))
	rep = verifyDir(t, dir)
	if rep.Bad != nil || rep.Anchor != 31 || rep.First != 31 || rep.Chained != 30 || rep.Head.Hash != want[60] {
		t.Fatalf("after the cap: %+v", rep)
	}
}

// TestChainUpgradeFromFormat2: a journal of format 2 (no chain) is
// verified read-only as unchained; a writable open chains its records (the
// same hashes as a journal written with format 3 from the start, since
// both begin at record 1) and appends continue the chain.
func TestChainUpgradeFromFormat2(t *testing.T) {
	dir := t.TempDir()
	chainJournal(t, dir, 20)
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o640, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error { // what a format-2 sabotd leaves
		tx.DeleteBucket(bucketChain)
		tx.Bucket(bucketMeta).Delete(keyChainStart)
		return tx.Bucket(bucketMeta).Put(keyFormat, []byte("sabot-journal-2"))
	})
	db.Close()
	rep := verifyDir(t, dir)
	if rep.Bad != nil || rep.Unchained != 20 || rep.Chained != 0 {
		t.Fatalf("format 2 read-only: %+v", rep)
	}
	j, err := Open(dir, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	want := manualChain(21)
	if h := j.Head(); h.Seq != 20 || h.Hash != want[20] {
		t.Fatalf("upgraded head %v", h)
	}
	j.Append(chainT0.Add(20*time.Minute), []byte("r21"))
	j.Close()
	rep = verifyDir(t, dir)
	if rep.Bad != nil || rep.Chained != 21 || rep.Head.Hash != want[21] {
		t.Fatalf("after upgrade: %+v", rep)
	}
}

// TestReadArchiveFormat1: an archive file of format 1 (no hashes, what a
// format-2 sabotd wrote) is still read, and Verify counts its records as
// unchained before the chained live journal.
func TestReadArchiveFormat1(t *testing.T) {
	dir := t.TempDir()
	chainJournal(t, dir, 30)
	j, err := Open(dir, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Retain(RetainOptions{Before: chainT0.Add(time.Hour), UpTo: 10})
	j.Close()
	if err != nil || len(res.Written) != 1 {
		t.Fatalf("retain %+v %v", res, err)
	}
	// Rewrite the file as format 1, and the live journal's chain as if it
	// were upgraded at record 11.
	archiveRewrite(t, res.Written[0].Path, func(raw []byte) []byte {
		nl := bytes.IndexByte(raw, '\n') + 1
		out := []byte("sabot-journal-archive-1\n")
		for off := nl; off < len(raw); {
			size := int(binary.BigEndian.Uint32(raw[off+16:]))
			out = append(out, raw[off:off+20]...)
			out = append(out, raw[off+52:off+52+size]...)
			off += 52 + size
		}
		return out
	})
	n := 0
	if err := ReadArchive(res.Written[0].Path, func(r Record) error {
		n++
		if r.Hash != ([32]byte{}) || string(r.Data) != "r"+itoa(int(r.Seq)) {
			t.Fatalf("format-1 record %d: %q %x", r.Seq, r.Data, r.Hash)
		}
		return nil
	}); err != nil || n != 10 {
		t.Fatalf("read format 1: %d records, %v", n, err)
	}
	rechain(t, dir, 11)
	rep := verifyDir(t, dir)
	if rep.Bad != nil || rep.Unchained != 10 || rep.Chained != 20 || rep.Anchor != 0 {
		t.Fatalf("format-1 archive then chain: %+v", rep)
	}
}

// rechain recomputes the live chain of dir from record start, as an
// upgrade there would have.
func rechain(t *testing.T, dir string, start uint64) {
	t.Helper()
	boltEdit(t, dir, func(ev, chain *bolt.Bucket) error {
		var prev [32]byte
		c := ev.Cursor()
		for k, v := c.Seek(seqKey(start)); k != nil; k, v = c.Next() {
			prev = ChainHash(prev, binary.BigEndian.Uint64(k), int64(binary.BigEndian.Uint64(v)), v[8:])
			chain.Put(k, append([]byte(nil), prev[:]...))
		}
		return nil
	})
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o640, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyChainStart, seqKey(start)) })
	db.Close()
}

// BenchmarkChainHash: one link for a card record's payload (what each
// Append adds).
func BenchmarkChainHash(b *testing.B) {
	data := []byte(`{"kind":"card","card":"9H","source":"shoe","ref":"1:17"}`)
	var h [32]byte
	b.ReportAllocs()
	for b.Loop() {
		h = ChainHash(h, 17, 1764583200000000000, data)
	}
}

// BenchmarkVerify: Verify of a live journal of 100,000 card records
// (per op: the whole journal).
func BenchmarkVerify(b *testing.B) {
	dir := b.TempDir()
	j, err := Open(dir, &Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	data := []byte(`{"kind":"card","card":"9H","source":"shoe","ref":"1:17"}`)
	batch := make([]Entry, 1000)
	for i := range batch {
		batch[i] = Entry{Time: chainT0, Data: data}
	}
	for range 100 {
		if _, err := j.AppendBatch(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		rep, err := j.Verify()
		if err != nil || rep.Bad != nil || rep.Chained != 100000 {
			b.Fatalf("%+v %v", rep, err)
		}
	}
	j.Close()
}
