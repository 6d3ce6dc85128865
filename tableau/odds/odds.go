package odds

import (
	"errors"
	"fmt"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
)

// This file is the exact odds engine: given the cards left in the shoe, it
// counts, over every ordered way the next coup can be dealt, how often each
// outcome happens. Nothing is simulated; the counts are exact integers.
//
// Counting unit. Every coup uses at most six cards (P1, B1, P2, B2, the
// player's third card, the banker's third card). All counts are in ordered
// six-card sequences drawn from the N remaining cards, of which there are
// N·(N−1)·(N−2)·(N−3)·(N−4)·(N−5): a coup decided on four cards stands for
// (N−4)·(N−5) sequences, one decided on five cards for (N−5). With 8 decks
// (N = 416) that is 416·415·414·413·412·411 = 4,998,398,275,503,360
// sequences, of which the banker wins 2,292,252,566,437,888, the player
// 2,230,518,282,592,256 and 475,627,426,473,216 are ties — the figures the
// published exact analyses give (Wizard of Odds, "Baccarat", combinatorial
// analysis for eight decks).
//
// Method. The drawing rules depend only on point values, so the deal is
// counted by value class (0 = ten and court cards, 1..9). The engine takes
// the pairs of two-card totals (player, banker) in turn, with the exact
// weights of the four-card deals behind them and the first moments of
// those deals' values, and counts the third cards in closed form from
// them: the number of ways to draw a third card is linear in the cards
// left and two third cards quadratic, so each needs only sums over the
// deals of the removed values and of products of pairs of them
// (odds_group.go, analyzeValues). Coups are binned by the hands' final
// totals and number of cards, and every field is read off the bins. Pairs
// depend on ranks: by
// exchangeability of the shuffled shoe, the chance that two given positions
// (P1, P2 or B1, B2) hold the same rank is Σ n_r(n_r−1) / (N(N−1)) whatever
// the other positions hold, so pairs are exact in closed form.
// The reference enumeration in odds_bench_test.go deals every card rank by
// rank and agrees with this engine to the last integer.

// Odds is the exact analysis of the next coup dealt from a shoe. Every field
// but Sequences counts ordered six-card sequences (see Sequences) in which
// the event happens; divide by Sequences, or use Prob, for a probability.
type Odds struct {
	// Sequences is N·(N−1)·(N−2)·(N−3)·(N−4)·(N−5) for N cards left.
	Sequences uint64

	Banker, Player, Tie uint64 // the coup's winner
	Natural             uint64 // either hand totals 8 or 9 on two cards
	PlayerPair          uint64 // P1 and P2 share a rank
	BankerPair          uint64 // B1 and B2 share a rank
	Dragon7             uint64 // banker wins with a three-card 7 (EZ Baccarat)
	Panda8              uint64 // player wins with a three-card 8 (EZ Baccarat)
	Super6              uint64 // banker wins with a total of 6 (two or three cards)
	Cards4              uint64 // the coup uses four cards
	Cards5              uint64 // … five cards
	Cards6              uint64 // … six cards
}

// Prob returns count / Sequences: the probability of the event count counts.
func (o *Odds) Prob(count uint64) float64 {
	if o.Sequences == 0 {
		return 0
	}
	return float64(count) / float64(o.Sequences)
}

// AnalyzeOdds returns the exact odds of the next punto banco coup dealt
// from rc (the PuntoBanco table). It fails (wrapping ErrOddsShoe) if a
// count is negative, more than MaxOddsCards or fewer than six cards are
// left.
func AnalyzeOdds(rc *baccarat.RankCounts) (Odds, error) {
	var o Odds
	err := o.Analyze(rc)
	return o, err
}

// Analyze sets o to the exact odds of the next punto banco coup dealt
// from rc. It does not allocate, and its time and memory do not depend on
// the number of cards (see BenchmarkAnalyzeOdds for the figures). On
// error (see AnalyzeOdds) o is zeroed.
func (o *Odds) Analyze(rc *baccarat.RankCounts) error {
	return o.analyze(rc, puntoBancoPlan)
}

// AnalyzeTable sets o to the exact odds of the next coup dealt from rc by
// the drawing rules t, which must be fixed (no Option cell; the error
// wraps ErrNotFixed): punto banco is PuntoBanco, chemin de fer with a
// pure strategy for each side is CheminDeFer with every option chosen
// (DrawTable.Choose). The fields are as for punto banco (Dragon7, Panda8
// and Super6 are the same events under t). Errors as AnalyzeOdds; on
// error o is zeroed. It does not allocate.
func (o *Odds) AnalyzeTable(rc *baccarat.RankCounts, t *baccarat.DrawTable) error {
	if *t == baccarat.PuntoBanco {
		return o.analyze(rc, puntoBancoPlan)
	}
	var p oddsPlan
	if err := p.init(t); err != nil {
		*o = Odds{}
		return err
	}
	return o.analyze(rc, &p)
}

func (o *Odds) analyze(rc *baccarat.RankCounts, plan *oddsPlan) error {
	*o = Odds{}
	n := 0
	for i, v := range rc {
		if v < 0 {
			return fmt.Errorf("%w: negative count %d of rank %s", baccarat.ErrOddsShoe, v, card.Rank(i+1))
		}
		n += v
	}
	if n > baccarat.MaxOddsCards {
		return fmt.Errorf("%w: %d cards exceed the maximum %d", baccarat.ErrOddsShoe, n, baccarat.MaxOddsCards)
	}
	if n < 6 {
		return fmt.Errorf("%w: %d cards left, a coup may need 6", baccarat.ErrOddsShoe, n)
	}
	var cv [10]uint64
	for i, v := range rc {
		cv[card.Rank(i+1).Value()] += uint64(v)
	}
	o.analyzeValues(&cv, uint64(n), plan)

	// Pairs in closed form (exchangeability, see the file comment).
	var same uint64
	for _, v := range rc {
		u := uint64(v)
		if u >= 2 {
			same += u * (u - 1)
		}
	}
	N := uint64(n)
	rest := (N - 2) * (N - 3) * (N - 4) * (N - 5)
	o.PlayerPair = same * rest
	o.BankerPair = o.PlayerPair
	o.Sequences = N * (N - 1) * (N - 2) * (N - 3) * (N - 4) * (N - 5)
	return nil
}

// mod10 avoids divisions in the inner loops: mod10[i] = i % 10 for i < 20.
var mod10 = [20]uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}

// b2u is 1 for true and 0 for false; the compiler makes it branch-free.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// levelCounts accumulates counts of coups decided on four, five or six
// cards, each in its own unit (four-, five-, six-card sequences).
type levelCounts struct {
	banker, player, tie, super6, dragon7, panda8, total uint64
}

// drawStep is the banker's rule for one value p3 of the player's third
// card: draw is 1 if the banker draws, else 0.
type drawStep struct {
	draw uint8
}

// oddsPlan is a fixed DrawTable unrolled for the engine: who draws on
// which two-card totals, and for every banker total and player's third
// card the drawStep (steps[pt][bt][p3], the same for every player total
// pt).
type oddsPlan struct {
	playerDraws [8]bool // the player draws on this two-card total
	bankerDraws [8]bool // the banker draws on this total when the player stood
	steps       [8][8][10]drawStep
}

// puntoBancoPlan is PuntoBanco unrolled once, for Analyze.
var puntoBancoPlan = mustPlan(&baccarat.PuntoBanco)

func mustPlan(t *baccarat.DrawTable) *oddsPlan {
	var p oddsPlan
	if err := p.init(t); err != nil {
		panic(err)
	}
	return &p
}

// ErrNotFixed is wrapped by the odds engine's error for a DrawTable with
// an Option cell: choose every option first (DrawTable.Choose).
var ErrNotFixed = errors.New("tableau: drawing table has options")

// init unrolls t, which must be Fixed (the error wraps ErrNotFixed and
// names the first option cell).
func (p *oddsPlan) init(t *baccarat.DrawTable) error {
	if opts := t.Options(); len(opts) > 0 {
		return fmt.Errorf("%w (%s, and %d more): the odds engine needs every decision fixed", ErrNotFixed, opts[0], len(opts)-1)
	}
	*p = oddsPlan{}
	for pt := range 8 {
		p.playerDraws[pt] = t.Punter[pt] == baccarat.MustDraw
		p.bankerDraws[pt] = t.Banker[pt][0] == baccarat.MustDraw
	}
	for pt := range 8 {
		for bt := range 8 {
			for p3 := range 10 {
				p.steps[pt][bt][p3].draw = uint8(b2u(t.Banker[bt][p3+1] == baccarat.MustDraw))
			}
		}
	}
	return nil
}
