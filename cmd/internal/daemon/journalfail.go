package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// Journal failure (a full disk, an I/O error). An input is durable only
// once its record is appended; when an append fails:
//
//  1. the input never happened: the table, which had applied it (the
//     display follows the card before the fsync), is rebuilt from the
//     journal (the newest snapshot and the records after it), the pending
//     snapshot of that record is cancelled, and the submitter gets an error
//     wrapping errJournalFailed — the shoe handler turns it into
//     shoe.ErrRetryLater, so the sabot protocol does not acknowledge the
//     event and the shoe keeps it in its ring and sends it again;
//  2. the display shows journal-failed (E16) at once, with the alarm lamp,
//     and /healthz answers 503 with the error;
//  3. inputs are refused at once (no table change, nothing journaled: keys
//     and MQTT commands get an error, shoe events stay unacknowledged)
//     while the main loop retries the journal with backoff (journalRetryMin
//     doubling to journalRetryMax), by appending an InputJournalFailed
//     record that says since when and why;
//  4. when that append succeeds the journal works again: the record goes
//     through the table (journal-failed latches, is published and waits
//     for the supervisor's acknowledgement), /healthz recovers, and the
//     next input — the shoe's retransmission — is processed as usual.
//     Nothing the sabot protocol sent is lost or doubled; a Bee-Tek or
//     lines shoe cannot resend, so its events during the failure are lost
//     and logged by drivers/shoe.

// journalFailure is the main loop's state while the journal cannot be
// written (daemon.jfail; nil when it can).
type journalFailure struct {
	since   time.Time     // wall clock of the first failed append
	err     error         // the latest append error
	wait    time.Duration // the current backoff
	next    time.Time     // the next attempt (monotonic clock)
	refused int           // inputs refused meanwhile
}

// Retry backoff while the journal fails.
const (
	journalRetryMin = 100 * time.Millisecond
	journalRetryMax = 5 * time.Second
)

// errJournalFailed is wrapped by the error an input gets while the journal
// cannot be written: the input was not applied and may be offered again.
var errJournalFailed = errors.New("sabotd: the journal cannot be written")

// journalFailed handles the failed append of record seq, whose input the
// table had applied. It returns the error for the submitter (wrapping
// errJournalFailed), or another error if the table cannot be rebuilt (the
// daemon then stops).
func (d *daemon) journalFailed(seq uint64, err error) error {
	d.journal.CancelSnapshot()
	if rerr := d.rebuildTable(); rerr != nil {
		return fmt.Errorf("journal: append failed (%w) and the table cannot be rebuilt from the journal: %w", err, rerr)
	}
	d.jfail = &journalFailure{since: d.now(), err: err, wait: journalRetryMin, next: time.Now().Add(journalRetryMin)}
	d.log.Error("journal: cannot write; inputs are refused and shoe events not acknowledged until it can (retrying)", "seq", seq, "err", err)
	d.noteJournalProblem()
	d.showJournalFailed()
	return d.refusal()
}

// refusal is the error an input gets while the journal fails.
func (d *daemon) refusal() error {
	f := d.jfail
	return fmt.Errorf("%w (since %s): %w", errJournalFailed, f.since.Format(time.RFC3339), f.err)
}

// noteJournalProblem publishes the failure (or its end) to /healthz.
func (d *daemon) noteJournalProblem() {
	if d.jfail == nil {
		d.journalProblem.Store(nil)
		return
	}
	p := fmt.Sprintf("the journal cannot be written since %s: %v", d.jfail.since.Format(time.RFC3339), d.jfail.err)
	d.journalProblem.Store(&p)
}

// processWhileFailed refuses r unless a retry is due and succeeds, in
// which case r is processed as usual.
func (d *daemon) processWhileFailed(ctx context.Context, r inputReq) error {
	if time.Now().Before(d.jfail.next) || !d.retryJournal(ctx) {
		d.jfail.refused++
		return d.refusal()
	}
	return d.process(ctx, r)
}

// retryJournal tries to append the InputJournalFailed record. It reports
// whether the journal works again; if not, the next try is backed off.
func (d *daemon) retryJournal(ctx context.Context) bool {
	f := d.jfail
	if f == nil {
		return true
	}
	now := d.now()
	in := tableau.Input{Kind: tableau.InputJournalFailed, Source: "journal",
		Text: fmt.Sprintf("from %s for %s (%v); %d inputs refused meanwhile",
			f.since.Format(time.RFC3339), now.Sub(f.since).Round(time.Millisecond), f.err, f.refused)}
	data, err := json.Marshal(in)
	if err != nil {
		d.log.Error("journal: encode input", "err", err)
		return false
	}
	seq := d.journal.Last() + 1
	got, err := d.journal.Append(now, data)
	if err != nil {
		f.err = err
		f.wait = min(2*f.wait, journalRetryMax)
		f.next = time.Now().Add(f.wait)
		d.noteJournalProblem()
		d.log.Debug("journal: still cannot write", "retry", f.wait, "err", err)
		return false
	}
	d.jfail = nil
	d.noteJournalProblem()
	d.log.Info("journal: writable again", "failed_for", now.Sub(f.since).Round(time.Millisecond), "refused", f.refused)
	if got != seq {
		// Cannot happen (the main loop is the only writer).
		d.log.Error("journal: appended record out of sequence", "got", got, "want", seq)
	}
	d.commitAppended(ctx, inputReq{in: in, recv: now}, got)
	return true
}

// commitAppended applies an input whose record seq is already in the
// journal: table, display, snapshot, then outputs.
func (d *daemon) commitAppended(ctx context.Context, r inputReq, seq uint64) {
	d.outs = d.table.Apply(seq, r.recv, r.in, d.outs[:0])
	view := d.table.View()
	d.showView(view, r)
	d.snaps.noteInput(r.in)
	d.maybeSnapshot(seq, view)
	d.finish(ctx, r, seq, view)
}

// rebuildTable replaces the table by the state the journal holds: the
// newest snapshot and the records after it (at most about one shoe,
// snapshot.go), or every record if there is no snapshot.
func (d *daemon) rebuildTable() error {
	cfg := d.table.Config()
	snapSeq, err := d.restoreSnapshot(d.journal.Last())
	if err != nil {
		return err
	}
	if snapSeq == 0 {
		if d.journal.First() > 1 {
			return errNoReplayStart
		}
		t, err := tableau.NewTable(cfg)
		if err != nil {
			return err
		}
		d.table, d.snaps = t, snapState{}
	}
	var outs []tableau.Output
	err = d.journal.Replay(snapSeq+1, func(rec journal.Record) error {
		var in tableau.Input
		if err := json.Unmarshal(rec.Data, &in); err != nil {
			return fmt.Errorf("journal: record %d: %w", rec.Seq, err)
		}
		outs = d.table.Apply(rec.Seq, rec.Time, in, outs[:0])
		d.snaps.noteInput(in)
		return nil
	})
	if err != nil {
		return err
	}
	v := d.table.View()
	d.mu.Lock()
	d.view = v
	d.mu.Unlock()
	return nil
}

// showJournalFailed shows the table with journal-failed in front of its
// latched alerts (display, lamp, scoreboard) while the journal cannot be
// written: the table cannot raise it, since nothing can be journaled.
func (d *daemon) showJournalFailed() {
	v := d.table.View()
	a := tableau.LatchedAlert{ID: "journal-failed", LastID: "journal-failed", Count: 1, Code: baccarat.AlertJournalFailed,
		Shoe: v.Shoe, Coup: v.Coup}
	if m, ok := baccarat.LookupAlert(baccarat.AlertJournalFailed); ok {
		a.Text = m.Text
	}
	v.Alerts = append([]tableau.LatchedAlert{a}, v.Alerts...)
	v.Alerts = v.Alerts[:min(len(v.Alerts), tableau.MaxViewAlerts)] // the view's bound
	v.AlertCount++
	d.showView(v, inputReq{})
	d.mu.Lock()
	d.view = v
	d.mu.Unlock()
}
