package odds

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
)

// The suited pair house rule (Rules.PairSuitedPays): a player pair or
// banker pair of the same rank and suit pays more (25:1) than any other
// pair (PairPays, 11:1).
//
// Figures derived by hand from combinatorics, not from the package. For a
// given hand's first two cards out of a d-deck shoe of N = 52d cards:
//   - P(pair) = 13·C(4d,2)/C(N,2) = (4d−1)/(N−1): whatever the first card,
//     4d−1 of the N−1 others share its rank. 8 decks: 13·C(32,2)/C(416,2)
//     = 6448/86320 = 31/415; 6 decks: 23/311.
//   - P(suited pair) = 52·C(d,2)/C(N,2) = (d−1)/(N−1): d−1 of the others
//     are its copies. 8 decks: 52·C(8,2)/C(416,2) = 1456/86320 = 7/415;
//     6 decks: 5/311.
//
// A pair bet paying 11 unsuited and 25 suited then has the expectation
// 11·P(unsuited) + 25·P(suited) − P(no pair):
//   - 8 decks: (11·24 + 25·7 − 384)/415 = 55/415 = +13.25% for the player;
//   - 6 decks: (11·18 + 25·5 − 288)/311 = 35/311 = +11.25%.
//
// With card removal, a 2-deck shoe less both ace of spades and one ace of
// hearts (N = 101): aces 5, every other rank 8; ordered first-two-card
// pairs 5·4 + 12·8·7 = 692 of 101·100 = 10100; suited: 50 cards still have
// both copies (the 52 less AS and AH), 50·2·1 = 100. EV = (11·592 +
// 25·100 − 9408)/10100 = −396/10100.
var suited25 = baccarat.Rules{PairSuitedPays: 25}

func TestPairSuitedOddsFreshShoe(t *testing.T) {
	for _, c := range []struct {
		decks                    int
		pair, suited, den, evNum uint64
	}{
		{8, 31, 7, 415, 55},
		{6, 23, 5, 311, 35},
	} {
		cc := baccarat.FullCardShoe(c.decks)
		po, err := AnalyzePairs(&cc, true)
		if err != nil {
			t.Fatal(err)
		}
		// Exact rationals: count·den = num·Sequences (no rounding).
		if po.Pair*c.den != c.pair*po.Sequences || po.Suited*c.den != c.suited*po.Sequences {
			t.Errorf("%d decks: P(pair) %d/%d, P(suited) %d/%d; want %d/%d and %d/%d",
				c.decks, po.Pair, po.Sequences, po.Suited, po.Sequences, c.pair, c.den, c.suited, c.den)
		}
		rc := baccarat.FullShoe(c.decks)
		o := mustOdds(t, rc)
		if po.Pair != o.PlayerPair {
			t.Errorf("%d decks: AnalyzePairs' pairs %d, the odds engine's %d", c.decks, po.Pair, o.PlayerPair)
		}
		want := float64(c.evNum) / float64(c.den)
		for _, b := range []baccarat.Bet{baccarat.BetPlayerPair, baccarat.BetBankerPair} {
			if ev, ok := po.EV(b, suited25); !ok || math.Abs(ev-want) > 1e-15 {
				t.Errorf("%d decks: %s EV at 25/11 = %v, %v; want %v", c.decks, b, ev, ok, want)
			}
			// Ranks alone cannot value it.
			if _, ok := o.EV(b, suited25); ok {
				t.Errorf("%d decks: Odds.EV values %s under a suited pay", c.decks, b)
			}
			// Without the suited pay, AnalyzePairs agrees with Odds.
			ev0, _ := o.EV(b, baccarat.Rules{})
			if ev, ok := po.EV(b, baccarat.Rules{}); !ok || ev != ev0 {
				t.Errorf("%d decks: %s EV at 11 = %v, Odds %v", c.decks, b, ev, ev0)
			}
		}
		if _, ok := po.EV(baccarat.BetTie, suited25); ok {
			t.Error("PairOdds values the tie")
		}
	}
}

// compEV returns the EV CompositionAdvantages gives bet b (threshold −1: every
// bet), and whether it gave one.
func compEV(t *testing.T, comp *baccarat.Composition, r baccarat.Rules, b baccarat.Bet) (float64, bool) {
	t.Helper()
	advs, err := CompositionAdvantages(nil, comp, r, -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range advs {
		if a.Bet == b {
			return a.EV, true
		}
	}
	return 0, false
}

func TestPairSuitedCardRemoval(t *testing.T) {
	comp, _ := baccarat.NewComposition(2)
	for _, s := range []string{"AS", "AS", "AH"} {
		c, _ := card.ParseCard(s)
		if !comp.Draw(c) {
			t.Fatalf("draw %s", s)
		}
	}
	want := -396.0 / 10100
	for _, b := range []baccarat.Bet{baccarat.BetPlayerPair, baccarat.BetBankerPair} {
		if ev, ok := compEV(t, &comp, suited25, b); !ok || math.Abs(ev-want) > 1e-15 {
			t.Errorf("%s: %v, %v; want %v", b, ev, ok, want)
		}
	}
	cc, _ := comp.RemainingCards()
	po, _ := AnalyzePairs(&cc, true)
	if po.Pair*10100 != 692*po.Sequences || po.Suited*10100 != 100*po.Sequences {
		t.Errorf("counts %d, %d of %d", po.Pair, po.Suited, po.Sequences)
	}
	// The live check: above the threshold only where the suited pay makes
	// an edge. Fresh 8 decks at 25/11: +55/415 on both pair bets, in the
	// usual order, and nothing else.
	fresh, _ := baccarat.NewComposition(8)
	advs, err := CompositionAdvantages(make([]BetEV, 0, 7), &fresh, suited25, 0)
	if err != nil || len(advs) != 2 || advs[0].Bet != baccarat.BetPlayerPair || advs[1].Bet != baccarat.BetBankerPair || math.Abs(advs[0].EV-55.0/415) > 1e-15 {
		t.Errorf("advantages at 25/11: %+v, %v", advs, err)
	}
	if bet, ev := BestAdvantage(&fresh, suited25); bet != "player_pair" || math.Abs(ev-55.0/415) > 1e-15 {
		t.Errorf("BestAdvantage = %s %v", bet, ev)
	}
	// Suited at 12 with 11 unsuited: (11·24 + 12·7 − 384)/415 = −36/415.
	if ev, ok := compEV(t, &fresh, baccarat.Rules{PairSuitedPays: 12}, baccarat.BetPlayerPair); !ok || math.Abs(ev+36.0/415) > 1e-15 {
		t.Errorf("suited 12: %v, %v", ev, ok)
	}
	dst := make([]BetEV, 0, 7)
	if a := testing.AllocsPerRun(5, func() { dst, _ = CompositionAdvantages(dst[:0], &fresh, suited25, -1) }); a != 0 {
		t.Errorf("CompositionAdvantages with a suited pay allocates %.0f times", a)
	}
	// The rank-only check (Advantages on ranks) leaves them out: banker,
	// player and tie only.
	rc := fresh.RemainingRanks()
	if advs, _ := Advantages(nil, &rc, suited25, -1); len(advs) != 3 || advs[2].Bet != baccarat.BetTie {
		t.Errorf("rank-only advantages: %+v", advs)
	}
}

// TestPairSuitedUnknownSuits: a rank-only read leaves the suits unknown.
// As for Perfect Pair, nothing hanging on a suit is settled or valued: a
// pair with a rank-only card is not settled (the zero Payout) while a
// suited pair pays more, and the pair bets are not valued once a rank-only
// card has left the shoe. Without the suited pay both are as before.
func TestPairSuitedUnknownSuits(t *testing.T) {
	comp, _ := baccarat.NewComposition(8)
	c, _ := card.ParseCard("7")
	comp.Draw(c)
	if _, ok := compEV(t, &comp, suited25, baccarat.BetPlayerPair); ok {
		t.Error("pair bet valued under a suited pay with a rank-only card drawn")
	}
	ev, ok := compEV(t, &comp, baccarat.Rules{}, baccarat.BetPlayerPair)
	// 415 cards, sevens 31: (31·30 + 12·32·31)/(415·414) pairs at 11:1.
	p := (31.0*30 + 12*32*31) / (415 * 414)
	if !ok || math.Abs(ev-(12*p-1)) > 1e-15 {
		t.Errorf("plain pair after a rank-only card: %v, %v; want %v", ev, ok, 12*p-1)
	}
	unknown := dealtest.DealAll(t, "5H 4 2C 4S") // banker 4 4S: a pair, one suit unknown
	if p, err := suited25.Settle(unknown, baccarat.BetBankerPair); err != nil || p != (baccarat.Payout{}) {
		t.Errorf("unknown-suit pair under 25 suited: %+v, %v", p, err)
	}
	if p, _ := (baccarat.Rules{}).Settle(unknown, baccarat.BetBankerPair); p != (baccarat.Payout{Outcome: baccarat.Win, Net: 11}) {
		t.Errorf("unknown-suit pair, no suited pay: %+v", p)
	}
	s, err := suited25.SettleAll(unknown)
	if err != nil || s.BankerPair != (baccarat.Payout{}) || s.PlayerPair != (baccarat.Payout{Outcome: baccarat.Lose, Net: -1}) || s.Player != (baccarat.Payout{Outcome: baccarat.Lose, Net: -1}) {
		t.Errorf("SettleAll: %+v, %v", s, err)
	}
}

func TestPairSuitedRules(t *testing.T) {
	for _, c := range []struct {
		r    baccarat.Rules
		want string // the finding, "" for none
	}{
		{baccarat.Rules{PairSuitedPays: 25}, ""},
		{baccarat.Rules{PairSuitedPays: 11}, ""},
		{baccarat.Rules{PairPays: 12, PairSuitedPays: 12}, ""},
		{baccarat.Rules{PairSuitedPays: 10}, "tableau: bad rules: pair_suited_pays: 10: below pair_pays 11 (a suited pair pays at least as much as any pair; 0 for the same)"},
		{baccarat.Rules{PairPays: 12, PairSuitedPays: 11}, "pair_suited_pays: 11: below pair_pays 12"},
		{baccarat.Rules{PairSuitedPays: -1}, "pair_suited_pays: -1: want 0 (a suited pair pays as any pair) or the pair payout to 1000"},
		{baccarat.Rules{PairSuitedPays: baccarat.MaxSidePay + 1}, "pair_suited_pays: 1001: want 0"},
	} {
		err := c.r.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.r, err)
		case c.want != "" && (!errors.Is(err, baccarat.ErrRules) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: %v; want %q", c.r, err, c.want)
		}
	}
	// Given (configuration, flags): 0 is "no suited pay", not an error;
	// a bad pair_pays is reported alone.
	given := baccarat.Rules{TiePays: 8, PairPays: 11, Side: baccarat.SideRules{Pays: baccarat.DefaultSidePays}}
	if ps := given.ProblemsGiven(); ps != nil {
		t.Errorf("given, no suited pay: %v", ps)
	}
	given.PairPays = 0
	given.PairSuitedPays = 25
	if ps := given.ProblemsGiven(); len(ps) != 1 || ps[0].Key != "pair_pays" {
		t.Errorf("given, pair 0: %v", ps)
	}
	// The order of the findings: pair_pays, then pair_suited_pays.
	r := baccarat.Rules{TiePays: 7, PairSuitedPays: -3, Side: baccarat.SideRules{Offered: 0xff}}
	var keys []string
	for _, p := range r.Problems() {
		keys = append(keys, p.Key)
	}
	if strings.Join(keys, " ") != "tie_pays pair_suited_pays side_bets" {
		t.Errorf("keys %v", keys)
	}
	if s := (baccarat.Rules{PairPays: 12, PairSuitedPays: 25}).String(); s != "punto-banco tie 8:1 pair 12:1 suited pair 25:1" {
		t.Errorf("String = %q", s)
	}
	if s := (baccarat.Rules{PairSuitedPays: 11}).String(); s != "punto-banco tie 8:1" {
		t.Errorf("String, suited pays the same = %q", s)
	}
	if a, b := (baccarat.Rules{}).PairSuitedPayout(), (baccarat.Rules{PairPays: 12}).PairSuitedPayout(); a != 11 || b != 12 {
		t.Errorf("PairSuitedPayout off: %d, %d", a, b)
	}
	if p := suited25.PairSuitedPayout(); p != 25 {
		t.Errorf("PairSuitedPayout = %d", p)
	}
}

// BenchmarkAnalyzePairs: the pair bets' suited odds, computed with every
// advantage check while a suited pair pays more.
func BenchmarkAnalyzePairs(b *testing.B) {
	cc := baccarat.FullCardShoe(8)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := AnalyzePairs(&cc, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompAdvantagesSuited: the fold's advantage check with and
// without the suited pay (the difference is AnalyzePairs and the suits
// left).
func BenchmarkCompAdvantagesSuited(b *testing.B) {
	comp, _ := baccarat.NewComposition(8)
	for _, r := range []struct {
		name  string
		rules baccarat.Rules
	}{{"off", baccarat.Rules{}}, {"suited25", suited25}} {
		b.Run(r.name, func(b *testing.B) {
			dst := make([]BetEV, 0, 7)
			b.ReportAllocs()
			for b.Loop() {
				dst, _ = CompositionAdvantages(dst[:0], &comp, r.rules, 0)
			}
		})
	}
}
