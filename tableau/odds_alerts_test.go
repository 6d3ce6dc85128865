package tableau

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// refAdvantages lists, from the reference enumeration, the bets rules
// offers whose EV exceeds threshold on shoe rc, in alert order.
func refAdvantages(rc RankCounts, r Rules, threshold float64) []BetEV {
	o := referenceOdds(rc)
	t := float64(o.Sequences)
	b, p := float64(o.Banker), float64(o.Player)
	evs := map[Bet]float64{
		BetPlayer: (p - b) / t, BetTie: (float64(r.TiePayout()+1)*float64(o.Tie) - t) / t,
		BetPlayerPair: 12*float64(o.PlayerPair)/t - 1, BetBankerPair: 12*float64(o.BankerPair)/t - 1,
	}
	switch r.Game {
	case GamePuntoBanco:
		evs[BetBanker] = (0.95*b - p) / t
	case GameSuper6:
		evs[BetBanker] = (b - 0.5*float64(o.Super6) - p) / t
	case GameEZ:
		evs[BetBanker] = (b - float64(o.Dragon7) - p) / t
		evs[BetDragon7] = 41*float64(o.Dragon7)/t - 1
		evs[BetPanda8] = 26*float64(o.Panda8)/t - 1
	}
	var out []BetEV
	for _, bet := range []Bet{BetBanker, BetPlayer, BetTie, BetPlayerPair, BetBankerPair, BetDragon7, BetPanda8} {
		if ev, ok := evs[bet]; ok && ev > threshold {
			out = append(out, BetEV{bet, ev})
		}
	}
	return out
}

// A one-deck EZ transcript, one coup per line after the burn, whose early
// cards strip the 8s and 9s. Coup 4 repeats the AS: a composition alert on
// its first card, which must come after the advantage alerts.
var advantageShoe = []string{
	"3S 8S 8H 8D",       // burn
	"9S 9H 9D 2C",       // player 8 (natural)
	"AS 4H 2D 3C 7C",    // player 3 draws 7 (0); banker 7 stands
	"KS KH QD 5S 7S 6D", // player 0 draws 7; banker 5 draws on 7: 6D (1)
	"AS 2H 4S 5D 6S",    // player 5 draws 6 (1); banker 7 stands
}

func TestFeedAdvantages(t *testing.T) {
	src := "shoe " + strings.Join(advantageShoe, " |\n") + " |\n"
	toks, err := ParseTranscript(strings.NewReader(src), "adv.shoe")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Decks: 1, Rules: Rules{Game: GameEZ, TiePays: 8}, Markers: true}
	f, err := NewFold(opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []Event
	for _, tok := range toks {
		out = f.FeedAdvantages(tok, 0, out)
	}
	out = f.End(out)

	// Expected, per coup: the reference's advantages on one deck less
	// every card of the lines before it, then any other alert, then the coup.
	var want []string
	rc := FullShoe(1)
	for i, line := range advantageShoe {
		if i > 0 {
			for _, a := range refAdvantages(rc, opts.Rules, 0) {
				want = append(want, fmt.Sprintf("advantage shoe 1 coup %d %s %.12f", i, OddsKey(a.Bet), a.EV))
			}
			if i == 4 {
				want = append(want, `{"type":"alert","shoe":1,"coup":4,"code":"composition","card":"AS"}`)
			}
			want = append(want, "coup")
		}
		for _, w := range strings.Fields(line) {
			c, _ := ParseCard(w)
			rc[c.Rank-1] = max(rc[c.Rank-1]-1, 0)
		}
	}
	var got []string
	advantages := 0
	for _, e := range out {
		switch {
		case e.Kind == EventCoup:
			got = append(got, "coup")
		case e.Kind == EventAlert && e.Alert.Code == AlertAdvantage:
			a := e.Alert
			got = append(got, fmt.Sprintf("advantage shoe %d coup %d %s %.12f", a.Shoe, a.Coup, a.Bet, a.EV))
			advantages++
		case e.Kind == EventAlert:
			got = append(got, e.String())
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	if advantages < 3 {
		t.Errorf("only %d advantage alerts; the test shoe should favour Dragon 7 before coups 2–4", advantages)
	}
	// The JSON shape of the contract.
	var m map[string]any
	for _, e := range out {
		if e.Kind == EventAlert && e.Alert.Code == AlertAdvantage {
			if err := json.Unmarshal([]byte(e.String()), &m); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if m["type"] != "alert" || m["code"] != "advantage" || m["shoe"] != 1.0 || m["bet"] == nil || m["ev"] == nil {
		t.Errorf("advantage alert JSON %v", m)
	}
	// Round trip through Event's JSON keeps bet and ev.
	var back Event
	first := AdvantageAlert(1, 2, BetEV{BetDragon7, 0.25})
	if err := json.Unmarshal([]byte(first.String()), &back); err != nil || back.Alert.AdvantageBet == nil ||
		*back.Alert.AdvantageBet != (AdvantageBet{"dragon7", 0.25}) {
		t.Errorf("round trip: %+v, %v", back.Alert, err)
	}
	// Other alerts carry no bet or ev.
	if s := (Event{Kind: EventAlert, Alert: AlertEvent{Type: EventAlert, Shoe: 1, Coup: 2, Code: AlertExtraCard}}).String(); strings.Contains(s, "bet") || strings.Contains(s, "ev") {
		t.Errorf("extra-card alert %s", s)
	}
}

func TestFoldAdvantagesAndBest(t *testing.T) {
	f, err := NewFold(Options{Decks: 1, Rules: Rules{Game: GameEZ}})
	if err != nil {
		t.Fatal(err)
	}
	var out []Event
	for _, s := range strings.Fields("3S 8S 8H 8D 9S 9H 9D 2C") {
		c, _ := ParseCard(s)
		out = f.Card(c, out)
	}
	rc := FullShoe(1)
	for _, r := range []Rank{Rank3, Rank8, Rank8, Rank8, Rank9, Rank9, Rank9, Rank2} {
		rc[r-1]--
	}
	want := refAdvantages(rc, Rules{Game: GameEZ}, -0.05)
	got, err := f.Advantages(nil, -0.05)
	if err != nil || len(got) != len(want) {
		t.Fatalf("Fold.Advantages = %v, %v; want %v", got, err, want)
	}
	best := want[0]
	for i := range want {
		if got[i].Bet != want[i].Bet || math.Abs(got[i].EV-want[i].EV) > 1e-12 {
			t.Errorf("bet %d: %+v, want %+v", i, got[i], want[i])
		}
		if want[i].EV > best.EV {
			best = want[i]
		}
	}
	comp := f.Composition()
	bet, ev := BestAdvantage(&comp, Rules{Game: GameEZ})
	if bet != OddsKey(best.Bet) || math.Abs(ev-best.EV) > 1e-12 {
		t.Errorf("BestAdvantage = %s %v, want %s %v", bet, ev, OddsKey(best.Bet), best.EV)
	}
	// Fresh shoe under punto banco: the banker bet is the best (−1.06%).
	fresh, _ := NewComposition(8)
	if bet, ev := BestAdvantage(&fresh, Rules{}); bet != "banker" || math.Round(ev*1e4) != -106 {
		t.Errorf("fresh shoe best = %s %v", bet, ev)
	}
	if bet, ev := BestAdvantage(&fresh, Rules{TiePays: 5}); bet != "" || ev != -1 {
		t.Errorf("invalid rules: %s %v", bet, ev)
	}
}

// TestAdvantageThreshold: one meaning for the CLI flag and the daemon key —
// off (zero value, "off"), or on with 0 ≤ T < 1; negative, ≥ 1, NaN and
// non-numbers are refused, wrapping ErrAdvantageThreshold.
func TestAdvantageThreshold(t *testing.T) {
	var zero AdvantageThreshold
	if zero.On() || zero.String() != "off" {
		t.Errorf("zero value: on=%v %s", zero.On(), zero)
	}
	for _, tc := range []struct {
		in   string
		on   bool
		want float64
	}{
		{"off", false, 0}, {"OFF", false, 0}, {"0", true, 0}, {"-0", true, 0}, {"0.01", true, 0.01}, {"0.999", true, 0.999}, {"1e-9", true, 1e-9},
	} {
		a, err := ParseAdvantageThreshold(tc.in)
		if err != nil || a.On() != tc.on || a.Value() != tc.want || math.Signbit(a.Value()) {
			t.Errorf("%q: %v on=%v %v", tc.in, err, a.On(), a.Value())
		}
	}
	for _, bad := range []string{"-1", "-0.01", "1", "5", "NaN", "inf", "-Inf", "", "1%", "on"} {
		a, err := ParseAdvantageThreshold(bad)
		if !errors.Is(err, ErrAdvantageThreshold) || a.On() {
			t.Errorf("%q: accepted (%v, %v)", bad, a, err)
		}
	}
	if a, _ := AdvantageAbove(0.01); a.String() != "0.01" {
		t.Errorf("String %q", a)
	}
}
