package tableau

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// recallOf applies a transcript to a new table, one input a second from
// t0, and returns the recall of its outputs.
func recallOf(t *testing.T, transcript string, capacity int, t0 time.Time) *Recall {
	t.Helper()
	toks, err := ParseTranscript(strings.NewReader(transcript), "x")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := NewTable(TableConfig{Table: "T", Fold: Options{Decks: 8, Markers: true}})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRecall(capacity)
	var outs []Output
	for i, tok := range toks {
		outs = tb.Apply(uint64(i+1), t0.Add(time.Duration(i)*time.Second), TokenInput(tok), outs[:0])
		r.Add(outs)
	}
	return r
}

// TestRecallCoups: the contract transcript check-void.shoe recalled: coup
// 1 with its five cards (the fifth an extra card in no hand) at their
// times, totals 6–7, the extra-card alert and the void; coup 2 the
// natural tie with both pairs — as check-void.expected.jsonl says.
func TestRecallCoups(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.FixedZone("CET", 3600))
	r := recallOf(t, "shoe 2H 3C 4D | 5S 5H AC 2D 7C void | 9S 9H 9C 9D |", 10, t0)
	got := r.Last(100)
	if len(got) != 2 {
		t.Fatalf("%d coups: %+v", len(got), got)
	}
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second).UTC() }
	c1 := got[0]
	wantCards := []RecallCard{
		{mustCard(t, "5S"), baccarat.PositionPlayer, 1, at(5), 6}, {mustCard(t, "5H"), baccarat.PositionBanker, 1, at(6), 7},
		{mustCard(t, "AC"), baccarat.PositionPlayer, 2, at(7), 8}, {mustCard(t, "2D"), baccarat.PositionBanker, 2, at(8), 9},
	}
	if c1.Shoe != 1 || c1.Coup != 1 || len(c1.Cards) != 5 || !reflect.DeepEqual(c1.Cards[:4], wantCards) {
		t.Fatalf("coup 1 cards %+v", c1.Cards)
	}
	if x := c1.Cards[4]; x.Card != mustCard(t, "7C") || x.Position != baccarat.PositionNone || !x.Time.Equal(at(9)) || x.Seq != 10 {
		t.Fatalf("extra card %+v", x)
	}
	if c1.PlayerTotal != 6 || c1.BankerTotal != 7 || c1.Result != "void" || c1.Natural || len(c1.Alerts) != 1 ||
		c1.Alerts[0].Code != baccarat.AlertExtraCard || c1.Alerts[0].Card != mustCard(t, "7C") || !c1.Alerts[0].Time.Equal(at(9)) {
		t.Fatalf("coup 1 %+v", c1)
	}
	c2 := got[1]
	if c2.Coup != 2 || len(c2.Cards) != 4 || c2.Result != "tie" || !c2.Natural || !c2.PlayerPair || !c2.BankerPair ||
		c2.PlayerTotal != 8 || c2.BankerTotal != 8 || len(c2.Alerts) != 0 || !c2.Cards[3].Time.Equal(at(15)) || c2.ResultID == "" {
		t.Fatalf("coup 2 %+v", c2)
	}
	// Last(1) is the newest; JSON keeps everything.
	if one := r.Last(1); len(one) != 1 || one[0].Coup != 2 {
		t.Fatalf("Last(1) %+v", one)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	back := NewRecall(10)
	if err := json.Unmarshal(b, back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Last(100), got) {
		t.Fatalf("JSON round trip:\n got %+v\nwant %+v", back.Last(100), got)
	}
}

// TestRecallBounded: a recall keeps its capacity of coups, the newest;
// the capacity is clamped to MaxRecall; a coup still being dealt is
// recalled without a result.
func TestRecallBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("shoe 2H 3C 4D |")
	for range 10 {
		b.WriteString(" 9S 9H 9C 9D |")
	}
	b.WriteString(" 5S 5H")
	r := recallOf(t, b.String(), 3, time.Unix(0, 0))
	got := r.Last(1000)
	if len(got) != 3 || got[0].Coup != 9 || got[1].Coup != 10 || got[2].Coup != 11 || got[2].Result != "" || len(got[2].Cards) != 2 {
		t.Fatalf("kept %+v", got)
	}
	if r.Len() != 3 || NewRecall(MaxRecall+5).capacity != MaxRecall || NewRecall(0).capacity != 1 {
		t.Fatal("capacity not bounded")
	}
}

func mustCard(t *testing.T, s string) Card {
	t.Helper()
	c, err := ParseCard(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
