package daemon

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// runLoop starts d's main loop (as start does) until the test ends or the
// returned stop is called.
func runLoop(t *testing.T, d *daemon) (stop func()) {
	d.inputs, d.ping, d.done = make(chan inputReq), make(chan chan struct{}), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	d.wg.Add(1)
	go d.loop(ctx)
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			d.wg.Wait()
		}
	}
	t.Cleanup(stop)
	return stop
}

// TestClockJumps: the wall clock (an injected clock) jumps back 3 hours
// in the middle of a coup, a new shoe begins stamped before the previous
// one, and the clock jumps forward 5 hours in the middle of the next
// coup, then the daemon restarts with its clock 2 hours behind the
// journal. The journal stays in input order (consecutive sequence
// numbers, the times as stamped), every output id is unique, the shoe ids
// differ, a restart replays to the same view, and each jump is raised
// once as clock-jump, journaled like any input.
func TestClockJumps(t *testing.T) {
	dir := t.TempDir()
	d := testDaemon(t, dir)
	fc := clockwork.NewFakeClockAt(time.Date(2026, 4, 2, 9, 0, 0, 0, time.UTC))
	d.clock = fc
	if _, _, err := d.replay(); err != nil {
		t.Fatal(err)
	}
	stop := runLoop(t, d)
	ins := shoeInputs(t, 2, 3)
	newShoe := 0
	for i, in := range ins {
		if i > 0 && in.Kind == tableau.InputShoe {
			newShoe = i
		}
	}
	backAt, fwdAt := newShoe-7, newShoe+40 // both in the middle of a coup
	for i, in := range ins {
		switch i {
		case backAt:
			fc.Advance(-3 * time.Hour)
		case fwdAt:
			fc.Advance(5 * time.Hour)
		default:
			fc.Advance(2 * time.Millisecond) // well within the tolerance, however slow the machine
		}
		if err := d.submit(t.Context(), in); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	want, _ := json.Marshal(d.table.View())
	d.journal.Close()

	// A restart, its clock 2 hours behind the journal's last record.
	r := testDaemon(t, dir)
	fc.Advance(-2 * time.Hour)
	r.clock = fc
	if _, _, err := r.replay(); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(r.table.View())
	if string(got) != string(want) {
		t.Fatalf("view after restart:\n got %s\nwant %s", got, want)
	}
	stop = runLoop(t, r)
	if err := r.submit(t.Context(), tableau.Input{Kind: tableau.InputButton}); err != nil {
		t.Fatal(err)
	}
	stop()

	// The whole journal, applied to a fresh table.
	tb, _ := r.cfg.NewTable(nil)
	ids := map[string]uint64{}
	shoeIDs := map[string]bool{}
	var jumps []string
	var times []time.Time
	next := uint64(1)
	var outs []tableau.Output
	err := r.journal.Replay(1, func(rec journal.Record) error {
		if rec.Seq != next {
			t.Fatalf("record %d after %d", rec.Seq, next-1)
		}
		next++
		times = append(times, rec.Time)
		var in tableau.Input
		json.Unmarshal(rec.Data, &in)
		outs = tb.Apply(rec.Seq, rec.Time, in, outs[:0])
		for _, o := range outs {
			if o.Kind == tableau.OutputGate {
				continue
			}
			if prev, dup := ids[o.ID]; dup {
				t.Fatalf("id %s of record %d already output by record %d", o.ID, rec.Seq, prev)
			}
			ids[o.ID] = rec.Seq
			shoeIDs[o.ShoeID] = true
			if o.Kind == tableau.OutputAlert && o.Event.Alert.Code == baccarat.AlertClockJump {
				jumps = append(jumps, o.Alert.Text)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r.journal.Close()
	if n := int(next - 1); n != len(ins)+1+3 {
		t.Fatalf("%d records, want %d inputs + 3 clock jumps", n, len(ins)+1)
	}
	if len(shoeIDs) != 2 {
		t.Fatalf("shoe ids %v, want 2 distinct", shoeIDs)
	}
	if len(jumps) != 3 || !strings.HasSuffix(jumps[0], "back by 3h0m0s") || !strings.HasSuffix(jumps[1], "forward by 5h0m0s") ||
		!strings.HasSuffix(jumps[2], "back by 2h0m0s") {
		t.Fatalf("clock-jump alerts %q", jumps)
	}
	// The times are journaled as stamped: the journal's order is the
	// input order, not the clock's.
	if !times[backAt+1].Before(times[backAt-1]) || times[fwdAt+1].Sub(times[fwdAt-1]) < 5*time.Hour {
		t.Fatalf("journal times around the jumps: %v %v, %v %v", times[backAt-1], times[backAt+1], times[fwdAt-1], times[fwdAt+1])
	}
}
