package daemon

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/tableau"
)

// messageBuilder turns table outputs and views into MQTT messages
// (*mqtt.Builder; tests substitute one that fails on purpose).
type messageBuilder interface {
	Output(o tableau.Output) (mqtt.Message, bool, error)
	State(v tableau.TableView, seq uint64, t time.Time) (mqtt.Message, error)
	Roads(outs []tableau.Output, v tableau.TableView, seq uint64, t time.Time) (mqtt.Message, bool, error)
	Cleared() []mqtt.Message
}

// encodeError is one message that could not be built: id is the output's
// id, or "state/<seq>" ("roads/<seq>") for the retained state (roads) after
// journal record seq.
type encodeError struct {
	id  string
	err error
}

// messages turns the outputs of one journal record (seq, at) and the view
// after it into MQTT messages with b (payloads per drivers/mqtt/README.md).
// Every payload is built from the journal — ids and times come from the
// causing input — so a replay gives byte-identical messages. The retained
// state is included when withState.
//
// A message that cannot be built (a payload past mqtt.MaxPayload, say) is
// an error for that message only: it is left out and returned in errs,
// and the other messages of the record are built as usual.
func messages(b messageBuilder, outs []tableau.Output, view tableau.TableView, seq uint64, at time.Time, withState bool) (msgs []mqtt.Message, errs []encodeError) {
	for i := range outs {
		m, ok, err := b.Output(outs[i])
		if err != nil {
			errs = append(errs, encodeError{outs[i].ID, err})
			continue
		}
		if ok {
			msgs = append(msgs, m)
		}
	}
	if withState {
		m, err := b.State(view, seq, at)
		if err != nil {
			errs = append(errs, encodeError{"state/" + strconv.FormatUint(seq, 10), err})
		} else {
			msgs = append(msgs, m)
		}
	}
	// The retained roads, after every coup and void and at a new shoe.
	m, ok, err := b.Roads(outs, view, seq, at)
	if err != nil {
		errs = append(errs, encodeError{"roads/" + strconv.FormatUint(seq, 10), err})
	} else if ok {
		msgs = append(msgs, m)
	}
	return msgs, errs
}

// buildMessages is messages with the errors logged (with the message's id)
// and counted in sabot_mqtt_encode_errors_total.
func (d *daemon) buildMessages(outs []tableau.Output, view tableau.TableView, seq uint64, at time.Time, withState bool) []mqtt.Message {
	msgs, errs := messages(d.builder, outs, view, seq, at, withState)
	for _, e := range errs {
		d.metrics.encodeErrors.Inc()
		d.log.Error("mqtt: message not published: cannot encode it", "id", e.id, "seq", seq, "err", e.err)
	}
	return msgs
}

// maxUnqueuedBytes bounds the payload bytes of messages the outbox refused
// (full, or a write error) that the daemon keeps in memory to queue again:
// 8 MiB, about 20,000 messages or a day of a busy table, on top of the
// outbox's own week. Past it the daemon keeps no more in memory: those
// messages stay in the journal, the published mark stops before them for
// the rest of the run (/healthz says so), and the next start publishes
// them again.
const maxUnqueuedBytes = 8 << 20

// unqueued is a message the outbox refused, with the journal record it
// belongs to.
type unqueued struct {
	seq uint64
	msg mqtt.Message
}

// publish hands the messages of journal record seq to the durable outbox,
// after any the outbox refused before (in order). While the outbox refuses
// them they are kept (up to maxUnqueuedBytes) and queued again with the next
// record's messages or at the loop's retry tick. The published mark
// advances to the last record all of whose messages, and all before them,
// are in the outbox.
func (d *daemon) publish(ctx context.Context, seq uint64, msgs []mqtt.Message) {
	if d.pub == nil {
		return
	}
	if len(d.unqueued) == 0 {
		err := d.pub.Publish(ctx, msgs...)
		if err == nil {
			d.advanceMark(seq)
			return
		}
		d.log.Error("mqtt: outputs not queued in the outbox; kept to queue again", "seq", seq, "err", err)
	}
	for _, m := range msgs {
		d.keepUnqueued(seq, m)
	}
	d.retryUnqueued(ctx)
}

// advanceMark moves the published mark to seq, unless messages were
// dropped from memory before it (then the next start publishes from there).
func (d *daemon) advanceMark(seq uint64) {
	if !d.unqueuedLost.Load() {
		d.journal.SetMark(markPublished, seq)
	}
}

// keepUnqueued keeps one refused message, within maxUnqueuedBytes.
func (d *daemon) keepUnqueued(seq uint64, m mqtt.Message) {
	if d.unqueuedBytes+len(m.Payload) > maxUnqueuedBytes {
		if !d.unqueuedLost.Swap(true) {
			d.log.Error("mqtt: too many messages refused by the outbox to keep in memory; they stay in the journal and are published after a restart",
				"seq", seq, "kept_messages", len(d.unqueued), "limit_bytes", maxUnqueuedBytes)
		}
		return
	}
	d.unqueued = append(d.unqueued, unqueued{seq, m})
	d.unqueuedBytes += len(m.Payload)
}

// unqueuedChunk is the most kept messages queued in one outbox write.
const unqueuedChunk = 64

// retryUnqueued queues the kept messages again, in order, a chunk at a
// time, and moves the published mark past the records fully queued.
func (d *daemon) retryUnqueued(ctx context.Context) {
	for len(d.unqueued) > 0 {
		// Only what fits: the outbox refuses a write past its limit whole
		// (and logs each refusal).
		st := d.pub.Status()
		n := min(len(d.unqueued), unqueuedChunk, st.MaxBacklog-st.Backlog)
		if n <= 0 {
			return
		}
		chunk := make([]mqtt.Message, n)
		for i := range n {
			chunk[i] = d.unqueued[i].msg
		}
		if err := d.pub.Publish(ctx, chunk...); err != nil {
			if !errors.Is(err, mqtt.ErrBacklogFull) {
				d.log.Error("mqtt: kept messages still not queued", "messages", len(d.unqueued), "err", err)
			}
			return
		}
		for i := range n {
			d.unqueuedBytes -= len(d.unqueued[i].msg.Payload)
		}
		d.unqueued = append(d.unqueued[:0], d.unqueued[n:]...)
		if len(d.unqueued) > 0 {
			// Every record before the first one still kept is in the outbox.
			d.advanceMark(d.unqueued[0].seq - 1)
		} else {
			d.advanceMark(d.journal.Last())
			d.log.Info("mqtt: kept messages queued in the outbox; publishing normally again")
		}
	}
}
