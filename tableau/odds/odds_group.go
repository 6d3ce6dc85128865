package odds

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

// BankerHands returns the 55 unordered two-card hands {d ≤ e} of point
// values d and e (0–9), grouped by total from 0 to 9: the order the odds
// engine (and the chemin de fer solver) enumerates a two-card hand in.
func BankerHands() [55][2]uint8 { return bankerHands }

// analyzeValues fills every field of o except the pairs and Sequences from
// the counts per point value cv (N cards in all), for the fixed drawing
// rules plan.
//
// It enumerates pairs of two-card totals (pt, bt), not hands, and bins
// every coup by the hands' final totals (h22, h32, h23, h33; tally reads
// the fields off the bins). Over the ordered four-card deals δ = (a, pt−a,
// d, bt−d) with their weights w(δ) (products of falling factorials of cv:
// card removal included) it needs only W = Σ w, the first moments W1[x] =
// Σ w·m_x (m_x the number of cards of value x in δ) and, for the six-card
// cross terms, the four-card weights w(a, d) themselves:
//
//   - the player's (or the banker's) third card x after δ comes in
//     Σ_δ w·(cv[x] − m_x) = W·cv[x] − W1[x] five-card sequences;
//   - both third cards, x then y, in Σ_δ w·(cv[x] − m_x)(cv[y] − m_y − [x=y])
//     = W·cv[x]·(cv[y] − [x=y]) − cv[x]·W1[y] − (cv[y] − [x=y])·W1[x] + W2[x][y]
//     six-card sequences, where W2[x][y] = Σ_δ w·m_x·m_y sums over the
//     16 ordered pairs of positions in δ: [x=y]·W1[x] (a position with
//     itself), 2[y ≡ pt−x]·MP(x) and 2[y ≡ bt−x]·MB(x) (the two cards of
//     one hand; MP(a) = Σ_d w(a, d), MB(d) = Σ_a w(a, d), W1 = 2·MP + 2·MB),
//     and 4·w(x, y) + 4·w(y, x) (one card of each hand).
//
// With h2[t][v] = cv[v]·(cv[t−v] − [2v ≡ t]) the two-card weights from the
// full shoe, w(a, d) = h2[pt][a]·(h2[bt][d] + Δ_a(d)), where Δ_a corrects
// the banker's weight for the player's cards a and p = pt−a: (cv[d] −
// α[d])(cv[bt−d] − α[bt−d] − [2d ≡ bt]) − h2[bt][d] with α the player's
// cards, which is −cv[bt−a] at d = bt−a, −cv[bt−p] at d = bt−p,
// −cv[bt−a] + 2[2a ≡ bt] + [pt = bt] at d = a and −cv[bt−p] + 2[2p ≡ bt]
// + [pt = bt] at d = p (added up where these coincide), 0 elsewhere. So the
// six-card bins are a dense part of rank four per (pt, bt), two terms of
// which depend on bt alone and are summed over pt first, plus about a
// hundred sparse terms, and MP, MB and W have closed forms. Unsigned
// arithmetic wraps in intermediate steps; every bin is exact because its
// true value fits in a uint64 (MaxOddsCards). The reference enumeration
// checks every count.
func (o *Odds) analyzeValues(cv *[10]uint64, N uint64, plan *oddsPlan) {
	c := cv
	// g[t][v] = c[t−v] − [2v ≡ t]: the cards completing v to a total t
	// once v is drawn; h2[t][v] = c[v]·g[t][v].
	// The copies cw, gw and hw repeat them cyclically (cw[i] = c[i mod 10]),
	// so that the loops below index by t−v + 10 and the like without
	// reducing modulo 10.
	var g, h2 [10][10]uint64
	var H2 [10]uint64
	var cw [30]uint64
	var gw [10][20]uint64
	var hw [10][30]uint64
	copy(cw[:], c[:])
	copy(cw[10:], c[:])
	copy(cw[20:], c[:])
	for t := range 10 {
		for v := range 10 {
			e := int(mod10[t+10-v])
			g[t][v] = c[e] - b2u(e == v)
			h2[t][v] = c[v] * g[t][v]
			H2[t] += h2[t][v]
		}
		copy(gw[t][:], g[t][:])
		copy(gw[t][10:], g[t][:])
		copy(hw[t][:], h2[t][:])
		copy(hw[t][10:], h2[t][:])
		copy(hw[t][20:], h2[t][:])
	}

	// Bins by final totals: h22[pt][bt] in four-card sequences, h32[fp][bt]
	// (the player drew) and h23[pt][bq] (the banker drew) in five-card
	// sequences, h33[fp][bq] in six-card sequences.
	// h32w and h33w take rows fp + 10 (and h33w columns up to bq + 20) as
	// well, folded into h32 and h33 at the end.
	var h22, h32, h23, h33 [10][10]uint64
	var h32w [20][10]uint64
	var h33w [20][30]uint64

	for bt := range 10 {
		if H2[bt] == 0 {
			continue
		}
		hB, gB := &h2[bt], &g[bt]
		bankerDraws := bt < 8 && plan.bankerDraws[bt]
		// gB2[v] = c[bt−v] − 2·[2v ≡ bt], for the corrections Δ (and
		// repeated: gB2[v+10] = gB2[v]).
		var gB2 [20]uint64
		for v := range 10 {
			gB2[v] = gB[v] - b2u((2*v)%10 == bt)
		}
		copy(gB2[10:], gB2[:10])
		b2 := (2 * bt) % 10
		var draws [10]uint8 // the banker draws after the player's third card x
		if bt < 8 {
			for x := range 10 {
				draws[x] = plan.steps[0][bt][x].draw
			}
		}
		// alpha[fp], beta[fp]: the coefficients of c[y] and h2[bt][y] in the
		// rows of h33, summed over the player's totals.
		var alpha, beta [20]uint64
		for pt := range 10 {
			if H2[pt] == 0 {
				continue
			}
			wP, gP := &h2[pt], &g[pt]
			same := b2u(pt == bt)
			playerDraws := pt < 8 && plan.playerDraws[pt]
			if pt >= 8 || bt >= 8 || (!playerDraws && !bankerDraws) {
				// W = Σ_a MP(a) (MP below) in closed form, by the symmetry
				// a ↔ pt−a: H2[pt]·(H2[bt] + 2[pt = bt]) − 4·Σ_a h2[pt][a]·g[bt][a].
				var s uint64
				for a := range 10 {
					s += wP[a] * gB[a]
				}
				h22[pt][bt] += H2[pt]*(H2[bt]+2*same) - 4*s
				continue
			}
			// MP(a) = h2[pt][a]·Σ_d (banker's weight after the player's a, pt−a):
			// Σ_d (c[d] − α[d])(c[bt−d] − α[bt−d] − [2d ≡ bt]) =
			// H2[bt] + 2[pt = bt] − 2·g[bt][a] − 2·g[bt][pt−a]; MB likewise
			// with the hands' roles swapped.
			var MP, W1 [10]uint64
			var W uint64
			kB, kP := H2[bt]+2*same, H2[pt]+2*same
			gBw, gPw := &gw[bt], &gw[pt]
			for a := range 10 {
				MP[a] = wP[a] * (kB - 2*(gB[a]+gBw[pt+10-a]))
				W += MP[a]
			}
			for d := range 10 {
				W1[d] = 2 * (MP[d] + hB[d]*(kP-2*(gP[d]+gPw[bt+10-d])))
			}
			if !playerDraws { // the player stands on two cards, the banker draws y
				row := &h23[pt]
				for q := range 10 {
					y := mod10[q+10-bt]
					row[q] += W*c[y] - W1[y]
				}
				continue
			}
			// The sparse terms on row x, by the banker's third card y: W2's
			// diagonal (y = x) and hand pairs (y = p = pt−x: 2·MP(x); y =
			// bt−x: 2·MB(x) = W1[x] − 2·MP(x)), and the corrections
			// 4·h2[pt][z]·Δ_z at (z, t) and (t, z), which land on y = x, p,
			// bt−x, bt−p and pt−bt+x (column q = bt+y; the last is fp).
			wPw := &hw[pt]
			for x := range 10 {
				A := W*c[x] - W1[x] // five-card deals with the player's third card x
				fp := pt + x        // mod 10 when folded
				if draws[x] == 0 {
					h32w[fp][bt] += A
					continue
				}
				alpha[fp] += A
				k := 4 * wP[x]
				beta[fp] += k
				row := &h33w[fp]
				cx, k2 := c[x], 4*hB[x]
				// y = 0…9 at column bt+y (axpy2, by hand: the call spills).
				r, m := (*[10]uint64)(row[bt:bt+10]), -cx
				r[0] += k2*wP[0] + m*W1[0]
				r[1] += k2*wP[1] + m*W1[1]
				r[2] += k2*wP[2] + m*W1[2]
				r[3] += k2*wP[3] + m*W1[3]
				r[4] += k2*wP[4] + m*W1[4]
				r[5] += k2*wP[5] + m*W1[5]
				r[6] += k2*wP[6] + m*W1[6]
				r[7] += k2*wP[7] + m*W1[7]
				r[8] += k2*wP[8] + m*W1[8]
				r[9] += k2*wP[9] + m*W1[9]
				v3, v4 := same-gB2[x], same-gB2[pt+10-x]
				row[bt+x] += 2*W1[x] - W*cx + 2*k*v3
				row[bt+pt+10-x] += 2*MP[x] + k*(v3+v4)
				row[b2+10-x] += W1[x] - 2*MP[x] - k*cw[bt+10-x] - 4*wPw[bt+10-x]*cx
				row[b2+10-pt+x] -= k * cw[bt+10-pt+x]
				row[fp] -= 4 * wPw[pt+10-bt+x] * cx
			}
		}
		for fp := range 10 {
			axpy2((*[10]uint64)(h33w[fp][bt:bt+10]), alpha[fp]+alpha[fp+10], c, beta[fp]+beta[fp+10], hB)
		}
	}
	for r := range 10 {
		lo, hi, row := &h33w[r], &h33w[r+10], &h33[r]
		for q := range 10 {
			row[q] = lo[q] + lo[q+10] + lo[q+20] + hi[q] + hi[q+10] + hi[q+20]
			h32[r][q] = h32w[r][q] + h32w[r+10][q]
		}
	}
	o.tally(&h22, &h32, &h23, &h33, N)
}

// tally turns the bins by final totals into o's fields (pairs and
// Sequences aside), each in six-card sequences.
func (o *Odds) tally(h22, h32, h23, h33 *[10][10]uint64, N uint64) {
	var l4, l5, l6 levelCounts
	l4.add(h22, false, false)
	l5.add(h32, true, false)
	l5.add(h23, false, true)
	l6.add(h33, true, true)
	var natural uint64 // either hand on 8 or 9: rows 8–9, columns 8–9
	for pt := range 10 {
		if pt >= 8 {
			for bt := range 10 {
				natural += h22[pt][bt]
			}
		} else {
			natural += h22[pt][8] + h22[pt][9]
		}
	}
	k4 := (N - 4) * (N - 5)
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

// axpy2 adds a·u + b·v to row, unrolled (the engine's innermost loop).
func axpy2(row *[10]uint64, a uint64, u *[10]uint64, b uint64, v *[10]uint64) {
	row[0] += a*u[0] + b*v[0]
	row[1] += a*u[1] + b*v[1]
	row[2] += a*u[2] + b*v[2]
	row[3] += a*u[3] + b*v[3]
	row[4] += a*u[4] + b*v[4]
	row[5] += a*u[5] + b*v[5]
	row[6] += a*u[6] + b*v[6]
	row[7] += a*u[7] + b*v[7]
	row[8] += a*u[8] + b*v[8]
	row[9] += a*u[9] + b*v[9]
}

// add counts the coups binned in h (h[p][b]: the player's final total p,
// the banker's b) into l; playerThree and bankerThree say whether the
// player's and the banker's hands in h hold three cards (Panda 8 needs the
// player's, Dragon 7 the banker's).
func (l *levelCounts) add(h *[10][10]uint64, playerThree, bankerThree bool) {
	for p := range 10 {
		row := &h[p]
		var total, less uint64
		for b := range 10 {
			if b == p {
				less = total // the banker's totals below the player's
			}
			total += row[b]
		}
		eq := row[p]
		l.total += total
		l.player += less
		l.tie += eq
		l.banker += total - less - eq
		if p < 6 {
			l.super6 += row[6]
		}
		if bankerThree && p < 7 {
			l.dragon7 += row[7]
		}
		if playerThree && p == 8 {
			l.panda8 += less
		}
	}
}
