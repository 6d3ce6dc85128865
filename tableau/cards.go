package tableau

import "github.com/sabot-table/sabot/tableau/card"

// The card types live in package card (the lowest layer of tableau); these
// aliases keep them under their tableau names for the callers of the rules
// engine.
type (
	// Card is card.Card: one card drawn from the shoe.
	Card = card.Card
	// Rank is card.Rank: a card rank, RankAce (1) through RankKing (13).
	Rank = card.Rank
	// Suit is card.Suit: a card suit, SuitUnknown (0) for a rank-only read.
	Suit = card.Suit
)

// The thirteen ranks (card.RankAce..card.RankKing).
const (
	RankAce   = card.RankAce
	Rank2     = card.Rank2
	Rank3     = card.Rank3
	Rank4     = card.Rank4
	Rank5     = card.Rank5
	Rank6     = card.Rank6
	Rank7     = card.Rank7
	Rank8     = card.Rank8
	Rank9     = card.Rank9
	Rank10    = card.Rank10
	RankJack  = card.RankJack
	RankQueen = card.RankQueen
	RankKing  = card.RankKing
)

// NumRanks is card.NumRanks, the number of ranks in a deck (13).
const NumRanks = card.NumRanks

// The suits (card.SuitUnknown..card.Clubs).
const (
	SuitUnknown = card.SuitUnknown
	Spades      = card.Spades
	Hearts      = card.Hearts
	Diamonds    = card.Diamonds
	Clubs       = card.Clubs
)

// NumSuits is card.NumSuits, the number of real suits (4).
const NumSuits = card.NumSuits

// ErrBadCard is card.ErrBadCard ("tableau: bad card"), wrapped by every card
// parsing error.
var ErrBadCard = card.ErrBadCard

// ParseCard is card.ParseCard: it parses the transcript card syntax
// ("AS", "10h", "td", "7"). Errors wrap ErrBadCard.
func ParseCard(s string) (Card, error) { return card.ParseCard(s) }
