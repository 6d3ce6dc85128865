package chemin

import (
	"errors"
	"math/big"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
)

// b3Game is the free-table game with the punter seeing the two cards of
// his 5, no commission.
func b3Game(t *testing.T, sees BankerSees, rep bool) *CheminGame {
	t.Helper()
	tab, err := baccarat.CheminDeFer(baccarat.Option, baccarat.FreeTable)
	if err != nil {
		t.Fatal(err)
	}
	return &CheminGame{Table: tab, Sees: sees, Replacement: rep, Commission: cheminBP(t, 0), PunterSeesHand: true}
}

// sub is a − b, count by count.
func (a pwbw) sub(b pwbw) [2]int64 {
	return [2]int64{int64(a.pw) - int64(b.pw), int64(a.bw) - int64(b.bw)}
}

// TestB3CountsSplit: the deals of the punter's 5s, counted apart by their
// two cards, add up to what the punter's choice on 5 changes in the whole
// count (the deals of his other totals are the same whether he draws on
// 5 or not), cell by cell; and the number of deals that bring him each 5
// to decide on equals a direct count over the cards' values.
func TestB3CountsSplit(t *testing.T) {
	for _, tc := range []struct {
		decks int
		sees  BankerSees
		rep   bool
	}{{1, SeesHand, false}, {6, SeesHand, false}, {2, SeesTotal, false}, {1, SeesTotal, true}} {
		g := b3Game(t, tc.sees, tc.rep)
		rc := baccarat.FullShoe(tc.decks)
		cc, err := countChemin(&rc, g)
		if err != nil {
			t.Fatal(err)
		}
		if cc.five == nil {
			t.Fatal("no per-5 counts")
		}
		var base [2]int64
		for k := range numFiveHands {
			d := cc.five[k].base[1].sub(cc.five[k].base[0])
			base[0] += d[0]
			base[1] += d[1]
		}
		if want := cc.base[1].sub(cc.base[0]); base != want {
			t.Errorf("%+v: base: the 5s change %v, the whole count %v", tc, base, want)
		}
		for j, c := range cc.cells {
			for r := range 2 {
				var sum [2]int64
				for k := range numFiveHands {
					d := cc.five[k].act[j][1][r].sub(cc.five[k].act[j][0][r])
					sum[0] += d[0]
					sum[1] += d[1]
				}
				if want := c.act[1][r].sub(c.act[0][r]); sum != want {
					t.Errorf("%+v: cell %s, banker %d: the 5s change %v, the whole count %v", tc, c.cell, r, sum, want)
				}
			}
		}
		// Direct count: ordered deals punter, banker, punter, banker of
		// values p1 b1 p2 b2 with p1+p2 a 5 of the class and b1+b2 not 8
		// or 9, times the orders of the two cards after them.
		var cnt [10]int64
		for i, v := range rc {
			cnt[card.Rank(i+1).Value()] += int64(v)
		}
		n := int64(rc.Total())
		for k, h := range fiveHands {
			var want int64
			for _, p := range [][2]int{{h[0], h[1]}, {h[1], h[0]}} { // no 5 is a pair
				for b1 := range 10 {
					for b2 := range 10 {
						if (b1+b2)%10 >= 8 {
							continue
						}
						w := int64(1)
						left := cnt
						for _, v := range []int{p[0], b1, p[1], b2} {
							w *= left[v]
							if !tc.rep {
								left[v]--
							}
						}
						want += w
					}
				}
			}
			if tc.rep {
				want *= n * n
			} else {
				want *= (n - 4) * (n - 5)
			}
			if got := int64(cc.five[k].deals); got != want {
				t.Errorf("%+v: %d+%d: %d deals, want %d", tc, h[0], h[1], got, want)
			}
		}
	}
}

// TestSolveB3IsEquilibrium checks the solution of the game where the
// punter sees his hand against the equilibrium conditions, computed from
// the counts: the banker draws only where drawing lowers the punter's
// expectation (against the punter's five probabilities), stands only
// where it does not, mixes only where it is the same; the punter draws
// with a 5 only where drawing gains (against the banker's mixture), and so
// on. Seeing his cards can only help the punter: the value is at least
// that of the game where he sees his total. For d = 1, 6 and 8, the
// banker seeing his hand (Model B3) and his total.
func TestSolveB3IsEquilibrium(t *testing.T) {
	decks := []int{1, 6, 8}
	if testing.Short() {
		decks = decks[:1]
	}
	one := big.NewRat(1, 1)
	ri := func(v [2]int64) *big.Rat { return big.NewRat(v[0]-v[1], 1) } // the punter's payoff: wins − losses
	for _, d := range decks {
		for _, sees := range []BankerSees{SeesHand, SeesTotal} {
			g := b3Game(t, sees, false)
			rc := baccarat.FullShoe(d)
			sol, err := SolveChemin(&rc, g)
			if err != nil {
				t.Fatal(err)
			}
			cc, _ := countChemin(&rc, g)
			if len(sol.PunterFives) != numFiveHands {
				t.Fatalf("d=%d: %d fives", d, len(sol.PunterFives))
			}
			x := make([]*big.Rat, numFiveHands)
			for k, f := range sol.PunterFives {
				if f.Cards != fiveHands[k] {
					t.Fatalf("five %d is %v, want %v", k, f.Cards, fiveHands[k])
				}
				x[k] = f.Draw
			}
			check := func(what string, p, gain *big.Rat, wantSign int) {
				// p the probability of the move whose gain (for the side
				// choosing, signed by wantSign) is gain.
				g := new(big.Rat).Mul(gain, big.NewRat(int64(wantSign), 1))
				switch {
				case p.Sign() == 0 && g.Sign() > 0, p.Cmp(one) == 0 && g.Sign() < 0,
					p.Sign() > 0 && p.Cmp(one) < 0 && g.Sign() != 0, p.Sign() < 0, p.Cmp(one) > 0:
					t.Errorf("d=%d sees %s: %s: probability %s but the gain is %s", d, sees, what, p.RatString(), g.FloatString(3))
				}
			}
			for j, c := range cc.cells {
				// The punter's gain when the banker draws at j rather than
				// stands; the banker wants it negative.
				gain := ri(c.act[0][1].sub(c.act[0][0]))
				for k := range numFiveHands {
					f := &cc.five[k].act[j]
					dd := ri(f[1][1].sub(f[0][1]))
					dd.Sub(dd, ri(f[1][0].sub(f[0][0])))
					gain.Add(gain, dd.Mul(dd, x[k]))
				}
				check("banker at "+c.cell.String(), sol.Banker[j].Draw, gain, -1)
			}
			for k := range numFiveHands {
				gain := ri(cc.five[k].base[1].sub(cc.five[k].base[0]))
				for j := range cc.cells {
					q := sol.Banker[j].Draw
					qa := [2]*big.Rat{new(big.Rat).Sub(one, q), q}
					f := &cc.five[k].act[j]
					for r := range 2 {
						dd := ri(f[1][r].sub(f[0][r]))
						gain.Add(gain, dd.Mul(dd, qa[r]))
					}
				}
				check("punter with "+sol.PunterFives[k].String(), x[k], gain, 1)
			}
			sum := new(big.Rat).Add(sol.PunterWin, sol.BankerWin)
			if sum.Add(sum, sol.Tie).Cmp(one) != 0 || sol.Tie.Sign() <= 0 ||
				new(big.Rat).Sub(sol.PunterWin, sol.BankerWin).Cmp(sol.PunterValue) != 0 ||
				new(big.Rat).Neg(sol.PunterValue).Cmp(sol.BankerValue) != 0 {
				t.Errorf("d=%d sees %s: outcomes %s %s %s, values %s %s", d, sees, sol.PunterWin.FloatString(6), sol.BankerWin.FloatString(6),
					sol.Tie.FloatString(6), sol.PunterValue.FloatString(6), sol.BankerValue.FloatString(6))
			}
			b2 := solveFree(t, d, sees, false, 0)
			if sol.PunterValue.Cmp(b2.PunterValue) < 0 {
				t.Errorf("d=%d sees %s: seeing his hand the punter's value is %s, below %s seeing his total", d, sees, sol.PunterValue.FloatString(6), b2.PunterValue.FloatString(6))
			}
			t.Logf("d=%d banker sees %s: punter %v %v, value %.6f (seeing his total %.6f); banker off the tableau %v; unique %v",
				d, sees, sol.PunterFives, []string{x[0].RatString(), x[1].RatString(), x[2].RatString(), x[3].RatString(), x[4].RatString()},
				ratF(sol.PunterValue), ratF(b2.PunterValue), mixedCells(sol), sol.Equilibria == 1)
		}
	}
}

// TestSolveB3Figures pins our Model B3 solutions (the banker sees his
// hand, free table, no commission) for d = 1, 6 and 8: the punter draws
// with 0+5, 6+9 and 7+8, stands with 2+3 and mixes with 1+4. These are our
// figures (TestSolveB3IsEquilibrium checks that they are an equilibrium);
// Ethier and Gámez (2013) solve this model for every d, and their tables
// could not be read here to compare (docs/cli.md).
func TestSolveB3Figures(t *testing.T) {
	for _, tc := range []struct {
		decks int
		five  [numFiveHands]string
		value string
	}{
		{1, [numFiveHands]string{"1", "1/19", "0", "1", "1"}, "-37833961/2901089100"},
		{6, [numFiveHands]string{"1", "35003/74880", "0", "1", "1"}, "-73356216203119/5712649844821920"},
		{8, [numFiveHands]string{"1", "86735/178176", "0", "1", "1"}, "-2789416947665657/217430324984396160"},
	} {
		rc := baccarat.FullShoe(tc.decks)
		sol, err := SolveChemin(&rc, b3Game(t, SeesHand, false))
		if err != nil {
			t.Fatal(err)
		}
		var got [numFiveHands]string
		for k, f := range sol.PunterFives {
			got[k] = f.Draw.RatString()
		}
		if got != tc.five || sol.PunterValue.RatString() != tc.value || sol.Equilibria != 1 {
			t.Errorf("d=%d: punter %v, value %s, unique %v; want %v, %s, unique", tc.decks, got, sol.PunterValue.RatString(), sol.Equilibria == 1, tc.five, tc.value)
		}
	}
}

// TestSolveB3Refused: the punter seeing his hand is solved without
// commission only, and only where his 5 is his option.
func TestSolveB3Refused(t *testing.T) {
	rc := baccarat.FullShoe(6)
	g := b3Game(t, SeesHand, false)
	g.Commission = cheminBP(t, 500)
	if _, err := SolveChemin(&rc, g); !errors.Is(err, ErrCheminSolve) {
		t.Errorf("with 5%% commission: %v, want ErrCheminSolve", err)
	}
	tab, _ := baccarat.CheminDeFer(baccarat.MustDraw, baccarat.FreeTable)
	g = &CheminGame{Table: tab, Sees: SeesHand, Commission: cheminBP(t, 0), PunterSeesHand: true}
	if _, err := SolveChemin(&rc, g); !errors.Is(err, ErrCheminSolve) {
		t.Errorf("with the 5 fixed: %v, want ErrCheminSolve", err)
	}
}

// BenchmarkSolveCheminB3 is `sabot odds --game chemin-de-fer --solve
// --banker-table free --banker-sees hand --punter-sees hand --commission 0`
// on a fresh 6-deck shoe.
func BenchmarkSolveCheminB3(b *testing.B) {
	tab, _ := baccarat.CheminDeFer(baccarat.Option, baccarat.FreeTable)
	rc := baccarat.FullShoe(6)
	c, _ := baccarat.CommissionOf(0)
	g := &CheminGame{Table: tab, Sees: SeesHand, Commission: c, PunterSeesHand: true}
	for b.Loop() {
		if _, err := SolveChemin(&rc, g); err != nil {
			b.Fatal(err)
		}
	}
}
