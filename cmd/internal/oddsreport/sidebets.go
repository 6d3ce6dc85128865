package oddsreport

import (
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
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
func newSideOdds(so *odds.SideOdds, r baccarat.Rules) map[string]sideOddsJSON {
	out := map[string]sideOddsJSON{}
	for _, b := range baccarat.SideBets {
		if !r.Offers(b) {
			continue
		}
		var j sideOddsJSON
		if e, ok := so.HouseEdge(b, r); ok {
			j.HouseEdge = &e
		}
		var win uint64
		switch b {
		case baccarat.BetPerfectPair:
			win = so.PerfectOne + so.PerfectBoth
		case baccarat.BetEitherPair:
			win = so.EitherPair
		case baccarat.BetBig:
			win = so.Cards56
		case baccarat.BetSmall:
			win = so.Cards4
		case baccarat.BetDragonPlayer, baccarat.BetDragonBanker:
			side := 0
			if b == baccarat.BetDragonBanker {
				side = 1
			}
			win = so.DragonNatural[side]
			for m := 4; m <= 9; m++ {
				win += so.DragonBy[side][m]
			}
		case baccarat.BetLucky6:
			win = so.Lucky6Two + so.Lucky6Three
		}
		j.Win = so.Prob(win)
		if b == baccarat.BetPerfectPair && !so.SuitsKnown {
			j.Win = 0
		}
		out[odds.OddsKey(b)] = j
	}
	return out
}
