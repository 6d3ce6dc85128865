package odds

import (
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
)

// refBanque deals a banque coup rank by rank in the casino's order (right,
// left, banker, right, left, banker, then the third cards in turn) with
// card removal, applying the rules as written in banque_odds.go's file
// comment, and counts each tableau's results (win, lose, tie) in ordered
// nine-card sequences. It shares no code with AnalyzeBanque; for small
// shoes only (the counts are uint64).
func refBanque(rc baccarat.RankCounts, g *BanqueGame) (right, left [3]uint64, nat uint64) {
	n := rc
	N := rc.Total()
	val := func(r int) int { return card.Rank(r + 1).Value() }
	tally := func(w uint64, k, rf, lf, bf int, natural bool) {
		for i := k; i < 9; i++ {
			w *= uint64(N - i)
		}
		res := func(f int) int {
			switch {
			case f > bf:
				return 0
			case f < bf:
				return 1
			}
			return 2
		}
		right[res(rf)] += w
		left[res(lf)] += w
		if natural {
			nat += w
		}
	}
	fiveRule := func(t int, five baccarat.Rule) bool { return t <= 4 || (t == 5 && five == baccarat.MustDraw) }
	var deal func(cards []int, w uint64)
	more := func(cards []int, w uint64) { // deal the next card, rank by rank
		for r := range card.NumRanks {
			if n[r] == 0 {
				continue
			}
			x := w * uint64(n[r])
			n[r]--
			deal(append(cards, r), x)
			n[r]++
		}
	}
	deal = func(cards []int, w uint64) {
		// cards: R1 L1 B1 R2 L2 B2, then the third cards drawn so far.
		if len(cards) < 6 {
			more(cards, w)
			return
		}
		rt := (val(cards[0]) + val(cards[3])) % 10
		lt := (val(cards[1]) + val(cards[4])) % 10
		bt := (val(cards[2]) + val(cards[5])) % 10
		if bt >= 8 {
			tally(w, 6, rt, lt, bt, true)
			return
		}
		extra := cards[6:]
		i := 0
		state := func(t int, five baccarat.Rule) (draws bool, st int) {
			if t >= 8 {
				return false, BanqueNatural
			}
			if fiveRule(t, five) {
				return true, -1
			}
			return false, BanqueStood
		}
		rDraws, rs := state(rt, g.RightFive)
		lDraws, ls := state(lt, g.LeftFive)
		rf, lf := rt, lt
		if rDraws {
			if i >= len(extra) {
				more(cards, w)
				return
			}
			rs = val(extra[i])
			rf = (rt + rs) % 10
			i++
		}
		if lDraws {
			if i >= len(extra) {
				more(cards, w)
				return
			}
			ls = val(extra[i])
			lf = (lt + ls) % 10
			i++
		}
		bf := bt
		// Both tableaux natural: the banker has no turn (issue 22).
		if g.Banker.Draw[bt][rs][ls] && (rs != BanqueNatural || ls != BanqueNatural) {
			if i >= len(extra) {
				more(cards, w)
				return
			}
			bf = (bt + val(extra[i])) % 10
		}
		tally(w, len(cards), rf, lf, bf, false)
	}
	deal(nil, 1)
	return
}

func randomBanqueGame(rng *rand.Rand) BanqueGame {
	g := BanqueGame{
		RightFive: []baccarat.Rule{baccarat.MustStand, baccarat.MustDraw}[rng.IntN(2)],
		LeftFive:  []baccarat.Rule{baccarat.MustStand, baccarat.MustDraw}[rng.IntN(2)],
	}
	for bt := range 8 {
		for r := range 12 {
			for l := range 12 {
				g.Banker.Draw[bt][r][l] = rng.IntN(2) == 1
			}
		}
	}
	return g
}

// TestBanqueMatchesReference: on random shoes of 9 to 11 cards and random
// strategies (any banker table), every count equals the rank-by-rank
// reference dealt in the casino's order. (The reference is slow: 20
// cases, seeded; SABOT_BANQUE_CASES=N for more.)
func TestBanqueMatchesReference(t *testing.T) {
	cases := 20
	if s := os.Getenv("SABOT_BANQUE_CASES"); s != "" {
		cases, _ = strconv.Atoi(s)
	}
	rng := rand.New(rand.NewPCG(14, 9))
	for range cases {
		var rc baccarat.RankCounts
		for size := 9 + rng.IntN(3); rc.Total() < size; {
			rc[rng.IntN(card.NumRanks)]++
		}
		g := randomBanqueGame(rng)
		o, err := AnalyzeBanque(&rc, &g)
		if err != nil {
			t.Fatal(err)
		}
		right, left, nat := refBanque(rc, &g)
		got := [][3]*big.Int{{o.Right.Win, o.Right.Lose, o.Right.Tie}, {o.Left.Win, o.Left.Lose, o.Left.Tie}}
		for s, want := range [][3]uint64{right, left} {
			for i := range 3 {
				if !got[s][i].IsUint64() || got[s][i].Uint64() != want[i] {
					t.Fatalf("shoe %v side %d result %d: %s, reference %d", rc, s, i, got[s][i], want[i])
				}
			}
		}
		if !o.BankerNatural.IsUint64() || o.BankerNatural.Uint64() != nat {
			t.Fatalf("banker naturals %s, reference %d", o.BankerNatural, nat)
		}
		sum := new(big.Int).Add(o.Right.Win, o.Right.Lose)
		if sum.Add(sum, o.Right.Tie).Cmp(o.Sequences) != 0 {
			t.Fatalf("right's results sum to %s of %s", sum, o.Sequences)
		}
	}
}

// TestBanqueSymmetric: the shoe is exchangeable, so with the same rule on
// 5 for both tableaux and a banker whose table is symmetric in them the
// right and left tableaux fare exactly alike, whatever the shoe.
func TestBanqueSymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 10))
	for range 3 {
		rc := baccarat.FullShoe(1 + rng.IntN(4))
		for range rng.IntN(40) {
			if i := rng.IntN(card.NumRanks); rc[i] > 0 {
				rc[i]--
			}
		}
		g := randomBanqueGame(rng)
		g.LeftFive = g.RightFive
		for bt := range 8 {
			for r := range 12 {
				for l := range r {
					g.Banker.Draw[bt][l][r] = g.Banker.Draw[bt][r][l]
				}
			}
		}
		o, err := AnalyzeBanque(&rc, &g)
		if err != nil {
			t.Fatal(err)
		}
		if o.Right.Win.Cmp(o.Left.Win) != 0 || o.Right.Lose.Cmp(o.Left.Lose) != 0 {
			t.Fatalf("shoe %v: right %v, left %v", rc, o.Right, o.Left)
		}
	}
}

func TestParseBanqueBanker(t *testing.T) {
	b, err := ParseBanqueBanker("")
	if err != nil || b != DefaultBanqueBanker {
		t.Fatalf("empty: %v", err)
	}
	if !b.Draw[5][BanqueStood][3] || b.Draw[6][6][6] {
		t.Error("default banker: draws on 0–5, stands on 6–7")
	}
	b, err = ParseBanqueBanker("6/6/*=draw, 6/*/6=draw, 5/n/*=stand, */s/s=stand")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		t, r, l int
		draw    bool
	}{
		{6, 6, BanqueStood, true}, {6, 2, 6, true}, {6, 2, 3, false}, {5, BanqueNatural, 3, false},
		{5, 3, BanqueNatural, true}, {3, BanqueStood, BanqueStood, false}, {6, 6, 6, true},
	} {
		if b.Draw[c.t][c.r][c.l] != c.draw {
			t.Errorf("%d/%d/%d: draw=%v, want %v", c.t, c.r, c.l, b.Draw[c.t][c.r][c.l], c.draw)
		}
	}
	for _, c := range []struct{ s, msg string }{
		{"6/6=draw", "three parts"},
		{"8/*/*=draw", `banker total "8"`},
		{"6/x/*=draw", `tableau state "x"`},
		{"6/*/*", "no '='"},
		{"6/*/*=hit", `"hit" is not draw or stand`},
	} {
		if _, err := ParseBanqueBanker(c.s); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: %v, want %q", c.s, err, c.msg)
		}
	}
}

// BenchmarkAnalyzeBanque is a fresh 3-deck banque shoe.
func BenchmarkAnalyzeBanque(b *testing.B) {
	rc := baccarat.FullShoe(3)
	g := BanqueGame{RightFive: baccarat.MustDraw, LeftFive: baccarat.MustDraw, Banker: DefaultBanqueBanker}
	for b.Loop() {
		if _, err := AnalyzeBanque(&rc, &g); err != nil {
			b.Fatal(err)
		}
	}
}
