package baccarat

import (
	"fmt"

	"github.com/sabot-table/sabot/tableau/internal/enum"
)

// EventKind is the "type" of an output event: coup, alert or void.
type EventKind uint8

// The output event kinds. The zero value is not a valid kind.
const (
	EventCoup  EventKind = iota + 1 // a coup completed: CoupEvent
	EventAlert                      // a dealer error or condition: AlertEvent
	EventVoid                       // the supervisor voided a coup: VoidEvent
)

// String returns "coup", "alert" or "void".
func (k EventKind) String() string { return eventKindNames.Name(k) }

var eventKindNames = enum.Names[EventKind]{Type: "EventKind", Words: []string{EventCoup: "coup", EventAlert: "alert", EventVoid: "void"}}

// MarshalText encodes the kind's String; an invalid kind is an error.
func (k EventKind) MarshalText() ([]byte, error) {
	return eventKindNames.Encode(k, func() error { return fmt.Errorf("tableau: invalid event kind %d", uint8(k)) })
}

// UnmarshalText decodes "coup", "alert" or "void".
func (k *EventKind) UnmarshalText(b []byte) error {
	return eventKindNames.Decode(k, b, "event type")
}

// CoupEvent is a completed coup: the "coup" line of `sabot check`, and the
// fields of the MQTT coup payload. Shoe and Coup are 1-based numbers
// (coups restart at 1 in each shoe). The keys type, shoe, coup, player,
// banker, player_total, banker_total, winner, natural, player_pair and
// banker_pair are the shared contract; the rest are extra facts.
//
// Every line has "game" (the game's name); chemin de fer and banque lines
// have "options" (see OptionList); chemin de fer's has no dragon7, panda8
// or banker_wins_on_6 (false in its events), banque's has its own keys
// (see Event.MarshalJSON).
//
// Example line:
//
//	{"type":"coup","game":"punto-banco","shoe":1,"coup":12,"player":["7H","3C"],"banker":["2D","KS","4H"],"player_total":0,"banker_total":6,"winner":"banker","natural":false,"player_pair":false,"banker_pair":false,...}
type CoupEvent struct {
	Type          EventKind `json:"type"` // always EventCoup
	Game          Game      `json:"game"` // the game's name
	Shoe          int       `json:"shoe"`
	Coup          int       `json:"coup"`
	Player        Hand      `json:"player"`
	Banker        Hand      `json:"banker"`
	PlayerTotal   int       `json:"player_total"`
	BankerTotal   int       `json:"banker_total"`
	Winner        Winner    `json:"winner"`
	Natural       bool      `json:"natural"`
	PlayerPair    bool      `json:"player_pair"`
	BankerPair    bool      `json:"banker_pair"`
	Dragon7       bool      `json:"dragon7"`          // banker won with a three-card 7 (punto banco games only)
	Panda8        bool      `json:"panda8"`           // player won with a three-card 8 (punto banco games only)
	BankerWinsOn6 bool      `json:"banker_wins_on_6"` // banker won with a total of 6 (punto banco games only)
	Cards         int       `json:"cards"`            // cards in the coup, 4–6 (banque 6–9)
	// Options are the choices made at option points (chemin de fer,
	// banque; left out of the other games' lines).
	Options    OptionList `json:"options,omitzero"`
	Settlement Settlement `json:"settlement,omitzero"`
	// Dealer is the id of the dealer signed in when the coup's result
	// was decided ("dealer ID" in a transcript; see ValidateDealerID);
	// empty, and the key omitted, when no dealer is signed in.
	Dealer string `json:"dealer,omitempty"`

	// Banque only (its line has its own shape, see banqueLine): Player is
	// the right tableau, Left the left one; RightWinner and LeftWinner
	// each tableau's result against the banker (WinnerPlayer: the
	// tableau wins); Naturals right's, left's and the banker's; Winner is
	// WinnerNone.
	Left        Hand    `json:"-"`
	LeftTotal   int     `json:"-"`
	RightWinner Winner  `json:"-"`
	LeftWinner  Winner  `json:"-"`
	Naturals    [3]bool `json:"-"`
}
