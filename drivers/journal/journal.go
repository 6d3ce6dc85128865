// Package journal is sabotd's append-only event journal: every input event
// (card, button, cut card, supervisor key, acknowledgement, shoe state) is
// written here, durably, before the table controller applies it, so that a
// restart after kill -9 or power loss replays the same events through the same
// pure code and arrives at exactly the same shoe and coup state.
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
package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// FileName is the journal's file name inside the state directory.
const FileName = "journal.db"

var (
	bucketEvents = []byte("events")
	bucketMarks  = []byte("marks")
	bucketMeta   = []byte("meta")
	keyFormat    = []byte("format")
)

// formatVersion is written into the meta bucket of a new journal; Open
// refuses a journal with another version.
const formatVersion = "sabot-journal-1"

// ErrClosed is returned by operations on a closed Journal.
var ErrClosed = errors.New("journal: closed")

// ErrLocked is wrapped by Open when another process holds the journal.
var ErrLocked = errors.New("journal: locked by another process")

// Record is one journal entry.
type Record struct {
	Seq  uint64    // 1-based, consecutive
	Time time.Time // when the event was accepted (UTC, nanosecond precision)
	Data []byte    // the payload as given to Append
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
	last    uint64
	pending map[string]uint64
	log     *slog.Logger
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
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("journal: state directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	if o.ReadOnly {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
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
			if meta == nil || ev == nil || string(meta.Get(keyFormat)) != formatVersion {
				return errors.New("not a sabot journal")
			}
			if k, _ := ev.Cursor().Last(); len(k) == 8 {
				j.last = binary.BigEndian.Uint64(k)
			}
			return nil
		})
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("journal: %s: %w", path, err)
		}
		return j, nil
	}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if v := meta.Get(keyFormat); v == nil {
			if err := meta.Put(keyFormat, []byte(formatVersion)); err != nil {
				return err
			}
		} else if string(v) != formatVersion {
			return fmt.Errorf("unknown journal format %q (want %q)", v, formatVersion)
		}
		if _, err := tx.CreateBucketIfNotExists(bucketMarks); err != nil {
			return err
		}
		ev, err := tx.CreateBucketIfNotExists(bucketEvents)
		if err != nil {
			return err
		}
		if k, _ := ev.Cursor().Last(); k != nil {
			if len(k) != 8 {
				return fmt.Errorf("corrupt key %x in events", k)
			}
			j.last = binary.BigEndian.Uint64(k)
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("journal: %s: %w", path, err)
	}
	j.log.Debug("journal opened", "path", path, "records", j.last)
	return j, nil
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
	err := j.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEvents)
		for i, e := range entries {
			v := make([]byte, 8+len(e.Data))
			binary.BigEndian.PutUint64(v, uint64(e.Time.UnixNano()))
			copy(v[8:], e.Data)
			if err := b.Put(seqKey(first+uint64(i)), v); err != nil {
				return err
			}
		}
		return j.writeMarks(tx)
	})
	if err != nil {
		return 0, fmt.Errorf("journal: append to %s: %w", j.path, err)
	}
	j.last = first + uint64(len(entries)) - 1
	clear(j.pending)
	return first, nil
}

func (j *Journal) writeMarks(tx *bolt.Tx) error {
	if len(j.pending) == 0 {
		return nil
	}
	mb := tx.Bucket(bucketMarks)
	for name, v := range j.pending {
		if err := mb.Put([]byte(name), seqKey(v)); err != nil {
			return err
		}
	}
	return nil
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
	if j.db == nil {
		return 0, ErrClosed
	}
	var v uint64
	err := j.db.View(func(tx *bolt.Tx) error {
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
	if name == string(keyFormat) {
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
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.db == nil {
		return nil, ErrClosed
	}
	var v []byte
	err := j.db.View(func(tx *bolt.Tx) error {
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
	if len(j.pending) == 0 {
		return nil
	}
	if err := j.db.Update(j.writeMarks); err != nil {
		return fmt.Errorf("journal: flush %s: %w", j.path, err)
	}
	clear(j.pending)
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
	// Read in chunks so fn never runs inside a long read transaction.
	for {
		var recs []Record
		err := db.View(func(tx *bolt.Tx) error {
			c := tx.Bucket(bucketEvents).Cursor()
			for k, v := c.Seek(seqKey(from)); k != nil && len(recs) < 1024; k, v = c.Next() {
				if len(k) != 8 || len(v) < 8 {
					return fmt.Errorf("journal: %s: corrupt record at key %x", j.path, k)
				}
				seq := binary.BigEndian.Uint64(k)
				if seq != from+uint64(len(recs)) {
					return fmt.Errorf("journal: %s: gap before record %d", j.path, seq)
				}
				recs = append(recs, Record{
					Seq:  seq,
					Time: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC(),
					Data: append([]byte(nil), v[8:]...),
				})
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
	if len(j.pending) > 0 && !j.db.IsReadOnly() {
		err = j.db.Update(j.writeMarks)
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
