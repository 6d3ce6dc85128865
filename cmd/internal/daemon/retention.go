package daemon

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
)

// retentionEvery is how often sabotd moves old journal records to the
// archive (and once at start).
const retentionEvery = time.Hour

// retainBatch bounds the records one Retain call moves, so that a stop
// waits for at most one batch (a first pass after an upgrade may have
// years to move).
const retainBatch = 20_000

// runRetention moves journal records older than [state] retain_days to
// the archive and keeps the archive under [state] archive_max_mb, at start
// and every retentionEvery, until ctx ends. It runs beside the main loop.
func (d *daemon) runRetention(ctx context.Context) {
	if d.cfg.State.RetainDays == 0 && d.cfg.State.ArchiveMaxMB == 0 {
		return
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		for {
			d.retainOnce(ctx)
			select {
			case <-ctx.Done():
				return
			case <-time.After(retentionEvery):
			}
		}
	}()
}

// retainOnce is one retention pass. Only records a restart no longer
// needs move: those up to the newest snapshot at or before the published
// mark as written to disk. Every archive file removed by the cap is logged
// and raised as archive-pruned through the table (journaled, latched,
// shown and published like every alert).
func (d *daemon) retainOnce(ctx context.Context) {
	opts := journal.RetainOptions{MaxBytes: int64(d.cfg.State.ArchiveMaxMB) << 20, MaxRecords: retainBatch}
	if days := d.cfg.State.RetainDays; days > 0 {
		mark, err := d.journal.DurableMark(markPublished)
		if err != nil {
			d.log.Error("journal retention", "err", err)
			return
		}
		seq, _, err := d.journal.Snapshot(mark)
		if err != nil {
			d.log.Error("journal retention", "err", err)
			return
		}
		opts.UpTo = seq
		opts.Before = d.now().Add(-time.Duration(days) * 24 * time.Hour)
	}
	var res journal.RetainResult
	var err error
	for ctx.Err() == nil {
		var r journal.RetainResult
		r, err = d.journal.Retain(opts)
		res.Moved += r.Moved
		res.Written = append(res.Written, r.Written...)
		res.Removed = append(res.Removed, r.Removed...)
		if err != nil || r.Moved < retainBatch {
			break
		}
	}
	if res.Moved > 0 {
		d.log.Info("journal records archived", "records", res.Moved, "files", len(res.Written), "live_from", d.journal.First(),
			"archive", filepath.Join(d.cfg.State.Dir, journal.ArchiveDir))
	}
	for _, f := range res.Removed {
		text := fmt.Sprintf("removed %s (records %d to %d) to stay under state.archive_max_mb = %d",
			filepath.Base(f.Path), f.First, f.Last, d.cfg.State.ArchiveMaxMB)
		d.log.Warn("journal archive full: oldest archive removed", "file", f.Path, "first", f.First, "last", f.Last,
			"archive_max_mb", d.cfg.State.ArchiveMaxMB)
		if serr := d.submit(ctx, tableau.Input{Kind: tableau.InputArchivePruned, Text: text, Source: "journal"}); serr != nil {
			d.log.Error("archive-pruned alert not raised", "file", f.Path, "err", serr)
		}
	}
	if err != nil {
		d.log.Error("journal retention", "err", err)
	}
}
