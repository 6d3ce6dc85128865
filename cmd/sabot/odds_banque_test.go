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

// TestOddsBanque: `sabot odds --game banque` values each tableau with the
// engine's exact counts (3 decks by default), the right and left fives
// and the banker's table as given.
func TestOddsBanque(t *testing.T) {
	out, stderr, code := runSabot(t, "", "odds", "--game", "banque", "--right-five", "draw", "--left-five", "stand", "--banker", "5/*/*=stand")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got oddsreport.BanqueOdds
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	b, _ := odds.ParseBanqueBanker("5/*/*=stand")
	rc := baccarat.FullShoe(3)
	o, err := odds.AnalyzeBanque(&rc, &odds.BanqueGame{RightFive: baccarat.MustDraw, LeftFive: baccarat.MustStand, Banker: b})
	if err != nil {
		t.Fatal(err)
	}
	if got.Counts["right_win"] != o.Right.Win.String() || got.Counts["left_lose"] != o.Left.Lose.String() ||
		got.Decks != 3 || got.CardsLeft != 156 || got.RightFive != "draw" || got.LeftFive != "stand" {
		t.Errorf("output %+v", got)
	}
	for _, s := range []oddsreport.BanqueSideOdds{got.Right, got.Left} {
		if math.Abs(s.Win+s.Lose+s.Tie-1) > 1e-12 || math.Abs(s.EV-(s.Win-s.Lose)) > 1e-12 {
			t.Errorf("side %+v", s)
		}
	}
	if math.Abs(got.BankEV+got.Right.EV/2+got.Left.EV/2) > 1e-12 {
		t.Errorf("bank_ev %v", got.BankEV)
	}
}

func TestOddsBanqueFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--game", "banque"}, `--punter-five "option": want draw or stand`},
		{[]string{"--game", "banque", "--punter-five", "draw", "--solve"}, "--solve: only with --game chemin-de-fer"},
		{[]string{"--game", "banque", "--punter-five", "draw", "--commission", "5%"}, "--commission 5%: banque charges no commission"},
		{[]string{"--game", "banque", "--punter-five", "draw", "--banker", "9/*/*=draw"}, `--banker "9/*/*=draw"`},
		{[]string{"--game", "chemin-de-fer", "--punter-five", "draw", "--right-five", "draw"}, "--right-five: only with --game banque"},
		{[]string{"--left-five", "draw"}, "--left-five: only with --game chemin-de-fer or banque"},
		{[]string{"--game", "banque", "--punter-five", "draw", "--removed", sevenNinesLeft()}, "a banque coup may need 9"},
	} {
		_, stderr, code := runSabot(t, "", append([]string{"odds"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.msg)
		}
	}
}

// sevenNinesLeft removes all of a 3-deck shoe but seven 9s.
func sevenNinesLeft() string {
	var b strings.Builder
	for _, r := range []string{"A", "2", "3", "4", "5", "6", "7", "8", "T", "J", "Q", "K"} {
		b.WriteString(strings.Repeat(r+" ", 12))
	}
	b.WriteString(strings.Repeat("9 ", 5))
	return b.String()
}
