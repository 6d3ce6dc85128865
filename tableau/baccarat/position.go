package baccarat

// Position is where a drawn card went.
type Position string

// The card positions.
const (
	PositionBurn   Position = "burn"
	PositionPlayer Position = "player"
	PositionBanker Position = "banker"
	PositionNone   Position = "none"  // belongs to no hand (extra card, voided coup)
	PositionRight  Position = "right" // banque: the right tableau
	PositionLeft   Position = "left"  // banque: the left tableau
)
