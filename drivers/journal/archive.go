package journal

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ArchiveDir is the directory, inside the state directory, that holds the
// archive files: the records Retain moved out of the live journal.
const ArchiveDir = "archive"

// archiveMagic begins every archive file (inside the gzip stream); the
// number is the archive format version.
const archiveMagic = "sabot-journal-archive-"

// ArchiveFormat is the archive file format this package writes and the
// newest it reads. Version 1: gzip of the line "sabot-journal-archive-1\n",
// then per record its sequence number (8 bytes), time (Unix nanoseconds, 8
// bytes), payload length (4 bytes), all big-endian, and the payload.
// Version 2 ("sabot-journal-archive-2\n"): the same with the record's
// ChainHash (32 bytes) between the payload length and the payload.
const ArchiveFormat = 2

// Bounds of one Retain call.
const (
	// archiveFileRecords bounds the records of one archive file (a file
	// also ends where the records' UTC date changes).
	archiveFileRecords = 1 << 20
	// deleteChunk is the records moved per bbolt transaction, so that an
	// Append waiting for the writer lock waits a few milliseconds at most.
	deleteChunk = 1000
	// maxArchivePayload bounds a payload read back from an archive (the
	// daemon's records are a few hundred bytes).
	maxArchivePayload = 1 << 20
)

var keyArchived = []byte("archived") // meta: the last record moved to an archive file

// ArchiveFile is one archive file: records First to Last, the first
// stamped on Date (UTC, "20060102").
type ArchiveFile struct {
	Path        string
	First, Last uint64
	Date        string
	Size        int64 // bytes on disk
}

// archiveName is "journal-<first>-<last>-<date>.gz", first and last with
// 16 digits so that names sort in record order.
func archiveName(first, last uint64, date string) string {
	return fmt.Sprintf("journal-%016d-%016d-%s.gz", first, last, date)
}

func parseArchiveName(name string) (first, last uint64, date string, ok bool) {
	rest, found := strings.CutPrefix(name, "journal-")
	if !found {
		return 0, 0, "", false
	}
	rest, found = strings.CutSuffix(rest, ".gz")
	parts := strings.Split(rest, "-")
	if !found || len(parts) != 3 || len(parts[2]) != 8 {
		return 0, 0, "", false
	}
	f, err1 := strconv.ParseUint(parts[0], 10, 64)
	l, err2 := strconv.ParseUint(parts[1], 10, 64)
	if err1 != nil || err2 != nil || f == 0 || l < f {
		return 0, 0, "", false
	}
	return f, l, parts[2], true
}

// Archives lists the archive files of the state directory dir, oldest
// (lowest records) first. A missing archive directory is no archive.
func Archives(dir string) ([]ArchiveFile, error) {
	adir := filepath.Join(dir, ArchiveDir)
	ents, err := os.ReadDir(adir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: archive directory: %w", err)
	}
	var files []ArchiveFile
	for _, e := range ents {
		first, last, date, ok := parseArchiveName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		files = append(files, ArchiveFile{Path: filepath.Join(adir, e.Name()), First: first, Last: last, Date: date, Size: info.Size()})
	}
	slices.SortFunc(files, func(a, b ArchiveFile) int { return cmpUint(a.First, b.First) })
	return files, nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ReadArchive calls fn for every record of the archive file at path, in
// order. Errors name the file; a file of a newer format is refused with
// ErrNewerFormat.
func ReadArchive(path string, fn func(Record) error) error {
	return readArchive(path, func(_ int, r Record) error { return fn(r) })
}

// readArchive is ReadArchive that also gives fn the file's format version.
func readArchive(path string, fn func(version int, r Record) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("journal: archive %s: %w", path, err)
	}
	br := bufio.NewReader(zr)
	// The header line is short: read at most the reader's 4 KiB buffer of
	// it (ReadSlice), never a whole "line" of a damaged file into memory.
	line, err := br.ReadSlice('\n')
	if err != nil || len(line) > 64 {
		return fmt.Errorf("journal: archive %s:1: no header line of at most 64 bytes", path)
	}
	head := string(line)
	v, ok := strings.CutPrefix(strings.TrimSuffix(head, "\n"), archiveMagic)
	n, err := strconv.Atoi(v)
	if !ok || err != nil {
		return fmt.Errorf("journal: archive %s: not a sabot journal archive", path)
	}
	if n > ArchiveFormat || n < 1 {
		return fmt.Errorf("%w: archive %s has format version %d, this sabot reads version 1 to %d", ErrNewerFormat, path, n, ArchiveFormat)
	}
	var buf [20 + 32]byte
	hdr := buf[:20]
	if n >= 2 {
		hdr = buf[:]
	}
	for i := 0; ; i++ {
		if _, err := io.ReadFull(br, hdr); err != nil {
			if errors.Is(err, io.EOF) && i > 0 {
				return nil
			}
			return fmt.Errorf("journal: archive %s: record %d: %w", path, i+1, err)
		}
		size := binary.BigEndian.Uint32(hdr[16:])
		if size > maxArchivePayload {
			return fmt.Errorf("journal: archive %s: record %d: payload of %d bytes (at most %d)", path, i+1, size, maxArchivePayload)
		}
		r := Record{Seq: binary.BigEndian.Uint64(hdr[:8]), Time: time.Unix(0, int64(binary.BigEndian.Uint64(hdr[8:16]))).UTC(),
			Data: make([]byte, size)}
		copy(r.Hash[:], hdr[20:])
		if _, err := io.ReadFull(br, r.Data); err != nil {
			return fmt.Errorf("journal: archive %s: record %d: %w", path, r.Seq, err)
		}
		if err := fn(n, r); err != nil {
			return err
		}
	}
}

// ReplayAll calls fn for every record still kept, archives then the live
// journal, in sequence order, each once. It starts at the oldest record
// kept (older archives may have been removed to keep the archive directory
// under its cap); a record missing after that is an error naming the
// records.
func (j *Journal) ReplayAll(fn func(Record) error) error {
	files, err := Archives(filepath.Dir(j.path))
	if err != nil {
		return err
	}
	var next uint64 // the sequence number expected next; 0 before the first
	deliver := func(r Record) error {
		if next != 0 && r.Seq < next {
			return nil // also in a later file, or still in the live journal
		}
		if next != 0 && r.Seq > next {
			return fmt.Errorf("journal: records %d to %d are missing (neither archived nor in %s)", next, r.Seq-1, j.path)
		}
		next = r.Seq + 1
		return fn(r)
	}
	for _, f := range files {
		if err := ReadArchive(f.Path, deliver); err != nil {
			return err
		}
	}
	from := j.First()
	if next > from {
		from = next
	}
	if from == 0 {
		return nil
	}
	return j.Replay(from, deliver)
}

// RetainOptions says what Retain moves and keeps.
type RetainOptions struct {
	// Before: records stamped before this time are moved to archive files.
	// Retain stops at the first record stamped at or after it, so the
	// live journal always stays one run of records (a record stamped in
	// the future by a wrong clock holds retention back until its time).
	Before time.Time
	// UpTo: only records up to this sequence number are moved (the start
	// of the next replay: a restart must find every record after its
	// snapshot in the live journal). 0 moves nothing.
	UpTo uint64
	// MaxBytes caps the archive directory: once its files exceed it, the
	// oldest are removed (RetainResult.Removed). 0: no cap.
	MaxBytes int64
	// MaxRecords bounds the records one call moves (0: no bound), so that
	// a caller can stop between calls.
	MaxRecords int
}

// RetainResult is what Retain did.
type RetainResult struct {
	Moved   int           // records moved out of the live journal
	Written []ArchiveFile // archive files written
	Removed []ArchiveFile // archive files removed to keep under MaxBytes
}

// Retain moves the live journal's oldest records (per opts) into dated,
// gzip-compressed archive files in the state directory's archive
// directory, and removes the oldest archive files while the directory
// exceeds opts.MaxBytes; the caller reports what was removed. Each archive
// file is complete (written, fsynced, renamed into place) before its
// records leave the live journal, and a move interrupted by a crash is
// completed by the next call, so a record is never lost and never in two
// archive files. It may run beside Append (the main loop's): it holds the
// journal's writer for one transaction of deleteChunk records at a time.
// The bbolt file does not shrink; the space of moved records is reused by
// new ones.
func (j *Journal) Retain(opts RetainOptions) (RetainResult, error) {
	var res RetainResult
	j.mu.Lock()
	db := j.db
	j.mu.Unlock()
	if db == nil {
		return res, ErrClosed
	}
	if db.IsReadOnly() {
		return res, fmt.Errorf("journal: %s: Retain on a read-only journal", j.path)
	}
	adir := filepath.Join(filepath.Dir(j.path), ArchiveDir)
	if err := os.MkdirAll(adir, 0o750); err != nil {
		return res, fmt.Errorf("journal: archive directory: %w", err)
	}
	// Leftovers of an interrupted write.
	if tmps, _ := filepath.Glob(filepath.Join(adir, ".tmp-*")); len(tmps) > 0 {
		for _, p := range tmps {
			os.Remove(p)
		}
	}
	// Complete an interrupted move: records already in an archive file
	// leave the live journal first.
	files, err := Archives(filepath.Dir(j.path))
	if err != nil {
		return res, err
	}
	done, err := j.archivedMark()
	if err != nil {
		return res, err
	}
	if n := len(files); n > 0 && files[n-1].Last > done {
		done = files[n-1].Last
	}
	if done > 0 && j.First() != 0 && j.First() <= done {
		if err := j.deleteThrough(done); err != nil {
			return res, err
		}
	}
	// Move what is old enough, never the last record (Open takes the next
	// sequence number from it).
	opts.UpTo = min(opts.UpTo, j.Last()-1)
	for opts.UpTo > 0 {
		first := j.First()
		if first == 0 || first > opts.UpTo {
			break
		}
		limit := archiveFileRecords
		if opts.MaxRecords > 0 {
			if res.Moved >= opts.MaxRecords {
				break
			}
			limit = min(limit, opts.MaxRecords-res.Moved)
		}
		af, n, err := j.writeArchive(adir, first, opts.UpTo, opts.Before, limit)
		if err != nil {
			return res, err
		}
		if n == 0 {
			break
		}
		res.Written = append(res.Written, af)
		if err := j.deleteThrough(af.Last); err != nil {
			return res, err
		}
		res.Moved += n
	}
	// The cap.
	if opts.MaxBytes > 0 {
		if files, err = Archives(filepath.Dir(j.path)); err != nil {
			return res, err
		}
		var total int64
		for _, f := range files {
			total += f.Size
		}
		for len(files) > 0 && total > opts.MaxBytes {
			f := files[0]
			if err := os.Remove(f.Path); err != nil {
				return res, fmt.Errorf("journal: remove archive: %w", err)
			}
			total -= f.Size
			files = files[1:]
			res.Removed = append(res.Removed, f)
		}
		if len(res.Removed) > 0 {
			syncDir(adir)
		}
	}
	return res, nil
}

func (j *Journal) archivedMark() (uint64, error) {
	var v uint64
	err := j.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketMeta).Get(keyArchived); len(b) == 8 {
			v = binary.BigEndian.Uint64(b)
		}
		return nil
	})
	return v, err
}

// writeArchive writes one archive file of the records from first on,
// stamped before before and at most upTo, ending where the UTC date
// changes or at limit records. It returns the file and its
// record count (0, and no file, when the first record is not old enough).
func (j *Journal) writeArchive(adir string, first, upTo uint64, before time.Time, limit int) (ArchiveFile, int, error) {
	tmp, err := os.CreateTemp(adir, ".tmp-*")
	if err != nil {
		return ArchiveFile{}, 0, fmt.Errorf("journal: archive: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	bw := bufio.NewWriterSize(tmp, 64<<10)
	zw := gzip.NewWriter(bw)
	fmt.Fprintf(zw, "%s%d\n", archiveMagic, ArchiveFormat)
	var date string
	n, last := 0, uint64(0)
	stop := errors.New("stop")
	var hdr [20 + 32]byte
	err = j.Replay(first, func(r Record) error {
		d := r.Time.UTC().Format("20060102")
		if r.Seq > upTo || !r.Time.Before(before) || n == limit || (date != "" && d != date) {
			return stop
		}
		date = d
		binary.BigEndian.PutUint64(hdr[:8], r.Seq)
		binary.BigEndian.PutUint64(hdr[8:16], uint64(r.Time.UnixNano()))
		binary.BigEndian.PutUint32(hdr[16:], uint32(len(r.Data)))
		copy(hdr[20:], r.Hash[:])
		if _, err := zw.Write(hdr[:]); err != nil {
			return err
		}
		if _, err := zw.Write(r.Data); err != nil {
			return err
		}
		n++
		last = r.Seq
		return nil
	})
	if err != nil && err != stop {
		tmp.Close()
		return ArchiveFile{}, 0, err
	}
	if n == 0 {
		tmp.Close()
		return ArchiveFile{}, 0, nil
	}
	err = zw.Close()
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	af := ArchiveFile{Path: filepath.Join(adir, archiveName(first, last, date)), First: first, Last: last, Date: date}
	if err == nil {
		err = os.Rename(tmp.Name(), af.Path)
	}
	if err != nil {
		return ArchiveFile{}, 0, fmt.Errorf("journal: write archive %s: %w", af.Path, err)
	}
	syncDir(adir)
	if info, err := os.Stat(af.Path); err == nil {
		af.Size = info.Size()
	}
	return af, n, nil
}

// deleteThrough removes the live records up to last (already in an
// archive file), deleteChunk per transaction, and records last as
// archived.
func (j *Journal) deleteThrough(last uint64) error {
	for {
		j.mu.Lock()
		if j.db == nil {
			j.mu.Unlock()
			return ErrClosed
		}
		first := j.first
		// The last record always stays: Open takes the next sequence
		// number from it.
		last = min(last, j.last-1)
		if first == 0 || first > last {
			j.mu.Unlock()
			return nil
		}
		end := min(last, first+deleteChunk-1)
		err := j.db.Update(func(tx *bolt.Tx) error {
			b, cb := tx.Bucket(bucketEvents), tx.Bucket(bucketChain)
			for s := first; s <= end; s++ {
				if err := b.Delete(seqKey(s)); err != nil {
					return err
				}
				if err := cb.Delete(seqKey(s)); err != nil {
					return err
				}
			}
			return tx.Bucket(bucketMeta).Put(keyArchived, seqKey(end))
		})
		if err == nil {
			j.first = end + 1
		}
		j.mu.Unlock()
		if err != nil {
			return fmt.Errorf("journal: %s: remove archived records: %w", j.path, err)
		}
	}
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
