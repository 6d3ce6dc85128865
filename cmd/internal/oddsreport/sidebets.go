package oddsreport

import (
	"github.com/sabot-table/sabot/tableau"
)

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
