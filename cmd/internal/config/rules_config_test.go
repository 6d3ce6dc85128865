package config

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// Published 8-deck figures (Wizard of Odds, "Baccarat", "Lucky 6"): the
// probabilities to six places, and the Lucky 6 house edge at 12/23.
const (
	pubBanker8, pubPlayer8, pubTie8, pubPair8 = 0.458597, 0.446247, 0.095156, 0.074699
	pubLucky6At23                             = 0.1170
)

const rulesBase = "table = \"T\"\n[shoe]\ndevice = \"/dev/sabot-shoe\"\n[state]\ndir = \"/var/lib/sabot\"\n"

// burn is a burn card (5H, so five more) and its five: the shoe's start.
const burn = "shoe 5H 2C 3D 4D 5S 6S | "

// runTable folds transcript through the table the configuration builds and
// returns its outputs.
func runTable(t *testing.T, cfg Config, transcript string) []tableau.Output {
	t.Helper()
	tb, err := cfg.NewTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := tableau.ParseTranscript(strings.NewReader(transcript), "t")
	if err != nil {
		t.Fatal(err)
	}
	var all, outs []tableau.Output
	for i, tok := range toks {
		outs = tb.Apply(uint64(i+1), time.Unix(1, 0), tableau.TokenInput(tok), outs[:0])
		all = append(all, outs...)
	}
	return all
}

func coups(outs []tableau.Output) []baccarat.CoupEvent {
	var cs []baccarat.CoupEvent
	for _, o := range outs {
		if o.Kind == tableau.OutputCoup {
			cs = append(cs, o.Event.Coup)
		}
	}
	return cs
}

func parseRules(t *testing.T, rules string) Config {
	t.Helper()
	cfg, err := Parse([]byte(rulesBase+"[rules]\n"+rules), "c.toml")
	if err != nil {
		t.Fatalf("%s: %v", rules, err)
	}
	return cfg
}

// TestRulesConfigSettlesAndValues: each [rules] option reaches the table's
// settlement and the odds (the advantage check's engine) with the value
// configured; each expected figure is from the published probabilities.
func TestRulesConfigSettlesAndValues(t *testing.T) {
	// Coups after the burn: banker 9 beats 7; a 9-9 tie; a player pair
	// (4H 4C) under a banker natural; a banker two-card 6 beats 2.
	const shoe = burn + "5H 4D 2C 5S | 9H 9D KC KS | 4H 9D 4C KS | KH 3D QH 3S 2C |"
	full := baccarat.FullShoe(8)
	for _, c := range []struct {
		name, rules string
		coup        int
		bet         baccarat.Bet
		net         float64
		ev          float64 // of bet on a fresh 8-deck shoe, from the published figures
		tol         float64
	}{
		{"commission 5% (default)", "", 0, baccarat.BetBanker, 0.95, 0.95*pubBanker8 - pubPlayer8, 1e-6},
		{"commission 4%", `commission = "4%"`, 0, baccarat.BetBanker, 0.96, 0.96*pubBanker8 - pubPlayer8, 1e-6},
		{"commission 2.5% as a fraction", `commission = 0.025`, 0, baccarat.BetBanker, 0.975, 0.975*pubBanker8 - pubPlayer8, 1e-6},
		{"commission 0", `commission = 0`, 3, baccarat.BetBanker, 1, pubBanker8 - pubPlayer8, 1e-6},
		{"tie pays 9", "tie_pays = 9", 1, baccarat.BetTie, 9, 9*pubTie8 - (1 - pubTie8), 1e-5},
		{"pair pays 12", "pair_pays = 12", 2, baccarat.BetPlayerPair, 12, 13*pubPair8 - 1, 1e-5},
		{"lucky 6 at 15/23", "side_bets = [\"lucky6\"]\npays_lucky6 = [15, 23]", 3, baccarat.BetLucky6, 15, math.NaN(), 0},
		{"lucky 6 at 12/23", "side_bets = [\"lucky6\"]\npays_lucky6 = [12, 23]", 3, baccarat.BetLucky6, 12, -pubLucky6At23, 5e-5},
		// Dragon Bonus, Big and Small at their default pay tables, against
		// the published 8-deck house edges (Wizard of Odds: Dragon 2.65%
		// player, 9.37% banker; Big 4.35%, Small 5.27%, quoted to 0.01%).
		{"dragon banker, a natural win", "side_bets = [\"dragon\"]", 0, baccarat.BetDragonBanker, 1, -0.0937, 5e-5},
		{"dragon player", "side_bets = [\"dragon-player\"]\npays_dragon = [30, 10, 6, 4, 2, 1]", 1, baccarat.BetDragonPlayer, 0, -0.0265, 5e-5},
		{"small, four cards", "side_bets = [\"small\"]", 0, baccarat.BetSmall, 1.5, -0.0527, 1.5e-4},
		{"big, five cards", "side_bets = [\"big\"]\npays_big = 0.54", 3, baccarat.BetBig, 0.54, -0.0435, 5e-5},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := parseRules(t, c.rules)
			cs := coups(runTable(t, cfg, shoe))
			if len(cs) != 4 {
				t.Fatalf("%d coups", len(cs))
			}
			want := baccarat.Payout{Outcome: baccarat.Win, Net: c.net}
			if c.net == 0 {
				want.Outcome = baccarat.Push // the 9-9 natural tie pushes the Dragon Bonus
			}
			if p := cs[c.coup].Settlement.Of(c.bet); p != want {
				t.Errorf("coup %d %s settled %+v, want %+v", c.coup+1, c.bet, p, want)
			}
			r := cfg.HouseRules(func(k, f string, a ...any) { t.Errorf("%s: "+f, append([]any{k}, a...)...) })
			tb, _ := cfg.NewTable(nil)
			if got := tb.Config().Fold.Rules; got != r {
				t.Errorf("table rules %v, configured %v", got, r)
			}
			if math.IsNaN(c.ev) {
				return
			}
			var ev float64
			var ok bool
			if c.bet >= baccarat.BetPerfectPair && c.bet <= baccarat.BetLucky6 {
				cc := baccarat.FullCardShoe(8)
				so, err := odds.AnalyzeSideBets(&cc, true)
				if err != nil {
					t.Fatal(err)
				}
				ev, ok = so.EV(c.bet, r)
			} else {
				o, err := odds.AnalyzeOdds(&full)
				if err != nil {
					t.Fatal(err)
				}
				ev, ok = o.EV(c.bet, r)
			}
			if !ok || math.Abs(ev-c.ev) > c.tol {
				t.Errorf("%s EV %.7f, want %.7f ± %g", c.bet, ev, c.ev, c.tol)
			}
		})
	}
}

// TestRulesConfigAdvantage: the table's live advantage check uses the
// configured commission: at 2.5% the banker bet after this burn is worth
// about +0.0008 to the player, an advantage alert ahead of the coup; at
// the default 5% there is none.
func TestRulesConfigAdvantage(t *testing.T) {
	const shoe = burn + "5H 4D 2C 5S |"
	count := func(rules string) (n int, bet string, ev float64) {
		cfg := parseRules(t, rules+"\n[alerts]\nadvantage_threshold = 0\n")
		for _, o := range runTable(t, cfg, shoe) {
			if o.Kind == tableau.OutputAlert && o.Event.Alert.Code == baccarat.AlertAdvantage {
				n++
				bet, ev = o.Event.Alert.AdvantageBet.Bet, o.Event.Alert.AdvantageBet.EV
			}
		}
		return
	}
	n, bet, ev := count(`commission = "2.5%"`)
	// The same figure from the odds engine, for the shoe less the six
	// burnt cards.
	comp, _ := baccarat.NewComposition(8)
	for _, s := range strings.Fields("5H 2C 3D 4D 5S 6S") {
		c, _ := tableau.ParseCard(s)
		comp.Draw(c)
	}
	rc := comp.RemainingRanks()
	o, _ := odds.AnalyzeOdds(&rc)
	c25, _ := baccarat.ParseCommission("2.5%")
	want, _ := o.EV(baccarat.BetBanker, baccarat.Rules{Commission: c25})
	if n != 1 || bet != "banker" || ev != want || math.Abs(ev-(0.975*pubBanker8-pubPlayer8)) > 2e-4 {
		t.Errorf("2.5%%: %d alerts, %s %v; want banker %v", n, bet, ev, want)
	}
	if n, _, _ := count(""); n != 0 {
		t.Errorf("5%%: %d advantage alerts", n)
	}
}

// TestRulesLegacyForm: a file of the old form (rules = "GAME", a
// top-level tie_pays) reads as game and [rules] tie_pays, and prints in the
// new form, which reads back the same.
func TestRulesLegacyForm(t *testing.T) {
	old, err := Parse([]byte("rules = \"ez\"\ntie_pays = 9\n"+rulesBase), "old.toml")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := Parse([]byte("game = \"ez\"\n"+rulesBase+"[rules]\ntie_pays = 9\n"), "new.toml")
	if err != nil {
		t.Fatal(err)
	}
	if old.Game != "ez" || old.Rules.TiePays != 9 || old.Rules.Commission != "0%" {
		t.Errorf("old form: game %q tie %d commission %q", old.Game, old.Rules.TiePays, old.Rules.Commission)
	}
	a, _ := Marshal(old)
	b, _ := Marshal(cur)
	if string(a) != string(b) || !strings.Contains(string(a), "game = 'ez'\n") || strings.Contains(string(a), "\nrules =") {
		t.Errorf("old form prints\n%s\nnew form prints\n%s", a, b)
	}
	// Only the old top-level tie_pays, with [rules] present.
	mixed, err := Parse([]byte("tie_pays = 9\n"+rulesBase+"[rules]\npair_pays = 12\n"), "mixed.toml")
	if err != nil || mixed.Rules.TiePays != 9 || mixed.Rules.PairPays != 12 {
		t.Errorf("mixed: %+v, %v", mixed.Rules, err)
	}
}

// TestPrintConfigRules: --print-config shows the whole [rules] table with
// the commission in force, and what it prints reads back the same.
func TestPrintConfigRules(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{rulesBase, "[rules]\ncommission = '5%'\ntie_pays = 8\npair_pays = 11\npair_suited_pays = 0\nside_bets = []\npays_perfect_pair = [25.0, 200.0]\npays_either_pair = 5.0\npays_big = 0.54\npays_small = 1.5\npays_dragon = [30.0, 10.0, 6.0, 4.0, 2.0, 1.0]\npays_dragon_natural = 1.0\npays_lucky6 = [12.0, 20.0]\n"},
		{"game = \"super6\"\n" + rulesBase, "[rules]\ncommission = '0%'\n"},
		{rulesBase + "[rules]\ncommission = 0.04\nside_bets = [\"dragon\"]\npays_dragon = [50, 10, 6, 4, 2, 1]\n", "[rules]\ncommission = '4%'\ntie_pays = 8\npair_pays = 11\npair_suited_pays = 0\nside_bets = ['dragon']\n"},
		{rulesBase + "[rules]\npair_suited_pays = 25\n", "[rules]\ncommission = '5%'\ntie_pays = 8\npair_pays = 11\npair_suited_pays = 25\nside_bets = []\n"},
	} {
		cfg, err := Parse([]byte(c.src), "c.toml")
		if err != nil {
			t.Fatal(err)
		}
		out, err := Marshal(cfg)
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: printed (%v)\n%s\nwant it to contain\n%s", c.src, err, out, c.want)
		}
		back, err := Parse(out, "printed")
		if err != nil {
			t.Fatalf("printed config refused: %v\n%s", err, out)
		}
		again, _ := Marshal(back)
		if string(again) != string(out) {
			t.Errorf("printed config does not print the same:\n%s\n---\n%s", out, again)
		}
	}
}

// TestGameConfig: game = "chemin-de-fer" and "banque" with their options
// in [rules] make the table's game (decks default to the game's), and a
// stand input is applied by that game: an option declined under
// punter_five = "option", a missing card where the house makes the punter
// draw on 5.
func TestGameConfig(t *testing.T) {
	const head = "table = \"T\"\n[shoe]\ndevice = \"/dev/sabot-shoe\"\n"
	parse := func(src string) Config {
		t.Helper()
		cfg, err := Parse([]byte(src), "c.toml")
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cdf := parse("game = \"chemin-de-fer\"\n" + head)
	if cdf.Decks != 6 || cdf.Rules.PunterFive != "option" || cdf.Rules.BankerTable != "scarne" || cdf.Rules.Commission != "5%" {
		t.Errorf("chemin de fer defaults: decks %d, %+v", cdf.Decks, cdf.Rules)
	}
	draw := parse("game = \"chemin-de-fer\"\ndecks = 8\n" + head + "[rules]\npunter_five = \"draw\"\nbanker_table = \"free\"\n")
	want, _ := baccarat.NewCheminDeFer(baccarat.MustDraw, baccarat.FreeTable)
	if tb, err := draw.NewTable(nil); err != nil || tb.Config().Fold.Rules.Game != want || tb.Config().Fold.Decks != 8 {
		t.Errorf("chemin de fer draw/free: %v", err)
	}
	banque := parse("game = \"banque\"\n" + head)
	if tb, err := banque.NewTable(nil); err != nil || tb.Config().Fold.Rules.Game != baccarat.GameBanque || banque.Decks != 3 || banque.Rules.Commission != "0%" || banque.Rules.PunterFive != "" {
		t.Errorf("banque: decks %d %+v %v", banque.Decks, banque.Rules, err)
	}
	// The punter's 5 declined ("stand"), then the banker's 3 draws.
	const shoe = "shoe 3C 4D 9H 2S | 4H 3D AC KS stand 5C |"
	cs := coups(runTable(t, cdf, shoe))
	if len(cs) != 1 || cs[0].Options.N != 1 || cs[0].Options.List[0].Choice != baccarat.MustStand || cs[0].Banker.N != 3 {
		t.Fatalf("option declined: %+v", cs)
	}
	// The bank's win pays 1 less the commission: 5% by default, the
	// [rules] commission when set.
	if p := cs[0].Settlement.Banker; p != (baccarat.Payout{Outcome: baccarat.Win, Net: 0.95}) {
		t.Errorf("bank's win at 5%%: %+v", p)
	}
	c4 := parse("game = \"chemin-de-fer\"\n" + head + "[rules]\ncommission = \"4%\"\n")
	if cs := coups(runTable(t, c4, shoe)); len(cs) != 1 || cs[0].Settlement.Banker.Net != 0.96 || cs[0].Settlement.Player.Net != -1 {
		t.Errorf("bank's win at 4%%: %+v", cs)
	}
	// As `sabot check --game chemin-de-fer --punter-five draw` says: the
	// stand is a missing card and coup 1 gets no result; 5C starts coup 2,
	// which "|" closes short of cards.
	var missing []int
	outs := runTable(t, draw, shoe)
	for _, o := range outs {
		if o.Kind == tableau.OutputAlert && o.Event.Alert.Code == baccarat.AlertMissingCard {
			missing = append(missing, o.Coup)
		}
	}
	if len(missing) != 2 || missing[0] != 1 || missing[1] != 2 || len(coups(outs)) != 0 {
		t.Errorf("stand where the house draws on 5: missing-card in coups %v, %d coups", missing, len(coups(outs)))
	}
}

// TestRulesConfigSuitedPair: pair_suited_pays = 25 reaches the table's
// settlement (a suited pair 25, an unsuited one pair_pays, a pair with a
// rank-only card unsettled) and its live advantage check: on a fresh
// 8-deck shoe a pair bet paying 11 unsuited and 25 suited is worth
// (11·24 + 25·7 − 384)/415 = +55/415 to the player (P(pair) 31/415, of
// which suited 7/415: see tableau's pairsuited_test.go), so both pair bets
// raise an advantage alert before the first coup.
func TestRulesConfigSuitedPair(t *testing.T) {
	// Coups after the burn, each ending on a natural: player 4H 4H
	// (suited); banker 7C 7D (unsuited); player 2S 2 (a rank-only card).
	const shoe = burn + "4H 9D 4H KS | KH 7C 8H 7D | 2S 9C 2 KC |"
	cfg := parseRules(t, "pair_suited_pays = 25\n[alerts]\nadvantage_threshold = 0\n")
	outs := runTable(t, cfg, shoe)
	cs := coups(outs)
	if len(cs) != 3 {
		t.Fatalf("%d coups", len(cs))
	}
	for _, c := range []struct {
		coup int
		bet  baccarat.Bet
		want baccarat.Payout
	}{
		{0, baccarat.BetPlayerPair, baccarat.Payout{Outcome: baccarat.Win, Net: 25}},
		{1, baccarat.BetBankerPair, baccarat.Payout{Outcome: baccarat.Win, Net: 11}},
		{1, baccarat.BetPlayerPair, baccarat.Payout{Outcome: baccarat.Lose, Net: -1}},
		{2, baccarat.BetPlayerPair, baccarat.Payout{}},
	} {
		if p := cs[c.coup].Settlement.Of(c.bet); p != c.want {
			t.Errorf("coup %d %s settled %+v, want %+v", c.coup+1, c.bet, p, c.want)
		}
	}
	// The advantage alerts before the first coup: the burn's six cards
	// are out, so the figure is near +55/415, not equal (within 0.005).
	var bets []string
	for _, o := range outs {
		if o.Kind == tableau.OutputAlert && o.Event.Alert.Code == baccarat.AlertAdvantage && o.Event.Alert.Coup == 1 {
			a := o.Event.Alert.AdvantageBet
			bets = append(bets, a.Bet)
			if math.Abs(a.EV-55.0/415) > 0.005 {
				t.Errorf("%s EV %v, want about %v", a.Bet, a.EV, 55.0/415)
			}
		}
	}
	if strings.Join(bets, " ") != "player_pair banker_pair" {
		t.Errorf("advantage alerts before coup 1: %v", bets)
	}
}
