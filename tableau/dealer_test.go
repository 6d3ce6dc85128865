package tableau_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// dealerShoe is a marker-mode shoe with three dealers: D1042 deals coup 1
// (banker 7 over player 6) and draws a surplus 7C (extra-card), ANNA.B-7
// signs in (signing D1042 out) and deals coup 2 (player natural 9 over
// banker 5), then signs out: coup 3 (banker natural 9) has no dealer and
// the void of coup 4 has none either; 7 signs in (an id may look like a
// card) and the shoe ends in its coup 5 left incomplete.
const dealerShoe = `shoe dealer D1042 2H 3C 4D |
5S 5H AC 2D 7C |
dealer ANNA.B-7
9S 2H KC 3D |
dealer -
KS 9D QS QD |
8S 8H void |
dealer 7 6C`

// brief lists the coups, alerts and voids of evs as "kind coup dealer".
func dealerBrief(evs []tableau.Event) string {
	var b []string
	for _, e := range evs {
		switch e.Kind {
		case baccarat.EventCoup:
			b = append(b, fmt.Sprintf("coup%d:%s:%s", e.Coup.Coup, e.Coup.Winner, e.Coup.Dealer))
		case baccarat.EventAlert:
			b = append(b, fmt.Sprintf("%s%d:%s", e.Alert.Code, e.Alert.Coup, e.Alert.Dealer))
		case baccarat.EventVoid:
			b = append(b, fmt.Sprintf("void%d:%s", e.Void.Coup, e.Void.Dealer))
		}
	}
	return strings.Join(b, " ")
}

const dealerWant = "coup1:banker:D1042 extra-card1:D1042 coup2:player:ANNA.B-7 coup3:banker: void4: incomplete-coup5:7"

// TestDealerTranscript: `sabot check`'s fold attributes every coup, alert
// and void to the dealer signed in, through sign-in, a sign-in that signs
// the previous dealer out, an explicit sign-out and the end of input; the
// JSON lines carry "dealer" (omitted with no dealer) and AppendJSON agrees
// with json.Marshal; the transcript formats back to the same tokens.
func TestDealerTranscript(t *testing.T) {
	toks, err := tableau.ParseTranscript(strings.NewReader(dealerShoe), "d.txt")
	if err != nil {
		t.Fatal(err)
	}
	evs, err := tableau.FoldTokens(tableau.Options{Markers: true}, toks)
	if err != nil {
		t.Fatal(err)
	}
	if got := dealerBrief(evs); got != dealerWant {
		t.Fatalf("events\n got %s\nwant %s", got, dealerWant)
	}
	for _, e := range evs {
		fast, err := e.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		slow, _ := json.Marshal(e)
		if string(fast) != string(slow) {
			t.Fatalf("AppendJSON %s\n json.Marshal %s", fast, slow)
		}
	}
	adv := tableau.Event{Kind: baccarat.EventAlert, Alert: tableau.AlertEvent{Type: baccarat.EventAlert, Shoe: 1, Coup: 3,
		Code: baccarat.AlertAdvantage, AdvantageBet: &odds.AdvantageBet{Bet: "tie", EV: 0.0125}, Dealer: "D1"}}
	fast, _ := adv.AppendJSON(nil)
	slow, _ := json.Marshal(adv)
	if string(fast) != string(slow) || !strings.HasSuffix(string(fast), `"ev":0.0125,"dealer":"D1"}`) {
		t.Fatalf("advantage alert: AppendJSON %s, json.Marshal %s", fast, slow)
	}
	line, _ := evs[0].AppendJSON(nil)
	if !strings.HasSuffix(string(line), `,"dealer":"D1042"}`) {
		t.Fatalf("coup line %s", line)
	}
	line, _ = evs[3].AppendJSON(nil)
	if strings.Contains(string(line), "dealer") {
		t.Fatalf("coup without a dealer: %s", line)
	}
	var b strings.Builder
	if err := tableau.FormatTranscript(&b, toks); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dealer D1042", "dealer ANNA.B-7", "dealer -", "dealer 7"} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("formatted transcript lacks %q:\n%s", want, b.String())
		}
	}
	again, err := tableau.ParseTranscript(strings.NewReader(b.String()), "formatted")
	if err != nil || len(again) != len(toks) {
		t.Fatalf("re-parse: %d tokens, %v", len(again), err)
	}
	for i := range toks {
		if again[i].Kind != toks[i].Kind || again[i].Dealer != toks[i].Dealer || again[i].Card != toks[i].Card {
			t.Fatalf("token %d: %v, want %v", i, again[i], toks[i])
		}
	}
	// QuickScan reads "dealer ID" too: the id is not a card ("dealer 7"),
	// and a bad or missing id is left to the Lexer to explain.
	sum, ok, err := tableau.QuickScan(strings.NewReader(dealerShoe))
	if !ok || err != nil || sum.Cards != 19 || sum.Markers != 5 || sum.Bytes != len(dealerShoe) {
		t.Fatalf("QuickScan of the dealer shoe: %+v %v %v", sum, ok, err)
	}
	for _, bad := range []string{"9S dealer", "dealer D!1 9S", "dealer -x", "dealer " + strings.Repeat("a", 33)} {
		if _, ok, err := tableau.QuickScan(strings.NewReader(bad)); ok || err != nil {
			t.Fatalf("QuickScan accepted %q (%v)", bad, err)
		}
	}
}

// TestDealerTokenErrors: a bad dealer id is a *ParseError naming the
// id's line and column, wrapping ErrDealerID and ErrSyntax.
func TestDealerTokenErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"AS dealer\n  D!42 9S", `f.txt:2:3: bad dealer id "D!42": byte 2 is '!' (want letters, digits, '.', '_', '-')`},
		{"dealer -x", `f.txt:1:8: bad dealer id "-x": starts with '-' (want a letter or digit)`},
		{"dealer " + strings.Repeat("A", 33), `f.txt:1:8: bad dealer id "AAAAAAAAAAAAAAAA": 33 bytes, longer than 32`},
		{"9S\ndealer", `f.txt:2:1: "dealer" needs an id (or - to sign out)`},
		{"dealer # comment\n", `f.txt:1:1: "dealer" needs an id (or - to sign out)`},
		{"dealer Dé", `f.txt:1:8: bad dealer id "Dé": byte 2 is 0xc3 (want letters, digits, '.', '_', '-')`},
	} {
		_, err := tableau.ParseTranscript(strings.NewReader(c.in), "f.txt")
		var pe *tableau.ParseError
		if !errors.As(err, &pe) || !errors.Is(err, tableau.ErrDealerID) || !errors.Is(err, tableau.ErrSyntax) {
			t.Errorf("%q: %v is not a dealer-id ParseError", c.in, err)
			continue
		}
		if got := pe.Located(); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	for _, ok := range []string{"D1042", "7", "a", "x.y_z-1", strings.Repeat("9", 32), "0123456789abcdef0123456789ABCDEF"} {
		if err := tableau.ValidateDealerID(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// applyTranscript applies a transcript's tokens to tb as inputs, input i
// (from 1 after seq) at times[i] or, past the slice, one second after the
// last time.
func applyTranscript(t *testing.T, tb *tableau.Table, src string, seq *uint64, at *time.Time) []tableau.Output {
	t.Helper()
	toks, err := tableau.ParseTranscript(strings.NewReader(src), "script")
	if err != nil {
		t.Fatal(err)
	}
	var out []tableau.Output
	for _, tok := range toks {
		*seq++
		*at = at.Add(time.Second)
		out = tb.Apply(*seq, *at, tableau.TokenInput(tok), out)
	}
	return out
}

func outputBrief(outs []tableau.Output) string {
	var evs []tableau.Event
	for _, o := range outs {
		switch o.Kind {
		case tableau.OutputCoup, tableau.OutputAlert, tableau.OutputVoid:
			evs = append(evs, o.Event)
		}
	}
	return dealerBrief(evs)
}

// TestDealerTable: the daemon's Table attributes exactly as `sabot check`
// does, raises its own alerts with the dealer too, counts per dealer for
// the shift, and a table restored from a snapshot, or rebuilt by replaying
// the journal's inputs, carries on with the same dealer and counts.
func TestDealerTable(t *testing.T) {
	cfg := tableau.TableConfig{Table: "T1", Fold: tableau.Options{Markers: true}}
	tb, err := tableau.NewTable(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var seq uint64
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	outs := applyTranscript(t, tb, dealerShoe, &seq, &at)
	// The Table's own incomplete-coup comes at the next shoe, not at the
	// end of input: close the shoe. And an unreadable card: a daemon alert.
	seq++
	at = at.Add(time.Second)
	outs = tb.Apply(seq, at, tableau.Input{Kind: tableau.InputUnreadable}, outs)
	seq++
	outs = tb.Apply(seq, at, tableau.Input{Kind: tableau.InputShoe}, outs)
	want := "coup1:banker:D1042 extra-card1:D1042 coup2:player:ANNA.B-7 coup3:banker: void4: unreadable-card5:7 incomplete-coup5:7"
	if got := outputBrief(outs); got != want {
		t.Fatalf("outputs\n got %s\nwant %s", got, want)
	}
	v := tb.View()
	if v.Dealer != "7" {
		t.Fatalf("dealer %q after the new shoe, want 7 (a dealer stays across shoes)", v.Dealer)
	}
	wantShift := `{"start":"2026-12-01T00:00:00Z","dealers":[` +
		`{"dealer":"D1042","coups":1,"voids":0,"alerts":{"extra-card":1}},` +
		`{"dealer":"ANNA.B-7","coups":1,"voids":0,"alerts":{}},` +
		`{"dealer":"7","coups":0,"voids":0,"alerts":{"incomplete-coup":1,"unreadable-card":1}}]}`
	if b, _ := json.Marshal(v.Shift); string(b) != wantShift {
		t.Fatalf("shift\n got %s\nwant %s", b, wantShift)
	}

	// Restart: from a snapshot, and by replaying every input.
	snap, err := tb.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	restored, err := tableau.RestoreTable(cfg, snap)
	if err != nil {
		t.Fatal(err)
	}
	replayed, _ := tableau.NewTable(cfg)
	rseq := uint64(0)
	rat := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	applyTranscript(t, replayed, dealerShoe, &rseq, &rat)
	rseq++
	rat = rat.Add(time.Second)
	replayed.Apply(rseq, rat, tableau.Input{Kind: tableau.InputUnreadable}, nil)
	rseq++
	replayed.Apply(rseq, rat, tableau.Input{Kind: tableau.InputShoe}, nil)
	next := "2H 3C 4D | 5S 5H AC 2D |"
	a0, b0, c0 := seq, seq, seq
	ta, tb2, tc := at, at, at
	oa := applyTranscript(t, tb, next, &a0, &ta)
	ob := applyTranscript(t, restored, next, &b0, &tb2)
	oc := applyTranscript(t, replayed, next, &c0, &tc)
	if outputBrief(oa) != "coup1:banker:7" || outputBrief(ob) != outputBrief(oa) || outputBrief(oc) != outputBrief(oa) {
		t.Fatalf("after restart: live %s, snapshot %s, replay %s", outputBrief(oa), outputBrief(ob), outputBrief(oc))
	}
	va, _ := json.Marshal(tb.View())
	vb, _ := json.Marshal(restored.View())
	vc, _ := json.Marshal(replayed.View())
	if string(va) != string(vb) || string(va) != string(vc) {
		t.Fatalf("views differ after restart:\n live %s\n snap %s\n replay %s", va, vb, vc)
	}
	// An invalid id (a hand-edited journal) changes nothing.
	seq++
	tb.Apply(seq, at, tableau.Input{Kind: tableau.InputDealer, Dealer: "no spaces"}, nil)
	if tb.View().Dealer != "7" {
		t.Fatalf("an invalid id signed in: %q", tb.View().Dealer)
	}
}

// TestDealerShift: the shift boundary, from the injected input times: the
// counts restart at each configured local start (Europe/Paris, across the
// autumn clock change), the dealer at the table carries on into the new
// shift, a clock that goes back does not reopen the old shift, and past
// MaxShiftDealers dealers the counts are summed in Others.
func TestDealerShift(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no time zone database:", err) // tzdata is in Go's distribution; never in practice
	}
	sched := tableau.ShiftSchedule{Starts: []int{6 * 60, 14 * 60, 22 * 60}, Location: paris}
	for _, c := range []struct{ at, want string }{
		{"2026-10-24T13:59:59+02:00", "2026-10-24T06:00:00+02:00"},
		{"2026-10-24T14:00:00+02:00", "2026-10-24T14:00:00+02:00"},
		{"2026-10-25T05:00:00+01:00", "2026-10-24T22:00:00+02:00"}, // the clocks went back at 03:00
		{"2026-10-25T06:00:00+01:00", "2026-10-25T06:00:00+01:00"},
		{"2026-10-25T00:30:00+02:00", "2026-10-24T22:00:00+02:00"},
	} {
		at, _ := time.Parse(time.RFC3339, c.at)
		if got := sched.Start(at).Format(time.RFC3339); got != c.want {
			t.Errorf("Start(%s) = %s, want %s", c.at, got, c.want)
		}
	}
	for _, bad := range []tableau.ShiftSchedule{{Starts: []int{600, 600}}, {Starts: []int{-1}}, {Starts: []int{1440}}, {Starts: []int{900, 300}}} {
		if err := bad.Validate(); !errors.Is(err, tableau.ErrShifts) {
			t.Errorf("%v: %v", bad.Starts, err)
		}
		if _, err := tableau.NewTable(tableau.TableConfig{Shifts: bad}); !errors.Is(err, tableau.ErrShifts) {
			t.Errorf("NewTable %v: %v", bad.Starts, err)
		}
	}

	cfg := tableau.TableConfig{Table: "T1", Fold: tableau.Options{Markers: true}, Shifts: sched}
	tb, _ := tableau.NewTable(cfg)
	var seq uint64
	at := time.Date(2026, 12, 1, 13, 58, 0, 0, paris) // 2 minutes before the 14:00 shift
	applyTranscript(t, tb, "dealer D1 2H 3C 4D | 5S 5H AC 2D |", &seq, &at)
	if s := tb.View().Shift; s.Start.Format(time.RFC3339) != "2026-12-01T05:00:00Z" || len(s.Dealers) != 1 || s.Dealers[0].Coups != 1 {
		t.Fatalf("morning shift %+v", s)
	}
	at = time.Date(2026, 12, 1, 14, 0, 0, 0, paris).Add(-time.Second)
	applyTranscript(t, tb, "9S 2H KC 3D |", &seq, &at) // coup 2 straddles 14:00: its cards from 14:00:00
	s := tb.View().Shift
	if s.Start.Format(time.RFC3339) != "2026-12-01T13:00:00Z" || len(s.Dealers) != 1 || s.Dealers[0].Dealer != "D1" || s.Dealers[0].Coups != 1 {
		t.Fatalf("afternoon shift %+v", s)
	}
	// The clock goes back an hour: still the afternoon shift.
	at = at.Add(-time.Hour)
	applyTranscript(t, tb, "KS 9D QS QD |", &seq, &at)
	if s := tb.View().Shift; s.Start.Format(time.RFC3339) != "2026-12-01T13:00:00Z" || s.Dealers[0].Coups != 2 {
		t.Fatalf("after the clock went back %+v", s)
	}
	// More dealers than the bound: the extra ones are summed in Others.
	var src strings.Builder
	for i := range tableau.MaxShiftDealers + 3 {
		fmt.Fprintf(&src, "dealer X%d 9S 2H KC 3D |\n", i)
	}
	applyTranscript(t, tb, src.String(), &seq, &at)
	s = tb.View().Shift
	if len(s.Dealers) != tableau.MaxShiftDealers || s.Others.Coups != 4 || s.Others.Dealer != "" {
		t.Fatalf("%d dealers, others %+v (want %d and 4 coups: X11, X12, X13, X14)", len(s.Dealers), s.Others, tableau.MaxShiftDealers)
	}
	total := s.Others.Coups
	for _, d := range s.Dealers {
		total += d.Coups
	}
	if total != 2+tableau.MaxShiftDealers+3 {
		t.Fatalf("shift total %d coups", total)
	}
	// The snapshot keeps the Others sum.
	snap, _ := tb.Snapshot()
	r, err := tableau.RestoreTable(cfg, snap)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(tb.View())
	b, _ := json.Marshal(r.View())
	if string(a) != string(b) {
		t.Fatalf("restored view differs:\n%s\n%s", a, b)
	}
}

// TestDealerRecall: game recall names the dealer of each coup (the one its
// result or void is attributed to).
func TestDealerRecall(t *testing.T) {
	tb, _ := tableau.NewTable(tableau.TableConfig{Table: "T1", Fold: tableau.Options{Markers: true}})
	var seq uint64
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	rec := tableau.NewRecall(10)
	rec.Add(applyTranscript(t, tb, dealerShoe, &seq, &at))
	var got []string
	for _, c := range rec.Last(10) {
		got = append(got, fmt.Sprintf("%d:%s:%s", c.Coup, c.Result, c.Dealer))
	}
	if g := strings.Join(got, " "); g != "1:banker:D1042 2:player:ANNA.B-7 3:banker: 4:void: 5::" {
		t.Fatalf("recall %s", g)
	}
	if txt := tableau.RecallText(rec.Last(10)[:1]); !strings.Contains(txt, "coup 1: banker, player 6, banker 7, dealer D1042\n") {
		t.Fatalf("recall text %q", txt)
	}
}

// BenchmarkFoldShoeDealers folds the clean 8-deck shoe with a dealer
// change every 10 coups, for comparison with BenchmarkFoldShoe (no
// dealer): the cost of stamping the dealer on every event.
//
//	go test -run '^$' -bench 'FoldShoe' -benchmem ./tableau/
func BenchmarkFoldShoeDealers(b *testing.B) {
	src, err := os.ReadFile("testdata/clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	plain, err := tableau.ParseTranscript(bytes.NewReader(src), "clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	var toks []tableau.Token
	coups := 0
	for _, tk := range plain {
		toks = append(toks, tk)
		if tk.Kind == tableau.TokMarker {
			if coups%10 == 0 {
				toks = append(toks, tableau.Token{Kind: tableau.TokDealer, Dealer: fmt.Sprintf("D%d", coups/10)})
			}
			coups++
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tableau.FoldTokens(tableau.Options{Markers: true}, toks); err != nil {
			b.Fatal(err)
		}
	}
}
