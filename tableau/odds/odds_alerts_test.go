package odds_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/odds"
)

// refAdvantages lists, from the reference enumeration, the bets rules
// offers whose EV exceeds threshold on shoe rc, in alert order.
func refAdvantages(rc baccarat.RankCounts, r baccarat.Rules, threshold float64) []odds.BetEV {
	o := odds.ReferenceOdds(rc)
	t := float64(o.Sequences)
	b, p := float64(o.Banker), float64(o.Player)
	evs := map[baccarat.Bet]float64{
		baccarat.BetPlayer: (p - b) / t, baccarat.BetTie: (float64(r.TiePayout()+1)*float64(o.Tie) - t) / t,
		baccarat.BetPlayerPair: 12*float64(o.PlayerPair)/t - 1, baccarat.BetBankerPair: 12*float64(o.BankerPair)/t - 1,
	}
	switch r.Game {
	case baccarat.GamePuntoBanco:
		evs[baccarat.BetBanker] = (0.95*b - p) / t
	case baccarat.GameSuper6:
		evs[baccarat.BetBanker] = (b - 0.5*float64(o.Super6) - p) / t
	case baccarat.GameEZ:
		evs[baccarat.BetBanker] = (b - float64(o.Dragon7) - p) / t
		evs[baccarat.BetDragon7] = 41*float64(o.Dragon7)/t - 1
		evs[baccarat.BetPanda8] = 26*float64(o.Panda8)/t - 1
	}
	var out []odds.BetEV
	for _, bet := range []baccarat.Bet{baccarat.BetBanker, baccarat.BetPlayer, baccarat.BetTie, baccarat.BetPlayerPair, baccarat.BetBankerPair, baccarat.BetDragon7, baccarat.BetPanda8} {
		if ev, ok := evs[bet]; ok && ev > threshold {
			out = append(out, odds.BetEV{bet, ev})
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
	toks, err := tableau.ParseTranscript(strings.NewReader(src), "adv.shoe")
	if err != nil {
		t.Fatal(err)
	}
	opts := tableau.Options{Decks: 1, Rules: baccarat.Rules{Game: baccarat.GameEZ, TiePays: 8}, Markers: true}
	f, err := tableau.NewFold(opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []tableau.Event
	for _, tok := range toks {
		out = f.FeedAdvantages(tok, 0, out)
	}
	out = f.End(out)

	// Expected, per coup: the reference's advantages on one deck less
	// every card of the lines before it, then any other alert, then the coup.
	var want []string
	rc := baccarat.FullShoe(1)
	for i, line := range advantageShoe {
		if i > 0 {
			for _, a := range refAdvantages(rc, opts.Rules, 0) {
				want = append(want, fmt.Sprintf("advantage shoe 1 coup %d %s %.12f", i, odds.OddsKey(a.Bet), a.EV))
			}
			if i == 4 {
				want = append(want, `{"type":"alert","shoe":1,"coup":4,"code":"composition","card":"AS"}`)
			}
			want = append(want, "coup")
		}
		for _, w := range strings.Fields(line) {
			c, _ := card.ParseCard(w)
			rc[c.Rank-1] = max(rc[c.Rank-1]-1, 0)
		}
	}
	var got []string
	advantages := 0
	for _, e := range out {
		switch {
		case e.Kind == baccarat.EventCoup:
			got = append(got, "coup")
		case e.Kind == baccarat.EventAlert && e.Alert.Code == baccarat.AlertAdvantage:
			a := e.Alert
			got = append(got, fmt.Sprintf("advantage shoe %d coup %d %s %.12f", a.Shoe, a.Coup, a.Bet, a.EV))
			advantages++
		case e.Kind == baccarat.EventAlert:
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
		if e.Kind == baccarat.EventAlert && e.Alert.Code == baccarat.AlertAdvantage {
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
	var back tableau.Event
	first := tableau.AdvantageAlert(1, 2, odds.BetEV{baccarat.BetDragon7, 0.25})
	if err := json.Unmarshal([]byte(first.String()), &back); err != nil || back.Alert.AdvantageBet == nil ||
		*back.Alert.AdvantageBet != (odds.AdvantageBet{"dragon7", 0.25}) {
		t.Errorf("round trip: %+v, %v", back.Alert, err)
	}
	// Other alerts carry no bet or ev.
	if s := (tableau.Event{Kind: baccarat.EventAlert, Alert: tableau.AlertEvent{Type: baccarat.EventAlert, Shoe: 1, Coup: 2, Code: baccarat.AlertExtraCard}}).String(); strings.Contains(s, "bet") || strings.Contains(s, "ev") {
		t.Errorf("extra-card alert %s", s)
	}
}

func TestFoldAdvantagesAndBest(t *testing.T) {
	f, err := tableau.NewFold(tableau.Options{Decks: 1, Rules: baccarat.Rules{Game: baccarat.GameEZ}})
	if err != nil {
		t.Fatal(err)
	}
	var out []tableau.Event
	for _, s := range strings.Fields("3S 8S 8H 8D 9S 9H 9D 2C") {
		c, _ := card.ParseCard(s)
		out = f.Card(c, out)
	}
	rc := baccarat.FullShoe(1)
	for _, r := range []card.Rank{card.Rank3, card.Rank8, card.Rank8, card.Rank8, card.Rank9, card.Rank9, card.Rank9, card.Rank2} {
		rc[r-1]--
	}
	want := refAdvantages(rc, baccarat.Rules{Game: baccarat.GameEZ}, -0.05)
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
	bet, ev := odds.BestAdvantage(&comp, baccarat.Rules{Game: baccarat.GameEZ})
	if bet != odds.OddsKey(best.Bet) || math.Abs(ev-best.EV) > 1e-12 {
		t.Errorf("BestAdvantage = %s %v, want %s %v", bet, ev, odds.OddsKey(best.Bet), best.EV)
	}
	// Fresh shoe under punto banco: the banker bet is the best (−1.06%).
	fresh, _ := baccarat.NewComposition(8)
	if bet, ev := odds.BestAdvantage(&fresh, baccarat.Rules{}); bet != "banker" || math.Round(ev*1e4) != -106 {
		t.Errorf("fresh shoe best = %s %v", bet, ev)
	}
	if bet, ev := odds.BestAdvantage(&fresh, baccarat.Rules{TiePays: 5}); bet != "" || ev != -1 {
		t.Errorf("invalid rules: %s %v", bet, ev)
	}
}

// TestAdvantageThreshold: one meaning for the CLI flag and the daemon key —
// off (zero value, "off"), or on with 0 ≤ T < 1; negative, ≥ 1, NaN and
// non-numbers are refused, wrapping ErrAdvantageThreshold.
func TestAdvantageThreshold(t *testing.T) {
	var zero odds.AdvantageThreshold
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
		a, err := odds.ParseAdvantageThreshold(tc.in)
		if err != nil || a.On() != tc.on || a.Value() != tc.want || math.Signbit(a.Value()) {
			t.Errorf("%q: %v on=%v %v", tc.in, err, a.On(), a.Value())
		}
	}
	for _, bad := range []string{"-1", "-0.01", "1", "5", "NaN", "inf", "-Inf", "", "1%", "on"} {
		a, err := odds.ParseAdvantageThreshold(bad)
		if !errors.Is(err, odds.ErrAdvantageThreshold) || a.On() {
			t.Errorf("%q: accepted (%v, %v)", bad, a, err)
		}
	}
	if a, _ := odds.AdvantageAbove(0.01); a.String() != "0.01" {
		t.Errorf("String %q", a)
	}
}
