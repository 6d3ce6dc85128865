package daemon

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sabot-table/sabot/tableau"
)

// snapshotEvery is N of "a snapshot at each new shoe and at least every N
// records": a start restores the newest snapshot at or before the
// published mark and replays the records after it, so it replays at most
// one shoe or snapshotEvery records (more only while the published mark
// lags, the MQTT outbox refusing messages: those records' outputs must be
// published again). A snapshot costs one JSON encoding of the table (tens
// of kB at most) in the main loop and is written in the same bbolt
// transaction as its record: no extra fsync.
const snapshotEvery = 1000

// daemonSnapVersion is the version of daemonSnap; restoring another is an
// error (a newer journal format would be refused before).
const daemonSnapVersion = 1

// daemonSnap is what sabotd stores as a journal snapshot: the table's
// snapshot and the daemon's own state that a replay rebuilds (the last
// shoe reference, for dropping redelivered shoe events).
type daemonSnap struct {
	V       int             `json:"v"`
	Table   json.RawMessage `json:"table"`
	LastRef string          `json:"last_ref,omitempty"`
	// Recall is the daemon's recall ring after the record (recall.go);
	// absent in a snapshot of an older sabotd (the ring then starts
	// empty).
	Recall json.RawMessage `json:"recall,omitempty"`
}

// snapState is the main loop's snapshot bookkeeping.
type snapState struct {
	seq     uint64          // record of the last snapshot (0: none yet)
	shoe    int             // the shoe number then
	lastRef string          // the last shoe reference (Input.Ref) journaled
	recall  json.RawMessage // the restored snapshot's recall ring, until replay takes it
}

// noteInput tracks what a snapshot must carry beside the table.
func (s *snapState) noteInput(in tableau.Input) {
	if in.Source == "shoe" && in.Ref != "" {
		s.lastRef = in.Ref
	}
}

// maybeSnapshot hands the journal a snapshot of the state after record
// seq (just applied, about to be appended) if a new shoe has begun or
// snapshotEvery records have passed since the last one, and has the
// snapshots a restart can no longer need deleted. A snapshot that cannot
// be encoded is logged and skipped: the next record tries again, and a
// start replays from the previous one.
func (d *daemon) maybeSnapshot(seq uint64, view tableau.TableView) {
	if view.Shoe == d.snaps.shoe && seq-d.snaps.seq < snapshotEvery {
		return
	}
	data, err := d.encodeSnapshot()
	if err != nil {
		d.log.Error("journal: table snapshot not written", "seq", seq, "err", err)
		return
	}
	d.journal.SetSnapshot(seq, data)
	if mark, err := d.journal.Mark(markPublished); err == nil {
		d.journal.PruneSnapshots(mark)
	}
	d.snaps.seq, d.snaps.shoe = seq, view.Shoe
	d.log.Debug("journal: table snapshot", "seq", seq, "shoe", view.Shoe, "bytes", len(data))
}

func (d *daemon) encodeSnapshot() ([]byte, error) {
	tb, err := d.table.Snapshot()
	if err != nil {
		return nil, err
	}
	rc, err := d.recall.snapshot(d.outs) // d.outs: this record's outputs, not yet in the ring
	if err != nil {
		return nil, err
	}
	return json.Marshal(daemonSnap{V: daemonSnapVersion, Table: tb, LastRef: d.snaps.lastRef, Recall: rc})
}

// restoreSnapshot replaces d.table by the state of the newest snapshot at
// or before record atMost and returns its record's sequence number (0 and
// no change if there is none).
func (d *daemon) restoreSnapshot(atMost uint64) (uint64, error) {
	seq, data, err := d.journal.Snapshot(atMost)
	if err != nil || data == nil {
		return 0, err
	}
	var s daemonSnap
	if err := json.Unmarshal(data, &s); err != nil {
		return 0, fmt.Errorf("journal: snapshot of record %d: %w", seq, err)
	}
	if s.V != daemonSnapVersion {
		return 0, fmt.Errorf("journal: snapshot of record %d has version %d, this sabotd reads version %d", seq, s.V, daemonSnapVersion)
	}
	t, err := tableau.RestoreTable(d.table.Config(), s.Table)
	if err != nil {
		return 0, fmt.Errorf("journal: snapshot of record %d: %w", seq, err)
	}
	if t.LastSeq() != seq {
		return 0, fmt.Errorf("journal: snapshot of record %d holds the state after record %d", seq, t.LastSeq())
	}
	d.table = t
	d.snaps = snapState{seq: seq, shoe: t.View().Shoe, lastRef: s.LastRef, recall: s.Recall}
	return seq, nil
}

// errNoReplayStart: the snapshot a start needs is unusable and the records
// before it are archived.
var errNoReplayStart = errors.New("journal: no usable snapshot and the records before the live journal are archived")
