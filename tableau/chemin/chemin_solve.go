package chemin

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/enum"
	"github.com/sabot-table/sabot/tableau/odds"
)

// This file solves chemin de fer as a game: the punter's option (draw or
// stand on 5) against the banker's option cells, for the cards left in
// the shoe. The payoffs are additive in the banker's choices (every deal
// meets at most one banker decision), so the game is the additive 2 × 2^n
// game of Foster's algorithm (Downton and Lockwood 1975; Ethier and Gámez,
// Games 2013, 4(4):711; with the commission, where it is a bimatrix game,
// Ethier and Lee, Games 2023, 14(5):63): for a punter drawing on 5 with
// probability x the banker's best reply is chosen cell by cell, it changes
// only where a cell's two replies are worth the same to him, and an
// equilibrium x is one of those points (or 0 or 1). Counts are exact
// integers and the equilibrium is computed in rationals (math/big.Rat).

// BankerSees is what the banker's decision may depend on besides the
// punter's third card (or his standing).
type BankerSees uint8

const (
	// SeesTotal: the banker decides on his two-card total (Model 1 of
	// Ethier and Gámez; the house tables are written this way).
	SeesTotal BankerSees = iota
	// SeesHand: the banker decides on the two cards he holds, by value
	// (Model 2: a 4 made of 2+2 may be played unlike one of 10+4).
	SeesHand
)

// String returns "total" or "hand".
func (s BankerSees) String() string { return bankerSeesNames.Name(s) }

var bankerSeesNames = enum.Names[BankerSees]{Type: "BankerSees", Words: []string{SeesTotal: "total", SeesHand: "hand"}}

// ParseBankerSees parses "total" or "hand"; the error is prefixed
// "tableau:" and names the bad word.
func ParseBankerSees(s string) (BankerSees, error) {
	if b, ok := bankerSeesNames.Lookup(s); ok {
		return b, nil
	}
	return 0, fmt.Errorf("tableau: unknown banker information %q (want total or hand)", s)
}

// CheminGame describes the chemin de fer game to solve.
type CheminGame struct {
	// Table is a chemin de fer DrawTable (CheminDeFer, possibly with
	// some options already chosen): its Option cells are the choices.
	// Only the punter's 5 may be a punter option.
	Table baccarat.DrawTable
	// Sees is the banker's information.
	Sees BankerSees
	// Replacement deals every card from the full shoe, as if each were
	// put back (Kemeny and Snell's model); otherwise cards are dealt
	// without replacement.
	Replacement bool
	// Commission is the house's share of the bank's wins; the zero value
	// is chemin de fer's usual 5% (CheminCommissionBP). With a rate of 0
	// the game is zero-sum.
	Commission baccarat.Commission
	// PunterSeesHand lets the punter's choice on 5 depend on the two
	// cards he holds, by value (0+5, 1+4, 2+3, 6+9, 7+8), not only on
	// his total: Model 3 of Ethier and Gámez, with the banker seeing his
	// hand too (Sees = SeesHand) the game they solve for every d (Model
	// B3). SolveChemin solves it without commission only (chemin_b3.go).
	PunterSeesHand bool
}

// CheminCell is one of the banker's information sets: his total (and,
// when he sees his hand, its two card values Cards, low first), with the
// punter's third card value Third (NoThirdCard: the punter stood).
type CheminCell struct {
	Total int
	Cards [2]int // only with SeesHand
	Third int
	Hand  bool // Cards is set
}

// String returns "3/9", "5/stood", or with the hand "4(2+2)/9".
func (c CheminCell) String() string {
	third := "stood"
	if c.Third != baccarat.NoThirdCard {
		third = strconv.Itoa(c.Third)
	}
	if c.Hand {
		return fmt.Sprintf("%d(%d+%d)/%s", c.Total, c.Cards[0], c.Cards[1], third)
	}
	return fmt.Sprintf("%d/%s", c.Total, third)
}

// pwbw counts the deals the punter wins and the bank wins (the rest are
// ties), in the game's unit.
type pwbw struct{ pw, bw uint64 }

func (a *pwbw) add(b pwbw) { a.pw += b.pw; a.bw += b.bw }

// cheminCounts is the enumeration behind a CheminGame: for the punter
// standing (s = 0) or drawing (s = 1) on 5, the deals that meet no banker
// option (base) and, per banker option cell, the deals through it if the
// banker stands (act[s][0]) or draws (act[s][1]).
type cheminCounts struct {
	seq   uint64 // the unit: ordered six-card sequences (N^6 with replacement)
	base  [2]pwbw
	cells []cheminCellCounts
	// five splits the deals in which the punter holds 5, by its two
	// cards (fiveClass), when the game's punter sees his hand: base and,
	// per cell of cells (same order), act, as above but of those deals
	// only. Nil otherwise.
	five *[numFiveHands]fiveCounts
}

// fiveCounts are the counts of the deals of one of the punter's 5s.
type fiveCounts struct {
	deals uint64 // the deals in which he holds it (and neither side a natural), in the unit
	base  [2]pwbw
	act   [][2][2]pwbw // per cell of cheminCounts.cells
}

type cheminCellCounts struct {
	cell CheminCell
	act  [2][2]pwbw
}

// maxCheminCells bounds the banker's information sets: 55 hands by value
// × 11 columns (the natural ones are never used).
const maxCheminCells = 55 * 11

// countChemin enumerates the deal by value class (the punter's and the
// banker's two-card hands as unordered pairs with their ordered weights,
// then the third cards) and tallies it for the game g. rc must hold at
// least six cards and at most MaxOddsCards.
func countChemin(rc *baccarat.RankCounts, g *CheminGame) (*cheminCounts, error) {
	t := &g.Table
	for p := range 10 {
		if t.Punter[p] == baccarat.Option && p != 5 {
			return nil, fmt.Errorf("tableau: chemin de fer: the punter's %d is an option; only his 5 may be", p)
		}
	}
	n := 0
	for i, v := range rc {
		if v < 0 {
			return nil, fmt.Errorf("%w: negative count %d of rank %s", baccarat.ErrOddsShoe, v, card.Rank(i+1))
		}
		n += v
	}
	if n > baccarat.MaxOddsCards {
		return nil, fmt.Errorf("%w: %d cards exceed the maximum %d", baccarat.ErrOddsShoe, n, baccarat.MaxOddsCards)
	}
	if n < 6 {
		return nil, fmt.Errorf("%w: %d cards left, a coup may need 6", baccarat.ErrOddsShoe, n)
	}
	var c [10]uint64
	for i, v := range rc {
		c[card.Rank(i+1).Value()] += uint64(v)
	}
	N := uint64(n)
	rep := g.Replacement
	// ext[k] turns a weight of k cards into the six-card unit.
	var ext [7]uint64
	if rep {
		ext = [7]uint64{4: N * N, 5: N, 6: 1}
	} else {
		ext = [7]uint64{4: (N - 4) * (N - 5), 5: N - 5, 6: 1}
	}
	out := &cheminCounts{}
	if rep {
		out.seq = N * N * N * N * N * N
	} else {
		out.seq = N * (N - 1) * (N - 2) * (N - 3) * (N - 4) * (N - 5)
	}
	var cells [maxCheminCells]cheminCellCounts
	var used [maxCheminCells]bool
	// With the punter seeing his hand: the deals of each of his 5s, per
	// cell index, and the class of the hand being dealt (−1: not a 5 he
	// chooses on).
	var five *[numFiveHands]struct {
		deals uint64
		base  [2]pwbw
		act   [maxCheminCells][2][2]pwbw
	}
	if g.PunterSeesHand {
		five = new([numFiveHands]struct {
			deals uint64
			base  [2]pwbw
			act   [maxCheminCells][2][2]pwbw
		})
	}
	cls := -1
	take := func(v uint64) { // a card of value v leaves the shoe
		if !rep {
			c[v]--
		}
	}
	put := func(v uint64) {
		if !rep {
			c[v]++
		}
	}
	pair := func(a, b uint64) uint64 { // ordered ways to deal {a, b}
		if a == b {
			if rep {
				return c[a] * c[a]
			}
			return c[a] * (c[a] - 1)
		}
		return 2 * c[a] * c[b]
	}
	score := func(w, pt, bt uint64) pwbw {
		switch {
		case pt > bt:
			return pwbw{pw: w}
		case bt > pt:
			return pwbw{bw: w}
		}
		return pwbw{}
	}
	for a := uint64(0); a < 10; a++ {
		for b := a; b < 10; b++ {
			wP := pair(a, b)
			if wP == 0 {
				continue
			}
			take(a)
			take(b)
			pt := mod10[a+b]
			for hi, h := range odds.BankerHands() {
				d, e := uint64(h[0]), uint64(h[1])
				wB := pair(d, e)
				if wB == 0 {
					continue
				}
				w4 := wP * wB
				bt := mod10[d+e]
				if pt >= 8 || bt >= 8 {
					r := score(w4*ext[4], pt, bt)
					out.base[0].add(r)
					out.base[1].add(r)
					continue
				}
				take(d)
				take(e)
				cellIdx := func(col int) int {
					if g.Sees == SeesHand {
						return hi*11 + col
					}
					return int(bt)*11 + col
				}
				// banker decides at column col after w ways; fp is the
				// punter's final total; k cards dealt so far.
				bankerTurn := func(s int, col int, w, fp uint64, k int, removed int) {
					var stand, draw pwbw
					r := t.Banker[bt][col]
					if r != baccarat.MustDraw {
						stand = score(w*ext[k], fp, bt)
					}
					if r != baccarat.MustStand {
						if removed >= 0 {
							take(uint64(removed))
						}
						for b3 := uint64(0); b3 < 10; b3++ {
							if w6 := w * c[b3]; w6 != 0 {
								draw.add(score(w6*ext[k+1], fp, mod10[bt+b3]))
							}
						}
						if removed >= 0 {
							put(uint64(removed))
						}
					}
					if five != nil && cls >= 0 {
						switch r {
						case baccarat.MustStand:
							five[cls].base[s].add(stand)
						case baccarat.MustDraw:
							five[cls].base[s].add(draw)
						default:
							i := cellIdx(col)
							five[cls].act[i][s][0].add(stand)
							five[cls].act[i][s][1].add(draw)
						}
					}
					switch r {
					case baccarat.MustStand:
						out.base[s].add(stand)
					case baccarat.MustDraw:
						out.base[s].add(draw)
					default:
						i := cellIdx(col)
						if !used[i] {
							used[i] = true
							cells[i].cell = CheminCell{Total: int(bt), Third: col - 1}
							if g.Sees == SeesHand {
								cells[i].cell.Hand = true
								cells[i].cell.Cards = [2]int{int(d), int(e)}
							}
						}
						cells[i].act[s][0].add(stand)
						cells[i].act[s][1].add(draw)
					}
				}
				punter := func(s int, draws bool) {
					if !draws {
						bankerTurn(s, 0, w4, pt, 4, -1)
						return
					}
					for p3 := uint64(0); p3 < 10; p3++ {
						if w5 := w4 * c[p3]; w5 != 0 {
							bankerTurn(s, int(p3)+1, w5, mod10[pt+p3], 5, int(p3))
						}
					}
				}
				switch t.Punter[pt] {
				case baccarat.MustDraw:
					punter(0, true)
					punter(1, true)
				case baccarat.MustStand:
					punter(0, false)
					punter(1, false)
				default:
					cls = fiveClass(a, b)
					if five != nil {
						five[cls].deals += w4 * ext[4]
					}
					punter(0, false)
					punter(1, true)
					cls = -1
				}
				put(d)
				put(e)
			}
			put(a)
			put(b)
		}
	}
	for i := range cells {
		if used[i] {
			out.cells = append(out.cells, cells[i])
		}
	}
	if five != nil {
		out.five = new([numFiveHands]fiveCounts)
		for k := range out.five {
			out.five[k].base = five[k].base
			out.five[k].deals = five[k].deals
			for i := range cells {
				if used[i] {
					out.five[k].act = append(out.five[k].act, five[k].act[i])
				}
			}
		}
	}
	return out, nil
}

// CheminStrategy is one cell of a solution: the probability the banker
// draws there.
type CheminStrategy struct {
	Cell CheminCell
	Draw *big.Rat // 0, 1 or a mixture
}

// CheminSolution is an equilibrium of a CheminGame: the minimax solution
// when the commission is 0, a Nash equilibrium of the bimatrix game
// otherwise.
type CheminSolution struct {
	// PunterDrawsOn5 is the probability the punter draws on 5 (0 or 1
	// when the table fixes it). When he sees his hand, it is the
	// probability over the deals that bring him a 5 to decide on, and
	// PunterFives gives it per hand.
	PunterDrawsOn5 *big.Rat
	// PunterFives is the punter's drawing probability with each of his
	// 5s, in the order 0+5, 1+4, 2+3, 6+9, 7+8 (CheminGame.PunterSeesHand
	// only; nil otherwise).
	PunterFives []CheminFive
	// Banker lists the banker's option cells, in the order of
	// DrawTable.Options (by hand within a total when he sees his hand),
	// with his drawing probability at each.
	Banker []CheminStrategy
	// PunterValue is the punter's expectation per unit staked (wins
	// minus losses, ties pushing); BankerValue the bank's, after the
	// commission on its wins; HouseTake the commission's share.
	PunterValue, BankerValue, HouseTake *big.Rat
	// PunterWin, BankerWin, Tie are the probabilities of the coup's
	// outcomes at the equilibrium.
	PunterWin, BankerWin, Tie *big.Rat
	// Equilibria is how many equilibria the search found (1: unique
	// among the points it examines, every breakpoint and interval). With
	// CheminGame.PunterSeesHand it is 1 when the punter's optimal
	// strategy is unique by a sufficient test (no zero reduced cost at
	// the optimum of the linear programme), 0 when the test cannot tell.
	Equilibria int
}

// ErrCheminSolve is wrapped by SolveChemin's errors about the game.
var ErrCheminSolve = errors.New("tableau: chemin de fer solve")

// SolveChemin solves the game g for the shoe rc: the punter's and the
// banker's equilibrium strategies over the option cells of g.Table and
// the value. It enumerates the deal once (about 300,000 weighted cases)
// and takes a few milliseconds (with g.PunterSeesHand, a linear
// programme: some 30 ms for 6 decks). Errors wrap ErrOddsShoe (the shoe)
// or ErrCheminSolve (the game; also g.PunterSeesHand with a commission,
// or with the punter's 5 not an option of the table).
func SolveChemin(rc *baccarat.RankCounts, g *CheminGame) (CheminSolution, error) {
	if g.PunterSeesHand {
		if g.CommissionBP() != 0 {
			return CheminSolution{}, fmt.Errorf("%w: the punter seeing his hand is solved without commission only (give a commission of 0)", ErrCheminSolve)
		}
		if g.Table.Punter[5] != baccarat.Option {
			return CheminSolution{}, fmt.Errorf("%w: the punter sees his hand, but his 5 is not an option of the table", ErrCheminSolve)
		}
	}
	cc, err := countChemin(rc, g)
	if err != nil {
		return CheminSolution{}, err
	}
	if g.PunterSeesHand {
		return cc.solveB3()
	}
	return cc.solve(g.commission(), g.Table.Punter[5] == baccarat.Option, g.Table.Punter[5] == baccarat.MustDraw), nil
}

// CheminCommissionBP is chemin de fer's usual commission on the bank's
// wins, in basis points: 5%.
const CheminCommissionBP = 500

// CommissionBP returns the commission in force, in basis points.
func (g *CheminGame) CommissionBP() int {
	if g.Commission.IsSet() {
		return g.Commission.BasisPoints()
	}
	return CheminCommissionBP
}

func (g *CheminGame) commission() *big.Rat {
	return big.NewRat(int64(g.CommissionBP()), 10000)
}

func bigU(u uint64) *big.Int { return new(big.Int).SetUint64(u) }

// punter is the punter's payoff count pw − bw.
func (x pwbw) punter() *big.Int {
	return new(big.Int).Sub(bigU(x.pw), bigU(x.bw))
}

// banker is the bank's payoff count scaled by den: (den−num)·bw − den·pw
// for a commission num/den.
func (x pwbw) banker(num, den *big.Int) *big.Int {
	r := new(big.Int).Sub(den, num)
	r.Mul(r, bigU(x.bw))
	return r.Sub(r, new(big.Int).Mul(den, bigU(x.pw)))
}

// sign of (1−x)·g0 + x·g1 for x = a/b (b > 0): of (b−a)·g0 + a·g1.
func gainSign(g0, g1 *big.Int, x *big.Rat) int {
	a, b := x.Num(), x.Denom()
	l := new(big.Int).Sub(b, a)
	l.Mul(l, g0)
	return l.Add(l, new(big.Int).Mul(a, g1)).Sign()
}

// solve runs Foster's algorithm, generalised to the bimatrix game, in
// exact arithmetic: the counts are big.Int, the punter's x and the
// banker's mixtures big.Rat. optionFive says the punter chooses on 5;
// otherwise fiveDraws fixes his choice.
func (cc *cheminCounts) solve(alpha *big.Rat, optionFive, fiveDraws bool) CheminSolution {
	one := big.NewRat(1, 1)
	zero := new(big.Rat)
	num, den := alpha.Num(), alpha.Denom()
	n := len(cc.cells)
	// gs[i][s]: the bank's gain (scaled by den) from drawing rather than
	// standing at cell i when the punter plays s; slope[i]: how much the
	// banker's drawing at i adds to the punter's gain from drawing on 5.
	gs := make([][2]*big.Int, n)
	slope := make([]*big.Int, n)
	dConst := new(big.Int).Sub(cc.base[1].punter(), cc.base[0].punter())
	for i, c := range cc.cells {
		for s := range 2 {
			gs[i][s] = new(big.Int).Sub(c.act[s][1].banker(num, den), c.act[s][0].banker(num, den))
		}
		d0 := new(big.Int).Sub(c.act[1][0].punter(), c.act[0][0].punter())
		d1 := new(big.Int).Sub(c.act[1][1].punter(), c.act[0][1].punter())
		slope[i] = d1.Sub(d1, d0)
		dConst.Add(dConst, d0)
	}
	// sign[i] is the sign of the gain for every x in [0, 1] when both
	// ends agree strictly (most cells), else 0: compute it at x.
	sign := make([]int, n)
	for i := range n {
		if s0 := gs[i][0].Sign(); s0 != 0 && s0 == gs[i][1].Sign() {
			sign[i] = s0
		}
	}
	// reply fills q with the banker's best reply to x (indifferent
	// cells stand) and lists the indifferent cells.
	reply := func(x *big.Rat, q []*big.Rat) (tied []int) {
		for i := range n {
			sg := sign[i]
			if sg == 0 {
				sg = gainSign(gs[i][0], gs[i][1], x)
			}
			switch sg {
			case 1:
				q[i] = one
			case -1:
				q[i] = zero
			default:
				q[i] = zero
				tied = append(tied, i)
			}
		}
		return tied
	}
	// dAt is the punter's gain from drawing on 5 against q.
	dAt := func(q []*big.Rat) *big.Rat {
		d := new(big.Int).Set(dConst)
		var mixed *big.Rat
		for i := range n {
			switch {
			case q[i].Sign() == 0:
			case q[i].Cmp(one) == 0:
				d.Add(d, slope[i])
			default:
				if mixed == nil {
					mixed = new(big.Rat)
				}
				t := new(big.Rat).SetInt(slope[i])
				mixed.Add(mixed, t.Mul(t, q[i]))
			}
		}
		r := new(big.Rat).SetInt(d)
		if mixed != nil {
			r.Add(r, mixed)
		}
		return r
	}
	// The candidate points: 0, 1, and every x in (0, 1) where a cell's
	// gain changes sign.
	xs := []*big.Rat{new(big.Rat), new(big.Rat).Set(one)}
	if optionFive {
		for i := range n {
			g0, g1 := gs[i][0], gs[i][1]
			if g0.Sign()*g1.Sign() < 0 {
				xs = append(xs, new(big.Rat).SetFrac(g0, new(big.Int).Sub(g0, g1)))
			}
		}
		slices.SortFunc(xs, func(a, b *big.Rat) int { return a.Cmp(b) })
		xs = slices.CompactFunc(xs, func(a, b *big.Rat) bool { return a.Cmp(b) == 0 })
	} else if fiveDraws {
		xs = xs[1:]
	} else {
		xs = xs[:1]
	}
	var sol CheminSolution
	found := 0
	try := func(x *big.Rat, q []*big.Rat) {
		found++
		if found > 1 {
			return
		}
		sol.PunterDrawsOn5 = new(big.Rat).Set(x)
		sol.Banker = make([]CheminStrategy, n)
		for i := range n {
			sol.Banker[i] = CheminStrategy{Cell: cc.cells[i].cell, Draw: new(big.Rat).Set(q[i])}
		}
		cc.fill(&sol, x, q, alpha)
	}
	q := make([]*big.Rat, n)
	for k, x := range xs {
		tied := reply(x, q)
		if !optionFive {
			try(x, q) // the punter has no choice: the banker's best reply
			continue
		}
		// Choose the tied cells' mixtures to meet the punter's
		// condition: D ≤ 0 at x = 0, D ≥ 0 at 1, D = 0 inside.
		d := dAt(q)
		want := 0 // the sign D must reach (0: exactly 0)
		if x.Sign() == 0 {
			want = -1
		} else if x.Cmp(one) == 0 {
			want = 1
		}
		ok := func(d *big.Rat) bool {
			switch want {
			case -1:
				return d.Sign() <= 0
			case 1:
				return d.Sign() >= 0
			}
			return d.Sign() == 0
		}
		for _, i := range tied {
			if ok(d) {
				break
			}
			if slope[i].Sign() == 0 || slope[i].Sign() == d.Sign() {
				continue
			}
			qi := new(big.Rat).Quo(new(big.Rat).Neg(d), new(big.Rat).SetInt(slope[i]))
			if qi.Cmp(one) > 0 {
				qi.Set(one)
			}
			q[i] = qi
			d = dAt(q)
		}
		if ok(d) {
			try(x, q)
		}
		// The open interval to the next point: the reply is pure and D
		// constant; an equilibrium only if D = 0 there (then the whole
		// interval is one).
		if k+1 < len(xs) {
			mid := new(big.Rat).Add(x, xs[k+1])
			mid.Quo(mid, big.NewRat(2, 1))
			reply(mid, q)
			if dAt(q).Sign() == 0 {
				try(mid, q)
			}
		}
	}
	sol.Equilibria = found
	return sol
}

// fill sets the values and outcome probabilities of sol for the punter's
// x and the banker's q.
func (cc *cheminCounts) fill(sol *CheminSolution, x *big.Rat, q []*big.Rat, alpha *big.Rat) {
	one := big.NewRat(1, 1)
	ws := [2]*big.Rat{new(big.Rat).Sub(one, x), x}
	pw, bw := new(big.Rat), new(big.Rat)
	for s := range 2 {
		ip, ib := bigU(cc.base[s].pw), bigU(cc.base[s].bw) // pure replies: integers
		mp, mb := new(big.Rat), new(big.Rat)               // mixed ones
		for i, c := range cc.cells {
			switch {
			case q[i].Sign() == 0:
				ip.Add(ip, bigU(c.act[s][0].pw))
				ib.Add(ib, bigU(c.act[s][0].bw))
			case q[i].Cmp(one) == 0:
				ip.Add(ip, bigU(c.act[s][1].pw))
				ib.Add(ib, bigU(c.act[s][1].bw))
			default:
				qa := [2]*big.Rat{new(big.Rat).Sub(one, q[i]), q[i]}
				for a := range 2 {
					mp.Add(mp, new(big.Rat).Mul(qa[a], new(big.Rat).SetInt(bigU(c.act[s][a].pw))))
					mb.Add(mb, new(big.Rat).Mul(qa[a], new(big.Rat).SetInt(bigU(c.act[s][a].bw))))
				}
			}
		}
		mp.Add(mp, new(big.Rat).SetInt(ip))
		mb.Add(mb, new(big.Rat).SetInt(ib))
		pw.Add(pw, mp.Mul(mp, ws[s]))
		bw.Add(bw, mb.Mul(mb, ws[s]))
	}
	cc.setOutcomes(sol, pw, bw, alpha)
}

// setOutcomes sets sol's outcome probabilities and values from the
// punter's and the bank's wins pw and bw (in the unit, overwritten) under
// the commission alpha.
func (cc *cheminCounts) setOutcomes(sol *CheminSolution, pw, bw, alpha *big.Rat) {
	one := big.NewRat(1, 1)
	seq := new(big.Rat).SetInt(bigU(cc.seq))
	pw.Quo(pw, seq)
	bw.Quo(bw, seq)
	sol.PunterWin, sol.BankerWin = pw, bw
	sol.Tie = new(big.Rat).Sub(one, new(big.Rat).Add(pw, bw))
	sol.PunterValue = new(big.Rat).Sub(pw, bw)
	oma := new(big.Rat).Sub(one, alpha)
	sol.BankerValue = new(big.Rat).Sub(new(big.Rat).Mul(oma, bw), pw)
	sol.HouseTake = new(big.Rat).Mul(alpha, bw)
}

// mod10 is x mod 10 for x < 20: the total of two point values.
var mod10 = [20]uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
