package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/cmd/internal/oddsreport"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// TestOddsCheminStrategies: a given pair of strategies is valued on the
// table with those choices made (the odds engine's counts), the punter's
// and bank's expectations follow from them with the 5% commission, and
// the default shoe is 6 decks.
func TestOddsCheminStrategies(t *testing.T) {
	out, stderr, code := runSabot(t, "", "odds", "--game", "chemin-de-fer", "--punter-five", "stand", "--banker", "3/9=stand,5/4=draw")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got oddsreport.CheminOdds
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	tab, _ := baccarat.CheminDeFer(baccarat.MustStand, baccarat.ScarneTable)
	tab, _ = tab.Choose(baccarat.Cell{Banker: true, Total: 3, Third: 9}, baccarat.MustStand)
	tab, _ = tab.Choose(baccarat.Cell{Banker: true, Total: 5, Third: 4}, baccarat.MustDraw)
	rc := baccarat.FullShoe(6)
	var o odds.Odds
	if err := o.AnalyzeTable(&rc, &tab); err != nil {
		t.Fatal(err)
	}
	if got.Counts.Banker != o.Banker || got.Counts.Player != o.Player || got.Counts.Sequences != o.Sequences || got.Decks != 6 || got.CardsLeft != 312 {
		t.Errorf("counts %+v, engine %+v", got.Counts, o)
	}
	if got.Banker["3/9"] != "stand" || got.Banker["5/4"] != "draw" || len(got.Banker) != 2 {
		t.Errorf("banker %v", got.Banker)
	}
	if math.Abs(got.Punter+got.Bank+got.Tie-1) > 1e-12 || math.Abs(got.PunterEV-(got.Punter-got.Bank)) > 1e-12 ||
		math.Abs(got.BankEV-(0.95*got.Bank-got.Punter)) > 1e-12 || got.Commission != 0.05 {
		t.Errorf("expectations %+v", got)
	}
	// The commission flag is the house rule shared with sabot check.
	out, _, code = runSabot(t, "", "odds", "--game", "chemin-de-fer", "--punter-five", "stand", "--commission", "0")
	var zero oddsreport.CheminOdds
	if code != 0 || json.Unmarshal([]byte(out), &zero) != nil || zero.Commission != 0 || zero.BankEV != -zero.PunterEV {
		t.Errorf("--commission 0: %s", out)
	}
}

// TestOddsCheminSolveKemenySnell: --solve with replacement from one deck,
// no commission, the free banker table: Kemeny and Snell's 9/11.
func TestOddsCheminSolveKemenySnell(t *testing.T) {
	out, stderr, code := runSabot(t, "", "odds", "--game", "chemin-de-fer", "--solve", "--decks", "1", "--replacement",
		"--banker-table", "free", "--commission", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got oddsreport.CheminSolve
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.PunterDrawsOn5Exact != "9/11" || len(got.OffTableau) != 1 || got.OffTableau[0] != "6/stood" ||
		len(got.Banker) != 88 || got.Equilibria != 1 || math.Abs(got.BankValue-0.0128) > 0.00005 {
		t.Errorf("solution %+v", got)
	}
}

// TestOddsCheminSolvePunterSeesHand: --punter-sees hand (Model B3 with
// --banker-sees hand) on a fresh 6-deck shoe: the punter's five 5s each
// with its own probability (the library's, tableau.TestSolveB3Figures),
// and a punter_sees key on every --solve line.
func TestOddsCheminSolvePunterSeesHand(t *testing.T) {
	out, stderr, code := runSabot(t, "", "odds", "--game", "chemin-de-fer", "--solve", "--banker-table", "free",
		"--banker-sees", "hand", "--punter-sees", "hand", "--commission", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got oddsreport.CheminSolve
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	var fives []string
	for _, f := range got.PunterFives {
		fives = append(fives, f.Cell+"="+f.Exact)
	}
	if got.PunterSees != "hand" || strings.Join(fives, " ") != "0+5=1 1+4=35003/74880 2+3=0 6+9=1 7+8=1" ||
		got.PunterValueExact != "-73356216203119/5712649844821920" || len(got.Banker) != 484 || got.Equilibria != 1 {
		t.Errorf("solution %s", out)
	}
	out, _, _ = runSabot(t, "", "odds", "--game", "chemin-de-fer", "--solve")
	if !strings.Contains(out, `"punter_sees":"total"`) || strings.Contains(out, "punter_fives") {
		t.Errorf("--solve without --punter-sees: %s", out)
	}
}

// TestOddsCheminBatch: --batch values one shoe per line.
func TestOddsCheminBatch(t *testing.T) {
	out, stderr, code := runSabot(t, "\n5H 5 9C KD\n", "odds", "--game", "chemin-de-fer", "--solve", "--batch")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"cards_left":312`) || !strings.Contains(lines[1], `"cards_left":308`) {
		t.Errorf("batch output %q", out)
	}
}

func TestOddsCheminFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--game", "chemin-de-fer"}, "--punter-five: give draw or stand"},
		{[]string{"--game", "chemin-de-fer", "--punter-five", "hit"}, `--punter-five "hit"`},
		{[]string{"--game", "chemin-de-fer", "--punter-five", "draw", "--banker", "3/8=draw"}, `--banker "3/8=draw"`},
		{[]string{"--game", "chemin-de-fer", "--solve", "--banker", "3/9=draw"}, "--banker and --solve"},
		{[]string{"--game", "chemin-de-fer", "--punter-five", "draw", "--replacement"}, "--replacement: only with --solve"},
		{[]string{"--game", "chemin-de-fer", "--banker-table", "loose", "--solve"}, `--banker-table "loose"`},
		{[]string{"--game", "chemin-de-fer", "--solve", "--banker-sees", "all"}, `--banker-sees "all"`},
		{[]string{"--game", "chemin-de-fer", "--solve", "--punter-sees", "cards", "--commission", "0"}, `--punter-sees "cards"`},
		{[]string{"--game", "chemin-de-fer", "--solve", "--punter-sees", "hand"}, "--punter-sees hand: solved without commission only; give --commission 0 (it is 5%)"},
		{[]string{"--game", "chemin-de-fer", "--solve", "--punter-sees", "hand", "--commission", "0", "--punter-five", "draw"}, "--punter-sees hand: the punter's 5 must be his option"},
		{[]string{"--game", "chemin-de-fer", "--punter-five", "draw", "--punter-sees", "hand"}, "--punter-sees: only with --solve"},
		{[]string{"--game", "chemin-de-fer", "--rules", "ez", "--solve"}, "--rules"},
		{[]string{"--solve"}, "--solve: only with --game chemin-de-fer"},
		{[]string{"--game", "baccara"}, `--game "baccara"`},
	} {
		_, stderr, code := runSabot(t, "", append([]string{"odds"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.msg)
		}
	}
}
