package baccarat_test

import (
	"fmt"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
)

// The coup state machine, fed one card at a time in the order the dealer
// draws them, says what the tableau needs next.
func ExampleCoup() {
	var c baccarat.Coup
	for _, s := range []string{"7H", "2D", "3C", "KS", "4H", "4C"} {
		card, _ := card.ParseCard(s)
		need, _ := c.Deal(card)
		fmt.Printf("%s: player %d banker %d, next %s\n", s, c.PlayerTotal(), c.BankerTotal(), need)
	}
	extra, _ := card.ParseCard("9C")
	_, alert := c.Deal(extra)
	fmt.Println("9C:", alert)
	fmt.Println(c.Winner(), "wins", c.BankerTotal(), "to", c.PlayerTotal(), "with", c.Cards(), "cards")
	// Output:
	// 7H: player 7 banker 0, next banker
	// 2D: player 7 banker 2, next player
	// 3C: player 0 banker 2, next banker
	// KS: player 0 banker 2, next player-third
	// 4H: player 4 banker 2, next banker-third
	// 4C: player 4 banker 6, next complete
	// 9C: extra-card
	// banker wins 6 to 4 with 6 cards
}

// Closing a coup before the tableau is complete is a missing card.
func ExampleCoup_Close() {
	var c baccarat.Coup
	for _, s := range []string{"AH", "2C", "3S", "KD"} {
		card, _ := card.ParseCard(s)
		c.Deal(card)
	}
	fmt.Println(c.Need(), c.Close())
	// Output: player-third missing-card
}

// The banker's side of the tableau: with a total of 3 the banker draws
// unless the player's third card was an 8.
func ExampleBankerDraws() {
	for _, third := range []int{baccarat.NoThirdCard, 0, 7, 8} {
		fmt.Println(third, baccarat.BankerDraws(3, third))
	}
	// Output:
	// -1 true
	// 0 true
	// 7 true
	// 8 false
}

// Settling the bets on a Dragon 7 under each rule profile.
func ExampleRules_Settle() {
	var c baccarat.Coup
	for _, s := range []string{"AS", "KH", "3S", "3D", "2H", "4C"} {
		card, _ := card.ParseCard(s)
		c.Deal(card)
	}
	for _, g := range baccarat.Games {
		r := baccarat.Rules{Game: g}
		p, _ := r.Settle(c, baccarat.BetBanker)
		fmt.Printf("%s: banker bet %s %+g\n", g, p.Outcome, p.Net)
	}
	d7, _ := baccarat.Rules{Game: baccarat.GameEZ}.Settle(c, baccarat.BetDragon7)
	fmt.Printf("ez: dragon7 bet %s %+g\n", d7.Outcome, d7.Net)
	// Output:
	// punto-banco: banker bet win +0.95
	// super6: banker bet win +1
	// ez: banker bet push +0
	// ez: dragon7 bet win +40
}
