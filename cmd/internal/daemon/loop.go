package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/tableau"
)

// markPublished is the journal mark: the outputs of every record up to it
// have been handed to the MQTT outbox (which is itself durable). After a
// crash, the outputs of later records are published again (same ids, same
// payloads: both derive from the journal).
const markPublished = "published"

// inputReq is one input on its way into the main loop.
type inputReq struct {
	in   tableau.Input
	recv time.Time  // when it reached the daemon (journal time; latency start)
	mono time.Time  // the real clock then, with its monotonic reading (clock.go)
	done chan error // receives the result once journaled and applied; may be nil
}

// errStopping is submit's error once the daemon is stopping.
var errStopping = errors.New("sabotd: stopping")

// submit hands an input to the main loop and waits until it is journaled
// and applied (or ctx ends, or the daemon stops).
func (d *daemon) submit(ctx context.Context, in tableau.Input) error {
	r := inputReq{in: in, recv: d.now(), mono: time.Now(), done: make(chan error, 1)}
	select {
	case d.inputs <- r:
	case <-ctx.Done():
		return ctx.Err()
	case <-d.done:
		return errStopping
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-d.done:
		return errStopping
	}
}

// loop is the main loop: the only goroutine that touches the table and
// appends to the journal.
func (d *daemon) loop(ctx context.Context) {
	defer d.wg.Done()
	retry := time.NewTicker(unqueuedRetry)
	defer retry.Stop()
	jretry := time.NewTimer(time.Hour) // the journal retry while it fails (journalfail.go)
	defer jretry.Stop()
	for {
		var retryC, jretryC <-chan time.Time
		if len(d.unqueued) > 0 {
			retryC = retry.C
		}
		if d.jfail != nil {
			jretry.Reset(max(time.Until(d.jfail.next), 0))
			jretryC = jretry.C
		}
		var r inputReq
		select {
		case <-ctx.Done():
			return
		case c := <-d.ping:
			close(c)
			continue
		case <-retryC:
			d.retryUnqueued(ctx)
			continue
		case <-jretryC:
			if time.Now().After(d.jfail.next) {
				d.retryJournal(ctx)
			}
			d.alive.Store(time.Now().UnixNano())
			continue
		case <-d.backlogSig:
			in, ok := d.backlogInput()
			if !ok {
				continue
			}
			r = inputReq{in: in, recv: time.Now().UTC().Round(0)}
		case r = <-d.inputs:
		}
		err := d.process(ctx, r)
		if r.done != nil {
			r.done <- err
		}
		if err == nil && d.demoRun != nil {
			// The demo's supervisor acknowledges right after the input that
			// makes it due, before the next input: the same place in every
			// run with the same seed.
			if in, ok := d.demoRun.SupervisorAck(); ok {
				err = d.process(ctx, inputReq{in: in, recv: time.Now().UTC().Round(0)})
			}
		}
		if errors.Is(err, errJournalFailed) {
			// Refused, not applied: the daemon goes on (journalfail.go).
			if r.done == nil {
				d.log.Warn("input not journaled: the journal cannot be written", "kind", string(r.in.Kind), "text", r.in.Text)
			}
			d.alive.Store(time.Now().UnixNano())
			continue
		}
		if err != nil {
			d.log.Error("stopping: cannot journal an input event", "err", err)
			d.stop(err)
			return
		}
		d.alive.Store(time.Now().UnixNano())
	}
}

// unqueuedRetry is how often the main loop queues again the messages the
// outbox refused, when no input comes to do it.
const unqueuedRetry = time.Second

// backlogInput takes the publisher's latest outbox-backlog report: a raised
// one becomes the input by which the table raises outbox-backlog (journaled,
// latched, E13, published); a cleared one is only logged (the alert stays
// latched until acknowledged).
func (d *daemon) backlogInput() (tableau.Input, bool) {
	d.backlogMu.Lock()
	raised, cleared := d.backlogRaised, d.backlogCleared
	d.backlogRaised, d.backlogCleared = nil, nil
	d.backlogMu.Unlock()
	if cleared != nil {
		d.log.Info("mqtt outbox backlog back to normal", "queued", cleared.Queued, "max", cleared.Max)
	}
	if raised == nil {
		return tableau.Input{}, false
	}
	return tableau.Input{Kind: tableau.InputBacklog, Source: "mqtt",
		Text: fmt.Sprintf("%d of at most %d messages await the broker", raised.Queued, raised.Max)}, true
}

// process handles one input, in this order (the journal is written after
// the table has applied the input, not before):
//
//  1. the table applies it in memory (tableau.Table.Apply: pure, no I/O),
//     giving its outputs and the new view;
//  2. the display, alarm lamp and buzzer show the view (board.Show): local
//     and redrawn from the journal after a restart, so they need not wait
//     for the fsync, and a card is on the display within a millisecond;
//  3. the input is appended to the journal: one bbolt transaction, fsynced
//     before Append returns, which also carries any snapshot staged for
//     this record and the marks set since the last append (no group
//     commit: one fsync per input);
//  4. the outputs are logged and counted, and the shoe's gate is commanded;
//  5. the MQTT messages are built and appended to the outbox (fsynced;
//     appends arriving together share one fsync), and the published mark is
//     set, to be written with the next journal append;
//  6. process returns; only then does submit return to the input's source,
//     so the shoe driver acknowledges the event to a shoe that waits for
//     acknowledgements (sabot protocol), and an MQTT command is answered.
//
// Nothing leaves the machine (MQTT messages, which the outbox sends in the
// background, or the shoe's acknowledgement) before the input is durable
// in the journal. If the append fails, the table is rebuilt without the
// input and the shoe is not acknowledged (journalfail.go). A wall-clock
// jump noticed on this input is handled first, as an input of its own.
func (d *daemon) process(ctx context.Context, r inputReq) error {
	if d.jfail != nil {
		return d.processWhileFailed(ctx, r)
	}
	if jump, ok := d.checkClock(r); ok {
		d.log.Warn("the wall clock jumped", "by", jump.Text, "time", r.recv)
		if err := d.process(ctx, inputReq{in: jump, recv: r.recv}); err != nil {
			return err
		}
	}
	seq := d.journal.Last() + 1
	view := d.apply(seq, r) // 1
	d.showView(view, r)     // 2
	if err := d.record(seq, r, view); err != nil {
		return err // 3 failed: nothing is acted on, published or acknowledged
	}
	d.finish(ctx, r, seq, view) // 4 and 5
	return nil
}

// apply is process's step 1: the table applies the input in memory; its
// outputs are in d.outs, and the new view is returned.
func (d *daemon) apply(seq uint64, r inputReq) tableau.TableView {
	d.outs = d.table.Apply(seq, r.recv, r.in, d.outs[:0])
	return d.table.View()
}

// record is process's step 3: the input is appended to the journal as
// record seq, with any snapshot staged for it (maybeSnapshot). A failed
// append hands the table to journalFailed.
func (d *daemon) record(seq uint64, r inputReq, view tableau.TableView) error {
	d.snaps.noteInput(r.in)
	d.maybeSnapshot(seq, view)
	data, err := json.Marshal(r.in)
	if err != nil {
		return fmt.Errorf("journal: encode input: %w", err)
	}
	got, err := d.journal.Append(r.recv, data)
	if err != nil {
		return d.journalFailed(seq, err)
	}
	if got != seq {
		return fmt.Errorf("journal: appended record %d, expected %d", got, seq)
	}
	return nil
}

// finish is process's steps 4 and 5: it counts, acts on and publishes the
// outputs of the input r, whose record seq has been appended.
func (d *daemon) finish(ctx context.Context, r inputReq, seq uint64, view tableau.TableView) {
	d.metrics.journal.Set(float64(seq))
	d.metrics.events.WithLabelValues(string(r.in.Kind)).Inc()
	d.metrics.dealers.note(view)
	d.afterApply(r.in, d.outs, view, false)
	if d.pub == nil {
		d.advanceMark(seq) // nothing to publish
	} else {
		d.publish(ctx, seq, d.appendEvent(d.buildMessages(d.outs, view, seq, r.recv, true), r.in, seq, r.recv, view))
	}
	d.audited(r.in, d.outs)
}

// afterApply logs, counts and acts on a batch of outputs (lamps, buzzer,
// gate). During replay it only counts.
func (d *daemon) afterApply(in tableau.Input, outs []tableau.Output, view tableau.TableView, replay bool) {
	for i := range outs {
		o := &outs[i]
		switch o.Kind {
		case tableau.OutputCoup:
			c := o.Event.Coup
			d.metrics.coups.WithLabelValues(c.Winner.String()).Inc()
			if !replay {
				d.log.Info("coup", "shoe", c.Shoe, "coup", c.Coup, "winner", c.Winner.String(),
					"player", c.Player.String(), "banker", c.Banker.String(),
					"player_total", c.PlayerTotal, "banker_total", c.BankerTotal, "natural", c.Natural, "id", o.ID)
				d.coupsSeen.Add(1)
				if d.demoWatch != nil {
					d.demoWatch(o)
				}
			}
		case tableau.OutputAlert:
			a := o.Event.Alert
			d.metrics.alerts.WithLabelValues(string(a.Code)).Inc()
			if !replay {
				attrs := []any{"code", string(a.Code), "shoe", a.Shoe, "coup", a.Coup}
				if !a.Card.IsZero() {
					attrs = append(attrs, "card", a.Card.String())
				}
				attrs = append(attrs, "text", o.Alert.Text, "id", o.ID)
				d.log.Info("alert", attrs...)
				if d.demoWatch != nil {
					d.demoWatch(o)
				}
			}
		case tableau.OutputVoid:
			d.metrics.voids.Inc()
			if !replay {
				d.log.Info("void", "shoe", o.Event.Void.Shoe, "coup", o.Event.Void.Coup, "operator", in.Operator, "id", o.ID)
				if d.demoWatch != nil {
					d.demoWatch(o)
				}
			}
		case tableau.OutputAck:
			if !replay {
				d.log.Info("alert acknowledged", "alert", o.Ack.AlertID, "code", string(o.Ack.Code), "operator", o.Ack.Operator)
				if d.demoWatch != nil {
					d.demoWatch(o)
				}
			}
		case tableau.OutputGate:
			if !replay {
				d.setGate(o.GateLocked)
			}
		case tableau.OutputCard:
			if !replay && d.demoWatch != nil {
				d.demoWatch(o)
			}
		}
	}
	d.metrics.latchedAlerts.Set(float64(view.AlertCount))
	d.mu.Lock()
	newShoe := d.view.ShoeID != view.ShoeID
	d.view = view
	d.mu.Unlock()
	if newShoe {
		// The retained status carries the shoe in progress: it said ""
		// (or the last shoe) until the shoe's link next changed.
		d.pushShoe()
	}
	d.boardNote(outs, view)
}

// replay rebuilds the table from the journal and returns the messages of
// the records after the published mark, to be published again. It starts
// from the newest snapshot at or before the mark (snapshot.go), so it
// replays at most about one shoe; without a usable one, from the first
// record.
func (d *daemon) replay() (republish []mqtt.Message, lastRef string, err error) {
	mark, err := d.journal.Mark(markPublished)
	if err != nil {
		return nil, "", err
	}
	from := uint64(1)
	snapSeq, err := d.restoreSnapshot(mark)
	switch {
	case err != nil && d.journal.First() > 1:
		return nil, "", fmt.Errorf("%w: %w", errNoReplayStart, err)
	case err != nil:
		d.log.Warn("journal: snapshot unusable; replaying the whole journal", "err", err)
	case snapSeq > 0:
		from = snapSeq + 1
	}
	if d.recall != nil { // the snapshot's recall ring, then the records after it
		if err := d.recall.restore(d.snaps.recall); err != nil {
			d.log.Warn("journal: the snapshot's recall is unusable; recall starts empty", "err", err)
			d.recall.restore(nil)
		}
		d.snaps.recall = nil
	}
	var outs []tableau.Output
	n := 0
	err = d.journal.Replay(from, func(r journal.Record) error {
		var in tableau.Input
		if err := json.Unmarshal(r.Data, &in); err != nil {
			return fmt.Errorf("journal: record %d: %w", r.Seq, err)
		}
		outs = d.table.Apply(r.Seq, r.Time, in, outs[:0])
		d.recall.add(outs)
		d.snaps.noteInput(in)
		n++
		if r.Seq > mark {
			view := d.table.View()
			d.afterApply(in, outs, view, true)
			republish = append(republish, d.appendEvent(d.buildMessages(outs, view, r.Seq, r.Time, true), in, r.Seq, r.Time, view)...)
			return nil
		}
		d.countReplayed(outs)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	v := d.table.View()
	d.mu.Lock()
	d.view = v
	d.mu.Unlock()
	d.metrics.latchedAlerts.Set(float64(v.AlertCount))
	if last, err := d.journal.LastTime(); err == nil {
		d.clocks = clockState{wall: last} // the first input checks its clock against it
	}
	if n > 0 || snapSeq > 0 {
		d.log.Info("journal replayed", "snapshot", snapSeq, "records", n, "shoe", v.Shoe, "coup", v.Coup, "phase", v.Phase,
			"republish", len(republish), "unacknowledged_alerts", v.AlertCount)
	}
	return republish, d.snaps.lastRef, nil
}

// countReplayed counts replayed outputs in the metrics.
func (d *daemon) countReplayed(outs []tableau.Output) {
	for i := range outs {
		switch o := &outs[i]; o.Kind {
		case tableau.OutputCoup:
			d.metrics.coups.WithLabelValues(o.Event.Coup.Winner.String()).Inc()
		case tableau.OutputAlert:
			d.metrics.alerts.WithLabelValues(string(o.Event.Alert.Code)).Inc()
		case tableau.OutputVoid:
			d.metrics.voids.Inc()
		}
	}
}

// parseRef parses an Input.Ref "boot:seq" (both decimal uint32).
func parseRef(ref string) (boot, seq uint32, ok bool) {
	b, s, found := strings.Cut(ref, ":")
	if !found {
		return 0, 0, false
	}
	bv, err1 := strconv.ParseUint(b, 10, 32)
	sv, err2 := strconv.ParseUint(s, 10, 32)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uint32(bv), uint32(sv), true
}

// currentView returns the view after the last applied input.
func (d *daemon) currentView() tableau.TableView {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.view
}
