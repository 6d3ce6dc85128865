package tableau_test

import (
	"testing"

	"github.com/sabot-table/sabot/tableau"
)

// 100,000 unreadable cards latch one entry, and one acknowledgement
// acknowledges them all in one output.
func TestLatchedAlertsCoalesce(t *testing.T) {
	r := newTableRun(t, tableau.TableConfig{Fold: tableau.Options{Markers: true}})
	r.script(t, "2H 3C 4D |")
	const n = 100_000
	var first, last string
	for i := range n {
		outs := r.apply(tableau.Input{Kind: tableau.InputUnreadable})
		if len(outs) != 1 || outs[0].Kind != tableau.OutputAlert || outs[0].Event.Alert.Code != tableau.AlertUnreadableCard {
			t.Fatalf("unreadable %d: %+v", i, outs)
		}
		if i == 0 {
			first = outs[0].ID
		}
		last = outs[0].ID
		r.out = r.out[:0]
	}
	if first == last {
		t.Fatalf("alerts share id %s", first)
	}
	l := r.tb.Latched()
	if len(l) != 1 || l[0].Count != n || l[0].ID != first || l[0].LastID != last || l[0].Code != tableau.AlertUnreadableCard {
		t.Fatalf("latched: %d entries, first %+v", len(l), l[0])
	}
	v := r.tb.View()
	if len(v.Alerts) != 1 || v.AlertCount != n {
		t.Fatalf("view: %d alerts, count %d", len(v.Alerts), v.AlertCount)
	}
	outs := r.apply(tableau.Input{Kind: tableau.InputAck, Operator: "pit boss"})
	if len(outs) != 1 {
		t.Fatalf("ack gave %d outputs, want 1", len(outs))
	}
	a := outs[0]
	if a.Kind != tableau.OutputAck || a.Ack.AlertID != first || a.Ack.LastAlertID != last || a.Ack.Count != n ||
		a.Ack.Code != tableau.AlertUnreadableCard || a.ID != first+"/ack" || a.Ack.Operator != "pit boss" {
		t.Fatalf("ack output %+v", a)
	}
	if len(r.tb.Latched()) != 0 || r.tb.View().AlertCount != 0 {
		t.Fatal("still latched after the ack")
	}
}

// Alerts of several codes latch one entry per code, oldest first; an ack
// gives one output per code.
func TestLatchedAlertsPerCode(t *testing.T) {
	r := newTableRun(t, tableau.TableConfig{Fold: tableau.Options{Markers: true}})
	r.script(t, "2H 3C 4D | 5S 5H AC 2D 7C unread 8C off unread on 9C")
	l := r.tb.Latched()
	if len(l) != 3 {
		t.Fatalf("latched %+v", l)
	}
	want := []struct {
		code  tableau.AlertCode
		count int
	}{{tableau.AlertExtraCard, 3}, {tableau.AlertUnreadableCard, 2}, {tableau.AlertShoeOffline, 1}}
	for i, w := range want {
		if l[i].Code != w.code || l[i].Count != w.count {
			t.Errorf("entry %d: %+v, want %s ×%d", i, l[i], w.code, w.count)
		}
	}
	if l[0].Card.String() != "9C" || l[0].ID == l[0].LastID || l[2].ID != l[2].LastID {
		t.Errorf("entries %+v", l)
	}
	outs := r.script(t, "ack")
	if got := brief(outs); got != "ack:extra-card ack:unreadable-card ack:shoe-offline" {
		t.Fatalf("ack: %s", got)
	}
	for i, o := range outs {
		if o.Ack.Count != want[i].count || o.Ack.AlertID != l[i].ID || o.Ack.LastAlertID != l[i].LastID {
			t.Errorf("ack %d: %+v", i, o.Ack)
		}
	}
	// After the ack a new alert starts a new entry.
	r.script(t, "unread")
	if l2 := r.tb.Latched(); len(l2) != 1 || l2[0].Count != 1 || l2[0].ID == l[1].ID {
		t.Fatalf("after ack: %+v", l2)
	}
}
