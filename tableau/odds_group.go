package tableau

// drawGroup holds, for one player hand on a total pt on which the player
// draws and one banker two-card total bt (0–7), the third-card sums over the cards left after the
// player's two cards (c1). Each banker hand with total bt then removes its
// two cards d, e from c1; drawGroup.add corrects the sums for that removal
// exactly in a constant number of operations (the sums are at most
// quadratic in the counts), instead of recounting all third cards.
type drawGroup struct {
	plan   [10]drawStep // a copy: a pointer into the plan would move the plan to the heap
	pt, bt uint64
	R      [10]uint64 // R[k]: cards in c1 that would bring the banker from bt to k
	L      [11]uint64 // L[k] = R[0] + … + R[k-1]
	H      [10]uint64 // H[f]: cards in c1 on which the banker draws that give the player f
	G      [10]uint64 // G[t] = H[t+1] + … + H[9]

	n6, less, eq, ltc, d7, s6, b5, p5 uint64 // the sums over c1 (see init)
}

// init computes the sums over c1 for player total pt and banker total bt.
func (g *drawGroup) init(c1 *[10]uint64, plan *oddsPlan, pt, bt uint64) {
	*g = drawGroup{plan: plan.steps[pt][bt], pt: pt, bt: bt}
	for k := uint64(0); k < 10; k++ {
		g.R[k] = c1[mod10[k+10-bt]]
		g.L[k+1] = g.L[k] + g.R[k]
	}
	for p3 := range 10 {
		st := &g.plan[p3]
		n3 := c1[p3]
		x := n3 * uint64(st.draw)
		fp := st.fp
		g.H[fp] = x
		g.n6 += x
		g.less += x * g.L[fp]
		g.eq += x * g.R[fp]
		g.ltc += n3 * uint64(st.ltc)
		g.d7 += n3 * uint64(st.d7)
		g.s6 += n3 * uint64(st.s6)
		g.b5 += n3 * uint64(st.bw)
		g.p5 += n3 * uint64(st.pw)
	}
	for t := 8; t >= 0; t-- {
		g.G[t] = g.G[t+1] + g.H[t+1]
	}
}

// add counts the banker hand {d, e} (total bt, weight w4 in four-card
// sequences; N4 cards left after it) into l5 and l6. c1 is the shoe after
// the player's two cards, c2 = c1 − {d, e} the shoe after the banker's.
//
// For each player third card p3 (c2[p3] ways) the banker either stands
// (five cards: compare fp with bt) or draws from the N4−1 cards left, of
// which R2[k] − [p3 would bring the banker to k] bring the banker to k
// (R2 is R over c2). So, summed over p3 on which the banker draws:
// less = Σ c2[p3]·(L2[fp] − [bq < fp]) six-card deals the player wins,
// eq = Σ c2[p3]·(R2[fp] − [bq = fp]) ties, the rest banker wins, with
// Dragon 7, banker 6 and Panda 8 counted the same way.
//
// Every such sum is linear or bilinear in c2 = c1 − δ (δ the banker's two
// cards): Σ c2·f = Σ c1·f − f(d) − f(e), and B(c2, c2) = B(c1, c1) −
// B(δ, c1) − B(c1, δ) + B(δ, δ) for B(u, v) = Σ u[p3]·v[w]·[the banker
// draws on p3]·[w brings the banker below (to) fp(p3)]; init holds the
// c1 terms, and the δ terms are a few table look-ups. Unsigned arithmetic
// may wrap in intermediate steps; the results are exact because the true
// values fit in a uint64. The reference enumeration checks every count.
func (g *drawGroup) add(c1 *[10]uint64, d, e, w4, N4 uint64, l5, l6 *levelCounts) {
	plan := &g.plan
	bt := g.bt
	sd, se := mod10[d+bt], mod10[e+bt] // where d and e would bring the banker
	stD, stE := &plan[d], &plan[e]
	dd, de := uint64(stD.draw), uint64(stE.draw)
	fd, fe := stD.fp, stE.fp

	n6 := g.n6 - dd - de
	less := g.less - dd*g.L[fd] - de*g.L[fe] - g.G[sd] - g.G[se] +
		dd*(b2u(sd < uint64(fd))+b2u(se < uint64(fd))) + de*(b2u(sd < uint64(fe))+b2u(se < uint64(fe))) -
		(g.ltc - uint64(stD.ltc) - uint64(stE.ltc))
	eq := g.eq - dd*g.R[fd] - de*g.R[fe] - g.H[sd] - g.H[se] +
		dd*(b2u(sd == uint64(fd))+b2u(se == uint64(fd))) + de*(b2u(sd == uint64(fe))+b2u(se == uint64(fe)))
	if bt == g.pt {
		eq -= n6 // the player's third card would have tied the banker too
	}
	c2 := func(v uint64) uint64 { return c1[v] - b2u(v == d) - b2u(v == e) }

	// Dragon 7 / banker 6: banker's third card makes 7 (6) over a lower
	// player; the player's own third card is not available to the banker.
	d7 := (g.R[7] - b2u(sd == 7) - b2u(se == 7)) * (g.d7 - uint64(stD.d7) - uint64(stE.d7))
	if q := mod10[17-bt]; plan[q].d7 != 0 {
		d7 -= c2(q)
	}
	s6 := (g.R[6] - b2u(sd == 6) - b2u(se == 6)) * (g.s6 - uint64(stD.s6) - uint64(stE.s6))
	if q := mod10[16-bt]; plan[q].s6 != 0 {
		s6 -= c2(q)
	}
	// Panda 8: the player's third card (value q) makes 8.
	q := mod10[18-g.pt]
	var pa5, pa6 uint64
	if plan[q].draw != 0 {
		pa6 = c2(q) * (g.L[8] - b2u(sd < 8) - b2u(se < 8) - uint64(plan[q].ltc))
	} else {
		pa5 = c2(q)
	}
	b5 := g.b5 - uint64(stD.bw) - uint64(stE.bw)
	p5 := g.p5 - uint64(stD.pw) - uint64(stE.pw)

	n5 := N4 - n6
	l5.total += w4 * n5
	l5.banker += w4 * b5
	l5.player += w4 * p5
	l5.tie += w4 * (n5 - b5 - p5)
	if bt == 6 {
		l5.super6 += w4 * b5
	}
	l5.panda8 += w4 * pa5
	n6 *= N4 - 1
	l6.total += w4 * n6
	l6.banker += w4 * (n6 - less - eq)
	l6.player += w4 * less
	l6.tie += w4 * eq
	l6.super6 += w4 * s6
	l6.dragon7 += w4 * d7
	l6.panda8 += w4 * pa6
}

// standGroup holds, for one player hand standing on pt (0–7) and one
// banker total bt on which the banker draws, the banker's third cards in
// c1 (the shoe after the player's two cards) that beat, tie, make a
// Dragon 7 or a winning 6. add corrects them for the removal of the
// banker's two cards.
type standGroup struct {
	pt, bt                     uint64
	banker, tie, dragon, super uint64
}

func (sg *standGroup) init(c1 *[10]uint64, pt, bt uint64) {
	*sg = standGroup{pt: pt, bt: bt}
	for b3 := uint64(0); b3 < 10; b3++ {
		sg.banker += c1[b3] * b2u(mod10[bt+b3] > pt)
	}
	sg.tie = c1[mod10[pt+10-bt]]
	if pt < 7 { // a three-card 7 beats a standing 6 or less, never a 7
		sg.dragon = c1[mod10[17-bt]]
	}
	if pt < 6 { // a three-card 6 wins against a standing 5 or less
		sg.super = c1[mod10[16-bt]]
	}
}

// add counts the banker hand {d, e} of total bt (weight w4; N4 cards left
// after it): five-card coups. The player stood: no Panda 8 here.
func (sg *standGroup) add(d, e, w4, N4 uint64, l5 *levelCounts) {
	pt := sg.pt
	sd, se := mod10[d+sg.bt], mod10[e+sg.bt] // where d and e would bring the banker
	banker := sg.banker - b2u(sd > pt) - b2u(se > pt)
	tie := sg.tie - b2u(sd == pt) - b2u(se == pt)
	l5.total += w4 * N4
	l5.banker += w4 * banker
	l5.tie += w4 * tie
	l5.player += w4 * (N4 - banker - tie)
	if pt < 7 {
		l5.dragon7 += w4 * (sg.dragon - b2u(sd == 7) - b2u(se == 7))
	}
	if pt < 6 {
		l5.super6 += w4 * (sg.super - b2u(sd == 6) - b2u(se == 6))
	}
}

// bankerHands lists the 55 unordered two-card hands {d ≤ e} by value,
// grouped by total: hands bankerStart[t] … bankerStart[t+1]−1 total t.
var (
	bankerHands [55][2]uint8
	bankerStart [11]uint8
)

func init() {
	n := 0
	for t := range 10 {
		bankerStart[t] = uint8(n)
		for d := range 10 {
			if e := (t + 10 - d) % 10; e >= d {
				bankerHands[n] = [2]uint8{uint8(d), uint8(e)}
				n++
			}
		}
	}
	bankerStart[10] = uint8(n)
}

// analyzeValues fills every field of o except the pairs and Sequences from
// the counts per point value cv (N cards in all). Banker hands are grouped
// by total so that the third-card sums are computed once per player hand
// and banker total (drawGroup) and corrected per banker hand.
func (o *Odds) analyzeValues(cv *[10]uint64, N uint64, plan *oddsPlan) {
	c := *cv
	var l4, l5, l6 levelCounts
	var natural uint64
	N4 := N - 4
	var g drawGroup
	var sg standGroup

	for a := uint64(0); a < 10; a++ {
		if c[a] == 0 {
			continue
		}
		for b := a; b < 10; b++ {
			var wP uint64
			if a == b {
				wP = c[a] * (c[a] - 1)
			} else {
				wP = 2 * c[a] * c[b]
			}
			if wP == 0 {
				continue
			}
			c[a]--
			c[b]--
			pt := mod10[a+b]
			// T[bt]: banker hands of total bt that end the coup on four
			// cards (a natural, or both stand), by weight.
			var T [10]uint64
			for bt := uint64(0); bt < 10; bt++ {
				fourCards := pt >= 8 || bt >= 8 || (!plan.playerDraws[pt] && !plan.bankerDraws[bt])
				ready := false
				for _, h := range bankerHands[bankerStart[bt]:bankerStart[bt+1]] {
					d, e := uint64(h[0]), uint64(h[1])
					var wB uint64
					if d == e {
						wB = c[d] * (c[d] - 1)
					} else {
						wB = c[d] * c[e] * 2
					}
					if wB == 0 {
						continue
					}
					if fourCards {
						T[bt] += wB
						continue
					}
					w4 := wP * wB
					if !plan.playerDraws[pt] {
						if !ready {
							sg.init(&c, pt, bt)
							ready = true
						}
						sg.add(d, e, w4, N4, &l5)
						continue
					}
					if !ready {
						g.init(&c, plan, pt, bt)
						ready = true
					}
					g.add(&c, d, e, w4, N4, &l5, &l6)
				}
			}
			for bt, t := range T {
				if t == 0 {
					continue
				}
				w4 := wP * t
				l4.total += w4
				if pt >= 8 || bt >= 8 {
					natural += w4
				}
				switch {
				case uint64(bt) > pt:
					l4.banker += w4
					if bt == 6 {
						l4.super6 += w4
					}
				case uint64(bt) < pt:
					l4.player += w4
				default:
					l4.tie += w4
				}
			}
			c[a]++
			c[b]++
		}
	}

	k4 := N4 * (N - 5)
	k5 := N - 5
	o.Banker = l4.banker*k4 + l5.banker*k5 + l6.banker
	o.Player = l4.player*k4 + l5.player*k5 + l6.player
	o.Tie = l4.tie*k4 + l5.tie*k5 + l6.tie
	o.Super6 = l4.super6*k4 + l5.super6*k5 + l6.super6
	o.Dragon7 = l5.dragon7*k5 + l6.dragon7
	o.Panda8 = l5.panda8*k5 + l6.panda8
	o.Natural = natural * k4
	o.Cards4 = l4.total * k4
	o.Cards5 = l5.total * k5
	o.Cards6 = l6.total
}
