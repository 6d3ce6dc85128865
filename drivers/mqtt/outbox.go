package mqtt

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// OutboxFile is the name of the outbox database inside the state directory.
const OutboxFile = "mqtt-outbox.db"

// ErrBacklogFull is returned (wrapped) by Publish when the outbox already
// holds Options.MaxBacklog messages. The message is not stored; the caller
// keeps it in its own journal and reports it. Nothing is dropped silently.
var ErrBacklogFull = errors.New("mqtt: outbox backlog full")

// ErrClosed is returned by Publish after Close.
var ErrClosed = errors.New("mqtt: publisher closed")

var (
	bucketQueue  = []byte("queue")  // seq (8 bytes big endian) → record
	bucketLatest = []byte("latest") // topic → seq of its newest queued retained record
	bucketMeta   = []byte("meta")   // "format" → OutboxFormat as decimal text
	keyFormat    = []byte("format")
	// keyInstance is the random id of the state directory's publisher
	// (hex), made when the outbox is created; keyConn the last connection
	// number (decimal), see outbox.nextConn.
	keyInstance = []byte("instance")
	keyConn     = []byte("conn")
)

// OutboxFormat is the version of the outbox's format this package writes
// and the newest it reads. An outbox without a version (written before
// versions existed) is version 1, the same layout. A newer outbox is
// refused with ErrNewerOutbox; an older one is upgraded when opened. It is
// a variable so that tests can play an older sabotd.
var OutboxFormat = 1

// ErrNewerOutbox is wrapped when the state directory's outbox was written
// by a newer sabotd, in a format this one cannot read.
var ErrNewerOutbox = errors.New("mqtt: outbox written by a newer sabotd")

// record is one queued message. Encoding: 1 flag byte (bit 0 retained),
// 2-byte big-endian topic length, topic, payload.
type record struct {
	seq      uint64
	topic    string
	retained bool
	payload  []byte
}

func encodeRecord(m Message) []byte {
	b := make([]byte, 0, 3+len(m.Topic)+len(m.Payload))
	var flags byte
	if m.Retained {
		flags |= 1
	}
	b = append(b, flags)
	b = binary.BigEndian.AppendUint16(b, uint16(len(m.Topic)))
	b = append(b, m.Topic...)
	return append(b, m.Payload...)
}

func decodeRecord(seq uint64, v []byte) (record, error) {
	if len(v) < 3 {
		return record{}, fmt.Errorf("mqtt: outbox record %d: %d bytes, want at least 3", seq, len(v))
	}
	n := int(binary.BigEndian.Uint16(v[1:3]))
	if len(v) < 3+n {
		return record{}, fmt.Errorf("mqtt: outbox record %d: topic length %d beyond record end (%d bytes)", seq, n, len(v))
	}
	// Copy: bbolt memory is valid only inside the transaction.
	return record{
		seq:      seq,
		retained: v[0]&1 != 0,
		topic:    string(v[3 : 3+n]),
		payload:  append([]byte(nil), v[3+n:]...),
	}, nil
}

func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

// outbox is the durable, ordered queue of messages not yet acknowledged by
// the broker. Appends and removals go through one writer goroutine that
// commits every request waiting at that moment in one bbolt transaction, so
// several events arriving together cost one fsync (group commit).
type outbox struct {
	db   *bolt.DB
	path string
	max  int

	reqs    chan *writeReq
	done    chan struct{}
	wg      sync.WaitGroup
	closeMu sync.RWMutex // held for reading while a request is handed over
	closed  bool

	commits atomic.Int64 // committed write transactions (for tests and stats)
	// beforeCommit, when set (tests), is called by the writer with each
	// batch's size just before it opens the batch's transaction.
	beforeCommit func(n int)

	// instance identifies this state directory's publisher in status
	// payloads (StatusPayload.Instance).
	instance string

	mu    sync.Mutex
	count int // records in bucketQueue
	// onAppend is called (outside the lock) after each committed append.
	onAppend func()
}

type writeReq struct {
	msgs   []Message
	remove []uint64
	// reserve lets this append exceed max (used for the outbox-backlog
	// alert itself, so the warning is never refused by the backlog it warns
	// about).
	reserve bool
	err     chan error
}

// outboxLockTimeout is how long openOutbox waits for another process's lock.
var outboxLockTimeout = 2 * time.Second

// openOutbox creates dir if needed and opens (or creates) the outbox
// database in it. A directory that cannot be created or written is an error
// naming the path.
func openOutbox(dir string, max int) (*outbox, error) {
	if dir == "" {
		return nil, errors.New("mqtt: state directory not set (Options.StateDir)")
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("mqtt: state directory %s: %w", dir, err)
	}
	// Probe writability explicitly: bbolt would otherwise open an existing
	// file read-write and only fail later, mid-shift.
	probe, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return nil, fmt.Errorf("mqtt: state directory %s is not writable: %w", dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())

	path := filepath.Join(dir, OutboxFile)
	db, err := bolt.Open(path, 0o640, &bolt.Options{Timeout: outboxLockTimeout})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("mqtt: outbox %s is locked by another process (is another sabotd running on this state directory?): %w", path, err)
		}
		return nil, fmt.Errorf("mqtt: open outbox %s: %w", path, err)
	}
	o := &outbox{db: db, path: path, max: max, reqs: make(chan *writeReq, 256), done: make(chan struct{})}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if v := meta.Get(keyFormat); v != nil {
			n, err := strconv.Atoi(string(v))
			if err != nil || n < 1 {
				return fmt.Errorf("not a sabot outbox (format %q)", v)
			}
			if n > OutboxFormat {
				return fmt.Errorf("%w: %s has outbox format version %d, this sabotd reads versions 1 to %d; "+
					"run a sabotd at least as new as the one that wrote it, or move the state directory %s away",
					ErrNewerOutbox, path, n, OutboxFormat, dir)
			}
		}
		if err := meta.Put(keyFormat, []byte(strconv.Itoa(OutboxFormat))); err != nil {
			return err
		}
		if v := meta.Get(keyInstance); len(v) > 0 {
			o.instance = string(v)
		} else {
			var b [8]byte
			if _, err := rand.Read(b[:]); err != nil {
				return err
			}
			o.instance = hex.EncodeToString(b[:])
			if err := meta.Put(keyInstance, []byte(o.instance)); err != nil {
				return err
			}
		}
		q, err := tx.CreateBucketIfNotExists(bucketQueue)
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucketIfNotExists(bucketLatest); err != nil {
			return err
		}
		o.count = q.Stats().KeyN
		return nil
	})
	if errors.Is(err, ErrNewerOutbox) {
		db.Close()
		return nil, err
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("mqtt: outbox %s: %w", path, err)
	}
	o.wg.Add(1)
	go o.writer()
	return o, nil
}

// nextConn stores and returns the next connection number: more than the
// last one stored (so it grows across restarts on this state directory
// whatever the clock does), and at least floor (the publisher passes the
// clock in Unix milliseconds, so that a new state directory for the same
// table, with a set clock, still numbers its connections above the old
// one's). One fsynced transaction per connection attempt.
func (o *outbox) nextConn(floor uint64) (uint64, error) {
	var n uint64
	err := o.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		var last uint64
		if v := meta.Get(keyConn); v != nil {
			var err error
			if last, err = strconv.ParseUint(string(v), 10, 64); err != nil {
				return fmt.Errorf("connection number %q: %w", v, err)
			}
		}
		n = max(last+1, floor)
		return meta.Put(keyConn, []byte(strconv.FormatUint(n, 10)))
	})
	if err != nil {
		return 0, fmt.Errorf("mqtt: outbox %s: %w", o.path, err)
	}
	return n, nil
}

// Len returns the number of queued (unacknowledged) messages.
func (o *outbox) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.count
}

// append stores msgs durably (fsynced) in order. It returns when the
// transaction holding them has been committed, or with an error (nothing of
// msgs stored).
func (o *outbox) append(ctx context.Context, msgs []Message, reserve bool) error {
	return o.submit(ctx, &writeReq{msgs: msgs, reserve: reserve, err: make(chan error, 1)})
}

// remove deletes acknowledged records.
func (o *outbox) remove(seqs []uint64) error {
	if len(seqs) == 0 {
		return nil
	}
	return o.submit(context.Background(), &writeReq{remove: seqs, err: make(chan error, 1)})
}

func (o *outbox) submit(ctx context.Context, r *writeReq) error {
	o.closeMu.RLock()
	if o.closed {
		o.closeMu.RUnlock()
		return ErrClosed
	}
	select {
	case o.reqs <- r:
		o.closeMu.RUnlock()
	case <-ctx.Done():
		o.closeMu.RUnlock()
		return fmt.Errorf("mqtt: outbox write: %w", ctx.Err())
	}
	select {
	case err := <-r.err:
		return err
	case <-ctx.Done():
		// The write may still commit; the caller must treat this as unknown.
		return fmt.Errorf("mqtt: outbox write (outcome unknown): %w", ctx.Err())
	}
}

// writer is the single goroutine that writes to the database.
func (o *outbox) writer() {
	defer o.wg.Done()
	batch := make([]*writeReq, 0, 64)
	for {
		var first *writeReq
		select {
		case first = <-o.reqs:
		case <-o.done:
			// Serve what is already queued so no caller waits forever.
			for {
				select {
				case r := <-o.reqs:
					r.err <- ErrClosed
				default:
					return
				}
			}
		}
		batch = append(batch[:0], first)
	drain:
		for len(batch) < 1024 {
			select {
			case r := <-o.reqs:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		if o.beforeCommit != nil {
			o.beforeCommit(len(batch))
		}
		o.commit(batch)
	}
}

// commit writes a batch in one transaction. Each request gets its own
// verdict: a request refused for a full backlog does not fail the others.
func (o *outbox) commit(batch []*writeReq) {
	errs := make([]error, len(batch))
	appended := false
	o.mu.Lock()
	count := o.count
	o.mu.Unlock()
	err := o.db.Update(func(tx *bolt.Tx) error {
		q := tx.Bucket(bucketQueue)
		latest := tx.Bucket(bucketLatest)
		for i, r := range batch {
			for _, seq := range r.remove {
				k := seqKey(seq)
				if q.Get(k) != nil {
					if err := q.Delete(k); err != nil {
						return err
					}
					count--
				}
			}
			if len(r.msgs) == 0 {
				continue
			}
			if !r.reserve && count+len(r.msgs) > o.max {
				errs[i] = fmt.Errorf("%w: %d of %d messages queued in %s (broker unreachable for too long?)", ErrBacklogFull, count, o.max, o.path)
				continue
			}
			for _, m := range r.msgs {
				seq, err := q.NextSequence()
				if err != nil {
					return err
				}
				if m.Retained {
					// Only the newest retained message of a topic matters:
					// drop the older queued one (it was never acknowledged,
					// and its successor supersedes it on the broker).
					if old := latest.Get([]byte(m.Topic)); old != nil {
						if q.Get(old) != nil {
							if err := q.Delete(old); err != nil {
								return err
							}
							count--
						}
					}
					if err := latest.Put([]byte(m.Topic), seqKey(seq)); err != nil {
						return err
					}
				}
				if err := q.Put(seqKey(seq), encodeRecord(m)); err != nil {
					return err
				}
				count++
				appended = true
			}
		}
		return nil
	})
	if err != nil {
		err = fmt.Errorf("mqtt: outbox %s: write: %w", o.path, err)
		for i := range errs {
			errs[i] = err
		}
		appended = false
	} else {
		o.commits.Add(1)
		o.mu.Lock()
		o.count = count
		o.mu.Unlock()
	}
	for i, r := range batch {
		r.err <- errs[i]
	}
	if appended && o.onAppend != nil {
		o.onAppend()
	}
}

// read returns up to n records with sequence numbers greater than after, in
// order.
func (o *outbox) read(after uint64, n int) ([]record, error) {
	var out []record
	err := o.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketQueue).Cursor()
		k, v := c.Seek(seqKey(after + 1))
		for ; k != nil && len(out) < n; k, v = c.Next() {
			if len(k) != 8 {
				return fmt.Errorf("mqtt: outbox %s: key of %d bytes, want 8", o.path, len(k))
			}
			r, err := decodeRecord(binary.BigEndian.Uint64(k), v)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

func (o *outbox) close() error {
	o.closeMu.Lock()
	if o.closed {
		o.closeMu.Unlock()
		return nil
	}
	o.closed = true
	close(o.done)
	o.closeMu.Unlock()
	o.wg.Wait()
	return o.db.Close()
}
