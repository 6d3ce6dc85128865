package main

import (
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/cmd/internal/houseflags"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// Published 8-deck probabilities (Wizard of Odds, "Baccarat"), to six
// places: P(banker) 0.458597, P(player) 0.446247.
const pubBanker8, pubPlayer8 = 0.458597, 0.446247

// TestOddsCommission: `sabot odds --commission` prices the banker bet at
// 1 − RATE: its house edge is P(player) − (1 − c)·P(banker), 0.005994 at
// 4%, −0.000885 (a player edge) at 2.5%, from the published figures (each
// rounded to 5e-7, so within 1e-6).
func TestOddsCommission(t *testing.T) {
	for _, c := range []struct {
		flag       string
		commission float64
		edge       float64
	}{
		{"", 0.05, pubPlayer8 - 0.95*pubBanker8},
		{"4%", 0.04, pubPlayer8 - 0.96*pubBanker8},
		{"0.025", 0.025, pubPlayer8 - 0.975*pubBanker8},
		{"0", 0, pubPlayer8 - pubBanker8},
	} {
		args := []string{"odds"}
		if c.flag != "" {
			args = append(args, "--commission", c.flag)
		}
		out, errs, code := runSabot(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var o struct {
			HouseEdge  struct{ Banker, Player float64 } `json:"house_edge"`
			Commission float64                          `json:"commission"`
		}
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatal(err)
		}
		if o.Commission != c.commission || math.Abs(o.HouseEdge.Banker-c.edge) > 1e-6 || math.Abs(o.HouseEdge.Player-(pubBanker8-pubPlayer8)) > 1e-6 {
			t.Errorf("%v: commission %v, banker edge %.7f (want %.7f), player %.6f", args, o.Commission, o.HouseEdge.Banker, c.edge, o.HouseEdge.Player)
		}
	}
	// Super 6 and EZ take no commission: 0 in the output.
	out, _, _ := runSabot(t, "", "odds", "--rules", "super6")
	if !strings.Contains(out, `"commission":0,`) {
		t.Errorf("super6: %s", out)
	}
}

// TestCheckCommission: `sabot check --commission` settles banker wins at
// 1 − RATE, and its advantage check uses the same rate.
func TestCheckCommission(t *testing.T) {
	shoe := "shoe\n5H 2C 3D 4D 5S 6S |\n5H 4D 2C 5S |\n"
	for _, c := range []struct{ flag, net string }{{"5%", "0.95"}, {"4%", "0.96"}, {"2.5%", "0.975"}, {"0", "1"}} {
		out, errs, code := runSabot(t, shoe, "check", "--commission", c.flag)
		if code != 0 || !strings.Contains(out, `"banker":{"result":"win","net":`+c.net+`}`) {
			t.Errorf("--commission %s: exit %d %s\n%s", c.flag, code, errs, out)
		}
	}
	// At 2.5% the banker bet after the burn is worth about +0.0009 to the
	// player: an advantage alert before the coup, with the expectation
	// `sabot odds` gives for the same shoe and rate.
	out, _, code := runSabot(t, shoe, "check", "--commission", "2.5%", "--advantage", "0")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var a struct {
		Code, Bet string
		EV        float64
	}
	odds, _, _ := runSabot(t, "", "odds", "--commission", "2.5%", "--removed", "5H 2C 3D 4D 5S 6S")
	var o struct {
		HouseEdge struct{ Banker float64 } `json:"house_edge"`
	}
	json.Unmarshal([]byte(odds), &o)
	if code != 1 || len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &a) != nil || a.Code != "advantage" || a.Bet != "banker" ||
		a.EV != -o.HouseEdge.Banker || math.Abs(a.EV-(0.975*pubBanker8-pubPlayer8)) > 2e-4 {
		t.Errorf("2.5%% advantage: exit %d (odds: %v)\n%s", code, -o.HouseEdge.Banker, out)
	}
	if out, _, code := runSabot(t, shoe, "check", "--advantage", "0"); code != 0 || strings.Contains(out, "advantage") {
		t.Errorf("5%% advantage: exit %d\n%s", code, out)
	}
}

// TestHouseFlagErrors: both commands report a bad house rule the same
// way, through the one helper and tableau's one validation.
func TestHouseFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--commission", "5"}, `--commission "5": at most 10% (a fraction of the banker's win: for 5% write "5%" or 0.05)`},
		{[]string{"--commission", "-1%"}, `--commission "-1%": must not be negative`},
		{[]string{"--commission", "abc"}, `--commission "abc": want a percentage such as "5%" or "2.5%", or a fraction such as 0.05`},
		{[]string{"--rules", "super6", "--commission", "4%"}, `--commission 4%: super6 charges no commission (its banker rule replaces it); use 0 or leave it out`},
		{[]string{"--tie-pays", "0"}, `--tie-pays 0: a tie pays 8 or 9 to 1`},
		{[]string{"--pair-pays", "1001"}, `--pair-pays 1001: want 1 to 1000 (usually 11, some houses 12)`},
		{[]string{"--pair-suited-pays", "10"}, `--pair-suited-pays 10: below pair_pays 11 (a suited pair pays at least as much as any pair; 0 for the same)`},
		{[]string{"--pair-pays", "12", "--pair-suited-pays", "-1"}, `--pair-suited-pays -1: want 0 (a suited pair pays as any pair) or the pair payout to 1000`},
	} {
		for _, cmd := range []string{"check", "odds"} {
			_, errs, code := runSabot(t, "", append([]string{cmd}, c.args...)...)
			if code != 2 || !strings.Contains(errs, c.want) {
				t.Errorf("%s %v: exit %d, stderr %q, want %q", cmd, c.args, code, errs, c.want)
			}
		}
	}
	if _, errs, code := runSabot(t, "shoe\n5H 2C 3D 4D 5S 6S |\n5H 4D 2C 5S |\n", "check", "--rules", "super6", "--commission", "0"); code != 0 {
		t.Errorf("super6 --commission 0: exit %d %s", code, errs)
	}
}

// TestHouseFlagArgs: the flags `sabot export` writes for a journal's rules
// parse back to the same rules.
func TestHouseFlagArgs(t *testing.T) {
	c4, _ := baccarat.ParseCommission("4%")
	c0, _ := baccarat.ParseCommission("0")
	side, _ := baccarat.ParseSideSet("all")
	for _, r := range []baccarat.Rules{
		{},
		{Commission: c4, TiePays: 9, PairPays: 12},
		{PairPays: 12, PairSuitedPays: 25},
		{Game: baccarat.GameSuper6, Commission: c0},
		{Side: baccarat.SideRules{Offered: side, Pays: baccarat.SidePays{Big: 0.5, Dragon: [6]float64{50, 10, 6, 4, 2, 1}, Lucky6Three: 23}}},
	} {
		args := houseflags.Args(r)
		cfg, err := parseCheckFlags(append([]string{"--rules", r.Game.String()}, strings.Fields(args)...), io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		got := cfg.Opts.Rules
		if got.CommissionBP() != r.CommissionBP() || got.TiePayout() != r.TiePayout() || got.PairPayout() != r.PairPayout() || got.PairSuitedPayout() != r.PairSuitedPayout() ||
			got.Side.Offered != r.Side.Offered || (r.Side.Offered != 0 && got.Side.Pays.Effective() != r.Side.Pays.Effective()) {
			t.Errorf("%s parses to %+v, want %+v", args, got, r)
		}
	}
	if a := houseflags.Args(baccarat.Rules{Commission: c4}); a != "--tie-pays 8 --commission 4%" {
		t.Errorf("args %q", a)
	}
}
