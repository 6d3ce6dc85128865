package tableau

import "github.com/sabot-table/sabot/tableau/card"

// The card types live in package card (the lowest layer of tableau); these
// aliases keep them under their tableau names for the callers of the rules
// engine.
type (
	// Card is card.Card: one card drawn from the shoe.
	Card = card.Card
	// Rank is card.Rank: a card rank, card.RankAce (1) through card.RankKing (13); the rank and suit
	// constants are card's (card.RankAce, card.Spades, card.NumRanks).
	Rank = card.Rank
	// Suit is card.Suit: a card suit, card.SuitUnknown (0) for a rank-only read.
	Suit = card.Suit
)

// ErrBadCard is card.ErrBadCard ("tableau: bad card"), wrapped by every card
// parsing error.
var ErrBadCard = card.ErrBadCard

// ParseCard is card.ParseCard: it parses the transcript card syntax
// ("AS", "10h", "td", "7"). Errors wrap ErrBadCard.
func ParseCard(s string) (Card, error) { return card.ParseCard(s) }
