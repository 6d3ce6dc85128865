package tableau_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
	"github.com/sabot-table/sabot/tableau/odds"
)

// checkAppendJSON compares Event.AppendJSON with json.Marshal: the same
// bytes, or both an error (and dst unchanged).
func checkAppendJSON(t *testing.T, e tableau.Event) {
	t.Helper()
	want, werr := json.Marshal(e)
	prefix := []byte("x")
	got, gerr := e.AppendJSON(prefix)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%+v: json.Marshal error %v, AppendJSON error %v", e, werr, gerr)
	}
	if werr != nil {
		if string(got) != "x" {
			t.Fatalf("%+v: error %v but dst grew to %q", e, gerr, got)
		}
		return
	}
	if !bytes.Equal(got[1:], want) || got[0] != 'x' {
		t.Fatalf("AppendJSON:\n%s\njson.Marshal:\n%s", got[1:], want)
	}
}

// TestAppendJSONMatchesMarshal: every event of every sample transcript,
// folded under every rule profile, tie payout, marker mode and deck count
// (with and without the advantage check), encodes to json.Marshal's bytes.
func TestAppendJSONMatchesMarshal(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.shoe")
	more, _ := filepath.Glob("testdata/contract/*.shoe")
	ez, _ := filepath.Glob("../cmd/sabot/testdata/*.shoe")
	n := 0
	for _, p := range append(append(paths, more...), ez...) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		toks, err := tableau.ParseTranscript(bytes.NewReader(src), p)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range []baccarat.Game{baccarat.GamePuntoBanco, baccarat.GameSuper6, baccarat.GameEZ} {
			for _, tie := range []int{8, 9} {
				for _, markers := range []bool{false, true} {
					for _, decks := range []int{1, 8} {
						f, err := tableau.NewFold(tableau.Options{Decks: decks, Markers: markers, Rules: baccarat.Rules{Game: g, TiePays: tie}})
						if err != nil {
							t.Fatal(err)
						}
						var evs []tableau.Event
						for _, tk := range toks {
							if decks == 8 && g == baccarat.GameEZ {
								evs = f.FeedAdvantages(tk, 0, evs)
							} else {
								evs = f.Feed(tk, evs)
							}
						}
						for _, e := range f.End(evs) {
							checkAppendJSON(t, e)
							n++
						}
					}
				}
			}
		}
	}
	// (About 7,800: a 1-deck fold of an 8-deck sample raises composition
	// once when it passes its 52 cards, no longer on every card after.)
	if n < 7000 {
		t.Errorf("only %d events compared", n)
	}
}

// TestAppendJSONOddValues: hand-made events with values the fold never
// makes — invalid cards, kinds, winners and outcomes, -0, NaN, ±Inf, tiny
// and huge floats, strings JSON must escape — still give json.Marshal's
// bytes or its error.
func TestAppendJSONOddValues(t *testing.T) {
	floats := []float64{0, math.Copysign(0, -1), -1, 0.95, 1e-7, -1e-7, 1.5e-300, 1e21, 9.99e20, 123456789.125, 1e-6,
		math.NaN(), math.Inf(1), math.Inf(-1), 0.052133028520375914, 40, 0.1 + 0.2}
	codes := []baccarat.AlertCode{"extra-card", "", "a\"b", "<x>", "é", "a&b", "\x01", "back\\slash", "\u2028"}
	cards := []tableau.Card{{}, {Rank: card.RankAce, Suit: card.Spades}, {Rank: card.Rank10}, {Rank: 14}, {Rank: 1, Suit: 9}, {UID: "04A1"}}
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(n int) int { return rng.IntN(n) }
	payout := func() baccarat.Payout {
		if pick(3) == 0 {
			return baccarat.Payout{}
		}
		return baccarat.Payout{Outcome: baccarat.Outcome(pick(5)), Net: floats[pick(len(floats))]}
	}
	hand := func() baccarat.Hand {
		var h baccarat.Hand
		h.N = pick(5) - 1 // -1 to 3
		for i := range h.Cards {
			h.Cards[i] = cards[pick(len(cards))]
		}
		return h
	}
	for range 20000 {
		var e tableau.Event
		e.Kind = baccarat.EventKind(pick(5))
		switch e.Kind {
		case baccarat.EventCoup:
			c := &e.Coup
			c.Type = baccarat.EventKind(pick(4))
			if pick(4) > 0 {
				c.Type = baccarat.EventCoup
			}
			c.Shoe, c.Coup = pick(1000)-10, pick(100)
			c.Player, c.Banker = hand(), hand()
			if pick(2) == 0 {
				c.Player.N, c.Banker.N = 2, 3
				c.Player.Cards[0], c.Player.Cards[1] = cards[1], cards[2]
				c.Banker.Cards[0], c.Banker.Cards[1], c.Banker.Cards[2] = cards[2], cards[1], cards[1]
			}
			c.PlayerTotal, c.BankerTotal, c.Cards = pick(10), pick(10), pick(7)
			c.Winner = baccarat.Winner(pick(5))
			c.Natural, c.PlayerPair, c.BankerPair, c.Dragon7, c.Panda8, c.BankerWinsOn6 = pick(2) == 0, pick(2) == 0, pick(2) == 0, pick(2) == 0, pick(2) == 0, pick(2) == 0
			if pick(4) > 0 {
				s := &c.Settlement
				s.Player, s.Banker, s.Tie, s.PlayerPair, s.BankerPair, s.Dragon7, s.Panda8 = payout(), payout(), payout(), payout(), payout(), payout(), payout()
			}
		case baccarat.EventAlert:
			a := &e.Alert
			a.Type = baccarat.EventAlert
			if pick(5) == 0 {
				a.Type = baccarat.EventKind(pick(4))
			}
			a.Shoe, a.Coup, a.Code, a.Card = pick(9), pick(90), codes[pick(len(codes))], cards[pick(len(cards))]
			if pick(3) == 0 {
				a.AdvantageBet = &odds.AdvantageBet{Bet: string(codes[pick(len(codes))]), EV: floats[pick(len(floats))]}
			}
		case baccarat.EventVoid:
			e.Void = tableau.VoidEvent{Type: baccarat.EventKind(pick(4)), Shoe: pick(3), Coup: pick(3)}
		}
		checkAppendJSON(t, e)
	}
}

// TestAppendJSONAllocatesNothing: encoding a coup with its settlement into
// a reused buffer allocates nothing.
func TestAppendJSONAllocatesNothing(t *testing.T) {
	toks, _ := tableau.ParseTranscript(bytes.NewReader([]byte("shoe 2H 3C 4D | 3S 6H 2D JC 8H | 5C 5D |")), "")
	evs, _ := tableau.FoldTokens(tableau.Options{Markers: true}, toks)
	if len(evs) < 2 || evs[0].Kind != baccarat.EventCoup {
		t.Fatalf("%d events", len(evs))
	}
	buf := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() {
		for i := range evs {
			buf, _ = evs[i].AppendJSON(buf[:0])
		}
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}

// TestAppendJSONFloatsMatchMarshal: every value with at most two fraction
// digits up to ±300 (the payouts' fast path), values near it and random
// floats of every size encode as json.Marshal writes them.
func TestAppendJSONFloatsMatchMarshal(t *testing.T) {
	check := func(f float64) {
		t.Helper()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return // json.Marshal refuses them: TestAppendJSONOddValues
		}
		want, _ := json.Marshal(f)
		e := tableau.Event{Kind: baccarat.EventAlert, Alert: tableau.AlertEvent{Type: baccarat.EventAlert, Code: "advantage",
			AdvantageBet: &odds.AdvantageBet{Bet: "tie", EV: f}}}
		got, err := e.AppendJSON(nil)
		if err != nil || !bytes.HasSuffix(got, append(append([]byte(`"ev":`), want...), '}')) {
			t.Fatalf("%v (%b): %s, want ev %s", f, math.Float64bits(f), got, want)
		}
	}
	for k := -30000; k <= 30000; k++ {
		f := float64(k) / 100
		check(f)
		check(math.Nextafter(f, 1e300))
		check(math.Nextafter(f, -1e300))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50000 {
		check(math.Float64frombits(rng.Uint64()))
		check(float64(rng.Int64N(1<<53)) / 100)
		check(rng.NormFloat64() * 1e13)
	}
	check(math.Copysign(0, -1))
	check(0.1 + 0.2)
	check(1e14 - 0.01)
	check(99999999999999.99)
}

// BenchmarkAppendJSON encodes every event of the clean 8-deck shoe (84
// coups) into a reused buffer; MB/s is output bytes per second.
func BenchmarkAppendJSON(b *testing.B) {
	src, err := os.ReadFile("testdata/clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	toks, _ := tableau.ParseTranscript(bytes.NewReader(src), "")
	evs, _ := tableau.FoldTokens(tableau.Options{Markers: true}, toks)
	buf := make([]byte, 0, 64<<10)
	for i := range evs {
		buf, _ = evs[i].AppendJSON(buf)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for i := range evs {
			buf, _ = evs[i].AppendJSON(buf)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}

func TestCoupEventJSON(t *testing.T) {
	c := dealtest.DealAll(t, "7H 2D 3C KS 4H 4C")
	b, err := json.Marshal(c.Event(1, 12))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"coup","game":"punto-banco","shoe":1,"coup":12,"player":["7H","3C","4H"],"banker":["2D","KS","4C"],"player_total":4,"banker_total":6,"winner":"banker","natural":false,"player_pair":false,"banker_pair":false,"dragon7":false,"panda8":false,"banker_wins_on_6":true,"cards":6}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back tableau.Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Kind != baccarat.EventCoup || back.Coup.Player.String() != "7H 3C 4H" || back.Coup.Winner != baccarat.WinnerBanker || back.Coup.Coup != 12 {
		t.Errorf("round trip: %+v", back)
	}
}

func TestAlertEventJSON(t *testing.T) {
	for _, tc := range []struct {
		ev   tableau.AlertEvent
		want string
	}{
		{tableau.AlertEvent{Type: baccarat.EventAlert, Shoe: 1, Coup: 12, Code: baccarat.AlertExtraCard, Card: tableau.Card{Rank: card.Rank5, Suit: card.Clubs}},
			`{"type":"alert","shoe":1,"coup":12,"code":"extra-card","card":"5C"}`},
		{tableau.AlertEvent{Type: baccarat.EventAlert, Shoe: 2, Coup: 0, Code: baccarat.AlertBurnCount},
			`{"type":"alert","shoe":2,"coup":0,"code":"burn-count"}`},
		{tableau.AlertEvent{Type: baccarat.EventAlert, Shoe: 1, Coup: 3, Code: baccarat.AlertComposition, Card: tableau.Card{Rank: card.Rank7}},
			`{"type":"alert","shoe":1,"coup":3,"code":"composition","card":"7"}`},
	} {
		b, err := json.Marshal(tableau.Event{Kind: baccarat.EventAlert, Alert: tc.ev})
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("got  %s\nwant %s", b, tc.want)
		}
		var back tableau.Event
		if err := json.Unmarshal(b, &back); err != nil || back.Alert != tc.ev {
			t.Errorf("round trip %s: %+v %v", b, back.Alert, err)
		}
	}
	b, _ := json.Marshal(tableau.Event{Kind: baccarat.EventVoid, Void: tableau.VoidEvent{Type: baccarat.EventVoid, Shoe: 1, Coup: 12}})
	if string(b) != `{"type":"void","shoe":1,"coup":12}` {
		t.Errorf("void: %s", b)
	}
	if _, err := json.Marshal(tableau.Event{}); err == nil {
		t.Error("an event without a kind encodes")
	}
}
