package daemon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/tableau"
)

// shoeInputs returns the inputs of n shoes: the sample 8-deck shoe with
// shoe references "boot:seq", and, at random (seeded), voids, alarms,
// unreadable cards, link drops and acknowledgements between its tokens.
func shoeInputs(t testing.TB, n int, seed uint64) []tableau.Input {
	src, err := os.ReadFile("../../../tableau/testdata/clean-8deck.shoe")
	if err != nil {
		t.Fatal(err)
	}
	toks, err := tableau.ParseTranscript(bytes.NewReader(src), "clean-8deck.shoe")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	var ins []tableau.Input
	ref := 0
	for s := range n {
		ins = append(ins, tableau.Input{Kind: tableau.InputShoe, Source: "gpio"})
		for _, tok := range toks {
			in := tableau.TokenInput(tok)
			if in.Kind == tableau.InputShoe {
				continue
			}
			ref++
			in.Source, in.Ref = "shoe", fmt.Sprintf("%d:%d", 7+s/3, ref)
			ins = append(ins, in)
			switch rng.IntN(60) {
			case 0:
				ins = append(ins, tableau.Input{Kind: tableau.InputVoid, Source: "mqtt", Operator: "sup"})
			case 1:
				ins = append(ins, tableau.Input{Kind: tableau.InputAlarm, Code: "E3", Text: "jam", Source: "shoe"})
			case 2:
				ins = append(ins, tableau.Input{Kind: tableau.InputUnreadable, Source: "shoe"})
			case 3:
				ins = append(ins, tableau.Input{Kind: tableau.InputOffline}, tableau.Input{Kind: tableau.InputOnline})
			case 4, 5:
				ins = append(ins, tableau.Input{Kind: tableau.InputAck, Operator: "sup", Source: "gpio"})
			}
		}
	}
	return ins
}

// testDaemon is a daemon with only a journal (in dir), a table and a
// message builder: what process and replay use.
func testDaemon(t testing.TB, dir string) *daemon {
	t.Helper()
	cfg := config.Default()
	cfg.Table, cfg.State.Dir = "S", dir
	cfg.Alerts.Misdeal = "void"
	j, err := journal.Open(dir, &journal.Options{NoSync: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{cfg: cfg, journal: j, log: slog.New(slog.DiscardHandler), metrics: newMetrics()}
	if d.table, err = cfg.NewTable(nil); err != nil {
		t.Fatal(err)
	}
	d.builder = mqtt.NewBuilder(cfg.Table, d.table.Config().Fold.Rules)
	return d
}

func messagesText(msgs []mqtt.Message) []string {
	var s []string
	for _, m := range msgs {
		s = append(s, fmt.Sprintf("%s %v %s", m.Topic, m.Retained, m.Payload))
	}
	return s
}

// fullReplay is the reference: every record of the journal in dir applied
// to a fresh table, and the messages of the records after the published
// mark, as sabotd built them before snapshots.
func fullReplay(t *testing.T, d *daemon) (view string, msgs []string, lastRef string) {
	t.Helper()
	mark, _ := d.journal.Mark(markPublished)
	tb, err := d.cfg.NewTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	b := mqtt.NewBuilder(d.cfg.Table, tb.Config().Fold.Rules)
	var outs []tableau.Output
	err = d.journal.Replay(1, func(r journal.Record) error {
		var in tableau.Input
		if err := json.Unmarshal(r.Data, &in); err != nil {
			return err
		}
		outs = tb.Apply(r.Seq, r.Time, in, outs[:0])
		if in.Source == "shoe" && in.Ref != "" {
			lastRef = in.Ref
		}
		if r.Seq > mark {
			m, errs := messages(b, outs, tb.View(), r.Seq, r.Time, true)
			if len(errs) > 0 {
				return fmt.Errorf("record %d: %s: %w", r.Seq, errs[0].id, errs[0].err)
			}
			if ev, ok, err := b.Event(in, r.Seq, r.Time, tb.View()); err != nil {
				return err
			} else if ok { // the significant event's message (audit.go)
				m = append(m, ev)
			}
			msgs = append(msgs, messagesText(m)...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	vb, _ := json.Marshal(tb.View())
	return string(vb), msgs, lastRef
}

// TestReplayFromSnapshot: sabotd writes a snapshot at each new shoe and
// every snapshotEvery records, keeps only those a restart may need, and a
// restart from the snapshot gives the same view, the same messages to
// publish again (byte for byte) and the same last shoe reference as
// replaying the whole journal — with the published mark following the
// journal, and lagging behind it (an outbox that refused messages).
func TestReplayFromSnapshot(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	for _, lagAt := range []int{0, 900, 2300} {
		t.Run(fmt.Sprintf("mark-lags-from-%d", lagAt), func(t *testing.T) {
			dir := t.TempDir()
			d := testDaemon(t, dir)
			// Ending on a new shoe: its snapshot is of the last record, so
			// the restart replays nothing and all comes from the snapshot.
			ins := append(shoeInputs(t, 5, uint64(lagAt)), tableau.Input{Kind: tableau.InputShoe, Source: "gpio"})
			at := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
			for i, in := range ins {
				if lagAt > 0 && i == lagAt {
					d.unqueuedLost.Store(true) // the published mark stops here (as when the outbox refused too much)
				}
				if err := d.process(t.Context(), inputReq{in: in, recv: at.Add(time.Duration(i) * 3 * time.Second)}); err != nil {
					t.Fatal(err)
				}
			}
			snaps, _ := d.journal.Snapshots()
			mark, _ := d.journal.Mark(markPublished)
			d.journal.Close()
			if len(snaps) == 0 {
				t.Fatal("no snapshot written")
			}
			// Kept: the newest at or before the mark and the two newest.
			if len(snaps) > 3 || (lagAt == 0 && len(snaps) > 2) {
				t.Errorf("%d snapshots kept (%v, mark %d)", len(snaps), snaps, mark)
			}
			if last := snaps[len(snaps)-1]; uint64(len(ins))-last > snapshotEvery {
				t.Errorf("newest snapshot %d, %d records before the end", last, uint64(len(ins))-last)
			}

			r := testDaemon(t, dir)
			defer r.journal.Close()
			wantView, wantMsgs, wantRef := fullReplay(t, r)
			msgs, ref, err := r.replay()
			if err != nil {
				t.Fatal(err)
			}
			if r.snaps.seq == 0 || r.snaps.seq > mark {
				t.Fatalf("restarted from snapshot %d (mark %d, snapshots %v)", r.snaps.seq, mark, snaps)
			}
			if lagAt == 0 && r.journal.Last()-r.snaps.seq > snapshotEvery {
				t.Errorf("replayed %d records after the snapshot", r.journal.Last()-r.snaps.seq)
			}
			gotView, _ := json.Marshal(r.table.View())
			if string(gotView) != wantView {
				t.Fatalf("view after restart:\n got %s\nwant %s", gotView, wantView)
			}
			if ref != wantRef {
				t.Errorf("last ref %q, want %q", ref, wantRef)
			}
			got := messagesText(msgs)
			if len(got) != len(wantMsgs) {
				t.Fatalf("%d messages to republish, full replay %d", len(got), len(wantMsgs))
			}
			for i := range got {
				if got[i] != wantMsgs[i] {
					t.Fatalf("republished message %d:\n got %s\nwant %s", i, got[i], wantMsgs[i])
				}
			}
			if lagAt > 0 && len(got) == 0 {
				t.Fatal("nothing to republish although the mark lagged")
			}
		})
	}
}
