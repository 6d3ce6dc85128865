package odds

import (
	"math"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestCommissionOdds: the banker bet's expectation for each commission
// dealt, against the published probabilities: EV = (1 − c)·P(banker) −
// P(player), so at 4% −0.005994 (a 0.60% house edge), at 2.5% +0.000885 (a
// player edge), at 0 +0.012350. Each published figure is rounded to 5e-7,
// so the bound is (1 + 1)·5e-7.
func TestCommissionOdds(t *testing.T) {
	if s := pubBanker8 + pubPlayer8 + pubTie8; math.Abs(s-1) > 1.5e-6 {
		t.Fatalf("published probabilities sum to %v", s)
	}
	o := mustOdds(t, baccarat.FullShoe(8))
	for _, c := range []struct {
		commission string
		want       float64
	}{
		{"", 0.95*pubBanker8 - pubPlayer8},      // −0.010580
		{"4%", 0.96*pubBanker8 - pubPlayer8},    // −0.005994
		{"2.5%", 0.975*pubBanker8 - pubPlayer8}, // +0.000885
		{"0", pubBanker8 - pubPlayer8},          // +0.012350
	} {
		r := baccarat.Rules{Commission: mustCommission(t, c.commission)}
		ev, ok := o.EV(baccarat.BetBanker, r)
		if !ok || math.Abs(ev-c.want) > 1e-6 {
			t.Errorf("commission %q: banker EV %.7f, want %.7f", c.commission, ev, c.want)
		}
		// The other bets do not depend on the commission.
		for _, b := range []baccarat.Bet{baccarat.BetPlayer, baccarat.BetTie, baccarat.BetPlayerPair} {
			e1, _ := o.EV(b, r)
			e0, _ := o.EV(b, baccarat.Rules{})
			if e1 != e0 {
				t.Errorf("commission %q moved %s: %v vs %v", c.commission, b, e1, e0)
			}
		}
	}
	// The 4% figure to the published four places: a 0.60% house edge.
	if e, _ := o.HouseEdge(baccarat.BetBanker, baccarat.Rules{Commission: mustCommission(t, "4%")}); math.Round(e*1e4) != 60 {
		t.Errorf("4%% banker house edge %.5f, want 0.0060", e)
	}
}

// TestCommissionAdvantage: the live advantage check uses the commission:
// at 2.5% the banker bet off a fresh 8-deck shoe is a player advantage
// (+0.000885), at 5% nothing is.
func TestCommissionAdvantage(t *testing.T) {
	rc := baccarat.FullShoe(8)
	got, err := Advantages(nil, &rc, baccarat.Rules{Commission: mustCommission(t, "2.5%")}, 0)
	if err != nil || len(got) != 1 || got[0].Bet != baccarat.BetBanker || math.Abs(got[0].EV-(0.975*pubBanker8-pubPlayer8)) > 1e-6 {
		t.Errorf("2.5%%: %+v, %v", got, err)
	}
	if got, err := Advantages(nil, &rc, baccarat.Rules{}, 0); err != nil || len(got) != 0 {
		t.Errorf("5%%: %+v, %v", got, err)
	}
	// The fold's check (on its composition), and BestAdvantage, read the
	// same rules.
	comp, _ := baccarat.NewComposition(8)
	advs, err := CompositionAdvantages(nil, &comp, baccarat.Rules{Commission: mustCommission(t, "0")}, 0.01)
	if err != nil || len(advs) != 1 || advs[0].Bet != baccarat.BetBanker || math.Abs(advs[0].EV-(pubBanker8-pubPlayer8)) > 1e-6 {
		t.Errorf("fold, no commission, above 1%%: %+v, %v", advs, err)
	}
	if bet, ev := BestAdvantage(&comp, baccarat.Rules{Commission: mustCommission(t, "4%")}); bet != "banker" || math.Abs(ev-(0.96*pubBanker8-pubPlayer8)) > 1e-6 {
		t.Errorf("BestAdvantage at 4%%: %s %v", bet, ev)
	}
}

// Published 8-deck probabilities (Wizard of Odds, "Baccarat"; the figures
// quoted in issue 14), to six places.
const (
	pubBanker8 = 0.458597
	pubPlayer8 = 0.446247
	pubTie8    = 0.095156
)

func mustCommission(t *testing.T, s string) baccarat.Commission {
	t.Helper()
	c, err := baccarat.ParseCommission(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
