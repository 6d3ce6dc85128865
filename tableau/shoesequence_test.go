package tableau_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// The shoe driver reports a sequence restarted under a known boot id as an
// alarm with code "shoe-sequence" (drivers/shoe.AlarmSequence): the table
// raises the shoe-sequence alert (its own E number), not a generic
// shoe-alarm.
func TestTableShoeSequenceAlarm(t *testing.T) {
	tb, err := tableau.NewTable(tableau.TableConfig{Table: "T", Fold: tableau.Options{Markers: true}})
	if err != nil {
		t.Fatal(err)
	}
	in := tableau.Input{Kind: tableau.InputAlarm, Source: "shoe", Code: string(baccarat.AlertShoeSequence),
		Text: "the shoe's event sequence restarted under boot id 0x5ab07001"}
	outs := tb.Apply(1, time.Unix(1000, 0), in, nil)
	var got []baccarat.AlertCode
	for _, o := range outs {
		if o.Kind == tableau.OutputAlert {
			got = append(got, o.Event.Alert.Code)
			if o.Alert.Text != in.Text {
				t.Errorf("alert text %q, want the driver's %q", o.Alert.Text, in.Text)
			}
		}
	}
	if len(got) != 1 || got[0] != baccarat.AlertShoeSequence {
		t.Fatalf("alerts %v, want [shoe-sequence]", got)
	}
	// Any other alarm code is the shoe's own fault report.
	outs = tb.Apply(2, time.Unix(1001, 0), tableau.Input{Kind: tableau.InputAlarm, Source: "shoe", Code: "7", Text: "jam"}, nil)
	if len(outs) == 0 || outs[0].Event.Alert.Code != baccarat.AlertShoeAlarm {
		t.Fatalf("alarm 7: %+v", outs)
	}
}

// The daemon journals InputJournalFailed once its journal can be written
// again: journal-failed (E16) latches until acknowledged, with the input's
// text.
func TestTableJournalFailedInput(t *testing.T) {
	tb, err := tableau.NewTable(tableau.TableConfig{Table: "T"})
	if err != nil {
		t.Fatal(err)
	}
	outs := tb.Apply(1, time.Unix(1000, 0), tableau.Input{Kind: tableau.InputJournalFailed, Source: "journal", Text: "for 7s: no space left on device"}, nil)
	if len(outs) != 1 || outs[0].Kind != tableau.OutputAlert || outs[0].Event.Alert.Code != baccarat.AlertJournalFailed ||
		!outs[0].Alert.AwaitsAck || !strings.HasSuffix(outs[0].Alert.Text, ": for 7s: no space left on device") {
		t.Fatalf("journal-failed outputs: %+v", outs)
	}
	if l := tb.Latched(); len(l) != 1 || l[0].Code != baccarat.AlertJournalFailed {
		t.Fatalf("latched: %+v", l)
	}
}

// The daemon journals InputSessionTakeover when its MQTT publisher sees
// another daemon publishing as the table: session-takeover (E20, error)
// latches until acknowledged, with the input's text.
func TestTableSessionTakeoverInput(t *testing.T) {
	tb, err := tableau.NewTable(tableau.TableConfig{Table: "T"})
	if err != nil {
		t.Fatal(err)
	}
	outs := tb.Apply(1, time.Unix(1000, 0), tableau.Input{Kind: tableau.InputSessionTakeover, Source: "mqtt", Text: "instance 00ff"}, nil)
	if len(outs) != 1 || outs[0].Kind != tableau.OutputAlert || outs[0].Event.Alert.Code != baccarat.AlertSessionTakeover ||
		!outs[0].Alert.AwaitsAck || outs[0].Alert.Severity != baccarat.SeverityError ||
		outs[0].Alert.Text != "another daemon publishes as this table on the MQTT broker: instance 00ff" {
		t.Fatalf("session-takeover outputs: %+v", outs)
	}
	if l := tb.Latched(); len(l) != 1 || l[0].Code != baccarat.AlertSessionTakeover {
		t.Fatalf("latched: %+v", l)
	}
}
