package odds_test

import (
	"fmt"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/odds"
)

// The exact odds of the first coup of an 8-deck shoe, and the house edge
// of three bets.
func ExampleAnalyzeOdds() {
	shoe := baccarat.FullShoe(8)
	o, err := odds.AnalyzeOdds(&shoe)
	if err != nil {
		panic(err)
	}
	fmt.Println("banker wins", o.Banker, "of", o.Sequences)
	fmt.Printf("P(banker) %.6f  P(player) %.6f  P(tie) %.6f\n", o.Prob(o.Banker), o.Prob(o.Player), o.Prob(o.Tie))
	pb := baccarat.Rules{Game: baccarat.GamePuntoBanco, TiePays: 8}
	for _, bet := range []baccarat.Bet{baccarat.BetBanker, baccarat.BetPlayer, baccarat.BetTie} {
		edge, _ := o.HouseEdge(bet, pb)
		fmt.Printf("house edge %s %.2f%%\n", odds.OddsKey(bet), 100*edge)
	}
	// Output:
	// banker wins 2292252566437888 of 4998398275503360
	// P(banker) 0.458597  P(player) 0.446247  P(tie) 0.095156
	// house edge banker 1.06%
	// house edge player 1.24%
	// house edge tie 14.36%
}

// The live check the daemon runs after every card: an EZ Baccarat shoe short
// of 8s and 9s, where Dragon 7 turns in the player's favour.
func ExampleAdvantages() {
	shoe, err := baccarat.NewRankCounts(1, nil)
	if err != nil {
		panic(err)
	}
	// One deck, three 8s and three 9s gone.
	for _, s := range []string{"8S", "8H", "8D", "9S", "9H", "9D"} {
		c, _ := card.ParseCard(s)
		if err := shoe.Remove(c); err != nil {
			panic(err)
		}
	}
	ez := baccarat.Rules{Game: baccarat.GameEZ, TiePays: 8}
	adv, err := odds.Advantages(nil, &shoe, ez, 0)
	if err != nil {
		panic(err)
	}
	for _, a := range adv {
		fmt.Printf("%s %+.4f\n", odds.OddsKey(a.Bet), a.EV)
	}
	// Output:
	// dragon7 +0.2311
}
