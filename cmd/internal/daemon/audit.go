package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/drivers/shoe"
	"github.com/sabot-table/sabot/tableau"
)

// The audit trail (GLI-29-style): significant events journaled as
// tableau.InputEvent records and published on the MQTT event topic
// (mqtt.Builder.Event), the software identity and the journal's hash-chain
// head in the status message and on /healthz.

// selfExe is the running binary, hashed for the software identity (a
// variable so that tests can point it elsewhere).
var selfExe = "/proc/self/exe"

// Journal meta keys of the audit trail.
const (
	// metaCleanShutdown holds the sequence number (8 bytes) of the
	// shutdown record a clean stop journaled just before closing the
	// journal: a start finds the previous run clean when it is the last
	// record.
	metaCleanShutdown = "clean-shutdown"
	// metaConfigSHA256 holds the SHA-256 (hex) of the config file last
	// journaled (a config-change event).
	metaConfigSHA256 = "config-sha256"
)

// fileSHA256 is the SHA-256 of the file at path, in lowercase hex.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// softwareSHA256 hashes the running binary: selfExe, else os.Executable
// (a system without /proc); "" (logged) if neither can be read.
func (d *daemon) softwareSHA256() string {
	sum, err := fileSHA256(selfExe)
	if err != nil {
		if exe, xerr := os.Executable(); xerr == nil {
			sum, err = fileSHA256(exe)
		}
	}
	if err != nil {
		d.log.Warn("software identity: cannot hash the running binary", "err", err)
		return ""
	}
	return sum
}

// powerUpEvents journals, at a start after the replay (before the main
// loop runs), the power-up event (how the previous run ended, the
// binary's SHA-256) and, if the config file differs from the last one
// journaled, a config-change event. A demo (its journal is a temporary
// directory) journals none.
func (d *daemon) powerUpEvents(ctx context.Context) error {
	d.software = d.softwareSHA256()
	if d.demo.Enabled {
		return nil
	}
	how := mqtt.PowerUpFirst
	if last := d.journal.Last(); last > 0 {
		how = mqtt.PowerUpUnclean
		if b, err := d.journal.Meta(metaCleanShutdown); err == nil && len(b) == 8 && binary.BigEndian.Uint64(b) == last {
			how = mqtt.PowerUpClean
		}
	}
	d.log.Info("power-up", "previous_shutdown", how, "software_sha256", d.software)
	if how == mqtt.PowerUpUnclean {
		d.log.Warn("the previous run did not shut down cleanly (crash, kill or power loss)")
	}
	if err := d.auditEvent(ctx, mqtt.EventPowerUp, how, d.software); err != nil {
		return err
	}
	if d.configPath == "" {
		return nil
	}
	sum, err := fileSHA256(d.configPath)
	if err != nil {
		d.log.Warn("config hash", "err", err)
		return nil
	}
	prev, err := d.journal.Meta(metaConfigSHA256)
	if err != nil || string(prev) == sum {
		return err
	}
	text := fmt.Sprintf("%s, first journaled", d.configPath)
	if prev != nil {
		text = fmt.Sprintf("%s changed (was sha256 %s)", d.configPath, prev)
	}
	d.log.Info("config change", "file", d.configPath, "sha256", sum, "previous", string(prev))
	if err := d.auditEvent(ctx, mqtt.EventConfigChange, text, sum); err != nil {
		return err
	}
	return d.journal.SetMeta(metaConfigSHA256, []byte(sum))
}

// auditEvent journals and publishes one event through the main loop's
// process (called where nothing else runs it: at start before the loop,
// at close after it).
func (d *daemon) auditEvent(ctx context.Context, code, text, ref string) error {
	in := tableau.Input{Kind: tableau.InputEvent, Code: code, Text: text, Ref: ref, Source: "sabotd"}
	err := d.process(ctx, inputReq{in: in, recv: d.now(), mono: time.Now()})
	if errors.Is(err, errJournalFailed) {
		d.log.Warn("event not journaled: the journal cannot be written", "event", code)
		return nil
	}
	return err
}

// shutdownEvent journals the shutdown event and, once its record is
// durable, the clean-shutdown marker (the next start's power-up says
// clean). Called by close after the main loop has stopped, before the
// outbox is flushed; nothing is written if the daemon never finished
// starting or its journal is failing.
func (d *daemon) shutdownEvent(ctx context.Context, why string) {
	if !d.auditOn || d.jfail != nil || d.demo.Enabled {
		return
	}
	if err := d.auditEvent(ctx, mqtt.EventShutdown, why, ""); err != nil {
		d.log.Error("shutdown event not journaled", "err", err)
		return
	}
	if d.jfail != nil {
		return
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], d.journal.Last())
	if err := d.journal.SetMeta(metaCleanShutdown, b[:]); err != nil {
		d.log.Error("clean-shutdown marker not written", "err", err)
	}
}

// eventBuilder is the part of *mqtt.Builder that builds event messages.
type eventBuilder interface {
	Event(in tableau.Input, seq uint64, at time.Time, view tableau.TableView) (mqtt.Message, bool, error)
}

// appendEvent appends the event message of the journaled input in (record
// seq, at), if it is a significant event.
func (d *daemon) appendEvent(msgs []mqtt.Message, in tableau.Input, seq uint64, at time.Time, view tableau.TableView) []mqtt.Message {
	eb, ok := d.builder.(eventBuilder)
	if !ok {
		return msgs
	}
	m, ok, err := eb.Event(in, seq, at, view)
	if err != nil {
		d.metrics.encodeErrors.Inc()
		d.log.Error("mqtt: event message not published: cannot encode it", "seq", seq, "err", err)
		return msgs
	}
	if ok {
		msgs = append(msgs, m)
	}
	return msgs
}

// audited is called once the record of in is journaled and its outputs
// handed on: the outputs go into the recall ring (recall.go) and the
// journal's chain head to the publisher; the retained status is published
// again at a coup, a void, a new shoe and a significant event (not at
// every card).
func (d *daemon) audited(in tableau.Input, outs []tableau.Output) {
	d.recall.add(outs)
	if d.pub == nil {
		return
	}
	h := d.journal.Head()
	republish := mqtt.IsEvent(in) || in.Kind == tableau.InputShoe
	for i := range outs {
		if k := outs[i].Kind; k == tableau.OutputCoup || k == tableau.OutputVoid {
			republish = true
		}
	}
	d.pub.SetJournalHead(h.Seq, h.HashHex(), republish)
}

// lidInput turns a shoe's state report into a lid-open or lid-closed
// event when its cover bit changed (the sabot protocol's SHOE_STATE
// ShoeCoverOpen; the Bee-Tek and lines protocols report no lid). open is
// the shoe reader's last known state.
func lidInput(ev shoe.Event, open *bool) (tableau.Input, bool) {
	if ev.Kind != shoe.KindState {
		return tableau.Input{}, false
	}
	now := ev.State&shoe.StateCoverOpen != 0
	if now == *open {
		return tableau.Input{}, false
	}
	*open = now
	in := tableau.Input{Kind: tableau.InputEvent, Code: mqtt.EventLidClosed, Source: "shoe", Text: "the shoe's cover is closed (" + ev.State.String() + ")"}
	if now {
		in.Code, in.Text = mqtt.EventLidOpen, "the shoe's cover is open ("+ev.State.String()+")"
	}
	return in, true
}

// auditHealth is the audit part of /healthz.
func (d *daemon) auditHealth(h *health) {
	h.Software = d.software
	if d.journal != nil {
		if head := d.journal.Head(); head.Seq > 0 {
			h.JournalHead = &mqtt.JournalHead{Seq: head.Seq, SHA256: head.HashHex()}
		}
	}
}
