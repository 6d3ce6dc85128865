package journal

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// keyChainStart (meta) is the first record of the hash chain: 1 for a
// journal created with format 3, the first live record for one upgraded
// from an older format. Its record is chained from the zero hash.
var keyChainStart = []byte("chain-start")

// upgradeChunk is the records chained per transaction when an older
// journal is upgraded, so that the upgrade's memory stays bounded (about
// upgradeChunk × 100 bytes of dirty pages) however long the journal.
const upgradeChunk = 10000

// ChainHash is a record's link in the journal's hash chain: the SHA-256 of
// prev (the previous record's ChainHash, all zero for the chain's first
// record) followed by the record's own bytes — its sequence number and its
// time (Unix nanoseconds), 8 bytes each big-endian, then its payload.
// Changing a record's payload, time or number, or removing or inserting a
// record, changes every hash from it on.
func ChainHash(prev [32]byte, seq uint64, unixNano int64, data []byte) [32]byte {
	h := sha256.New()
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], seq)
	binary.BigEndian.PutUint64(b[8:], uint64(unixNano))
	h.Write(prev[:])
	h.Write(b[:])
	h.Write(data)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// ChainHead is the newest link of the chain: the last record and its hash.
type ChainHead struct {
	Seq  uint64   // the last record (0: the journal has no chained record)
	Hash [32]byte // its ChainHash
}

// String is "SEQ:HEX" (the hash in lowercase hexadecimal).
func (h ChainHead) String() string { return fmt.Sprintf("%d:%s", h.Seq, hex.EncodeToString(h.Hash[:])) }

// HashHex is the hash in lowercase hexadecimal (64 digits).
func (h ChainHead) HashHex() string { return hex.EncodeToString(h.Hash[:]) }

// Head returns the chain's head: what sabotd publishes (MQTT status,
// /healthz) so that a copy of the head kept elsewhere shows whether
// records were removed from the end or the chain was recomputed.
func (j *Journal) Head() ChainHead {
	j.mu.Lock()
	defer j.mu.Unlock()
	return ChainHead{Seq: j.headSeq, Hash: j.head}
}

// readChain loads the head and the chain's start from tx (no chain: a
// read-only journal of an older format).
func (j *Journal) readChain(tx *bolt.Tx) {
	if b := tx.Bucket(bucketMeta).Get(keyChainStart); len(b) == 8 {
		j.chainStart = binary.BigEndian.Uint64(b)
	}
	cb := tx.Bucket(bucketChain)
	if cb == nil {
		return
	}
	if k, v := cb.Cursor().Last(); len(k) == 8 && len(v) == 32 {
		j.headSeq = binary.BigEndian.Uint64(k)
		copy(j.head[:], v)
	}
}

// upgradeChain chains the live records of a journal of an older format,
// upgradeChunk per transaction, the first from the zero hash, then writes
// the chain's start and the current format. A crash before the last
// transaction leaves the old format: the next Open chains again from the
// start, overwriting what it finds.
func (j *Journal) upgradeChain() error {
	var head [32]byte
	next := j.first
	for next != 0 && next <= j.last {
		err := j.db.Update(func(tx *bolt.Tx) error {
			ev, cb := tx.Bucket(bucketEvents), tx.Bucket(bucketChain)
			cb.FillPercent = 1.0
			c := ev.Cursor()
			n := 0
			for k, v := c.Seek(seqKey(next)); k != nil && n < upgradeChunk; k, v = c.Next() {
				if len(k) != 8 || len(v) < 8 {
					return fmt.Errorf("%s: corrupt record at key %x", j.path, k)
				}
				seq := binary.BigEndian.Uint64(k)
				if seq != next {
					return fmt.Errorf("%s: gap before record %d", j.path, seq)
				}
				head = ChainHash(head, seq, int64(binary.BigEndian.Uint64(v)), v[8:])
				if err := cb.Put(k, append([]byte(nil), head[:]...)); err != nil {
					return err
				}
				next++
				n++
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("upgrade %s to format %d: %w", j.path, FormatVersion, err)
		}
	}
	return j.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if j.first != 0 {
			if err := meta.Put(keyChainStart, seqKey(j.first)); err != nil {
				return err
			}
		}
		return meta.Put(keyFormat, formatValue(FormatVersion))
	})
}

// Mismatch is the first record Verify found out of the chain.
type Mismatch struct {
	Seq    uint64    // the record's sequence number
	Time   time.Time // its time as stored
	File   string    // the archive file or journal holding it
	Reason string    // what does not match
}

func (m *Mismatch) String() string {
	return fmt.Sprintf("record %d (%s, in %s): %s", m.Seq, m.Time.UTC().Format(time.RFC3339Nano), m.File, m.Reason)
}

// VerifyReport is what Verify found.
type VerifyReport struct {
	// Records is the number of records read (archives and live journal).
	Records uint64
	// Chained is how many of them were checked against the chain;
	// Unchained how many predate it (archived or written before format
	// 3) and cannot be checked.
	Chained, Unchained uint64
	// First is the oldest record kept. Anchor, when not 0, is the record
	// the check started from without its predecessor (the chain's start
	// was in an archive file removed by the archive cap): its own hash is
	// taken as given, every later one is checked.
	First, Anchor uint64
	// Head is the last record's link as recomputed (Seq 0: none).
	Head ChainHead
	// Bad is the first record that does not match; nil if all do.
	Bad *Mismatch
}

// Verify checks the hash chain of every record kept, the archive files
// then the live journal, in sequence order, and reports the first record
// whose stored hash is not the ChainHash of its predecessor's hash and its
// own bytes, or whose sequence number does not follow its predecessor's (a
// record removed). It reads at most one archive record or one chunk of
// live records at a time (memory independent of the journal's length).
// The error is for what could not be read at all (an archive that is not
// gzip, a corrupt bbolt page), and names the file.
//
// What the chain cannot show by itself: records removed from the end (the
// head published on MQTT and /healthz, kept elsewhere, shows that), or a
// journal whose every hash was recomputed after an edit (so does a copy of
// the head from before the edit).
func (j *Journal) Verify() (VerifyReport, error) {
	var rep VerifyReport
	files, err := Archives(filepath.Dir(j.path))
	if err != nil {
		return rep, err
	}
	j.mu.Lock()
	chainStart, format := j.chainStart, j.format
	j.mu.Unlock()
	if chainStart == 0 {
		chainStart = 1
	}
	var (
		next     uint64 // the sequence number expected next; 0 before the first
		prev     [32]byte
		havePrev bool
	)
	check := func(r Record, file string, chained bool) bool {
		if next != 0 && r.Seq < next {
			return true // also in a later file (an interrupted move), or still live
		}
		bad := func(reason string) bool {
			rep.Bad = &Mismatch{Seq: r.Seq, Time: r.Time, File: file, Reason: reason}
			return false
		}
		if next != 0 && r.Seq > next {
			if r.Seq == next+1 {
				return bad(fmt.Sprintf("follows record %d: record %d is missing", next-1, next))
			}
			return bad(fmt.Sprintf("follows record %d: records %d to %d are missing", next-1, next, r.Seq-1))
		}
		if next == 0 {
			rep.First = r.Seq
		}
		next = r.Seq + 1
		rep.Records++
		if !chained {
			if havePrev {
				return bad("has no chain hash but its predecessor has one")
			}
			rep.Unchained++
			return true
		}
		switch {
		case havePrev:
		case r.Seq == chainStart:
			prev, havePrev = [32]byte{}, true
		default: // the chain's start was removed: anchor here
			rep.Anchor = r.Seq
			prev, havePrev = r.Hash, true
			rep.Chained++
			rep.Head = ChainHead{Seq: r.Seq, Hash: r.Hash}
			return true
		}
		want := ChainHash(prev, r.Seq, r.Time.UnixNano(), r.Data)
		if want != r.Hash {
			return bad(fmt.Sprintf("its hash %x is not the hash of its predecessor's and its own bytes (%x): "+
				"this record, or its stored hash, was changed", r.Hash[:8], want[:8]))
		}
		prev = want
		rep.Chained++
		rep.Head = ChainHead{Seq: r.Seq, Hash: want}
		return true
	}
	errStop := fmt.Errorf("stop")
	for _, f := range files {
		err := readArchive(f.Path, func(version int, r Record) error {
			if !check(r, f.Path, version >= 2) {
				return errStop
			}
			return nil
		})
		if err == errStop {
			return rep, nil
		}
		if err != nil {
			return rep, err
		}
	}
	from := j.First()
	if next > from {
		from = next
	}
	if from == 0 {
		return rep, nil
	}
	err = j.replayRaw(from, func(r Record, hashed bool) bool {
		return check(r, j.path, format >= 3 && r.Seq >= chainStart && hashed)
	})
	if err == errStop {
		err = nil
	}
	return rep, err
}

// replayRaw is Replay for Verify: a missing record is not an error (fn
// sees the gap), hashed says whether the record has a stored hash, and fn
// returning false stops it.
func (j *Journal) replayRaw(from uint64, fn func(r Record, hashed bool) bool) error {
	j.mu.Lock()
	db := j.db
	j.mu.Unlock()
	if db == nil {
		return ErrClosed
	}
	type rec struct {
		r      Record
		hashed bool
	}
	for {
		var recs []rec
		err := db.View(func(tx *bolt.Tx) error {
			cb := tx.Bucket(bucketChain)
			c := tx.Bucket(bucketEvents).Cursor()
			for k, v := c.Seek(seqKey(from)); k != nil && len(recs) < 1024; k, v = c.Next() {
				if len(k) != 8 || len(v) < 8 {
					return fmt.Errorf("journal: %s: corrupt record at key %x", j.path, k)
				}
				x := rec{r: Record{Seq: binary.BigEndian.Uint64(k),
					Time: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC(),
					Data: append([]byte(nil), v[8:]...)}}
				if cb != nil {
					if h := cb.Get(k); len(h) == 32 {
						copy(x.r.Hash[:], h)
						x.hashed = true
					}
				}
				recs = append(recs, x)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, x := range recs {
			if !fn(x.r, x.hashed) {
				return nil
			}
		}
		if len(recs) < 1024 {
			return nil
		}
		from = recs[len(recs)-1].r.Seq + 1
	}
}
