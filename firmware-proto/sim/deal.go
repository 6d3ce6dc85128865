package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// DealShoes returns the transcript of a dealer dealing `shoes` freshly
// shuffled shoes of `decks` decks each, seeded by seed (the same seed always
// gives the same transcript). Each shoe is dealt by the book:
//
//   - "shoe", then the burn: the first card, plus as many cards as its point
//     value (10, J, Q, K burn ten), then "|";
//   - coups dealt P1 B1 P2 B2 and the third cards the tableau calls for
//     (baccarat.Coup), each followed by "|" (the coup button);
//   - the cut card is placed between 1/8 and 3/16 of the shoe from the end;
//     "cut" comes out where it lies, the coup in progress (or, if it came
//     out between coups, the next coup) is the last one, and the remaining
//     cards are not dealt.
//
// The transcript has no alerts when folded with tableau's default rules
// (a test checks this), so a host following the tableau sees proper coups.
func DealShoes(seed uint64, decks, shoes int) ([]tableau.Token, error) {
	if decks < 1 || decks > baccarat.MaxDecks {
		return nil, fmt.Errorf("sim: decks %d out of range 1..%d", decks, baccarat.MaxDecks)
	}
	if shoes < 1 {
		return nil, fmt.Errorf("sim: shoes %d, need at least 1", shoes)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5AB0_7DEA1))
	var toks []tableau.Token
	for range shoes {
		toks = dealOne(rng, decks, toks)
	}
	return toks, nil
}

func dealOne(rng *rand.Rand, decks int, toks []tableau.Token) []tableau.Token {
	cards := make([]tableau.Card, 0, 52*decks)
	for range decks {
		for s := card.Spades; s <= card.Clubs; s++ {
			for r := card.RankAce; r <= card.RankKing; r++ {
				cards = append(cards, tableau.Card{Rank: r, Suit: s})
			}
		}
	}
	rng.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	n := len(cards)
	reserve := n/8 + rng.IntN(n/16+1) // cards behind the cut card
	cutAt := n - reserve              // index of the first card behind the cut card

	toks = append(toks, tableau.Token{Kind: tableau.TokShoe})
	next := 0
	draw := func() tableau.Card {
		c := cards[next]
		next++
		toks = append(toks, tableau.Token{Kind: tableau.TokCard, Card: c})
		return c
	}
	cutOut := false
	first := draw()
	burn := first.Value()
	if burn == 0 {
		burn = 10
	}
	for range burn {
		draw()
	}
	toks = append(toks, tableau.Token{Kind: tableau.TokMarker})
	for {
		last := false
		if next >= cutAt && !cutOut {
			toks = append(toks, tableau.Token{Kind: tableau.TokCut})
			cutOut, last = true, true
		}
		var coup baccarat.Coup
		for !coup.Complete() {
			if next >= cutAt && !cutOut {
				toks = append(toks, tableau.Token{Kind: tableau.TokCut})
				cutOut, last = true, true
			}
			if next >= n { // cannot happen: the reserve holds a coup
				return toks
			}
			coup.Deal(draw())
		}
		toks = append(toks, tableau.Token{Kind: tableau.TokMarker})
		if last {
			return toks
		}
	}
}
