// Package journal is sabotd's append-only event journal: every input event
// (card, button, cut card, supervisor key, acknowledgement, shoe state) is
// written here, durably, so that a restart after kill -9 or power loss
// replays the same events through the same pure code and arrives at exactly
// the same shoe and coup state. sabotd applies an event to its table in
// memory and shows it on the display first, then appends it here, and only
// once Append has returned does anything leave the machine (MQTT outbox,
// the shoe's acknowledgement); see process in cmd/internal/daemon/loop.go.
//
// The journal is a go.etcd.io/bbolt file ("journal.db") in the state
// directory. Each record has a sequence number (1, 2, 3, ... with no gaps), a
// time and an opaque payload (the daemon stores tableau.Input as JSON). Every
// Append commits one bbolt transaction, which fsyncs the file before
// returning: a record whose Append returned nil survives a crash; a record
// whose Append did not return may or may not be there, but never partially.
//
// The journal also keeps named marks (uint64 values such as "the outputs of
// record N were handed on"). A mark set with SetMark is written in the same
// transaction as the next Append (or at Close), so marks cost no extra fsync.
//
// Snapshots (SetSnapshot, Snapshot, PruneSnapshots) hold the caller's state
// after a record, written in the same transaction as that record, so that a
// restart replays only the records after the newest one. Retain moves old
// records into gzip archive files in the state directory's "archive"
// directory (ReplayAll reads them and the live journal), removing the
// oldest files past a size cap. The journal file, and each archive file,
// carry a format version (FormatVersion, ArchiveFormat): a newer format is
// refused with ErrNewerFormat, an older journal is upgraded when opened.
//
// Every record of format 3 carries a hash chain (chain.go): the SHA-256 of
// the previous record's hash and its own bytes, kept with the record in
// the live journal and in the archives, so that Verify finds a record that
// was edited, inserted or deleted afterwards.
package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// FileName is the journal's file name inside the state directory.
const FileName = "journal.db"

var (
	bucketEvents    = []byte("events")
	bucketMarks     = []byte("marks")
	bucketMeta      = []byte("meta")
	bucketSnapshots = []byte("snapshots")
	bucketChain     = []byte("chain") // seq → the record's chain hash (format 3)
	keyFormat       = []byte("format")
)

// formatPrefix and the version number make the meta "format" value:
// "sabot-journal-1", "sabot-journal-2".
const formatPrefix = "sabot-journal-"

// FormatVersion is the newest journal format this package reads, and the
// one it writes: Open upgrades an older journal in place (an older sabotd
// then refuses it, with ErrNewerFormat) and refuses a newer one.
//
//   - 1: events, marks and meta.
//   - 2: adds snapshots of the table's state (SetSnapshot) and
//     retention: records before First have been moved to archive files,
//     so a replay starts from a snapshot.
//   - 3: adds the hash chain (bucket "chain": each record's ChainHash;
//     meta "chain-start": the first chained record). An older journal is
//     upgraded by chaining its live records, the first one from the zero
//     hash (records archived before the upgrade stay unchained).
//
// It is a variable so that tests can play an older sabotd.
var FormatVersion = 3

// oldestFormat is the oldest journal format Open reads.
const oldestFormat = 1

// ErrNewerFormat is wrapped when the state directory holds a journal
// written by a newer sabotd, in a format this one cannot read.
var ErrNewerFormat = errors.New("journal: written by a newer sabotd")

// parseFormat returns the version of a meta "format" value.
func parseFormat(v []byte) (int, bool) {
	rest, ok := strings.CutPrefix(string(v), formatPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 1
}

// checkFormat returns the journal's format version, or an error naming
// the file, the version found and the versions supported.
func checkFormat(path string, v []byte) (int, error) {
	n, ok := parseFormat(v)
	if !ok {
		return 0, fmt.Errorf("%s is not a sabot journal (format %q)", path, v)
	}
	if n > FormatVersion {
		return n, fmt.Errorf("%w: %s has journal format version %d, this sabotd reads versions %d to %d; "+
			"run a sabotd at least as new as the one that wrote it, or move the state directory %s away",
			ErrNewerFormat, path, n, oldestFormat, FormatVersion, filepath.Dir(path))
	}
	if n < oldestFormat {
		return n, fmt.Errorf("%s has journal format version %d, older than the oldest this sabotd reads (%d)", path, n, oldestFormat)
	}
	return n, nil
}

func formatValue(n int) []byte { return []byte(formatPrefix + strconv.Itoa(n)) }

// ErrClosed is returned by operations on a closed Journal.
var ErrClosed = errors.New("journal: closed")

// ErrLocked is wrapped by Open when another process holds the journal.
var ErrLocked = errors.New("journal: locked by another process")

// Record is one journal entry.
type Record struct {
	Seq  uint64    // 1-based, consecutive
	Time time.Time // when the event was accepted (UTC, nanosecond precision)
	Data []byte    // the payload as given to Append
	// Hash is the record's ChainHash as stored (all zero for a record
	// written before format 3, which has none).
	Hash [32]byte
}

// Options tunes Open. The zero value (or nil) gives the defaults.
type Options struct {
	// LockTimeout bounds the wait for the file lock held by another
	// process; default 1 s. Past it Open fails with ErrLocked.
	LockTimeout time.Duration
	// ReadOnly opens an existing journal for reading (Replay, Mark, Meta)
	// with a shared lock; it fails while a writer (sabotd) holds the file.
	ReadOnly bool
	// NoSync skips fsync (tests and benchmarks only: a crash may lose
	// records).
	NoSync bool
	// Logger receives open/recovery messages; default slog.Default().
	Logger *slog.Logger
}

// Journal is an open journal. Its methods are safe for concurrent use.
type Journal struct {
	mu      sync.Mutex
	db      *bolt.DB
	path    string
	first   uint64 // first live record (records before it are archived); 0 if empty
	last    uint64
	pending map[string]uint64
	snap    *pendingSnap
	pruneTo uint64 // pending PruneSnapshots argument, 0 for none
	log     *slog.Logger
	format  int // the file's format version (FormatVersion once opened for writing)
	// The chain's head: the last record's hash (headSeq 0: none yet).
	headSeq    uint64
	head       [32]byte
	chainStart uint64 // the first chained record (0: not known yet, the next one)
}

// keepLatestSnapshots is how many of the newest snapshots PruneSnapshots
// keeps besides the one at or before its mark.
const keepLatestSnapshots = 2

type pendingSnap struct {
	seq  uint64
	data []byte
}

// Open opens (creating if needed) the journal in dir, which must exist or be
// creatable, and be writable. Errors name the path and are prefixed "journal:".
func Open(dir string, opts *Options) (*Journal, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	path := filepath.Join(dir, FileName)
	if o.ReadOnly {
		// A reader (sabot export, recall) creates nothing: not even the
		// directory.
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
	} else if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("journal: state directory %s: %w", dir, err)
	}
	db, err := bolt.Open(path, 0o640, &bolt.Options{Timeout: o.LockTimeout, NoSync: o.NoSync, ReadOnly: o.ReadOnly})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("%w: %s (is another sabotd running with this state directory?)", ErrLocked, path)
		}
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	j := &Journal{db: db, path: path, pending: map[string]uint64{}, log: o.Logger}
	if o.ReadOnly {
		err = db.View(func(tx *bolt.Tx) error {
			meta, ev := tx.Bucket(bucketMeta), tx.Bucket(bucketEvents)
			if meta == nil || ev == nil {
				return fmt.Errorf("%s is not a sabot journal", path)
			}
			n, err := checkFormat(path, meta.Get(keyFormat))
			if err != nil {
				return err
			}
			j.format = n
			j.readBounds(ev)
			j.readChain(tx)
			return nil
		})
		if err != nil {
			db.Close()
			if errors.Is(err, ErrNewerFormat) {
				return nil, err
			}
			return nil, fmt.Errorf("journal: %w", err)
		}
		return j, nil
	}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		found := FormatVersion // a new journal
		if v := meta.Get(keyFormat); v != nil {
			n, err := checkFormat(path, v)
			if err != nil {
				return err
			}
			found = n
		}
		j.format = found
		// A new journal gets this version's format now; an older one once
		// its records are chained (upgradeChain), so that an upgrade
		// interrupted by a crash is done again from the start. (Every
		// older format is otherwise a subset of the current one.)
		if found == FormatVersion {
			if err := meta.Put(keyFormat, formatValue(FormatVersion)); err != nil {
				return err
			}
		}
		if _, err := tx.CreateBucketIfNotExists(bucketChain); err != nil {
			return err
		}
		if _, err := tx.CreateBucketIfNotExists(bucketMarks); err != nil {
			return err
		}
		if _, err := tx.CreateBucketIfNotExists(bucketSnapshots); err != nil {
			return err
		}
		ev, err := tx.CreateBucketIfNotExists(bucketEvents)
		if err != nil {
			return err
		}
		if k, _ := ev.Cursor().Last(); k != nil && len(k) != 8 {
			return fmt.Errorf("%s: corrupt key %x in events", path, k)
		}
		j.readBounds(ev)
		return nil
	})
	if err == nil && j.format < FormatVersion {
		err = j.upgradeChain()
		if err == nil {
			j.log.Info("journal format upgraded", "path", path, "from", j.format, "to", FormatVersion, "chained", j.last-j.first+1)
			j.format = FormatVersion
		}
	}
	if err == nil {
		err = db.View(func(tx *bolt.Tx) error { j.readChain(tx); return nil })
	}
	if err != nil {
		db.Close()
		if errors.Is(err, ErrNewerFormat) {
			return nil, err
		}
		return nil, fmt.Errorf("journal: %w", err)
	}
	j.log.Debug("journal opened", "path", path, "records", j.last)
	return j, nil
}

// readBounds sets first and last from the events bucket.
func (j *Journal) readBounds(ev *bolt.Bucket) {
	c := ev.Cursor()
	if k, _ := c.First(); len(k) == 8 {
		j.first = binary.BigEndian.Uint64(k)
	}
	if k, _ := c.Last(); len(k) == 8 {
		j.last = binary.BigEndian.Uint64(k)
	}
}

// First returns the sequence number of the first record still in the live
// journal (records before it were moved to archives), or 0 if the journal
// is empty.
func (j *Journal) First() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.first
}

// LastTime returns the time of the last record (the zero time if the
// journal is empty).
func (j *Journal) LastTime() (time.Time, error) {
	var t time.Time
	err := j.view(func(tx *bolt.Tx) error {
		if _, v := tx.Bucket(bucketEvents).Cursor().Last(); len(v) >= 8 {
			t = time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()
		}
		return nil
	})
	return t, err
}

// view runs fn in a read transaction, holding j.mu; ErrClosed once the
// journal is closed.
func (j *Journal) view(fn func(*bolt.Tx) error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.viewLocked(fn)
}

// viewLocked is view for a caller that holds j.mu.
func (j *Journal) viewLocked(fn func(*bolt.Tx) error) error {
	if j.db == nil {
		return ErrClosed
	}
	return j.db.View(fn)
}

// Path returns the journal file's path.
func (j *Journal) Path() string { return j.path }

// Last returns the sequence number of the last record (0 if empty).
func (j *Journal) Last() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.last
}

func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

// Append writes one record durably and returns its sequence number. Pending
// marks (SetMark) are written in the same transaction. data is copied.
func (j *Journal) Append(t time.Time, data []byte) (uint64, error) {
	return j.AppendBatch([]Entry{{Time: t, Data: data}})
}

// Entry is one record to append with AppendBatch.
type Entry struct {
	Time time.Time
	Data []byte
}

// AppendBatch writes several records in one transaction (one fsync) and
// returns the sequence number of the first; the others follow consecutively.
// Either all are written or none.
func (j *Journal) AppendBatch(entries []Entry) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.db == nil {
		return 0, ErrClosed
	}
	if len(entries) == 0 {
		return 0, errors.New("journal: empty batch")
	}
	first := j.last + 1
	head := j.head
	err := j.db.Update(func(tx *bolt.Tx) error {
		b, cb := tx.Bucket(bucketEvents), tx.Bucket(bucketChain)
		// Keys only ever grow: fill pages instead of leaving bbolt's default
		// half for inserts that never come (half the file size).
		b.FillPercent = 1.0
		cb.FillPercent = 1.0
		for i, e := range entries {
			seq := first + uint64(i)
			v := make([]byte, 8+len(e.Data))
			binary.BigEndian.PutUint64(v, uint64(e.Time.UnixNano()))
			copy(v[8:], e.Data)
			if err := b.Put(seqKey(seq), v); err != nil {
				return err
			}
			head = ChainHash(head, seq, e.Time.UnixNano(), e.Data)
			if err := cb.Put(seqKey(seq), append([]byte(nil), head[:]...)); err != nil {
				return err
			}
		}
		if j.chainStart == 0 {
			if err := tx.Bucket(bucketMeta).Put(keyChainStart, seqKey(first)); err != nil {
				return err
			}
		}
		return j.writePending(tx, first+uint64(len(entries))-1)
	})
	if err != nil {
		return 0, fmt.Errorf("journal: append to %s: %w", j.path, err)
	}
	j.last = first + uint64(len(entries)) - 1
	j.headSeq, j.head = j.last, head
	if j.chainStart == 0 {
		j.chainStart = first
	}
	if j.first == 0 {
		j.first = first
	}
	j.clearPending()
	return first, nil
}

// writePending writes the pending marks, snapshot and snapshot pruning in
// tx; last is the last record once tx commits (a snapshot of a later
// record waits).
func (j *Journal) writePending(tx *bolt.Tx, last uint64) error {
	mb := tx.Bucket(bucketMarks)
	for name, v := range j.pending {
		if err := mb.Put([]byte(name), seqKey(v)); err != nil {
			return err
		}
	}
	sb := tx.Bucket(bucketSnapshots)
	if j.snap != nil && j.snap.seq <= last {
		if err := sb.Put(seqKey(j.snap.seq), j.snap.data); err != nil {
			return err
		}
	}
	if j.pruneTo > 0 {
		// Keep the newest snapshot at or before pruneTo and the
		// keepLatestSnapshots newest; delete the others.
		if keep, ok := newestAtMost(sb.Cursor(), j.pruneTo); ok {
			var all [][]byte
			c := sb.Cursor()
			for k, _ := c.First(); k != nil; k, _ = c.Next() {
				all = append(all, append([]byte(nil), k...))
			}
			for i, k := range all {
				if i >= len(all)-keepLatestSnapshots || binary.BigEndian.Uint64(k) == keep {
					continue
				}
				if err := sb.Delete(k); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// newestAtMost returns the largest 8-byte key ≤ max in c's bucket.
func newestAtMost(c *bolt.Cursor, max uint64) (uint64, bool) {
	var k []byte
	if max == ^uint64(0) {
		k, _ = c.Last()
	} else if k, _ = c.Seek(seqKey(max + 1)); k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	if len(k) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(k), true
}

// clearPending forgets what writePending has written.
func (j *Journal) clearPending() {
	clear(j.pending)
	if j.snap != nil && j.snap.seq <= j.last {
		j.snap = nil
	}
	j.pruneTo = 0
}

func (j *Journal) hasPending() bool {
	return len(j.pending) > 0 || (j.snap != nil && j.snap.seq <= j.last) || j.pruneTo > 0
}

// CancelSnapshot forgets the snapshot given to SetSnapshot if it is not
// written yet because its record does not exist (the record's Append
// failed: a later record of the same number is another input).
func (j *Journal) CancelSnapshot() {
	j.mu.Lock()
	if j.snap != nil && j.snap.seq > j.last {
		j.snap = nil
	}
	j.mu.Unlock()
}

// SetSnapshot records data as the snapshot of the state after record seq
// (a table snapshot: it lets a restart replay only the records after seq).
// It is written in the same transaction as the next Append (which may be
// record seq itself), or by Flush or Close once record seq exists; data is
// not copied and must not be changed. A later SetSnapshot before that
// replaces it.
func (j *Journal) SetSnapshot(seq uint64, data []byte) {
	j.mu.Lock()
	j.snap = &pendingSnap{seq: seq, data: data}
	j.mu.Unlock()
}

// PruneSnapshots deletes, with the next write, every snapshot but the
// newest taken at or before record keep (the one a restart now starts
// from, keep being the caller's published mark) and the
// keepLatestSnapshots newest (the ones it starts from once the mark has
// moved on). Bound: with one call per SetSnapshot, the journal holds at
// most keepLatestSnapshots+1 snapshots, however long the mark lags.
func (j *Journal) PruneSnapshots(keep uint64) {
	j.mu.Lock()
	j.pruneTo = keep
	j.mu.Unlock()
}

// Snapshot returns the newest snapshot taken at or before record atMost
// and its record's sequence number, or (0, nil) if there is none.
func (j *Journal) Snapshot(atMost uint64) (seq uint64, data []byte, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.db == nil {
		return 0, nil, ErrClosed
	}
	if p := j.snap; p != nil && p.seq <= atMost && p.seq <= j.last {
		return p.seq, append([]byte(nil), p.data...), nil
	}
	err = j.db.View(func(tx *bolt.Tx) error {
		sb := tx.Bucket(bucketSnapshots)
		if sb == nil { // a read-only journal of format 1
			return nil
		}
		if s, ok := newestAtMost(sb.Cursor(), atMost); ok {
			seq, data = s, append([]byte(nil), sb.Get(seqKey(s))...)
		}
		return nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("journal: %s: read snapshot: %w", j.path, err)
	}
	return seq, data, nil
}

// Snapshots returns the sequence numbers of the stored snapshots, oldest
// first.
func (j *Journal) Snapshots() ([]uint64, error) {
	var seqs []uint64
	err := j.view(func(tx *bolt.Tx) error {
		if sb := tx.Bucket(bucketSnapshots); sb != nil {
			return sb.ForEach(func(k, _ []byte) error {
				if len(k) == 8 {
					seqs = append(seqs, binary.BigEndian.Uint64(k))
				}
				return nil
			})
		}
		return nil
	})
	return seqs, err
}

// SetMark records value v under name. It is written with the next Append,
// or by Flush or Close; until then Mark already returns it.
func (j *Journal) SetMark(name string, v uint64) {
	j.mu.Lock()
	j.pending[name] = v
	j.mu.Unlock()
}

// Mark returns the value last set under name (0 if never set).
func (j *Journal) Mark(name string) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if v, ok := j.pending[name]; ok {
		return v, nil
	}
	return j.diskMark(name)
}

// DurableMark returns the value under name as written to disk: without a
// SetMark still pending (what a restart after a crash now would read).
func (j *Journal) DurableMark(name string) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.diskMark(name)
}

// diskMark reads the mark under name from the marks bucket (0 if absent
// or not 8 bytes long). The caller holds j.mu.
func (j *Journal) diskMark(name string) (uint64, error) {
	var v uint64
	err := j.viewLocked(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketMarks).Get([]byte(name)); len(b) == 8 {
			v = binary.BigEndian.Uint64(b)
		}
		return nil
	})
	return v, err
}

// SetMeta stores a small named value durably (e.g. the table options the
// journal's events were applied with).
func (j *Journal) SetMeta(name string, value []byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.db == nil {
		return ErrClosed
	}
	if name == string(keyFormat) || name == string(keyArchived) || name == string(keyChainStart) {
		return fmt.Errorf("journal: meta key %q is reserved", name)
	}
	err := j.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put([]byte(name), value)
	})
	if err != nil {
		return fmt.Errorf("journal: set meta %s in %s: %w", name, j.path, err)
	}
	return nil
}

// Meta returns the value stored under name, or nil.
func (j *Journal) Meta(name string) ([]byte, error) {
	var v []byte
	err := j.view(func(tx *bolt.Tx) error {
		v = append([]byte(nil), tx.Bucket(bucketMeta).Get([]byte(name))...)
		return nil
	})
	if len(v) == 0 {
		v = nil
	}
	return v, err
}

// Flush writes pending marks durably.
func (j *Journal) Flush() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.db == nil {
		return ErrClosed
	}
	if !j.hasPending() {
		return nil
	}
	if err := j.db.Update(func(tx *bolt.Tx) error { return j.writePending(tx, j.last) }); err != nil {
		return fmt.Errorf("journal: flush %s: %w", j.path, err)
	}
	j.clearPending()
	return nil
}

// Replay calls fn for every record with Seq >= from, in order. An error from
// fn stops the replay and is returned as is. Data passed to fn is a copy
// that fn may keep.
func (j *Journal) Replay(from uint64, fn func(Record) error) error {
	j.mu.Lock()
	db := j.db
	j.mu.Unlock()
	if db == nil {
		return ErrClosed
	}
	if from == 0 {
		from = 1
	}
	j.mu.Lock()
	first := j.first
	j.mu.Unlock()
	if first > 1 && from < first {
		return fmt.Errorf("journal: %s: records %d to %d were moved to the archive; the live journal starts at %d", j.path, from, first-1, first)
	}
	// Read in chunks so fn never runs inside a long read transaction.
	for {
		var recs []Record
		err := db.View(func(tx *bolt.Tx) error {
			cb := tx.Bucket(bucketChain) // nil before format 3
			c := tx.Bucket(bucketEvents).Cursor()
			for k, v := c.Seek(seqKey(from)); k != nil && len(recs) < 1024; k, v = c.Next() {
				if len(k) != 8 || len(v) < 8 {
					return fmt.Errorf("journal: %s: corrupt record at key %x", j.path, k)
				}
				seq := binary.BigEndian.Uint64(k)
				if seq != from+uint64(len(recs)) {
					return fmt.Errorf("journal: %s: gap before record %d", j.path, seq)
				}
				r := Record{
					Seq:  seq,
					Time: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC(),
					Data: append([]byte(nil), v[8:]...),
				}
				if cb != nil {
					copy(r.Hash[:], cb.Get(k))
				}
				recs = append(recs, r)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := fn(r); err != nil {
				return err
			}
		}
		if len(recs) < 1024 {
			return nil
		}
		from += uint64(len(recs))
	}
}

// Close writes pending marks and closes the file. Close is idempotent.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.db == nil {
		return nil
	}
	var err error
	if j.hasPending() && !j.db.IsReadOnly() {
		err = j.db.Update(func(tx *bolt.Tx) error { return j.writePending(tx, j.last) })
	}
	if cerr := j.db.Close(); err == nil {
		err = cerr
	}
	j.db = nil
	if err != nil {
		return fmt.Errorf("journal: close %s: %w", j.path, err)
	}
	return nil
}

// MetaTableOptions is the meta key under which sabotd stores the
// tableau.Options (JSON) its journaled events are applied with, so that
// `sabot export` can say how to check the exported transcript.
const MetaTableOptions = "table-options"
