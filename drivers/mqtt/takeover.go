package mqtt

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/internal/ctxsleep"
)

// Takeover reports another daemon publishing as this table: its online
// status is on the table's status topic with an Instance that is not this
// publisher's (another state directory: a second Pi configured with the
// same table). With MQTT 3.1.1 the broker gives no reason when it closes a
// connection because another client connected with the same client id, so
// the publisher looks for the other daemon's status instead (see probe).
type Takeover struct {
	// ClientID is the client id both daemons use.
	ClientID string
	// Instance and Conn are the other daemon's (StatusPayload).
	Instance string
	Conn     uint64
	// Retry is how long the publisher stays away before it looks again
	// (Options.TakeoverBackoff).
	Retry time.Duration
	// Text is a human description, for the alert's text.
	Text string
}

// Probe windows: how long a probe waits for status messages after its
// subscription is acknowledged. At startup only the retained status is
// looked for (a broker sends it with or right after SUBACK); after a lost
// connection the daemon that took the session over may still be about to
// publish its online, so the probe waits longer for a live one.
const (
	probeWindowStart = 250 * time.Millisecond
	probeWindowLost  = 1500 * time.Millisecond
)

// probe looks, without using the table's client id (so it takes over
// nobody's session), for another daemon's online status on the table's
// status topic: it connects as "<ClientID>-probe" with a clean session and
// no will, subscribes to <prefix>/status and collects messages for window
// after the subscription is acknowledged. It returns the other daemon's
// status, or nil if none was seen (or the probe could not connect or
// subscribe: then nothing is known and the caller connects as usual; a
// broker ACL must let the probe's client id read the status topic for the
// detection to work).
func (p *Publisher) probe(ctx context.Context, window time.Duration, afterLoss bool) *StatusPayload {
	o := p.clientOptions(nil)
	o.SetClientID(p.opts.ClientID + "-probe")
	var (
		mu      sync.Mutex
		foreign *StatusPayload
		seenAny = make(chan struct{})
		seen    sync.Once
	)
	c := paho.NewClient(o)
	wait := p.opts.ConnectTimeout*time.Duration(len(p.opts.Brokers)) + time.Second
	tok := c.Connect()
	if err := waitToken(ctx, tok, wait); err != nil {
		go func() { tok.WaitTimeout(wait); c.Disconnect(0) }()
		p.opts.Logger.Debug("mqtt: takeover probe could not connect", "err", err)
		return nil
	}
	defer c.Disconnect(100)
	sub := c.Subscribe(p.prefix+"/"+TopicStatus, 1, func(_ paho.Client, m paho.Message) {
		var st StatusPayload
		// Another daemon's online: another instance; or none (a sabotd
		// from before instances) once we have lost a connection, since our
		// own online had replaced any older retained status by then.
		if json.Unmarshal(m.Payload(), &st) == nil && st.Status == StatusOnline &&
			st.Instance != p.box.instance && (st.Instance != "" || afterLoss) {
			mu.Lock()
			if foreign == nil {
				foreign = &st
			}
			mu.Unlock()
		}
		seen.Do(func() { close(seenAny) })
	})
	if err := waitToken(ctx, sub, p.opts.AckTimeout); err != nil {
		p.opts.Logger.Debug("mqtt: takeover probe could not subscribe", "err", err)
		return nil
	}
	t := time.NewTimer(window)
	defer t.Stop()
	if !afterLoss {
		// At startup the retained status is all there is to see.
		select {
		case <-seenAny:
		case <-t.C:
		case <-ctx.Done():
		}
		// Messages are handled in order: the first one is in foreign
		// already if it was another daemon's.
	} else {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
	loop:
		for {
			select {
			case <-tick.C:
				mu.Lock()
				done := foreign != nil
				mu.Unlock()
				if done {
					break loop
				}
			case <-t.C:
				break loop
			case <-ctx.Done():
				break loop
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return foreign
}

// awaitNoTakeover probes before (re)connecting under the table's client
// id, and while another daemon's online is there, stays away: it reports
// the takeover once (log line, Options.OnTakeover), then probes again every
// TakeoverBackoff, keeping the outbox. It returns false if ctx ended.
func (p *Publisher) awaitNoTakeover(ctx context.Context, afterLoss bool) bool {
	if p.opts.NoTakeoverProbe {
		return true
	}
	window := probeWindowStart
	if afterLoss {
		window = probeWindowLost
	}
	for {
		other := p.probe(ctx, window, afterLoss)
		if ctx.Err() != nil {
			return false
		}
		if other == nil {
			return true
		}
		p.mu.Lock()
		first := !p.takenOver
		p.takenOver = true
		p.lastErr = fmt.Errorf("mqtt: session taken over: another daemon (instance %s) publishes as table %s with client id %s", other.Instance, p.opts.Table, p.opts.ClientID)
		p.mu.Unlock()
		tk := Takeover{ClientID: p.opts.ClientID, Instance: other.Instance, Conn: other.Conn, Retry: p.opts.TakeoverBackoff,
			Text: fmt.Sprintf("another daemon (instance %s) publishes as table %s with MQTT client id %s: this one stays off the broker for %v and keeps its messages in the outbox; give each table its own name",
				other.Instance, p.opts.Table, p.opts.ClientID, p.opts.TakeoverBackoff)}
		if first {
			p.opts.Logger.Error("mqtt: session takeover: another daemon publishes as this table with the same client id; not reconnecting into a fight",
				"table", p.opts.Table, "client_id", p.opts.ClientID, "other_instance", other.Instance, "other_conn", other.Conn,
				"instance", p.box.instance, "retry_in", p.opts.TakeoverBackoff, "backlog", p.box.Len())
			if p.opts.OnTakeover != nil {
				p.opts.OnTakeover(tk)
			}
		} else {
			p.opts.Logger.Warn("mqtt: session still taken over by another daemon; staying off the broker",
				"client_id", p.opts.ClientID, "other_instance", other.Instance, "retry_in", p.opts.TakeoverBackoff, "backlog", p.box.Len())
		}
		if !ctxsleep.Sleep(ctx, p.opts.TakeoverBackoff) {
			return false
		}
	}
}
