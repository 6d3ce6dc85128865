package main

import (
	"flag"
	"fmt"

	"github.com/sabot-table/sabot/tableau"
)

// sideFlags are the side-bet flags shared by `sabot check` and
// `sabot odds`: which side bets are offered and each pay table.
type sideFlags struct {
	pair                                                                *int
	offered, perfect, either, big, small, dragon, dragonNatural, lucky6 *string
}

const sideBetsHelp = "side bets offered, comma-separated: perfect-pair, either-pair, big, small, dragon-player, dragon-banker, lucky6, dragon (both), all, or none"

func addSideFlags(fs *flag.FlagSet) *sideFlags {
	return &sideFlags{
		pair:          fs.Int("pair-pays", 11, "player pair and banker pair pay `N` to 1 (11, some houses 12)"),
		offered:       fs.String("side-bets", "none", sideBetsHelp),
		perfect:       fs.String("pays-perfect-pair", "25,200", "Perfect Pair pays `ONE,BOTH` to 1 (one hand, both hands)"),
		either:        fs.String("pays-either-pair", "5", "Either Pair pays `N` to 1"),
		big:           fs.String("pays-big", "0.54", "Big (5 or 6 cards) pays `N` to 1"),
		small:         fs.String("pays-small", "1.5", "Small (4 cards) pays `N` to 1"),
		dragon:        fs.String("pays-dragon", "30,10,6,4,2,1", "Dragon Bonus pays for a non-natural win by `9,8,7,6,5,4`"),
		dragonNatural: fs.String("pays-dragon-natural", "1", "Dragon Bonus pays `N` to 1 on a natural win (a natural tie pushes)"),
		lucky6:        fs.String("pays-lucky6", "12,20", "Lucky 6 pays `TWO,THREE` to 1 (banker wins with a two-card / three-card 6)"),
	}
}

// apply sets r's pair payout and side rules from the flags, and returns
// one error per bad flag, naming the flag and the value.
func (f *sideFlags) apply(r *tableau.Rules) []error {
	sr, errs := f.rules()
	r.Side = sr
	r.PairPays = *f.pair
	if *f.pair < 1 || *f.pair > tableau.MaxSidePay {
		errs = append(errs, fmt.Errorf("--pair-pays %d: want 1–%d (usually 11)", *f.pair, tableau.MaxSidePay))
	}
	return errs
}

// rules returns the side rules the flags give, or one error per bad flag
// naming the flag and the value.
func (f *sideFlags) rules() (tableau.SideRules, []error) {
	var sr tableau.SideRules
	var errs []error
	set, err := tableau.ParseSideSet(*f.offered)
	if err != nil {
		errs = append(errs, fmt.Errorf("--side-bets %q: %s", *f.offered, trimRules(err)))
	}
	sr.Offered = set
	list := func(name, s string, n int, dst ...*float64) {
		v, err := tableau.ParsePayList(s, n)
		if err != nil {
			errs = append(errs, fmt.Errorf("--%s %q: %s", name, s, trimRules(err)))
			return
		}
		for i, d := range dst {
			*d = v[i]
		}
	}
	p := &sr.Pays
	list("pays-perfect-pair", *f.perfect, 2, &p.PerfectPair, &p.PerfectPairBoth)
	list("pays-either-pair", *f.either, 1, &p.EitherPair)
	list("pays-big", *f.big, 1, &p.Big)
	list("pays-small", *f.small, 1, &p.Small)
	d := &p.Dragon
	list("pays-dragon", *f.dragon, 6, &d[0], &d[1], &d[2], &d[3], &d[4], &d[5])
	list("pays-dragon-natural", *f.dragonNatural, 1, &p.DragonNatural)
	list("pays-lucky6", *f.lucky6, 2, &p.Lucky6Two, &p.Lucky6Three)
	return sr, errs
}

// trimRules drops the "tableau: bad rules: " prefix: the flag names the
// context.
func trimRules(err error) string {
	s := err.Error()
	if p := tableau.ErrRules.Error() + ": "; len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// sideOddsJSON is one side bet in `sabot odds` output: the probability
// that it wins (any paying outcome) and its house edge. HouseEdge is null
// for Perfect Pair when the removed cards include a rank-only read (the
// suits left are unknown).
type sideOddsJSON struct {
	Win       float64  `json:"win"`
	HouseEdge *float64 `json:"house_edge"`
}

// newSideOdds values the offered side bets on the shoe cc.
func newSideOdds(so *tableau.SideOdds, r tableau.Rules) map[string]sideOddsJSON {
	out := map[string]sideOddsJSON{}
	for _, b := range tableau.SideBets {
		if !r.Offers(b) {
			continue
		}
		var j sideOddsJSON
		if e, ok := so.HouseEdge(b, r); ok {
			j.HouseEdge = &e
		}
		var win uint64
		switch b {
		case tableau.BetPerfectPair:
			win = so.PerfectOne + so.PerfectBoth
		case tableau.BetEitherPair:
			win = so.EitherPair
		case tableau.BetBig:
			win = so.Cards56
		case tableau.BetSmall:
			win = so.Cards4
		case tableau.BetDragonPlayer, tableau.BetDragonBanker:
			side := 0
			if b == tableau.BetDragonBanker {
				side = 1
			}
			win = so.DragonNatural[side]
			for m := 4; m <= 9; m++ {
				win += so.DragonBy[side][m]
			}
		case tableau.BetLucky6:
			win = so.Lucky6Two + so.Lucky6Three
		}
		j.Win = so.Prob(win)
		if b == tableau.BetPerfectPair && !so.SuitsKnown {
			j.Win = 0
		}
		out[tableau.OddsKey(b)] = j
	}
	return out
}
