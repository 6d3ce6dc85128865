package tableau_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sabot-table/sabot/tableau"
)

// The coup state machine, fed one card at a time in the order the dealer
// draws them, says what the tableau needs next.
func ExampleCoup() {
	var c tableau.Coup
	for _, s := range []string{"7H", "2D", "3C", "KS", "4H", "4C"} {
		card, _ := tableau.ParseCard(s)
		need, _ := c.Deal(card)
		fmt.Printf("%s: player %d banker %d, next %s\n", s, c.PlayerTotal(), c.BankerTotal(), need)
	}
	extra, _ := tableau.ParseCard("9C")
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
	var c tableau.Coup
	for _, s := range []string{"AH", "2C", "3S", "KD"} {
		card, _ := tableau.ParseCard(s)
		c.Deal(card)
	}
	fmt.Println(c.Need(), c.Close())
	// Output: player-third missing-card
}

// The banker's side of the tableau: with a total of 3 the banker draws
// unless the player's third card was an 8.
func ExampleBankerDraws() {
	for _, third := range []int{tableau.NoThirdCard, 0, 7, 8} {
		fmt.Println(third, tableau.BankerDraws(3, third))
	}
	// Output:
	// -1 true
	// 0 true
	// 7 true
	// 8 false
}

// Settling the bets on a Dragon 7 under each rule profile.
func ExampleRules_Settle() {
	var c tableau.Coup
	for _, s := range []string{"AS", "KH", "3S", "3D", "2H", "4C"} {
		card, _ := tableau.ParseCard(s)
		c.Deal(card)
	}
	for _, g := range tableau.Games {
		r := tableau.Rules{Game: g}
		p, _ := r.Settle(c, tableau.BetBanker)
		fmt.Printf("%s: banker bet %s %+g\n", g, p.Outcome, p.Net)
	}
	d7, _ := tableau.Rules{Game: tableau.GameEZ}.Settle(c, tableau.BetDragon7)
	fmt.Printf("ez: dragon7 bet %s %+g\n", d7.Outcome, d7.Net)
	// Output:
	// punto-banco: banker bet win +0.95
	// super6: banker bet win +1
	// ez: banker bet push +0
	// ez: dragon7 bet win +40
}

// The shoe fold turns a transcript into coup, alert and void events — the
// lines `sabot check` prints.
func ExampleFold() {
	const transcript = `shoe 2H 3C 4D |   # burn
9S 3H KD 5C 7H |                       # a natural, then an extra card
AH 2C 3S KD |                          # closed without the player's third card
`
	toks, err := tableau.ParseTranscript(strings.NewReader(transcript), "example.shoe")
	if err != nil {
		fmt.Println(err)
		return
	}
	f, _ := tableau.NewFold(tableau.Options{Markers: tableau.HasMarkers(toks)})
	var out []tableau.Event
	for _, tok := range toks {
		out = f.Feed(tok, out[:0])
		for _, e := range out {
			if e.Kind == tableau.EventCoup {
				e.Coup.Settlement = tableau.Settlement{} // keep the line short
			}
			fmt.Println(e)
		}
	}
	for _, e := range f.End(out[:0]) {
		fmt.Println(e)
	}
	// Output:
	// {"type":"coup","game":"punto-banco","shoe":1,"coup":1,"player":["9S","KD"],"banker":["3H","5C"],"player_total":9,"banker_total":8,"winner":"player","natural":true,"player_pair":false,"banker_pair":false,"dragon7":false,"panda8":false,"banker_wins_on_6":false,"cards":4}
	// {"type":"alert","shoe":1,"coup":1,"code":"extra-card","card":"7H"}
	// {"type":"alert","shoe":1,"coup":2,"code":"missing-card"}
}

// ParseTranscript reports the first unknown token with its position.
func ExampleParseTranscript() {
	_, err := tableau.ParseTranscript(strings.NewReader("shoe 2H 3C 4D\n9S 1H"), "shoe.txt")
	var pe *tableau.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Located())
	}
	// Output: shoe.txt:2:4: unknown token "1H"
}
