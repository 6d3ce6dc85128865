package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestOddsSideBets: `sabot odds --side-bets` reports each offered side bet;
// the 8-deck edges are the published ones (Wizard of Odds: Dragon Bonus
// 2.65% / 9.37%, Lucky 6 at 12/23 11.70%), and the pay-table flags change
// them.
func TestOddsSideBets(t *testing.T) {
	out, errs, code := runSabot(t, "", "odds", "--side-bets", "dragon,lucky6,perfect-pair", "--pays-lucky6", "12,23")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var o struct {
		SideBets map[string]struct {
			Win       float64
			HouseEdge *float64 `json:"house_edge"`
		} `json:"side_bets"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if len(o.SideBets) != 4 {
		t.Fatalf("side bets %v", o.SideBets)
	}
	for k, want := range map[string]float64{"dragon_player": 2.65, "dragon_banker": 9.37, "lucky6": 11.70} {
		if e := o.SideBets[k].HouseEdge; e == nil || math.Abs(100**e-want) > 0.005 {
			t.Errorf("%s: house edge %v, want %.2f%%", k, e, want)
		}
	}
	// A rank-only card removed: the suits left are unknown, Perfect Pair
	// has no edge (null) but the others do.
	out, _, _ = runSabot(t, "", "odds", "--side-bets", "perfect-pair,big", "--removed", "5")
	if !strings.Contains(out, `"perfect_pair":{"win":0,"house_edge":null}`) || !strings.Contains(out, `"big":{"win":`) {
		t.Errorf("rank-only removed: %s", out)
	}
	// Without the flag: no side_bets key (the contract output unchanged).
	if out, _, _ := runSabot(t, "", "odds"); strings.Contains(out, "side_bets") {
		t.Errorf("side_bets without --side-bets: %s", out)
	}
}

func TestSideBetFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"odds", "--side-bets", "dragon,tiger"}, `--side-bets "dragon,tiger": side bet 2 "tiger" unknown`},
		{[]string{"odds", "--pays-dragon", "30,10,6"}, `--pays-dragon "30,10,6": "30,10,6" has 3 figures, want 6`},
		{[]string{"odds", "--pays-big", "-1"}, `--pays-big "-1": figure 1 "-1": want a number more than 0, at most 1000`},
		{[]string{"check", "--pays-perfect-pair", "25,x"}, `--pays-perfect-pair "25,x": figure 2 "x"`},
		{[]string{"check", "--pair-pays", "0"}, `--pair-pays 0: want 1 to 1000 (usually 11, some houses 12)`},
	} {
		_, errs, code := runSabot(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
}

// TestCheckSideBetSettlement: with --side-bets the coup's settlement
// carries the side bets, paid by the flags' tables.
func TestCheckSideBetSettlement(t *testing.T) {
	shoe := "shoe\n5H 2C 3D 4D 5S 6S |\n5H 4D 4C 4S |\nKH AS QH AD KC 4C |\n"
	out, errs, code := runSabot(t, shoe, "check", "--side-bets", "all", "--pays-lucky6", "12,23", "--pays-dragon", "50,10,6,4,2,1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	for _, want := range []string{`"lucky6":{"result":"win","net":23}`, `"dragon_banker":{"result":"win","net":4}`,
		`"either_pair":{"result":"win","net":5}`, `"big":{"result":"win","net":0.54}`, `"perfect_pair":{"result":"lose","net":-1}`} {
		if !strings.Contains(last, want) {
			t.Errorf("coup 2 lacks %s: %s", want, last)
		}
	}
	if !strings.Contains(lines[len(lines)-2], `"dragon_player":{"result":"win","net":1}`) {
		t.Errorf("coup 1: %s", lines[len(lines)-2])
	}
	out, _, _ = runSabot(t, shoe, "check")
	if strings.Contains(out, "lucky6") {
		t.Errorf("side bets settled without --side-bets: %s", out)
	}
}
