package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestDaemonSecondShoeSimRun plays two runs of the virtual shoe against the
// same daemon, as `sabot shoe-sim` runs would: twice with the same seed and
// random boot ids (the default: two boots, the reproduction), then
// twice with the same fixed boot id (a shoe whose boot id is not random). Every card of every run is journaled,
// in order, and the repeated boot id raises shoe-sequence (E18), journaled
// and published.
func TestDaemonSecondShoeSimRun(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	dir := t.TempDir()
	link := filepath.Join(dir, "ttySHOE")
	conf := fmt.Sprintf(`table = "T-SQ"
[shoe]
device = %q
protocol = "sabot"
markers = "on"
[mqtt]
embedded_addr = "127.0.0.1:0"
[display]
kind = "fake"
[state]
dir = %q
`, link, filepath.Join(dir, "state"))
	m, _ := bootDaemon(t, conf)
	r := newReceived()
	subscribe(t, ownURL(m.d.broker), "sabot/T-SQ", r)
	var dealt []string
	for i, run := range []struct {
		seed   uint64
		bootID uint32
	}{{20, 0}, {20, 0}, {21, 0x5AB07001}, {22, 0x5AB07001}} {
		vs, err := sim.New(sim.Options{Seed: run.seed, Decks: 1, BootID: run.bootID})
		if err != nil {
			t.Fatal(err)
		}
		for _, tok := range vs.Tokens() {
			if tok.Kind == tableau.TokCard {
				dealt = append(dealt, tok.Card.String())
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		err = vs.Run(ctx, sim.NewPTY(link))
		cancel()
		if err != nil {
			t.Fatalf("run %d: %v (%+v)", i+1, err, vs.Stats())
		}
	}
	var cards []string
	sequence := 0
	if err := m.d.journal.Replay(1, func(rec journal.Record) error {
		var in tableau.Input
		if err := json.Unmarshal(rec.Data, &in); err != nil {
			return err
		}
		switch {
		case in.Kind == tableau.InputCard:
			cards = append(cards, in.Card.String())
		case in.Kind == tableau.InputAlarm && in.Code == string(baccarat.AlertShoeSequence):
			sequence++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cards, dealt) {
		t.Fatalf("journaled %d cards, the four runs dealt %d", len(cards), len(dealt))
	}
	if sequence != 1 {
		t.Fatalf("%d shoe-sequence alarms journaled, want 1 (the fourth run)", sequence)
	}
	waitFor(t, "the shoe-sequence alert published", 10*time.Second, func() bool {
		for _, e := range r.events() {
			if e["code"] == string(baccarat.AlertShoeSequence) {
				return true
			}
		}
		return false
	})
}
