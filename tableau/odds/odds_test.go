package odds

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
)

// Published figures used below:
//   - 8, 6 and 4 decks, combinations of ordered six-card sequences and house
//     edges: Wizard of Odds, "Baccarat" (combinatorial analysis by number
//     of decks), reproduced e.g. by casinoexploit.com/baccarat.html.
//   - 8-deck probabilities to six places, four/five/six cards, pairs,
//     Super 6, EZ Baccarat banker, Dragon 7 and Panda 8 house edges: Wizard
//     of Odds, "Baccarat", "Super 6" and "EZ Baccarat" pages (the figures
//     quoted in issue 3).
//   - 1 deck: Wizard of Odds, "Baccarat", house edge by number of decks:
//     banker 1.01%, player 1.29%, tie (8:1) 15.75%. The exact 1-deck
//     counts below are the reference enumeration's (52·51·…·47 sequences).

func mustOdds(t *testing.T, rc baccarat.RankCounts) Odds {
	t.Helper()
	o, err := AnalyzeOdds(&rc)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOddsEightDecksExact(t *testing.T) {
	o := mustOdds(t, baccarat.FullShoe(8))
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"sequences 416·415·414·413·412·411", o.Sequences, 416 * 415 * 414 * 413 * 412 * 411},
		{"banker", o.Banker, 2_292_252_566_437_888},
		{"player", o.Player, 2_230_518_282_592_256},
		{"tie", o.Tie, 475_627_426_473_216},
		{"banker+player+tie", o.Banker + o.Player + o.Tie, o.Sequences},
		{"cards4+cards5+cards6", o.Cards4 + o.Cards5 + o.Cards6, o.Sequences},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestOddsFourDecksExact(t *testing.T) {
	o := mustOdds(t, baccarat.FullShoe(4))
	if o.Sequences != 208*207*206*205*204*203 || o.Banker != 34_543_624_867_840 || o.Player != 33_608_344_225_792 {
		t.Errorf("4 decks: banker %d player %d of %d, want 34543624867840 33608344225792", o.Banker, o.Player, o.Sequences)
	}
}

func TestOddsSixDecksExact(t *testing.T) {
	o := mustOdds(t, baccarat.FullShoe(6))
	if o.Sequences != 312*311*310*309*308*307 {
		t.Errorf("sequences = %d", o.Sequences)
	}
	if o.Banker != 403_095_751_234_560 || o.Player != 392_220_492_728_832 || o.Tie != 83_552_962_932_288 {
		t.Errorf("6 decks: banker %d player %d tie %d, want 403095751234560 392220492728832 83552962932288",
			o.Banker, o.Player, o.Tie)
	}
}

// near reports whether got rounds to want at the given number of decimals.
func near(got, want float64, decimals int) bool {
	return math.Abs(got-want) <= 0.5*math.Pow(10, -float64(decimals))+1e-12
}

func TestOddsPublishedEightDecks(t *testing.T) {
	o := mustOdds(t, baccarat.FullShoe(8))
	for _, c := range []struct {
		name  string
		count uint64
		want  float64
	}{
		{"banker", o.Banker, 0.458597},
		{"player", o.Player, 0.446247},
		{"tie", o.Tie, 0.095156},
		{"cards4", o.Cards4, 0.378868},
		{"cards5", o.Cards5, 0.303444},
		{"cards6", o.Cards6, 0.317687},
		{"player pair", o.PlayerPair, 0.074699}, // 31/415
		{"banker pair", o.BankerPair, 0.074699},
		{"dragon7", o.Dragon7, 0.022534},
		{"panda8", o.Panda8, 0.034543},
		{"super6", o.Super6, 0.053864},
	} {
		if p := o.Prob(c.count); !near(p, c.want, 6) {
			t.Errorf("P(%s) = %.7f, want %.6f", c.name, p, c.want)
		}
	}
	pb8 := baccarat.Rules{Game: baccarat.GamePuntoBanco, TiePays: 8}
	pb9 := baccarat.Rules{Game: baccarat.GamePuntoBanco, TiePays: 9}
	s6 := baccarat.Rules{Game: baccarat.GameSuper6, TiePays: 8}
	ez := baccarat.Rules{Game: baccarat.GameEZ, TiePays: 8}
	checkEdges(t, "8 decks", &o, []edgeCase{
		{baccarat.BetBanker, pb8, 1.06},
		{baccarat.BetPlayer, pb8, 1.24},
		{baccarat.BetTie, pb8, 14.36},
		{baccarat.BetTie, pb9, 4.84},
		{baccarat.BetPlayerPair, pb8, 10.36},
		{baccarat.BetBankerPair, pb8, 10.36},
		{baccarat.BetBanker, s6, 1.46},
		{baccarat.BetPlayer, s6, 1.24},
		{baccarat.BetBanker, ez, 1.02},
		{baccarat.BetDragon7, ez, 7.61},
		{baccarat.BetPanda8, ez, 10.19},
	})
}

type edgeCase struct {
	bet     baccarat.Bet
	rules   baccarat.Rules
	percent float64 // published house edge, in percent, two decimals
}

func checkEdges(t *testing.T, name string, o *Odds, cases []edgeCase) {
	t.Helper()
	for _, c := range cases {
		e, ok := o.HouseEdge(c.bet, c.rules)
		if !ok {
			t.Errorf("%s: %s under %+v not offered", name, c.bet, c.rules)
			continue
		}
		if !near(100*e, c.percent, 2) {
			t.Errorf("%s: house edge %s under %+v = %.4f%%, want %.2f%%", name, c.bet, c.rules, 100*e, c.percent)
		}
	}
}

func TestOddsPublishedSixAndOneDeck(t *testing.T) {
	pb := baccarat.Rules{Game: baccarat.GamePuntoBanco, TiePays: 8}
	o6 := mustOdds(t, baccarat.FullShoe(6))
	checkEdges(t, "6 decks", &o6, []edgeCase{
		{baccarat.BetBanker, pb, 1.06},
		{baccarat.BetPlayer, pb, 1.24},
		{baccarat.BetTie, pb, 14.44},
	})
	o1 := mustOdds(t, baccarat.FullShoe(1))
	checkEdges(t, "1 deck", &o1, []edgeCase{
		{baccarat.BetBanker, pb, 1.01},
		{baccarat.BetPlayer, pb, 1.29},
		{baccarat.BetTie, pb, 15.75},
	})
	// 1 deck, exact counts from the reference enumeration (52·51·…·47
	// sequences); the pair count is 3/51 of them.
	if o1.Sequences != 52*51*50*49*48*47 || o1.Banker != 6_737_232_640 || o1.Player != 6_548_674_432 ||
		o1.Tie != 1_372_227_328 || o1.PlayerPair*51 != 3*o1.Sequences {
		t.Errorf("1 deck: %+v", o1)
	}
}

// TestOddsMatchesReference compares every count with the rank-by-rank
// reference enumeration on full shoes and on random depleted shoes down to
// six cards, including shoes missing whole ranks.
func TestOddsMatchesReference(t *testing.T) {
	shoes := []baccarat.RankCounts{baccarat.FullShoe(1), baccarat.FullShoe(8), lateShoe(), {6}, {0, 0, 0, 0, 0, 0, 0, 3, 3}}
	rng := rand.New(rand.NewPCG(3, 1))
	for range 12 {
		rc := baccarat.FullShoe(1 + rng.IntN(8))
		left := 6 + rng.IntN(rc.Total()-5)
		for rc.Total() > left {
			i := rng.IntN(card.NumRanks)
			if rc[i] > 0 {
				rc[i]--
			}
		}
		shoes = append(shoes, rc)
	}
	if testing.Short() {
		shoes = shoes[:5]
	}
	for _, rc := range shoes {
		got := mustOdds(t, rc)
		want := referenceOdds(rc)
		if got != want {
			t.Errorf("shoe %v:\n engine    %+v\n reference %+v", rc, got, want)
		}
	}
}

// TestOddsReferenceKnownCounts pins the reference itself to published
// counts, so the cross-check above cannot pass with both wrong.
func TestOddsReferenceKnownCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("reference enumeration of 8 decks")
	}
	o := referenceOdds(baccarat.FullShoe(8))
	if o.Banker != 2_292_252_566_437_888 || o.Player != 2_230_518_282_592_256 || o.Tie != 475_627_426_473_216 {
		t.Errorf("reference 8 decks: %+v", o)
	}
}

// TestPuntoBancoPlanCells checks every cell of the engine's unrolled
// punto banco table against the reference rule (written by banker total)
// and a few cells spelled out.
func TestPuntoBancoPlanCells(t *testing.T) {
	planDraws := func(bt, p3 int) bool { return puntoBancoPlan.steps[0][bt][p3].draw == 1 }
	for pt := range 8 {
		if got, want := puntoBancoPlan.playerDraws[pt], pt <= 5; got != want {
			t.Errorf("player %d: engine draws=%v, want %v", pt, got, want)
		}
		if got, want := puntoBancoPlan.bankerDraws[pt], pt <= 5; got != want {
			t.Errorf("banker %d, player stood: engine draws=%v, want %v", pt, got, want)
		}
	}
	for bt := range 8 {
		for p3 := range 10 {
			got := planDraws(bt, p3)
			want := refBankerDraws(bt, p3)
			if got != want {
				t.Errorf("banker %d, player third card %d: engine draws=%v, rule says %v", bt, p3, got, want)
			}
		}
	}
	for _, c := range []struct {
		bt, p3 int
		draw   bool
	}{
		{3, 8, false}, {3, 9, true}, {4, 1, false}, {4, 2, true}, {5, 3, false}, {5, 4, true},
		{6, 5, false}, {6, 6, true}, {6, 7, true}, {7, 7, false}, {2, 8, true}, {5, 8, false},
	} {
		if got := planDraws(c.bt, c.p3); got != c.draw {
			t.Errorf("banker %d vs third card %d: draws=%v, want %v", c.bt, c.p3, got, c.draw)
		}
	}
}

func TestOddsErrors(t *testing.T) {
	for _, rc := range []baccarat.RankCounts{
		{},                           // empty
		{5},                          // five cards
		{-1, 8, 8, 8, 8, 8, 8, 8, 8}, // negative
		baccarat.FullShoe(baccarat.MaxOddsCards/52 + 1), // too big for uint64
	} {
		var o Odds
		o.Banker = 1
		err := o.Analyze(&rc)
		if !errors.Is(err, baccarat.ErrOddsShoe) {
			t.Errorf("%v: err = %v, want ErrOddsShoe", rc, err)
		}
		if o != (Odds{}) {
			t.Errorf("%v: odds not zeroed on error: %+v", rc, o)
		}
	}
	// The largest accepted shoe does not overflow: banker+player+tie and
	// the card counts still add up.
	big := baccarat.FullShoe(baccarat.MaxOddsCards / 52)
	o := mustOdds(t, big)
	if o.Banker+o.Player+o.Tie != o.Sequences || o.Cards4+o.Cards5+o.Cards6 != o.Sequences {
		t.Errorf("%v: totals do not add up: %+v", big, o)
	}
	if p := o.Prob(o.Banker); !near(p, 0.4585, 4) { // more decks, slightly less banker
		t.Errorf("%v: P(banker) = %v", big, p)
	}
}

func TestNewRankCounts(t *testing.T) {
	rc, err := baccarat.NewRankCounts(1, []card.Card{{Rank: card.Rank5, Suit: card.Hearts}, {Rank: card.Rank5}, {Rank: card.RankKing, Suit: card.Diamonds}})
	if err != nil {
		t.Fatal(err)
	}
	if rc[card.Rank5-1] != 2 || rc[card.RankKing-1] != 3 || rc.Total() != 49 {
		t.Errorf("counts %v", rc)
	}
	five := []card.Card{{Rank: card.Rank5}, {Rank: card.Rank5}, {Rank: card.Rank5}, {Rank: card.Rank5}, {Rank: card.Rank5, Suit: card.Clubs}}
	_, err = baccarat.NewRankCounts(1, five)
	if !errors.Is(err, baccarat.ErrOddsShoe) {
		t.Fatalf("removing five 5s from one deck: err = %v", err)
	}
	if want := "tableau: odds: cannot remove 5C: no 5 left in the shoe (card 5 of 5 removed)"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	for _, d := range []int{0, -1, baccarat.MaxDecks + 1} {
		if _, err := baccarat.NewRankCounts(d, nil); !errors.Is(err, baccarat.ErrOddsShoe) {
			t.Errorf("decks %d: err = %v", d, err)
		}
	}
	if _, err := baccarat.NewRankCounts(8, []card.Card{{}}); !errors.Is(err, baccarat.ErrOddsShoe) {
		t.Errorf("invalid card: err = %v", err)
	}
}

func TestOddsEVOffered(t *testing.T) {
	o := mustOdds(t, baccarat.FullShoe(8))
	pb := baccarat.Rules{Game: baccarat.GamePuntoBanco, TiePays: 8}
	if _, ok := o.EV(baccarat.BetDragon7, pb); ok {
		t.Error("dragon7 valued under punto-banco")
	}
	if _, ok := o.EV(baccarat.BetPanda8, baccarat.Rules{Game: baccarat.GameSuper6, TiePays: 8}); ok {
		t.Error("panda8 valued under super6")
	}
	if _, ok := o.EV(baccarat.BetTie, baccarat.Rules{Game: baccarat.GameEZ, TiePays: 7}); ok {
		t.Error("tie at 7:1 valued")
	}
	if _, ok := o.EV(baccarat.Bet(99), pb); ok {
		t.Error("unknown bet valued")
	}
	var empty Odds
	if _, ok := empty.EV(baccarat.BetPlayer, pb); ok {
		t.Error("empty odds valued")
	}
	// An invalid game is not valued: TestOddsRefuseAGameOutsideTheRegistry
	// (in baccarat, where such a game can be built).
	// TiePays 0 means 8:1, as in settlement.
	e0, _ := o.HouseEdge(baccarat.BetTie, baccarat.Rules{})
	e8, _ := o.HouseEdge(baccarat.BetTie, pb)
	if e0 != e8 {
		t.Errorf("tie edge with TiePays 0 = %v, with 8 = %v", e0, e8)
	}
	for b, want := range map[baccarat.Bet]string{baccarat.BetBanker: "banker", baccarat.BetPlayer: "player", baccarat.BetTie: "tie",
		baccarat.BetPlayerPair: "player_pair", baccarat.BetBankerPair: "banker_pair", baccarat.BetDragon7: "dragon7", baccarat.BetPanda8: "panda8", baccarat.Bet(99): ""} {
		if got := OddsKey(b); got != want {
			t.Errorf("OddsKey(%v) = %q, want %q", b, got, want)
		}
	}
}

// TestAdvantagesLateShoe: a late EZ shoe stripped of 8s and 9s, where
// Dragon 7 and Panda 8 turn in the player's favour. Expected EVs come from
// the reference enumeration's counts.
func TestAdvantagesLateShoe(t *testing.T) {
	rc := baccarat.RankCounts{3, 3, 3, 3, 5, 5, 5, 5, 1, 1, 6, 6, 6}
	ref := referenceOdds(rc)
	wantD7 := 41*float64(ref.Dragon7)/float64(ref.Sequences) - 1
	wantP8 := 26*float64(ref.Panda8)/float64(ref.Sequences) - 1
	ez := baccarat.Rules{Game: baccarat.GameEZ, TiePays: 8}
	got, err := Advantages(make([]BetEV, 0, 7), &rc, ez, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Bet != baccarat.BetDragon7 || got[1].Bet != baccarat.BetPanda8 ||
		math.Abs(got[0].EV-wantD7) > 1e-12 || math.Abs(got[1].EV-wantP8) > 1e-12 {
		t.Fatalf("advantages %+v, want dragon7 %.6f, panda8 %.6f", got, wantD7, wantP8)
	}
	if wantD7 < 0.04 || wantP8 < 0.02 {
		t.Errorf("test shoe not favourable enough: dragon7 %.4f panda8 %.4f", wantD7, wantP8)
	}
	// A threshold above the Panda 8 edge leaves only Dragon 7.
	got, _ = Advantages(got[:0], &rc, ez, (wantP8+wantD7)/2)
	if len(got) != 1 || got[0].Bet != baccarat.BetDragon7 {
		t.Errorf("threshold between: %+v", got)
	}
	// Punto banco offers neither side bet: nothing to report.
	got, _ = Advantages(got[:0], &rc, baccarat.Rules{Game: baccarat.GamePuntoBanco, TiePays: 8}, 0)
	if len(got) != 0 {
		t.Errorf("punto banco: %+v", got)
	}
	// A fresh shoe has no advantage for any bet.
	full := baccarat.FullShoe(8)
	if got, _ = Advantages(got[:0], &full, ez, 0); len(got) != 0 {
		t.Errorf("fresh shoe: %+v", got)
	}
	// Errors leave dst alone.
	short := baccarat.RankCounts{5}
	if got, err := Advantages(got[:0], &short, ez, 0); err == nil || len(got) != 0 {
		t.Errorf("five cards: %v %v", got, err)
	}
	if _, err := Advantages(nil, &rc, baccarat.Rules{TiePays: 7}, 0); !errors.Is(err, baccarat.ErrRules) {
		t.Errorf("bad rules: %v", err)
	}
	// The per-card check does not allocate.
	dst := make([]BetEV, 0, 7)
	allocs := testing.AllocsPerRun(10, func() { dst, _ = Advantages(dst[:0], &rc, ez, 0) })
	if allocs != 0 {
		t.Errorf("Advantages allocates %.0f times per call", allocs)
	}
}

// coupOdds enumerates every deal of the next coup through issue 2's coup
// state machine (Coup.Deal decides who gets each card and when the coup is
// complete) and counts its facts, in the engine's unit.
func coupOdds(rc baccarat.RankCounts) Odds {
	N := uint64(rc.Total())
	o := Odds{Sequences: N * (N - 1) * (N - 2) * (N - 3) * (N - 4) * (N - 5)}
	per := [7]uint64{4: (N - 4) * (N - 5), 5: N - 5, 6: 1}
	var deal func(c baccarat.Coup, w uint64)
	deal = func(c baccarat.Coup, w uint64) {
		if c.Cards() >= 4 && c.Complete() {
			w *= per[c.Cards()]
			switch c.Winner() {
			case baccarat.WinnerBanker:
				o.Banker += w
			case baccarat.WinnerPlayer:
				o.Player += w
			case baccarat.WinnerTie:
				o.Tie += w
			}
			for _, f := range []struct {
				on bool
				n  *uint64
			}{
				{c.Natural(), &o.Natural}, {c.PlayerPair(), &o.PlayerPair}, {c.BankerPair(), &o.BankerPair},
				{c.Dragon7(), &o.Dragon7}, {c.Panda8(), &o.Panda8}, {c.BankerWinsOn6(), &o.Super6},
				{c.Cards() == 4, &o.Cards4}, {c.Cards() == 5, &o.Cards5}, {c.Cards() == 6, &o.Cards6},
			} {
				if f.on {
					*f.n += w
				}
			}
			return
		}
		for i, n := range rc {
			if n == 0 {
				continue
			}
			rc[i]--
			next := c
			if _, alert := next.Deal(card.Card{Rank: card.Rank(i + 1)}); alert != "" {
				panic(alert)
			}
			deal(next, w*uint64(n))
			rc[i]++
		}
	}
	deal(baccarat.Coup{}, 1)
	return o
}

// TestOddsMatchesCoupStateMachine cross-checks the engine's own inlined
// drawing rules with the coup state machine, and the engine's banker table
// with BankerDraws cell by cell.
func TestOddsMatchesCoupStateMachine(t *testing.T) {
	for bt := range 8 {
		for p3 := range 10 {
			if got, want := puntoBancoPlan.steps[3][bt][p3].draw == 1, baccarat.BankerDraws(bt, p3); got != want {
				t.Errorf("banker %d, third card %d: engine %v, BankerDraws %v", bt, p3, got, want)
			}
		}
	}
	for _, rc := range []baccarat.RankCounts{
		{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{2, 0, 3, 1, 0, 2, 4, 3, 2, 5, 0, 0, 1},
		{0, 4, 0, 2, 3, 0, 3, 0, 0, 2, 2, 2, 0},
		{1, 2, 1, 2, 1, 2, 1, 2, 1, 0, 0, 0, 4},
	} {
		if got, want := mustOdds(t, rc), coupOdds(rc); got != want {
			t.Errorf("shoe %v:\n engine %+v\n coup   %+v", rc, got, want)
		}
	}
}

func TestCompositionRemainingRanks(t *testing.T) {
	comp, err := baccarat.NewComposition(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"5H", "5D", "5C", "5S", "5", "KD", "7"} {
		c, _ := card.ParseCard(s)
		comp.Draw(c)
	}
	rc := comp.RemainingRanks()
	want := baccarat.FullShoe(1)
	want[card.Rank5-1] = 0 // five 5s drawn from one deck: exhausted, not -1
	want[card.RankKing-1] = 3
	want[card.Rank7-1] = 3
	if rc != want {
		t.Errorf("RemainingRanks = %v, want %v", rc, want)
	}
}

// FuzzOddsMatchesReference checks the engine against the reference
// enumeration on arbitrary small shoes (each byte adds a card of rank
// byte mod 13; at most 40 cards so the reference stays fast). Shoes under
// six cards must be rejected, never mis-analysed.
func FuzzOddsMatchesReference(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"))
	f.Add([]byte("\x07\x07\x07\x08\x08\x08\x09\x09"))
	f.Add([]byte("\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var rc baccarat.RankCounts
		for i, x := range b {
			if i == 40 {
				break
			}
			rc[int(x)%card.NumRanks]++
		}
		var o Odds
		err := o.Analyze(&rc)
		if rc.Total() < 6 {
			if err == nil {
				t.Fatalf("%v: %d cards accepted", rc, rc.Total())
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := referenceOdds(rc); o != want {
			t.Fatalf("shoe %v:\n engine    %+v\n reference %+v", rc, o, want)
		}
	})
}
