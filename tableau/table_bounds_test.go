package tableau_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
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
		if len(outs) != 1 || outs[0].Kind != tableau.OutputAlert || outs[0].Event.Alert.Code != baccarat.AlertUnreadableCard {
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
	if len(l) != 1 || l[0].Count != n || l[0].ID != first || l[0].LastID != last || l[0].Code != baccarat.AlertUnreadableCard {
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
		a.Ack.Code != baccarat.AlertUnreadableCard || a.ID != first+"/ack" || a.Ack.Operator != "pit boss" {
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
		code  baccarat.AlertCode
		count int
	}{{baccarat.AlertExtraCard, 3}, {baccarat.AlertUnreadableCard, 2}, {baccarat.AlertShoeOffline, 1}}
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

// deckCard is card i of an endless cycle through one 52-card deck, in an
// order that mixes values (rank steps by 5, suits round).
func deckCard(i int) tableau.Card {
	return tableau.Card{Rank: card.RankAce + tableau.Rank((i*5)%13), Suit: card.Spades + tableau.Suit((i/13)%4)}
}

// A shoe that never ends: shoe-overrun is raised once, on the card that
// takes the shoe past 52 × decks + OverrunCards, and the table carries on;
// a new shoe may raise it again.
func TestShoeOverrun(t *testing.T) {
	r := newTableRun(t, tableau.TableConfig{Fold: tableau.Options{Decks: 1}, OverrunCards: 5})
	var at []int
	cards := 0
	feed := func(n int) {
		for range n {
			outs := r.apply(tableau.Input{Kind: tableau.InputCard, Card: deckCard(cards)})
			cards++
			for _, o := range outs {
				if o.Kind == tableau.OutputAlert && o.Event.Alert.Code == baccarat.AlertShoeOverrun {
					at = append(at, cards)
					if !o.Alert.AwaitsAck || o.Alert.Severity != baccarat.SeverityWarning || !strings.Contains(o.Alert.Text, "58 cards drawn") {
						t.Errorf("overrun alert %+v", o.Alert)
					}
				}
			}
		}
	}
	feed(57)
	if len(at) != 0 {
		t.Fatalf("overrun after %v cards, before 58", at)
	}
	feed(1)
	if len(at) != 1 || at[0] != 58 {
		t.Fatalf("overrun at %v, want [58]", at)
	}
	feed(1000)
	if len(at) != 1 {
		t.Fatalf("overrun raised %d times in one shoe", len(at))
	}
	v := r.tb.View()
	if v.CardsDrawn != 1058 || v.Phase != "coup" && v.Phase != "between" {
		t.Fatalf("table stopped: %+v", v)
	}
	r.apply(tableau.Input{Kind: tableau.InputShoe})
	cards = 0
	feed(58)
	if len(at) != 2 || at[1] != 58 {
		t.Fatalf("second shoe: overrun at %v", at)
	}
	// The default, and a bad value.
	tb, err := tableau.NewTable(tableau.TableConfig{})
	if err != nil || tb.Config().OverrunCards != tableau.DefaultOverrunCards || tableau.DefaultOverrunCards != 52 {
		t.Fatalf("default overrun %v %v", tb.Config().OverrunCards, err)
	}
	if _, err := tableau.NewTable(tableau.TableConfig{OverrunCards: -1}); !errors.Is(err, tableau.ErrOverrunCards) {
		t.Fatalf("overrun -1: %v", err)
	}
}

// Within a shoe that never ends, every per-shoe structure stays within its
// cap: results, UIDs, output counters; and ids stay unique.
func TestNeverEndingShoeBounded(t *testing.T) {
	r := newTableRun(t, tableau.TableConfig{Fold: tableau.Options{Decks: 8}})
	seen := map[string]bool{}
	coups, results := 0, 0
	var last baccarat.CoupEvent
	var all tableau.ResultsSummary // every coup of the shoe
	for i := range 20_000 {
		outs := r.apply(tableau.Input{Kind: tableau.InputCard, Card: deckCard(i), UID: fmt.Sprintf("uid-%d", i)})
		for _, o := range outs {
			if o.Kind == tableau.OutputGate {
				continue
			}
			if seen[o.ID] {
				t.Fatalf("card %d: id %s twice", i, o.ID)
			}
			seen[o.ID] = true
			if o.Kind == tableau.OutputCoup {
				coups++
				last = o.Event.Coup
				c := o.Event.Coup
				all.Add(tableau.CoupResult{Coup: c.Coup, Winner: c.Winner, Natural: c.Natural, PlayerPair: c.PlayerPair, BankerPair: c.BankerPair})
			}
		}
		r.out = r.out[:0]
	}
	v := r.tb.View()
	results = len(v.Results)
	if coups <= tableau.MaxShoeResults || results != tableau.MaxShoeResults || v.ResultsDropped.Coups != coups-results {
		t.Fatalf("%d coups: view holds %d results, %d dropped", coups, results, v.ResultsDropped.Coups)
	}
	// The summary of the dropped results and the kept ones add up to the
	// statistics of every coup of the shoe.
	sum := v.ResultsDropped
	for _, r := range v.Results {
		sum.Add(r)
	}
	if sum != all {
		t.Fatalf("dropped + kept = %+v, every coup %+v", sum, all)
	}
	if got := v.Results[len(v.Results)-1]; got.Coup != last.Coup || got.Winner != last.Winner {
		t.Fatalf("newest result %+v, last coup %+v", got, last)
	}
	if n := tableau.TableUIDs(r.tb); n != tableau.MaxShoeUIDs {
		t.Fatalf("%d UIDs remembered, cap %d", n, tableau.MaxShoeUIDs)
	}
	if n := tableau.TableCounters(r.tb); n > 16 {
		t.Fatalf("%d output counters", n)
	}
	if v.CardsDrawn != 20_000 || v.Shoe != 1 {
		t.Fatalf("view %d cards shoe %d", v.CardsDrawn, v.Shoe)
	}
}

// Composition counts saturate instead of wrapping round in a shoe that
// never ends: every ace of spades past the eighth is impossible.
func TestCompositionSaturates(t *testing.T) {
	c, _ := baccarat.NewComposition(8)
	as := tableau.Card{Rank: card.RankAce, Suit: card.Spades}
	for i := range 70_000 {
		if ok := c.Draw(as); ok != (i < 8) {
			t.Fatalf("draw %d: ok %v", i+1, ok)
		}
	}
	if c.RemainingRank(card.RankAce) >= 0 || c.RemainingCard(card.RankAce, card.Spades) >= 0 || c.Drawn() != 70_000 {
		t.Fatalf("after 70000 aces: rank %d card %d drawn %d", c.RemainingRank(card.RankAce), c.RemainingCard(card.RankAce, card.Spades), c.Drawn())
	}
}

// A snapshot in a shoe that never ends (overrun raised, results dropped)
// restores a table that goes on exactly as the original.
func TestSnapshotNeverEndingShoe(t *testing.T) {
	cfg := tableau.TableConfig{Table: "T1", Fold: tableau.Options{Decks: 1}, OverrunCards: 1}
	a := newTableRun(t, cfg)
	in := func(i int) tableau.Input {
		return tableau.Input{Kind: tableau.InputCard, Card: deckCard(i), UID: fmt.Sprintf("u%d", i%700)}
	}
	for i := range 1500 {
		a.apply(in(i))
	}
	v := a.tb.View()
	if v.ResultsDropped.Coups == 0 || len(a.tb.Latched()) == 0 {
		t.Fatalf("not a never-ending shoe yet: %d dropped", v.ResultsDropped.Coups)
	}
	snap, err := a.tb.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	rb, err := tableau.RestoreTable(cfg, snap)
	if err != nil {
		t.Fatal(err)
	}
	b := &tableRun{tb: rb, seq: a.seq}
	a.out, b.out = a.out[:0], nil
	for i := 1500; i < 1600; i++ {
		oa, ob := a.apply(in(i)), b.apply(in(i))
		if fmt.Sprintf("%+v", oa) != fmt.Sprintf("%+v", ob) {
			t.Fatalf("card %d: outputs differ after restore:\n%+v\n%+v", i, oa, ob)
		}
	}
	if fmt.Sprintf("%+v", a.tb.View()) != fmt.Sprintf("%+v", b.tb.View()) {
		t.Fatal("views differ after restore")
	}
	if len(snap) > 64<<10 {
		t.Errorf("snapshot of a never-ending shoe is %d bytes", len(snap))
	}
	t.Logf("snapshot %d bytes", len(snap))
}

// Text and UIDs from outside are bounded: an alarm's text is cut at
// MaxAlertTextBytes on a UTF-8 boundary; a UID past MaxUIDBytes is not
// remembered.
func TestOutsideTextBounded(t *testing.T) {
	r := newTableRun(t, tableau.TableConfig{})
	outs := r.apply(tableau.Input{Kind: tableau.InputAlarm, Code: "E1", Text: strings.Repeat("é", 5000)})
	if len(outs) != 1 || len(outs[0].Alert.Text) > tableau.MaxAlertTextBytes || len(outs[0].Alert.Text) < tableau.MaxAlertTextBytes-1 ||
		!utf8.ValidString(outs[0].Alert.Text) || len(r.tb.Latched()[0].Text) != len(outs[0].Alert.Text) {
		t.Fatalf("alarm text of %d bytes", len(outs[0].Alert.Text))
	}
	long := strings.Repeat("u", tableau.MaxUIDBytes+1)
	r.apply(tableau.Input{Kind: tableau.InputCard, Card: deckCard(0), UID: long})
	outs = r.apply(tableau.Input{Kind: tableau.InputCard, Card: deckCard(1), UID: long})
	if n := tableau.TableUIDs(r.tb); n != 0 || strings.Contains(brief(outs), "duplicate") || outs[0].Card.UID != long {
		t.Fatalf("%d UIDs remembered, outputs %s", n, brief(outs))
	}
	ok := strings.Repeat("u", tableau.MaxUIDBytes)
	r.apply(tableau.Input{Kind: tableau.InputCard, Card: deckCard(2), UID: ok})
	if outs = r.apply(tableau.Input{Kind: tableau.InputCard, Card: deckCard(3), UID: ok}); !strings.Contains(brief(outs), "alert:duplicate-card") {
		t.Fatalf("duplicate of a %d-byte UID not reported: %s", len(ok), brief(outs))
	}
}

// BenchmarkTableLatchedAlert: an unreadable card while alerts of several
// codes are latched (coalescing is a scan of at most MaxLatched entries).
func BenchmarkTableLatchedAlert(b *testing.B) {
	tb, _ := tableau.NewTable(tableau.TableConfig{Table: "T"})
	var out []tableau.Output
	var seq uint64
	for _, k := range []tableau.InputKind{tableau.InputOffline, tableau.InputBacklog, tableau.InputAlarm} {
		seq++
		out = tb.Apply(seq, t0, tableau.Input{Kind: k}, out[:0])
	}
	b.ReportAllocs()
	for b.Loop() {
		seq++
		out = tb.Apply(seq, t0, tableau.Input{Kind: tableau.InputUnreadable}, out[:0])
	}
	if l := tb.Latched(); len(l) != 4 {
		b.Fatalf("%d latched entries", len(l))
	}
}
