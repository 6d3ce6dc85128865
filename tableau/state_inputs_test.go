package tableau_test

import (
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestClockJumpArchivePrunedInputs: the daemon's clock-jump and
// archive-pruned inputs raise their alerts through the table, with the
// input's text; clock-jump does not latch, archive-pruned does (until
// acknowledged).
func TestClockJumpArchivePrunedInputs(t *testing.T) {
	tb, err := tableau.NewTable(tableau.TableConfig{Table: "T"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	outs := tb.Apply(1, at, tableau.Input{Kind: tableau.InputClockJump, Text: "back by 3h0m0s"}, nil)
	if len(outs) != 1 || outs[0].Kind != tableau.OutputAlert || outs[0].Event.Alert.Code != baccarat.AlertClockJump ||
		outs[0].Alert.AwaitsAck || outs[0].Alert.Text != "the wall clock jumped (journal order and ids are not affected): back by 3h0m0s" {
		t.Fatalf("clock-jump outputs: %+v", outs)
	}
	outs = tb.Apply(2, at, tableau.Input{Kind: tableau.InputArchivePruned, Text: "removed journal-2026-01-01.gz"}, nil)
	if len(outs) != 1 || outs[0].Event.Alert.Code != baccarat.AlertArchivePruned || !outs[0].Alert.AwaitsAck {
		t.Fatalf("archive-pruned outputs: %+v", outs)
	}
	if l := tb.Latched(); len(l) != 1 || l[0].Code != baccarat.AlertArchivePruned {
		t.Fatalf("latched: %+v", l)
	}
}
