package chemin

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
	"github.com/sabot-table/sabot/tableau/odds"
)

// refCheminKey names a banker cell in the reference: his total (or, with
// the hand, its two values low first) and the punter's third card.
type refCheminKey struct {
	bt, d, e, third int
}

// refChemin is the rank-by-rank reference of countChemin: it deals P1,
// B1, P2, B2 and the third cards rank by rank (13 ranks, with or without
// replacement), follows g.Table, and at an option of the banker follows
// both replies, tallying them per cell; at the punter's option on 5 it
// follows both (s = 0 stands, 1 draws). It shares no code with
// countChemin.
func refChemin(rc baccarat.RankCounts, g *CheminGame) (base [2]pwbw, cells map[refCheminKey]*[2][2]pwbw) {
	cells = map[refCheminKey]*[2][2]pwbw{}
	n := rc
	N := uint64(rc.Total())
	val := func(r int) int { return card.Rank(r + 1).Value() }
	// per[k]: the remaining positions of the six-card unit after k cards.
	per := [7]uint64{4: (N - 4) * (N - 5), 5: N - 5, 6: 1}
	if g.Replacement {
		per = [7]uint64{4: N * N, 5: N, 6: 1}
	}
	take := func(r int) uint64 {
		w := uint64(n[r])
		if !g.Replacement && w > 0 {
			n[r]--
		}
		return w
	}
	give := func(r int) {
		if !g.Replacement {
			n[r]++
		}
	}
	result := func(w uint64, pt, bt int) pwbw {
		switch {
		case pt > bt:
			return pwbw{pw: w}
		case bt > pt:
			return pwbw{bw: w}
		}
		return pwbw{}
	}
	var p1, b1, p2, b2 int
	// banker plays at column third (-1 stood) with k cards dealt.
	banker := func(s int, w uint64, k, pt, b1, b2, third int, into *pwbw) {
		bt := (val(b1) + val(b2)) % 10
		key := refCheminKey{bt: bt, d: -1, e: -1, third: third}
		if g.Sees == SeesHand {
			d, e := val(b1), val(b2)
			if d > e {
				d, e = e, d
			}
			key.d, key.e = d, e
		}
		rule := g.Table.BankerRule(bt, third)
		stand := result(w*per[k], pt, bt)
		var draw pwbw
		for r := range card.NumRanks {
			if w6 := w * take(r); w6 > 0 {
				draw.add(result(w6*per[k+1], pt, (bt+val(r))%10))
				give(r)
			}
		}
		switch rule {
		case baccarat.MustStand:
			into.add(stand)
		case baccarat.MustDraw:
			into.add(draw)
		default:
			c := cells[key]
			if c == nil {
				c = new([2][2]pwbw)
				cells[key] = c
			}
			c[s][0].add(stand)
			c[s][1].add(draw)
		}
	}
	for p1 = range card.NumRanks {
		w1 := take(p1)
		if w1 == 0 {
			continue
		}
		for b1 = range card.NumRanks {
			w2 := w1 * take(b1)
			if w2 == 0 {
				continue
			}
			for p2 = range card.NumRanks {
				w3 := w2 * take(p2)
				if w3 == 0 {
					continue
				}
				for b2 = range card.NumRanks {
					w4 := w3 * take(b2)
					if w4 == 0 {
						continue
					}
					pt := (val(p1) + val(p2)) % 10
					bt := (val(b1) + val(b2)) % 10
					if pt >= 8 || bt >= 8 {
						r := result(w4*per[4], pt, bt)
						base[0].add(r)
						base[1].add(r)
					} else {
						for s := range 2 {
							draws := g.Table.PunterRule(pt) == baccarat.MustDraw || (g.Table.PunterRule(pt) == baccarat.Option && s == 1)
							if !draws {
								banker(s, w4, 4, pt, b1, b2, baccarat.NoThirdCard, &base[s])
								continue
							}
							for r := range card.NumRanks {
								if w5 := w4 * take(r); w5 > 0 {
									banker(s, w5, 5, (pt+val(r))%10, b1, b2, val(r), &base[s])
									give(r)
								}
							}
						}
					}
					give(b2)
				}
				give(p2)
			}
			give(b1)
		}
		give(p1)
	}
	return base, cells
}

// compareChemin checks countChemin against refChemin cell by cell.
func compareChemin(t interface {
	Fatalf(string, ...any)
}, rc baccarat.RankCounts, g *CheminGame) {
	cc, err := countChemin(&rc, g)
	if err != nil {
		t.Fatalf("%v", err)
	}
	base, cells := refChemin(rc, g)
	if cc.base != base {
		t.Fatalf("shoe %v %+v: base %+v, reference %+v", rc, g, cc.base, base)
	}
	seen := 0
	for _, c := range cc.cells {
		key := refCheminKey{bt: c.cell.Total, d: -1, e: -1, third: c.cell.Third}
		if c.cell.Hand {
			key.d, key.e = c.cell.Cards[0], c.cell.Cards[1]
		}
		want := cells[key]
		if want == nil {
			if c.act != ([2][2]pwbw{}) {
				t.Fatalf("shoe %v: cell %s %+v not in the reference", rc, c.cell, c.act)
			}
			continue
		}
		seen++
		if c.act != *want {
			t.Fatalf("shoe %v %+v: cell %s %+v, reference %+v", rc, g, c.cell, c.act, *want)
		}
	}
	if seen != len(cells) {
		t.Fatalf("shoe %v: %d cells, reference %d", rc, seen, len(cells))
	}
}

// TestCheminCountsMatchReference: on random small shoes, for the Scarne
// and the free banker tables, the banker seeing his total or his hand,
// with and without replacement, every cell's counts equal the
// rank-by-rank reference's.
func TestCheminCountsMatchReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rc := dealtest.RandomShoe(t, 18)
		five := []baccarat.Rule{baccarat.MustStand, baccarat.MustDraw, baccarat.Option}[rapid.IntRange(0, 2).Draw(t, "five")]
		tab, err := baccarat.CheminDeFer(five, baccarat.BankerTable(rapid.IntRange(0, 1).Draw(t, "banker")))
		if err != nil {
			t.Fatal(err)
		}
		g := &CheminGame{Table: tab, Sees: BankerSees(rapid.IntRange(0, 1).Draw(t, "sees")),
			Replacement: rapid.Bool().Draw(t, "replacement")}
		compareChemin(t, rc, g)
	})
}

// TestCheminCountsFullDeck is the same check on a whole deck, free table,
// the banker seeing his hand.
func TestCheminCountsFullDeck(t *testing.T) {
	if testing.Short() {
		t.Skip("rank-by-rank enumeration of a deck")
	}
	tab, _ := baccarat.CheminDeFer(baccarat.Option, baccarat.FreeTable)
	compareChemin(t, baccarat.FullShoe(1), &CheminGame{Table: tab, Sees: SeesHand})
}

// TestCheminCountsMatchEngine: a pure strategy pair read off countChemin
// (base plus the chosen reply at every cell) gives the same punter and
// bank wins as the odds engine on the table with those options chosen,
// with the banker seeing his total or his hand (a choice by total for
// every hand of that total).
func TestCheminCountsMatchEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 5))
	for range 40 { // seeded; countChemin is the cost (a few ms each)
		var rc baccarat.RankCounts
		if rng.IntN(2) == 0 {
			rc = baccarat.FullShoe(1 + rng.IntN(8))
		} else {
			rc = baccarat.FullShoe(2)
			for left := 6 + rng.IntN(99); rc.Total() > left; {
				if i := rng.IntN(card.NumRanks); rc[i] > 0 {
					rc[i]--
				}
			}
		}
		tab, err := baccarat.CheminDeFer(baccarat.Option, baccarat.BankerTable(rng.IntN(2)))
		if err != nil {
			t.Fatal(err)
		}
		g := &CheminGame{Table: tab, Sees: BankerSees(rng.IntN(2))}
		cc, err := countChemin(&rc, g)
		if err != nil {
			t.Fatal(err)
		}
		s := rng.IntN(2)
		fixed, _ := tab.Choose(baccarat.Cell{Total: 5}, []baccarat.Rule{baccarat.MustStand, baccarat.MustDraw}[s])
		choice := map[[2]int]int{}
		for _, c := range tab.Options() {
			if !c.Banker {
				continue
			}
			a := rng.IntN(2)
			choice[[2]int{c.Total, c.Third}] = a
			if fixed, err = fixed.Choose(c, []baccarat.Rule{baccarat.MustStand, baccarat.MustDraw}[a]); err != nil {
				t.Fatal(err)
			}
		}
		got := cc.base[s]
		for _, c := range cc.cells {
			got.add(c.act[s][choice[[2]int{c.cell.Total, c.cell.Third}]])
		}
		var o odds.Odds
		if err := o.AnalyzeTable(&rc, &fixed); err != nil {
			t.Fatal(err)
		}
		if got.pw != o.Player || got.bw != o.Banker || cc.seq != o.Sequences {
			t.Fatalf("shoe %v: counts %+v of %d, engine player %d banker %d of %d", rc, got, cc.seq, o.Player, o.Banker, o.Sequences)
		}
	}
}

func solveFree(t *testing.T, decks int, sees BankerSees, rep bool, bp int) CheminSolution {
	t.Helper()
	tab, err := baccarat.CheminDeFer(baccarat.Option, baccarat.FreeTable)
	if err != nil {
		t.Fatal(err)
	}
	rc := baccarat.FullShoe(decks)
	sol, err := SolveChemin(&rc, &CheminGame{Table: tab, Sees: sees, Replacement: rep, Commission: cheminBP(t, bp)})
	if err != nil {
		t.Fatal(err)
	}
	return sol
}

func ratF(r *big.Rat) float64 { f, _ := r.Float64(); return f }

// mixedCells lists the cells where sol's banker does not follow the punto
// banco tableau (stand or draw as printed), with his probability.
func mixedCells(sol CheminSolution) map[string]string {
	out := map[string]string{}
	for _, b := range sol.Banker {
		pb := baccarat.PuntoBanco.BankerRule(b.Cell.Total, b.Cell.Third) == baccarat.MustDraw
		if (pb && b.Draw.Cmp(big.NewRat(1, 1)) != 0) || (!pb && b.Draw.Sign() != 0) {
			out[b.Cell.String()] = b.Draw.RatString()
		}
	}
	return out
}

// TestSolveKemenySnell: cards dealt with replacement from one deck, each
// side seeing only his total, no commission: Kemeny and Snell's (1957)
// unique solution has the punter drawing on 5 with probability 9/11 and
// the game worth about 1.28% to the banker. The banker's strategy is the
// punto banco tableau except on 6 when the punter stood, where he draws
// with probability 859/2288 (our figure; exact rationals of ours pinned
// below).
func TestSolveKemenySnell(t *testing.T) {
	sol := solveFree(t, 1, SeesTotal, true, 0)
	if sol.PunterDrawsOn5.Cmp(big.NewRat(9, 11)) != 0 {
		t.Errorf("punter draws on 5 with %s, want 9/11", sol.PunterDrawsOn5.RatString())
	}
	if v := ratF(sol.BankerValue); v < 0.01275 || v > 0.01285 {
		t.Errorf("banker's value %.6f, want 0.0128", v)
	}
	if got, want := sol.PunterValue.RatString(), "-679568/53094899"; got != want {
		t.Errorf("value %s, want %s", got, want)
	}
	m := mixedCells(sol)
	if len(m) != 1 || m["6/stood"] != "859/2288" {
		t.Errorf("banker departs from the tableau at %v, want only 6/stood at 859/2288", m)
	}
	if sol.Equilibria != 1 {
		t.Errorf("%d equilibria", sol.Equilibria)
	}
}

// TestSolveIsEquilibrium checks the equilibrium conditions of each
// solution directly from the counts: where the banker mixes he is
// indifferent, where he draws (stands) drawing is no worse (no better);
// the punter mixing on 5 is indifferent. For d = 1, 6 and 8, the banker
// seeing his total or his hand, with and without the 5% commission.
func TestSolveIsEquilibrium(t *testing.T) {
	decks := []int{1, 6, 8}
	if testing.Short() {
		decks = decks[:1]
	}
	for _, d := range decks {
		for _, sees := range []BankerSees{SeesTotal, SeesHand} {
			for _, alpha := range []int{0, 500} {
				tab, _ := baccarat.CheminDeFer(baccarat.Option, baccarat.FreeTable)
				rc := baccarat.FullShoe(d)
				g := &CheminGame{Table: tab, Sees: sees, Commission: cheminBP(t, alpha)}
				sol, err := SolveChemin(&rc, g)
				if err != nil {
					t.Fatal(err)
				}
				cc, _ := countChemin(&rc, g)
				checkEquilibrium(t, cc, sol, alpha)
				t.Logf("d=%d sees %s commission %v: punter draws on 5 %s (%.6f), value %.6f to the punter, %.6f to the bank; %d banker cells off the tableau: %v",
					d, sees, alpha, sol.PunterDrawsOn5.RatString(), ratF(sol.PunterDrawsOn5), ratF(sol.PunterValue), ratF(sol.BankerValue), len(mixedCells(sol)), mixedCells(sol))
			}
		}
	}
}

func cheminBP(t testing.TB, bp int) baccarat.Commission {
	c, err := baccarat.CommissionOf(bp)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkEquilibrium(t *testing.T, cc *cheminCounts, sol CheminSolution, bp int) {
	t.Helper()
	a := big.NewRat(int64(bp), 10000)
	x := sol.PunterDrawsOn5
	one := big.NewRat(1, 1)
	ws := [2]*big.Rat{new(big.Rat).Sub(one, x), x}
	ri := func(i *big.Int) *big.Rat { return new(big.Rat).SetInt(i) }
	d := ri(new(big.Int).Sub(cc.base[1].punter(), cc.base[0].punter()))
	for i, c := range cc.cells {
		q := sol.Banker[i].Draw
		if sol.Banker[i].Cell != c.cell {
			t.Fatalf("cell %d: %s, want %s", i, sol.Banker[i].Cell, c.cell)
		}
		gain := new(big.Rat)
		for s := range 2 {
			g := ri(new(big.Int).Sub(c.act[s][1].banker(a.Num(), a.Denom()), c.act[s][0].banker(a.Num(), a.Denom())))
			gain.Add(gain, g.Mul(g, ws[s]))
		}
		switch {
		case q.Sign() == 0 && gain.Sign() > 0, q.Cmp(one) == 0 && gain.Sign() < 0,
			q.Sign() > 0 && q.Cmp(one) < 0 && gain.Sign() != 0:
			t.Errorf("cell %s: banker draws with %s but drawing gains %s", c.cell, q.RatString(), gain.FloatString(3))
		}
		qa := [2]*big.Rat{new(big.Rat).Sub(one, q), q}
		for r := range 2 {
			dd := ri(new(big.Int).Sub(c.act[1][r].punter(), c.act[0][r].punter()))
			d.Add(d, dd.Mul(dd, qa[r]))
		}
	}
	switch {
	case x.Sign() == 0 && d.Sign() > 0, x.Cmp(one) == 0 && d.Sign() < 0,
		x.Sign() > 0 && x.Cmp(one) < 0 && d.Sign() != 0:
		t.Errorf("punter draws on 5 with %s but drawing gains %s", x.RatString(), d.FloatString(3))
	}
}

// BenchmarkSolveChemin is `sabot odds --game chemin-de-fer --solve` on a
// fresh 6-deck shoe (free banker table, the banker seeing his hand: the
// largest game, 484 cells), the target being under a second.
func BenchmarkSolveChemin(b *testing.B) {
	tab, _ := baccarat.CheminDeFer(baccarat.Option, baccarat.FreeTable)
	rc := baccarat.FullShoe(6)
	g := &CheminGame{Table: tab, Sees: SeesHand} // the usual 5%
	for b.Loop() {
		if _, err := SolveChemin(&rc, g); err != nil {
			b.Fatal(err)
		}
	}
}
