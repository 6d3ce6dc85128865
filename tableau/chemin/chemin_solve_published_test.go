package chemin

import (
	"math/big"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// The published solutions of chemin de fer against SolveChemin. What the
// session could read of the papers is their abstracts and introductions
// (Ethier and Gámez, "A game-theoretic analysis of baccara chemin de
// fer", Games 2013, 4(4):711, arXiv:1305.5468; Ethier and Lee, "A
// game-theoretic analysis of baccara chemin de fer, II", Games 2023,
// 14(5):63, arXiv:2308.00118), not their tables of strategies and values,
// so the figures pinned here are the ones those pages state: the size of
// each game (the number of the banker's pure-strategy choices) and the
// uniqueness of its solution. The numeric values are pinned, as ours, in
// chemin_solve_test.go; docs/cli.md compares them.

// TestPublishedModelA1: cards dealt with replacement from one deck, each
// side seeing his total only, the banker free at every decision. Ethier
// and Gámez (2013, abstract): "a 2 × 2^88 matrix game, which was solved
// by Kemeny and Snell in 1957"; introduction: Kemeny and Snell "found the
// unique solution". So: the punter has one option (5), the banker 88
// cells (totals 0–7 against the punter's stand or third card 0–9), and the
// equilibrium is unique.
func TestPublishedModelA1(t *testing.T) {
	sol := solveFree(t, 1, SeesTotal, true, 0)
	if got := len(sol.Banker); got != 88 {
		t.Errorf("the banker has %d option cells, want 88 (a 2 × 2^88 game)", got)
	}
	if sol.Equilibria != 1 {
		t.Errorf("%d equilibria, want the unique solution", sol.Equilibria)
	}
}

// TestPublishedModelB2: cards dealt without replacement from a d-deck
// shoe, the banker seeing the two cards he holds, the punter his total,
// no commission. Ethier and Gámez (2013, abstract): "a 2 × 2^484 matrix
// game, which was solved by Downton and Lockwood in 1975 for d = 1, 2,
// …, 8"; introduction: they "found the unique solution of the resulting
// matrix game" for those d. 484 = 44 two-card hands by value that are not
// naturals × 11 columns (the punter stood, or his third card 0–9).
func TestPublishedModelB2(t *testing.T) {
	for d := 1; d <= 8; d++ {
		sol := solveFree(t, d, SeesHand, false, 0)
		if got := len(sol.Banker); got != 484 {
			t.Errorf("d = %d: the banker has %d option cells, want 484 (a 2 × 2^484 game)", d, got)
		}
		if sol.Equilibria != 1 {
			t.Errorf("d = %d: %d equilibria, want Downton and Lockwood's unique solution", d, sol.Equilibria)
		}
		if x := sol.PunterDrawsOn5; x.Sign() <= 0 || x.Cmp(big.NewRat(1, 1)) >= 0 {
			t.Errorf("d = %d: the punter draws on 5 with %s, want a mixture", d, x.RatString())
		}
	}
}

// TestPublishedCommission: Ethier and Lee (2023, abstract) take the
// casino game, a commission of 100α percent on the banker's wins with
// 0 ≤ α ≤ 1/10, which makes Model B2 an additive 2 × 2^484 bimatrix game,
// and find that "with rare exceptions, the Nash equilibrium is unique".
// For d = 6 and 8 at α = 0, 2.5%, 5%, 7.5% and 10% the search finds one
// equilibrium, the game keeps its 484 cells, and the bank's value (after
// the commission) falls as α grows.
func TestPublishedCommission(t *testing.T) {
	for _, d := range []int{6, 8} {
		var prev CheminSolution
		for k, bp := range []int{0, 250, 500, 750, 1000} {
			sol := solveFree(t, d, SeesHand, false, bp)
			if got := len(sol.Banker); got != 484 {
				t.Errorf("d = %d, α = %d bp: %d cells, want 484", d, bp, got)
			}
			if sol.Equilibria != 1 {
				t.Errorf("d = %d, α = %d bp: %d equilibria, want one", d, bp, sol.Equilibria)
			}
			if k > 0 && sol.BankerValue.Cmp(prev.BankerValue) >= 0 {
				t.Errorf("d = %d: the bank's value %s at α = %d bp, not below %s", d, sol.BankerValue.FloatString(6), bp, prev.BankerValue.FloatString(6))
			}
			prev = sol
		}
	}
}

// TestPublishedModelB3: cards dealt without replacement from a d-deck
// shoe, each of the punter and the banker seeing the two cards he holds,
// no commission. Ethier and Gámez (2013, abstract): "a 2^5 × 2^484
// matrix game, which is solved herein for every positive integer d";
// introduction: "We suspect that these optimal strategies are uniquely
// optimal". So: the punter has five choices (his five 5s by value), the
// banker 484 cells, and for d = 1, 6 and 8 the solution here passes our
// sufficient test of a unique punter optimum.
func TestPublishedModelB3(t *testing.T) {
	for _, d := range []int{1, 6, 8} {
		rc := baccarat.FullShoe(d)
		sol, err := SolveChemin(&rc, b3Game(t, SeesHand, false))
		if err != nil {
			t.Fatal(err)
		}
		if len(sol.PunterFives) != 5 || len(sol.Banker) != 484 {
			t.Errorf("d = %d: %d punter choices × %d banker cells, want 5 × 484 (a 2^5 × 2^484 game)", d, len(sol.PunterFives), len(sol.Banker))
		}
		if sol.Equilibria != 1 {
			t.Errorf("d = %d: the punter's optimum is not shown unique", d)
		}
	}
}
