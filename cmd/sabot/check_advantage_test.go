package main

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/cmd/internal/oddsreport"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// TestCheckAdvantage runs `sabot check --advantage` on the sample EZ shoe:
// the alerts are those of the odds of the shoe less every card drawn
// before each coup, and they come just before their coup.
func TestCheckAdvantage(t *testing.T) {
	const shoe = "testdata/ez-late-dragon7.shoe"
	plain, stderr, code := runSabot(t, "", "check", "--rules", "ez", shoe)
	if code != 0 || strings.Contains(plain, "advantage") {
		t.Fatalf("without --advantage: exit %d, %s", code, stderr)
	}
	out, stderr, code := runSabot(t, "", "check", "--rules", "ez", "--advantage", "0", shoe)
	if code != 1 {
		t.Fatalf("exit %d (%s), want 1: advantage alerts are alerts", code, stderr)
	}
	prefixes := shoePrefixes(t, shoe)
	type alert struct {
		Type, Code, Bet string
		Shoe, Coup      int
		EV              float64
	}
	var alerts []alert
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var coups []string
	for i, line := range lines {
		var a alert
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatal(err)
		}
		if a.Type == "coup" {
			coups = append(coups, line)
			continue
		}
		if a.Code != "advantage" {
			t.Errorf("unexpected alert %s", line)
			continue
		}
		// The next non-advantage line is this coup's result.
		j := i + 1
		for j < len(lines) && strings.Contains(lines[j], `"advantage"`) {
			j++
		}
		if j == len(lines) || !strings.Contains(lines[j], `"type":"coup"`) || !strings.Contains(lines[j], `"coup":`+strconv.Itoa(a.Coup)+`,`) {
			t.Errorf("advantage alert %s is not followed by coup %d", line, a.Coup)
		}
		alerts = append(alerts, a)
	}
	if len(coups) != 81 || len(alerts) != 17 {
		t.Fatalf("%d coups, %d advantage alerts; want 81, 17", len(coups), len(alerts))
	}
	// Every alert matches the odds of the shoe less the cards before its coup.
	ez := baccarat.Rules{Game: baccarat.GameEZ, TiePays: 8}
	for _, a := range alerts {
		rc, err := oddsreport.ParseRemoved(prefixes[a.Coup-1], 8)
		if err != nil {
			t.Fatal(err)
		}
		var o odds.Odds
		if err := o.Analyze(&rc); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, b := range []baccarat.Bet{baccarat.BetBanker, baccarat.BetPlayer, baccarat.BetTie, baccarat.BetPlayerPair,
			baccarat.BetBankerPair, baccarat.BetDragon7, baccarat.BetPanda8} {
			if odds.OddsKey(b) == a.Bet {
				ev, _ := o.EV(b, ez)
				found = math.Abs(ev-a.EV) < 1e-12
			}
		}
		if !found || a.Shoe != 1 || a.Type != "alert" {
			t.Errorf("alert %+v does not match the odds before coup %d", a, a.Coup)
		}
	}
	first, last := alerts[0], alerts[len(alerts)-1]
	if first.Coup != 72 || first.Bet != "dragon7" || math.Round(first.EV*1e4) != 114 ||
		last.Coup != 81 || last.Bet != "dragon7" || math.Round(last.EV*1e4) != 5645 {
		t.Errorf("first %+v, last %+v; want dragon7 +0.0114 before coup 72 … +0.5645 before coup 81", first, last)
	}
	// A higher threshold keeps only the big ones; punto banco has no side
	// bet to flag in this shoe.
	out, _, _ = runSabot(t, "", "check", "--rules", "ez", "--advantage", "0.3", shoe)
	if n := strings.Count(out, `"advantage"`); n != 4 {
		t.Errorf("--advantage 0.3: %d alerts, want 4", n)
	}
	out, _, code = runSabot(t, "", "check", "--advantage", "0.01", shoe)
	if n := strings.Count(out, `"advantage"`); n != 4 || code != 1 {
		t.Errorf("punto banco --advantage 0.01: %d alerts (exit %d), want the 4 pair alerts", n, code)
	}
	for _, bad := range []string{"x", "NaN", "Inf", ""} {
		_, stderr, code := runSabot(t, "", "check", "--advantage", bad, shoe)
		if code != 2 || !strings.Contains(stderr, "advantage") {
			t.Errorf("--advantage %q: exit %d, %q", bad, code, stderr)
		}
	}
}
