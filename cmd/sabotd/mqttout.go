package main

import (
	"context"
	"time"

	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/tableau"
)

// messages turns the outputs of one journal record (seq, at) and the view
// after it into MQTT messages with b (payloads per drivers/mqtt/README.md).
// Every payload is built from the journal — ids and times come from the
// causing input — so a replay gives byte-identical messages. The retained
// state is included when withState.
func messages(b *mqtt.Builder, outs []tableau.Output, view tableau.TableView, seq uint64, at time.Time, withState bool) ([]mqtt.Message, error) {
	var msgs []mqtt.Message
	for i := range outs {
		m, ok, err := b.Output(outs[i])
		if err != nil {
			return nil, err
		}
		if ok {
			msgs = append(msgs, m)
		}
	}
	if withState {
		m, err := b.State(view, seq, at)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// publish hands the outputs of one input to the durable outbox.
func (d *daemon) publish(ctx context.Context, outs []tableau.Output, view tableau.TableView, seq uint64, at time.Time) error {
	if d.pub == nil {
		return nil
	}
	msgs, err := messages(d.builder, outs, view, seq, at, true)
	if err != nil {
		return err
	}
	return d.pub.Publish(ctx, msgs...)
}
