package chemin

import (
	"fmt"
	"math/big"
)

// This file solves chemin de fer when the punter's choice on 5 may depend
// on the two cards he holds (CheminGame.PunterSeesHand; with the banker
// seeing his hand, Ethier and Gámez's Model B3, a 2^5 × 2^484 matrix game
// for a d-deck shoe). Without commission the game is zero-sum and, each
// deal meeting at most one of the punter's five decisions and at most
// one of the banker's, the punter's payoff is bilinear in the punter's
// five drawing probabilities x and the banker's drawing probabilities y:
//
//	P(x, y) = L(x) + Σ_j y_j·g_j(x),   g_j(x) = g0_j + β_j·x,
//
// with L and every g_j affine in x (exact integer counts). The banker's
// best reply draws at cell j exactly when g_j(x) < 0, so the punter's
// guaranteed payoff f(x) = L(x) + Σ_j min(0, g_j(x)) is concave and
// piecewise affine on the box [0,1]^5, and its maximum is reached at a
// vertex of the arrangement of the box's faces and the hyperplanes
// g_j = 0. Maximising it is a linear programme, solved exactly
// (math/big.Rat) by the simplex method; its dual is the banker's
// mixture, under which the optimal x is a best reply (b3Simplex).

// numFiveHands is the number of the punter's two-card 5s by value.
const numFiveHands = 5

// fiveHands are the punter's two-card 5s by value, low card first.
var fiveHands = [numFiveHands][2]int{{0, 5}, {1, 4}, {2, 3}, {6, 9}, {7, 8}}

// fiveClass returns the index in fiveHands of the hand of values a ≤ b
// (a + b ≡ 5 mod 10).
func fiveClass(a, b uint64) int {
	for k, h := range fiveHands {
		if uint64(h[0]) == a && uint64(h[1]) == b {
			return k
		}
	}
	return -1
}

// CheminFive is the punter's drawing probability with one of his 5s.
type CheminFive struct {
	Cards [2]int // the two card values, low first (tens and faces 0)
	Draw  *big.Rat
}

// String returns "1+4".
func (f CheminFive) String() string { return fmt.Sprintf("%d+%d", f.Cards[0], f.Cards[1]) }

// solveB3 solves the zero-sum game of cc (counted with the punter seeing
// his hand).
func (cc *cheminCounts) solveB3() (CheminSolution, error) {
	const K = numFiveHands
	rat := func(i *big.Int) *big.Rat { return new(big.Rat).SetInt(i) }
	diff := func(a, b pwbw) *big.Rat { return rat(new(big.Int).Sub(a.punter(), b.punter())) }
	n := len(cc.cells)
	// L(x) = l0 + l·x; g_j(x) = g0[j] + beta[j]·x.
	l0 := rat(cc.base[0].punter())
	var l [K]*big.Rat
	for k := range K {
		l[k] = diff(cc.five[k].base[1], cc.five[k].base[0])
	}
	g0 := make([]*big.Rat, n)
	beta := make([][K]*big.Rat, n)
	for j, c := range cc.cells {
		l0.Add(l0, rat(c.act[0][0].punter()))
		g0[j] = diff(c.act[0][1], c.act[0][0])
		for k := range K {
			f := &cc.five[k].act[j]
			l[k].Add(l[k], diff(f[1][0], f[0][0]))
			b := diff(f[1][1], f[0][1])
			beta[j][k] = b.Sub(b, diff(f[1][0], f[0][0]))
		}
	}
	// Cells whose best reply is the same all over the box are fixed (a
	// banker indifferent everywhere stands); the rest are live.
	y := make([]*big.Rat, n)
	var live []int
	for j := range n {
		lo, hi := new(big.Rat).Set(g0[j]), new(big.Rat).Set(g0[j])
		for k := range K {
			if beta[j][k].Sign() < 0 {
				lo.Add(lo, beta[j][k])
			} else {
				hi.Add(hi, beta[j][k])
			}
		}
		switch {
		case lo.Sign() >= 0:
			y[j] = new(big.Rat)
		case hi.Sign() <= 0:
			y[j] = big.NewRat(1, 1)
		default:
			live = append(live, j)
		}
	}
	// The objective keeps the cells fixed at drawing: L + Σ g_j.
	for j := range n {
		if y[j] != nil && y[j].Sign() != 0 {
			for k := range K {
				l[k].Add(l[k], beta[j][k])
			}
		}
	}
	x, yl, unique := b3Simplex(l, live, g0, beta)
	for i, j := range live {
		y[j] = yl[i]
	}
	sol := CheminSolution{Banker: make([]CheminStrategy, n)}
	if unique {
		sol.Equilibria = 1
	}
	for j, c := range cc.cells {
		sol.Banker[j] = CheminStrategy{Cell: c.cell, Draw: y[j]}
	}
	deals, drawn := new(big.Rat), new(big.Rat)
	for k := range K {
		sol.PunterFives = append(sol.PunterFives, CheminFive{Cards: fiveHands[k], Draw: x[k]})
		w := new(big.Rat).SetInt(bigU(cc.five[k].deals))
		deals.Add(deals, w)
		drawn.Add(drawn, w.Mul(w, x[k]))
	}
	sol.PunterDrawsOn5 = new(big.Rat)
	if deals.Sign() > 0 {
		sol.PunterDrawsOn5.Quo(drawn, deals)
	}
	cc.fillB3(&sol, &x, y)
	return sol, nil
}

// fillB3 sets sol's values and outcome probabilities for the punter's
// drawing probabilities x (per 5) and the banker's y (per cell).
func (cc *cheminCounts) fillB3(sol *CheminSolution, x *[numFiveHands]*big.Rat, y []*big.Rat) {
	one := big.NewRat(1, 1)
	pw, bw := new(big.Rat), new(big.Rat)
	add := func(w *big.Rat, a, b pwbw, sign int) { // w·(a − b) if sign < 0, else w·a
		p, q := new(big.Rat).SetInt(bigU(a.pw)), new(big.Rat).SetInt(bigU(a.bw))
		if sign < 0 {
			p.Sub(p, new(big.Rat).SetInt(bigU(b.pw)))
			q.Sub(q, new(big.Rat).SetInt(bigU(b.bw)))
		}
		pw.Add(pw, p.Mul(p, w))
		bw.Add(bw, q.Mul(q, w))
	}
	add(one, cc.base[0], pwbw{}, 1)
	for k := range numFiveHands {
		add(x[k], cc.five[k].base[1], cc.five[k].base[0], -1)
	}
	for j, c := range cc.cells {
		ws := [2]*big.Rat{new(big.Rat).Sub(one, y[j]), y[j]}
		for r := range 2 {
			add(ws[r], c.act[0][r], pwbw{}, 1)
			for k := range numFiveHands {
				f := &cc.five[k].act[j]
				add(new(big.Rat).Mul(ws[r], x[k]), f[1][r], f[0][r], -1)
			}
		}
	}
	cc.setOutcomes(sol, pw, bw, new(big.Rat)) // no commission
}

// b3Simplex maximises l·x + Σ_i min(0, g0[j]+beta[j]·x) over x in
// [0,1]^5, for the live cells j = live[i], as the linear programme
//
//	max l·x − Σ u_i   s.t.  −beta[j]·x − u_i ≤ g0[j],  x_k ≤ 1,  x, u ≥ 0
//
// by the simplex method in rationals with Bland's rule (which cannot
// cycle). The start is feasible without a first phase: x = 0, u_i =
// max(0, −g0[j]). It returns the optimal x, the constraints' shadow prices
// (the dual: the banker's drawing probability at each live cell, in
// [0,1] since u_i costs 1, under which x is a best reply), and whether
// the optimum is unique (every non-basic reduced cost positive: a
// sufficient test).
func b3Simplex(l [numFiveHands]*big.Rat, live []int, g0 []*big.Rat, beta [][numFiveHands]*big.Rat) (x [numFiveHands]*big.Rat, y []*big.Rat, unique bool) {
	const K = numFiveHands
	L := len(live)
	nv := 2*K + 2*L // x, u, s (the live rows' slacks), t (the box rows')
	xi := func(k int) int { return k }
	ui := func(i int) int { return K + i }
	si := func(i int) int { return K + L + i }
	ti := func(k int) int { return K + 2*L + k }
	rows := L + K
	a := make([][]*big.Rat, rows)
	rhs := make([]*big.Rat, rows)
	basis := make([]int, rows)
	for r := range rows {
		a[r] = make([]*big.Rat, nv)
		for v := range nv {
			a[r][v] = new(big.Rat)
		}
	}
	for i, j := range live {
		neg := g0[j].Sign() < 0 // u_i basic: the row times −1
		sg := int64(1)
		if neg {
			sg = -1
		}
		for k := range K {
			a[i][xi(k)].Mul(beta[j][k], big.NewRat(-sg, 1))
		}
		a[i][ui(i)].SetInt64(-sg)
		a[i][si(i)].SetInt64(sg)
		rhs[i] = new(big.Rat).Mul(g0[j], big.NewRat(sg, 1))
		basis[i] = si(i)
		if neg {
			basis[i] = ui(i)
		}
	}
	for k := range K {
		r := L + k
		a[r][xi(k)].SetInt64(1)
		a[r][ti(k)].SetInt64(1)
		rhs[r] = big.NewRat(1, 1)
		basis[r] = ti(k)
	}
	// The objective row: reduced costs d_v = c_B·B⁻¹·A_v − c_v, and z.
	d := make([]*big.Rat, nv)
	for v := range nv {
		d[v] = new(big.Rat)
	}
	for k := range K {
		d[xi(k)].Neg(l[k])
	}
	for i := range L {
		d[ui(i)].SetInt64(1)
	}
	z := new(big.Rat)
	t := new(big.Rat)
	eliminate := func(r, col int) { // zero column col of d using row r (a[r][col] = 1)
		if f := new(big.Rat).Set(d[col]); f.Sign() != 0 {
			for v := range nv {
				d[v].Sub(d[v], t.Mul(f, a[r][v]))
			}
			z.Sub(z, t.Mul(f, rhs[r]))
		}
	}
	for r := range rows {
		eliminate(r, basis[r])
	}
	for {
		enter := -1
		for v := range nv {
			if d[v].Sign() < 0 {
				enter = v
				break
			}
		}
		if enter < 0 {
			break
		}
		leave := -1
		var best *big.Rat
		for r := range rows {
			if a[r][enter].Sign() <= 0 {
				continue
			}
			q := new(big.Rat).Quo(rhs[r], a[r][enter])
			if leave < 0 || q.Cmp(best) < 0 || (q.Cmp(best) == 0 && basis[r] < basis[leave]) {
				leave, best = r, q
			}
		}
		if leave < 0 {
			break // unbounded: impossible, x is boxed and u only costs
		}
		p := new(big.Rat).Set(a[leave][enter])
		for v := range nv {
			a[leave][v].Quo(a[leave][v], p)
		}
		rhs[leave].Quo(rhs[leave], p)
		for r := range rows {
			if r == leave || a[r][enter].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Set(a[r][enter])
			for v := range nv {
				a[r][v].Sub(a[r][v], t.Mul(f, a[leave][v]))
			}
			rhs[r].Sub(rhs[r], t.Mul(f, rhs[leave]))
		}
		basis[leave] = enter
		eliminate(leave, enter)
	}
	for k := range K {
		x[k] = new(big.Rat)
	}
	isBasic := make([]bool, nv)
	for r, v := range basis {
		isBasic[v] = true
		if v < K {
			x[v].Set(rhs[r])
		}
	}
	y = make([]*big.Rat, L)
	for i := range L {
		y[i] = new(big.Rat).Set(d[si(i)])
	}
	unique = true
	for v := range nv {
		if !isBasic[v] && d[v].Sign() == 0 {
			unique = false
		}
	}
	return x, y, unique
}
