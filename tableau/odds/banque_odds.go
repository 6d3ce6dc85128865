package odds

import (
	"fmt"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/strategy"
)

// This file values the next coup of baccarat banque (baccara à deux
// tableaux) exactly with card removal, for given strategies: the right and
// left tableaux each follow PunterRule with the 5 fixed, and the
// banker draws by a BanqueBanker table.
//
// The coup: right, left, banker, right, left, banker. A banker natural
// ends the coup (no third card). Otherwise a tableau with a natural draws
// no card and has no turn, the right tableau then the left draw or stand,
// and the banker draws or stands by his table, unless both tableaux have
// naturals: then he has no one left to play against and stands. Each tableau is settled against the
// banker's final hand on its own (the higher total wins, equal totals
// push); a tableau's natural is compared like any total (a banker who
// draws to 9 beats a natural 8), as the game is specified in issue 14.

// Banque states of a tableau as the banker sees them: the value of its
// third card (0–9), or one of these.
const (
	BanqueStood   = 10 // the tableau stood
	BanqueNatural = 11 // the tableau has a natural (8 or 9) and drew nothing
)

// BanqueBanker is the banker's rule in baccarat banque: Draw[t][r][l]
// says whether the banker draws on his two-card total t (0–7) when the
// right tableau's state is r and the left's l (0–9 the value of its third
// card, BanqueStood, BanqueNatural). Naturals (8–9) never draw.
type BanqueBanker struct {
	Draw [8][12][12]bool
}

// DefaultBanqueBanker draws on 0–5 and stands on 6–7 whatever the
// tableaux did: the punto banco banker's rule when the player stands,
// the rule ParseBanqueBanker starts from.
var DefaultBanqueBanker = func() BanqueBanker {
	var b BanqueBanker
	for t := 0; t <= 5; t++ {
		for r := range 12 {
			for l := range 12 {
				b.Draw[t][r][l] = true
			}
		}
	}
	return b
}()

// ParseBanqueBanker parses a banque banker's strategy: a comma-separated
// list of T/R/L=draw or T/R/L=stand, T the banker's total (0–7 or * for
// any), R and L what the right and left tableaux did (a third card 0–9,
// s stood, n natural, or * for any). Each cell takes the first entry that
// matches it; a cell no entry matches follows DefaultBanqueBanker (draw
// on 0–5, stand on 6–7). So "5/*/*=stand" is a banker standing on 5, and
// "6/6/*=draw,6/*/6=draw,6/7/*=draw,6/*/7=draw" one drawing on 6 when
// either tableau drew a 6 or a 7. Errors are prefixed "tableau:" and
// name the entry (1-based) and its text.
func ParseBanqueBanker(s string) (BanqueBanker, error) {
	b := DefaultBanqueBanker
	var decided [8][12][12]bool
	bad := func(e strategy.Entry, why string) error {
		return fmt.Errorf("tableau: banque banker entry %d %q: %s (want T/R/L=draw|stand, T 0–7 or *, R and L 0–9, s, n or *)", e.N, e.Text, why)
	}
	for e, err := range strategy.Entries(s, bad) {
		if err != nil {
			return b, err
		}
		parts := strings.Split(e.Cell, "/")
		if len(parts) != 3 {
			return b, bad(e, "want three parts T/R/L")
		}
		tlo, thi := 0, 7
		if parts[0] != "*" {
			t, err := strconv.Atoi(parts[0])
			if err != nil || t < 0 || t > 7 {
				return b, bad(e, fmt.Sprintf("banker total %q is not 0–7 or *", parts[0]))
			}
			tlo, thi = t, t
		}
		var rs [2][2]int
		for k, p := range parts[1:] {
			switch p {
			case "*":
				rs[k] = [2]int{0, 11}
			case "s":
				rs[k] = [2]int{BanqueStood, BanqueStood}
			case "n":
				rs[k] = [2]int{BanqueNatural, BanqueNatural}
			default:
				v, err := strconv.Atoi(p)
				if err != nil || v < 0 || v > 9 {
					return b, bad(e, fmt.Sprintf("tableau state %q is not 0–9, s, n or *", p))
				}
				rs[k] = [2]int{v, v}
			}
		}
		for t := tlo; t <= thi; t++ {
			for r := rs[0][0]; r <= rs[0][1]; r++ {
				for l := rs[1][0]; l <= rs[1][1]; l++ {
					if !decided[t][r][l] {
						decided[t][r][l] = true
						b.Draw[t][r][l] = e.Draw
					}
				}
			}
		}
	}
	return b, nil
}

// BanqueGame is a pair of tableau strategies and a banker's strategy.
type BanqueGame struct {
	// RightFive and LeftFive are each tableau's rule on 5: MustDraw or
	// MustStand (on 0–4 it draws, on 6–7 it stands: PunterRule).
	RightFive, LeftFive baccarat.Rule
	Banker              BanqueBanker
}

// BanqueSide counts one tableau's results against the banker, in ordered
// nine-card sequences.
type BanqueSide struct {
	Win, Lose, Tie *big.Int // the tableau beats the banker, loses, pushes
}

// BanqueOdds is the exact analysis of the next banque coup.
type BanqueOdds struct {
	// Sequences is N·(N−1)·…·(N−8) for N cards left (a coup uses at
	// most nine): every count is in these ordered sequences.
	Sequences     *big.Int
	Right, Left   BanqueSide
	BankerNatural *big.Int // the banker has a natural
}

// Prob returns count / Sequences.
func (o *BanqueOdds) Prob(count *big.Int) float64 {
	f, _ := new(big.Rat).SetFrac(count, o.Sequences).Float64()
	return f
}

// EV returns a tableau's expectation per unit staked (1:1, ties push).
func (o *BanqueOdds) EV(s BanqueSide) float64 {
	f, _ := new(big.Rat).SetFrac(new(big.Int).Sub(s.Win, s.Lose), o.Sequences).Float64()
	return f
}

// u128 is an unsigned 128-bit accumulator: banque counts exceed 64 bits
// (156^9 > 2^64).
type u128 struct{ hi, lo uint64 }

// addMul adds a·b.
func (u *u128) addMul(a, b uint64) {
	hi, lo := bits.Mul64(a, b)
	var c uint64
	u.lo, c = bits.Add64(u.lo, lo, 0)
	u.hi += hi + c
}

func (u u128) big() *big.Int {
	r := new(big.Int).SetUint64(u.hi)
	r.Lsh(r, 64)
	return r.Or(r, new(big.Int).SetUint64(u.lo))
}

// AnalyzeBanque returns the exact odds of the next banque coup dealt from
// rc under g. It needs at least nine cards and at most MaxOddsCards;
// errors wrap ErrOddsShoe (the shoe) or name the bad rule. It enumerates
// the tableaux's hands and third cards by value class (at most 55 × 55 ×
// 100 cases) and, for each, the banker's hands grouped by total, his
// third card counted with the exact removal of his two cards.
func AnalyzeBanque(rc *baccarat.RankCounts, g *BanqueGame) (BanqueOdds, error) {
	for _, f := range []baccarat.Rule{g.RightFive, g.LeftFive} {
		if f != baccarat.MustDraw && f != baccarat.MustStand {
			return BanqueOdds{}, fmt.Errorf("tableau: banque: a tableau's rule on 5 must be draw or stand, not %s", f)
		}
	}
	n := 0
	for i, v := range rc {
		if v < 0 {
			return BanqueOdds{}, fmt.Errorf("%w: negative count %d of rank %s", baccarat.ErrOddsShoe, v, card.Rank(i+1))
		}
		n += v
	}
	if n > baccarat.MaxOddsCards {
		return BanqueOdds{}, fmt.Errorf("%w: %d cards exceed the maximum %d", baccarat.ErrOddsShoe, n, baccarat.MaxOddsCards)
	}
	if n < 9 {
		return BanqueOdds{}, fmt.Errorf("%w: %d cards left, a banque coup may need 9", baccarat.ErrOddsShoe, n)
	}
	var c [10]uint64
	for i, v := range rc {
		c[card.Rank(i+1).Value()] += uint64(v)
	}
	N := uint64(n)
	// Counts are kept per unit and padded to nine cards at the end: unit
	// 0 is six cards (a coup ended by the banker's natural), units 1–3
	// are four, five or six tableau cards and the banker's three-card
	// unit (his two cards and N−k−2 or his third card).
	pad := [4]uint64{(N - 6) * (N - 7) * (N - 8), (N - 7) * (N - 8), N - 8, 1}
	pair := func(a, b uint64) uint64 {
		if a == b {
			return c[a] * (c[a] - 1)
		}
		return 2 * c[a] * c[b]
	}
	var rw, rl, rt, lw, ll, lt, nat [4]u128
	draws := func(total uint64, five baccarat.Rule) bool { // PunterRule with its 5 fixed
		r := baccarat.PunterRule(int(total))
		return r == baccarat.MustDraw || (r == baccarat.Option && five == baccarat.MustDraw)
	}
	// side tallies a tableau's final total f against the banker's
	// distribution hist (3-card unit) with weight w.
	side := func(w, f uint64, hist *[10]uint64, win, lose, tie *u128) { // w ≤ N^6, hist ≤ N^3
		var up, down, eq uint64
		for F := uint64(0); F < 10; F++ {
			switch {
			case f > F:
				up += hist[F]
			case f < F:
				down += hist[F]
			default:
				eq += hist[F]
			}
		}
		win.addMul(w, up)
		lose.addMul(w, down)
		tie.addMul(w, eq)
	}
	// bankerPlays fills hist with the banker's final totals from the
	// shoe c (Nk cards) when the right and left states are rs and ls.
	bankerPlays := func(Nk uint64, rs, ls int, hist *[10]uint64) {
		*hist = [10]uint64{}
		for bt := range 8 {
			var A uint64
			var M [10]uint64
			for _, h := range bankerHands[bankerStart[bt]:bankerStart[bt+1]] {
				d, e := uint64(h[0]), uint64(h[1])
				w := pair(d, e)
				if w == 0 {
					continue
				}
				A += w
				M[d] += w
				M[e] += w
			}
			if A == 0 {
				continue
			}
			// Both tableaux natural: the banker has no one left to play
			// against and stands (the coup is complete after the deal).
			if (rs == BanqueNatural && ls == BanqueNatural) || !g.Banker.Draw[bt][rs][ls] {
				hist[bt] += A * (Nk - 2)
				continue
			}
			for b3 := uint64(0); b3 < 10; b3++ {
				hist[mod10[uint64(bt)+b3]] += A*c[b3] - M[b3]
			}
		}
	}
	var hist [10]uint64
	for a := uint64(0); a < 10; a++ {
		for b := a; b < 10; b++ {
			wR := pair(a, b)
			if wR == 0 {
				continue
			}
			c[a]--
			c[b]--
			rTot := mod10[a+b]
			for a2 := uint64(0); a2 < 10; a2++ {
				for b2 := a2; b2 < 10; b2++ {
					wL := pair(a2, b2)
					if wL == 0 {
						continue
					}
					c[a2]--
					c[b2]--
					lTot := mod10[a2+b2]
					w4 := wR * wL
					// The banker's naturals end the coup.
					var natW [10]uint64
					for bt := 8; bt <= 9; bt++ {
						for _, h := range bankerHands[bankerStart[bt]:bankerStart[bt+1]] {
							natW[bt] += pair(uint64(h[0]), uint64(h[1]))
						}
					}
					if natW[8]+natW[9] > 0 {
						nat[0].addMul(w4, natW[8]+natW[9])
						side(w4, rTot, &natW, &rw[0], &rl[0], &rt[0])
						side(w4, lTot, &natW, &lw[0], &ll[0], &lt[0])
					}
					// Otherwise the tableaux play, then the banker.
					rDraws := rTot < 8 && draws(rTot, g.RightFive)
					lDraws := lTot < 8 && draws(lTot, g.LeftFive)
					rState, lState := BanqueStood, BanqueStood
					if rTot >= 8 {
						rState = BanqueNatural
					}
					if lTot >= 8 {
						lState = BanqueNatural
					}
					rLo, rHi := uint64(0), uint64(9)
					if !rDraws {
						rLo, rHi = 10, 10 // one pass, no card
					}
					for r3 := rLo; r3 <= rHi; r3++ {
						w5, k, rs, rf := w4, uint64(4), rState, rTot
						if rDraws {
							if c[r3] == 0 {
								continue
							}
							w5 *= c[r3]
							c[r3]--
							k, rs, rf = 5, int(r3), mod10[rTot+r3]
						}
						lLo, lHi := uint64(0), uint64(9)
						if !lDraws {
							lLo, lHi = 10, 10
						}
						for l3 := lLo; l3 <= lHi; l3++ {
							w6, k6, ls, lf := w5, k, lState, lTot
							if lDraws {
								if c[l3] == 0 {
									continue
								}
								w6 *= c[l3]
								c[l3]--
								k6, ls, lf = k+1, int(l3), mod10[lTot+l3]
							}
							bankerPlays(N-k6, rs, ls, &hist)
							u := k6 - 3
							side(w6, rf, &hist, &rw[u], &rl[u], &rt[u])
							side(w6, lf, &hist, &lw[u], &ll[u], &lt[u])
							if lDraws {
								c[l3]++
							}
						}
						if rDraws {
							c[r3]++
						}
					}
					c[a2]++
					c[b2]++
				}
			}
			c[a]++
			c[b]++
		}
	}
	seq := big.NewInt(1)
	for i := range uint64(9) {
		seq.Mul(seq, new(big.Int).SetUint64(N-i))
	}
	total := func(a *[4]u128) *big.Int {
		t := new(big.Int)
		for u := range a {
			t.Add(t, new(big.Int).Mul(a[u].big(), new(big.Int).SetUint64(pad[u])))
		}
		return t
	}
	return BanqueOdds{
		Sequences:     seq,
		Right:         BanqueSide{Win: total(&rw), Lose: total(&rl), Tie: total(&rt)},
		Left:          BanqueSide{Win: total(&lw), Lose: total(&ll), Tie: total(&lt)},
		BankerNatural: total(&nat),
	}, nil
}
