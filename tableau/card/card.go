// Package card holds the playing cards of Sabot's games: Card, Rank and
// Suit, their canonical text forms and the transcript card syntax
// (ParseCard). It imports only the standard library and is the lowest
// layer of tableau: drivers that only read cards (drivers/shoe) import it
// rather than the rules engine.
package card

import (
	"errors"
	"fmt"
)

// Rank is a card rank: RankAce (1) through RankKing (13). The zero value is
// not a valid rank.
type Rank uint8

// The thirteen ranks. Their numeric values are 1..13.
const (
	RankAce Rank = iota + 1
	Rank2
	Rank3
	Rank4
	Rank5
	Rank6
	Rank7
	Rank8
	Rank9
	Rank10
	RankJack
	RankQueen
	RankKing
)

// NumRanks is the number of ranks in a deck.
const NumRanks = 13

// Valid reports whether r is one of the thirteen ranks.
func (r Rank) Valid() bool { return r >= RankAce && r <= RankKing }

// Value is the baccarat point value of the rank: ace 1, 2–9 face value,
// ten and court cards 0. An invalid rank has value 0.
func (r Rank) Value() int {
	if r >= RankAce && r <= Rank9 {
		return int(r)
	}
	return 0
}

// rankChars is the canonical one-character form of each rank, indexed by Rank.
const rankChars = "?A23456789TJQK"

// String returns the canonical rank character ("A", "2".."9", "T", "J", "Q",
// "K"), or "?" for an invalid rank.
func (r Rank) String() string {
	if !r.Valid() {
		return "?"
	}
	return rankChars[r : r+1]
}

// Suit is a card suit. SuitUnknown (0) is a rank-only read: the shoe saw the
// rank but not the suit.
type Suit uint8

// The suits. SuitUnknown is the zero value.
const (
	SuitUnknown Suit = iota
	Spades
	Hearts
	Diamonds
	Clubs
)

// NumSuits is the number of real suits (SuitUnknown excluded).
const NumSuits = 4

const suitChars = "?SHDC"

// String returns "S", "H", "D" or "C", or "" for SuitUnknown.
func (s Suit) String() string {
	if s >= Spades && s <= Clubs {
		return suitChars[s : s+1]
	}
	return ""
}

// Valid reports whether s is SuitUnknown or one of the four suits.
func (s Suit) Valid() bool { return s <= Clubs }

// Card is one card drawn from the shoe. Suit may be SuitUnknown for shoes
// that read only ranks; UID is the reader's identifier of the physical card
// (RFID shoes), empty when the shoe gives none.
type Card struct {
	Rank Rank
	Suit Suit
	UID  string
}

// Value is the card's point value (see Rank.Value).
func (c Card) Value() int { return c.Rank.Value() }

// Valid reports whether the card has a valid rank and a valid (possibly
// unknown) suit.
func (c Card) Valid() bool { return c.Rank.Valid() && c.Suit.Valid() }

// cardStrings holds the canonical strings, so String does not allocate.
var cardStrings [NumRanks + 1][NumSuits + 1]string

func init() {
	for r := RankAce; r <= RankKing; r++ {
		for s := SuitUnknown; s <= Clubs; s++ {
			cardStrings[r][s] = r.String() + s.String()
		}
	}
}

// String returns the canonical form: rank character then suit character, as
// in "TH", "AS", "7C", or the rank alone for a rank-only read ("7"). An
// invalid card gives "??".
func (c Card) String() string {
	if !c.Valid() {
		return "??"
	}
	return cardStrings[c.Rank][c.Suit]
}

// ErrBadCard is wrapped by every card parsing error.
var ErrBadCard = errors.New("tableau: bad card")

// ParseCard parses the transcript card syntax, case-insensitively: a rank
// "A 2 3 4 5 6 7 8 9 T J Q K" (also "10"), optionally followed by a suit
// "S H D C". Examples: "AS", "10h", "td", "7". Errors wrap ErrBadCard.
func ParseCard(s string) (Card, error) {
	c, ok := parseCard(s)
	if !ok {
		return Card{}, fmt.Errorf("%w: %q", ErrBadCard, s)
	}
	return c, nil
}

// ParseBytes is ParseCard for a byte slice, without allocating: it
// reports whether b is a card in the transcript syntax instead of
// returning an error. The transcript lexer reads card words with it.
func ParseBytes(b []byte) (Card, bool) { return parseCard(b) }

// parseCard is the allocation-free core of ParseCard, for strings and
// byte slices.
func parseCard[T ~string | ~[]byte](s T) (Card, bool) {
	var c Card
	switch {
	case len(s) >= 2 && s[0] == '1' && s[1] == '0':
		c.Rank = Rank10
		s = s[2:]
	case len(s) >= 1:
		r := RankFromByte(s[0])
		if r == 0 {
			return Card{}, false
		}
		c.Rank = r
		s = s[1:]
	default:
		return Card{}, false
	}
	switch len(s) {
	case 0:
		return c, true
	case 1:
		c.Suit = SuitFromByte(s[0])
		if c.Suit == SuitUnknown {
			return Card{}, false
		}
		return c, true
	}
	return Card{}, false
}

// RankFromByte is the rank of a one-byte rank character, case-insensitively
// ("A", "2".."9", "T", "J", "Q", "K"), or 0 when b is none ("10" is two
// bytes: see ParseCard).
func RankFromByte(b byte) Rank {
	if b >= '2' && b <= '9' {
		return Rank(b - '0')
	}
	switch b | 0x20 { // ASCII lower case (only letters map to letters)
	case 'a':
		return RankAce
	case 't':
		return Rank10
	case 'j':
		return RankJack
	case 'q':
		return RankQueen
	case 'k':
		return RankKing
	}
	return 0
}

// SuitFromByte is the suit of a suit character, case-insensitively ("S",
// "H", "D", "C"), or SuitUnknown when b is none.
func SuitFromByte(b byte) Suit {
	switch b | 0x20 {
	case 's':
		return Spades
	case 'h':
		return Hearts
	case 'd':
		return Diamonds
	case 'c':
		return Clubs
	}
	return SuitUnknown
}

// MarshalText encodes the card in its canonical form (see String). An invalid
// card is an error, so that "??" never reaches a consumer.
func (c Card) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("%w: rank %d suit %d", ErrBadCard, c.Rank, c.Suit)
	}
	return []byte(c.String()), nil
}

// UnmarshalText parses the transcript card syntax (see ParseCard). UID is
// left empty.
func (c *Card) UnmarshalText(b []byte) error {
	v, ok := parseCard(string(b))
	if !ok {
		return fmt.Errorf("%w: %q", ErrBadCard, b)
	}
	*c = v
	return nil
}

// IsZero reports whether c is the zero Card (no card). JSON fields tagged
// omitzero use it, so an alert without a causing card has no "card" key.
func (c Card) IsZero() bool { return c.Rank == 0 && c.Suit == 0 && c.UID == "" }
