package odds

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
)

// Published figures used below (8 decks):
//   - Dragon Bonus: Wizard of Odds, "Baccarat Side Bets" (appendix 5),
//     combinations in ordered six-card sequences, the engine's unit;
//     house edges 2.65% player, 9.37% banker (also 4 decks 2.70%/9.42%,
//     6 decks 2.67%/9.39%).
//   - Lucky 6: Wizard of Odds, "Lucky 6": 186,173,936,904,192 two-card and
//     83,058,367,551,488 three-card winning banker 6s; 16.68% at 12/20
//     (Macau), 11.70% at 12/23 (Las Vegas).
//   - Perfect Pair: Wizard of Odds, "Perfect Pairs" version 1 (25 on any,
//     P = 0.033450, 13.03%) and version 2 (25 one, 250 both; P(both) =
//     0.000285, P(one) = 0.033166, 6.62%).
//   - Big 0.54 and Small 1.5: 4.35% and 5.27% (playbaccarat.com,
//     vegasfreedom.com, which quote Playtech's figures).

func mustSide(t *testing.T, cc baccarat.CardCounts) SideOdds {
	t.Helper()
	so, err := AnalyzeSideBets(&cc, true)
	if err != nil {
		t.Fatal(err)
	}
	return so
}

func allSides(pays baccarat.SidePays) baccarat.Rules {
	return baccarat.Rules{Side: baccarat.SideRules{Offered: 1<<len(baccarat.SideBets) - 1, Pays: pays}}
}

func TestSideOddsEightDecksPublished(t *testing.T) {
	so := mustSide(t, baccarat.FullCardShoe(8))
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"player win by 9", so.DragonBy[0][9], 18_409_431_764_992},
		{"player win by 8", so.DragonBy[0][8], 34_097_645_543_424},
		{"player win by 7", so.DragonBy[0][7], 89_590_261_473_280},
		{"player win by 6", so.DragonBy[0][6], 141_238_897_317_888},
		{"player win by 5", so.DragonBy[0][5], 166_169_165_987_840},
		{"player win by 4", so.DragonBy[0][4], 186_780_352_174_080},
		{"player natural win", so.DragonNatural[0], 812_685_054_124_032},
		{"natural tie", so.NaturalTie, 89_325_908_267_520},
		{"banker win by 9", so.DragonBy[1][9], 15_390_342_909_952},
		{"banker win by 8", so.DragonBy[1][8], 28_305_092_784_128},
		{"banker win by 7", so.DragonBy[1][7], 79_517_099_278_336},
		{"banker win by 6", so.DragonBy[1][6], 119_200_072_366_080},
		{"banker win by 5", so.DragonBy[1][5], 157_275_882_332_160},
		{"banker win by 4", so.DragonBy[1][4], 201_147_167_287_296},
		{"banker natural win", so.DragonNatural[1], 812_685_054_124_032},
		{"lucky 6 two cards", so.Lucky6Two, 186_173_936_904_192},
		{"lucky 6 three cards", so.Lucky6Three, 83_058_367_551_488},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	o := mustOdds(t, baccarat.FullShoe(8))
	if so.Cards4 != o.Cards4 || so.Cards56 != o.Cards5+o.Cards6 || so.Sequences != o.Sequences {
		t.Errorf("cards: side %d/%d, odds %d/%d", so.Cards4, so.Cards56, o.Cards4, o.Cards5+o.Cards6)
	}
	for _, c := range []struct {
		name  string
		count uint64
		want  float64
	}{
		{"perfect pair both", so.PerfectBoth, 0.000285},
		{"perfect pair one", so.PerfectOne, 0.033166},
		{"perfect pair any", so.PerfectOne + so.PerfectBoth, 0.033450},
	} {
		if p := so.Prob(c.count); !near(p, c.want, 6) {
			t.Errorf("P(%s) = %.7f, want %.6f", c.name, p, c.want)
		}
	}
	def := allSides(baccarat.SidePays{})
	for _, c := range []struct {
		name    string
		bet     baccarat.Bet
		r       baccarat.Rules
		percent float64
	}{
		{"dragon player", baccarat.BetDragonPlayer, def, 2.65},
		{"dragon banker", baccarat.BetDragonBanker, def, 9.37},
		{"lucky 6 12/20", baccarat.BetLucky6, def, 16.68},
		{"lucky 6 12/23", baccarat.BetLucky6, allSides(baccarat.SidePays{Lucky6Three: 23}), 11.70},
		{"perfect pair 25/250", baccarat.BetPerfectPair, allSides(baccarat.SidePays{PerfectPairBoth: 250}), 6.62},
		{"perfect pair 25 any", baccarat.BetPerfectPair, allSides(baccarat.SidePays{PerfectPairBoth: 25}), 13.03},
		{"big 0.54", baccarat.BetBig, def, 4.35},
	} {
		e, ok := so.HouseEdge(c.bet, c.r)
		if !ok || !near(100*e, c.percent, 2) {
			t.Errorf("%s: house edge %.4f%% (ok %v), want %.2f%%", c.name, 100*e, ok, c.percent)
		}
	}
	// Small 1.5: exact 5.2830%; the 5.27% quoted (without a source table)
	// is off by 0.01, so it is checked to one decimal only.
	if e, _ := so.HouseEdge(baccarat.BetSmall, def); !near(100*e, 5.3, 1) {
		t.Errorf("small: house edge %.4f%%", 100*e)
	}
	// Dragon Bonus with 4 and 6 decks.
	for _, c := range []struct {
		decks          int
		player, banker float64
	}{{4, 2.70, 9.42}, {6, 2.67, 9.39}} {
		so := mustSide(t, baccarat.FullCardShoe(c.decks))
		ep, _ := so.HouseEdge(baccarat.BetDragonPlayer, def)
		eb, _ := so.HouseEdge(baccarat.BetDragonBanker, def)
		if !near(100*ep, c.player, 2) || !near(100*eb, c.banker, 2) {
			t.Errorf("%d decks: dragon %.4f%% / %.4f%%, want %.2f / %.2f", c.decks, 100*ep, 100*eb, c.player, c.banker)
		}
	}
}

// refSideOdds is the straightforward reference. Every coup is dealt rank
// by rank through the Coup state machine and each side-bet fact is read
// off the finished Coup; Perfect Pair, which only the first four cards
// decide, is counted card by card (rank and suit) over those four
// positions, each standing for the (N−4)(N−5) ways the coup can go on.
// It shares no counting code with AnalyzeSideBets.
func refSideOdds(cc baccarat.CardCounts) SideOdds {
	rc := cc.Ranks()
	N := uint64(rc.Total())
	so := SideOdds{Sequences: N * (N - 1) * (N - 2) * (N - 3) * (N - 4) * (N - 5), SuitsKnown: true}
	per := [7]uint64{4: (N - 4) * (N - 5), 5: N - 5, 6: 1}
	var deal func(c baccarat.Coup, w uint64)
	deal = func(c baccarat.Coup, w uint64) {
		if c.Cards() >= 4 && c.Complete() {
			w *= per[c.Cards()]
			pt, bt := c.PlayerTotal(), c.BankerTotal()
			nat := c.Natural()
			pNat := nat && pt >= 8 && c.Player.Len() == 2
			bNat := nat && bt >= 8 && c.Banker.Len() == 2
			switch c.Winner() {
			case baccarat.WinnerPlayer:
				if pNat {
					so.DragonNatural[0] += w
				} else {
					so.DragonBy[0][pt-bt] += w
				}
			case baccarat.WinnerBanker:
				if bNat {
					so.DragonNatural[1] += w
				} else {
					so.DragonBy[1][bt-pt] += w
				}
				if bt == 6 && c.Banker.Len() == 2 {
					so.Lucky6Two += w
				} else if bt == 6 {
					so.Lucky6Three += w
				}
			default:
				if nat {
					so.NaturalTie += w
				}
			}
			if c.Cards() == 4 {
				so.Cards4 += w
			} else {
				so.Cards56 += w
			}
			if c.PlayerPair() || c.BankerPair() {
				so.EitherPair += w
			}
			return
		}
		for r, n := range rc {
			if n == 0 {
				continue
			}
			rc[r]--
			next := c
			next.Deal(card.Card{Rank: card.Rank(r + 1)})
			deal(next, w*uint64(n))
			rc[r]++
		}
	}
	deal(baccarat.Coup{}, 1)

	var id [card.NumRanks * card.NumSuits]uint64
	for r, row := range cc {
		for s, v := range row {
			id[r*card.NumSuits+s] = uint64(v)
		}
	}
	for p1 := range id {
		w1 := id[p1]
		if w1 == 0 {
			continue
		}
		id[p1]--
		for b1 := range id {
			w2 := w1 * id[b1]
			if w2 == 0 {
				continue
			}
			id[b1]--
			for p2 := range id {
				w3 := w2 * id[p2]
				if w3 == 0 {
					continue
				}
				id[p2]--
				for b2 := range id {
					w4 := w3 * id[b2]
					switch {
					case w4 == 0:
					case p1 == p2 && b1 == b2:
						so.PerfectBoth += w4 * per[4]
					case p1 == p2 || b1 == b2:
						so.PerfectOne += w4 * per[4]
					}
				}
				id[p2]++
			}
			id[b1]++
		}
		id[p1]++
	}
	return so
}

func TestSideOddsMatchReference(t *testing.T) {
	shoes := []baccarat.CardCounts{baccarat.FullCardShoe(1)}
	rng := rand.New(rand.NewPCG(14, 6))
	for range 6 {
		cc := baccarat.FullCardShoe(1 + rng.IntN(3))
		left := 6 + rng.IntN(30)
		for total := 52 * 3; ; {
			rc := cc.Ranks()
			if total = rc.Total(); total <= left {
				break
			}
			r, s := rng.IntN(card.NumRanks), rng.IntN(card.NumSuits)
			if cc[r][s] > 0 {
				cc[r][s]--
			}
		}
		shoes = append(shoes, cc)
	}
	if testing.Short() {
		shoes = shoes[1:]
	}
	for _, cc := range shoes {
		got := mustSide(t, cc)
		want := refSideOdds(cc)
		if got != want {
			t.Errorf("shoe %v:\n engine    %+v\n reference %+v", cc, got, want)
		}
	}
}

func TestSideOddsSuitsUnknown(t *testing.T) {
	cc := baccarat.FullCardShoe(8)
	so, err := AnalyzeSideBets(&cc, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := so.EV(baccarat.BetPerfectPair, allSides(baccarat.SidePays{})); ok || so.PerfectOne != 0 {
		t.Errorf("perfect pair valued without suits: %+v", so)
	}
	if _, ok := so.EV(baccarat.BetEitherPair, allSides(baccarat.SidePays{})); !ok {
		t.Error("either pair not valued")
	}
	// Composition: a rank-only read makes the suits unknown.
	comp, _ := baccarat.NewComposition(1)
	comp.Draw(card.Card{Rank: card.Rank5, Suit: card.Hearts})
	if got, known := comp.RemainingCards(); !known || got[card.Rank5-1][card.Hearts-1] != 0 || got[card.Rank5-1][card.Spades-1] != 1 {
		t.Errorf("suited draw: %v %v", got[card.Rank5-1], known)
	}
	comp.Draw(card.Card{Rank: card.Rank7})
	if _, known := comp.RemainingCards(); known {
		t.Error("rank-only draw: suits still known")
	}
	for _, bad := range []baccarat.CardCounts{{}, {{-1, 2, 2, 2}, {9}}} {
		if _, err := AnalyzeSideBets(&bad, true); !errors.Is(err, baccarat.ErrOddsShoe) {
			t.Errorf("%v: err %v", bad, err)
		}
	}
}

func TestSideRulesParseValidate(t *testing.T) {
	set, err := baccarat.ParseSideSet("dragon, perfect-pair,LUCKY6")
	if err != nil || set.String() != "perfect-pair,dragon-player,dragon-banker,lucky6" {
		t.Errorf("ParseSideSet = %v, %v", set, err)
	}
	if _, err := baccarat.ParseSideSet("dragon,tiger"); !errors.Is(err, baccarat.ErrRules) || err.Error() != `tableau: bad rules: side bet 2 "tiger" unknown (want perfect-pair, either-pair, big, small, dragon-player, dragon-banker, lucky6, dragon, all or none)` {
		t.Errorf("unknown side bet: %v", err)
	}
	if s, _ := baccarat.ParseSideSet("all"); s.String() != "perfect-pair,either-pair,big,small,dragon-player,dragon-banker,lucky6" {
		t.Errorf("all = %v", s)
	}
	if err := (baccarat.SidePays{Big: -1}).Validate(); err == nil || err.Error() != "tableau: bad rules: pays_big: -1: want more than 0, at most 1000" {
		t.Errorf("negative big: %v", err)
	}
	if err := (baccarat.Rules{Side: baccarat.SideRules{Pays: baccarat.SidePays{Lucky6Three: 5000}}}).Validate(); !errors.Is(err, baccarat.ErrRules) {
		t.Errorf("lucky 6 at 5000: %v", err)
	}
	if _, err := baccarat.ParsePayList("30,10,6,4,2", 6); err == nil {
		t.Error("five dragon figures accepted")
	}
	if _, err := baccarat.ParsePayList("30,10,x,4,2,1", 6); err == nil || err.Error() != `tableau: bad rules: figure 3 "x": want a number more than 0, at most 1000` {
		t.Errorf("bad figure: %v", err)
	}
	if v, err := baccarat.ParsePayList("50,10,6,4,2,1", 6); err != nil || v[0] != 50 {
		t.Errorf("ParsePayList = %v, %v", v, err)
	}
	if k := OddsKey(baccarat.BetDragonPlayer); k != "dragon_player" {
		t.Errorf("OddsKey = %q", k)
	}
}

// TestSideAdvantages: a shoe rich in 6s favours Lucky 6; the live check
// reports it, on the composition (suits known) as on the rank counts.
func TestSideAdvantages(t *testing.T) {
	comp, _ := baccarat.NewComposition(1)
	for _, s := range []string{"7S", "7H", "7D", "7C", "8S", "8H", "8D", "8C", "9S", "9H", "9D", "9C", "KS", "KH", "KD", "KC", "QS", "QH", "QD", "QC"} {
		c, _ := card.ParseCard(s)
		comp.Draw(c)
	}
	r := baccarat.Rules{Side: baccarat.SideRules{Offered: baccarat.SideSet(0).With(baccarat.BetLucky6).With(baccarat.BetPerfectPair)}}
	cc, known := comp.RemainingCards()
	so := mustSide(t, cc)
	want, _ := so.EV(baccarat.BetLucky6, r)
	if !known || want <= 0 {
		t.Fatalf("test shoe: lucky 6 EV %.4f known %v", want, known)
	}
	// The main bets come first (this shoe favours the pairs too), then
	// the offered side bets above the threshold: Lucky 6 only.
	lucky := func(advs []BetEV) (n int, ev float64) {
		for _, a := range advs {
			if baccarat.IsSideBet(a.Bet) {
				n++
				ev = a.EV
			}
		}
		return n, ev
	}
	got, err := CompositionAdvantages(nil, &comp, r, 0)
	if n, ev := lucky(got); err != nil || n != 1 || got[len(got)-1].Bet != baccarat.BetLucky6 || ev != want {
		t.Errorf("CompositionAdvantages = %+v, %v; want lucky6 %.6f last", got, err, want)
	}
	rc := comp.RemainingRanks()
	if got, err := Advantages(nil, &rc, r, 0); err != nil || got[len(got)-1].Bet != baccarat.BetLucky6 || got[len(got)-1].EV != want {
		t.Errorf("Advantages = %+v, %v", got, err)
	}
	// The per-card check with side bets does not allocate.
	dst := make([]BetEV, 0, 14)
	if a := testing.AllocsPerRun(5, func() { dst, _ = CompositionAdvantages(dst[:0], &comp, r, 0) }); a != 0 {
		t.Errorf("CompositionAdvantages allocates %.0f times per call", a)
	}
	// Above the pairs' 16.1%: nothing; Lucky 6 offered alone is the best.
	if got, _ := CompositionAdvantages(nil, &comp, r, 0.17); len(got) != 0 {
		t.Errorf("threshold 0.17: %+v", got)
	}
	pp, _ := so.EV(baccarat.BetPerfectPair, r)
	if pp >= want {
		t.Fatalf("perfect pair %.4f beats lucky 6 here", pp)
	}
	if bet, ev := BestAdvantage(&comp, r); bet != "player_pair" || ev <= want {
		t.Errorf("BestAdvantage = %s %v, want player_pair above %v", bet, ev, want)
	}
}

func BenchmarkAnalyzeSideBets(b *testing.B) {
	cc := baccarat.FullCardShoe(8)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := AnalyzeSideBets(&cc, true); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPairPays: a pair paying 12:1 instead of 11:1, in settlement and in
// the odds (8 decks: P = 31/415, so EV = 13·31/415 − 1 exactly).
func TestPairPays(t *testing.T) {
	r := baccarat.Rules{PairPays: 12}
	coup := dealtest.DealAll(t, "5H 4D 4C 4S")
	if p, _ := r.Settle(coup, baccarat.BetBankerPair); p != (baccarat.Payout{Outcome: baccarat.Win, Net: 12}) {
		t.Errorf("banker pair at 12:1 = %+v", p)
	}
	if p, _ := (baccarat.Rules{}).Settle(coup, baccarat.BetBankerPair); p != (baccarat.Payout{Outcome: baccarat.Win, Net: 11}) {
		t.Errorf("banker pair at the default = %+v", p)
	}
	o := mustOdds(t, baccarat.FullShoe(8))
	if ev, ok := o.EV(baccarat.BetPlayerPair, r); !ok || ev != (13*float64(o.PlayerPair)-float64(o.Sequences))/float64(o.Sequences) || !near(ev, 13.0*31/415-1, 12) {
		t.Errorf("player pair EV at 12:1 = %v", ev)
	}
	for _, bad := range []int{-1, baccarat.MaxSidePay + 1} {
		if err := (baccarat.Rules{PairPays: bad}).Validate(); !errors.Is(err, baccarat.ErrRules) {
			t.Errorf("pair pays %d: %v", bad, err)
		}
	}
	if s := (baccarat.Rules{PairPays: 12, Side: baccarat.SideRules{Offered: baccarat.SideSet(0).With(baccarat.BetLucky6)}}).String(); s != "punto-banco tie 8:1 pair 12:1 side lucky6" {
		t.Errorf("String = %q", s)
	}
}
