package tableau

import (
	"encoding/json"
	"fmt"
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
func (k EventKind) String() string {
	switch k {
	case EventCoup:
		return "coup"
	case EventAlert:
		return "alert"
	case EventVoid:
		return "void"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// MarshalText encodes the kind's String; an invalid kind is an error.
func (k EventKind) MarshalText() ([]byte, error) {
	if k < EventCoup || k > EventVoid {
		return nil, fmt.Errorf("tableau: invalid event kind %d", uint8(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText decodes "coup", "alert" or "void".
func (k *EventKind) UnmarshalText(b []byte) error {
	switch string(b) {
	case "coup":
		*k = EventCoup
	case "alert":
		*k = EventAlert
	case "void":
		*k = EventVoid
	default:
		return fmt.Errorf("tableau: unknown event type %q", b)
	}
	return nil
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

// AlertEvent is an alert: the "alert" line of `sabot check` and the MQTT
// alert payload. Coup is the number of the coup the alert belongs to, 0 for
// the burn. Card is the card that caused it; it is the zero Card (and the
// "card" key is omitted) when no single card did.
type AlertEvent struct {
	Type EventKind `json:"type"` // always EventAlert
	Shoe int       `json:"shoe"`
	Coup int       `json:"coup"`
	Code AlertCode `json:"code"`
	Card Card      `json:"card,omitzero"`
	// AdvantageBet is set on advantage alerts only (nil otherwise); its
	// fields appear in the alert's JSON as "bet" and "ev".
	*AdvantageBet
	// Dealer is the id of the dealer signed in when the alert was
	// raised; empty (omitted) when none is.
	Dealer string `json:"dealer,omitempty"`
}

// VoidEvent is the supervisor voiding a coup: the "void" line of
// `sabot check`. A voided coup keeps its number and has no result (even if
// its coup line was already emitted).
type VoidEvent struct {
	Type EventKind `json:"type"` // always EventVoid
	Shoe int       `json:"shoe"`
	Coup int       `json:"coup"`
	// Dealer is the id of the dealer signed in when the coup was voided;
	// empty (omitted) when none is.
	Dealer string `json:"dealer,omitempty"`
}

// Event is one output event of the shoe fold: exactly one of Coup, Alert or
// Void is meaningful, as Kind says. It is a plain value so that the fold can
// append events to a reused slice without allocating. Its JSON form is the
// form of the selected event.
type Event struct {
	Kind  EventKind
	Coup  CoupEvent
	Alert AlertEvent
	Void  VoidEvent
	// Macao is a Macao or Victoria coup line (Kind EventCoup; Coup is
	// then unused), nil otherwise. See MacaoCoupEvent.
	Macao *MacaoCoupEvent
}

// Shoe returns the shoe number of the selected event.
func (e *Event) Shoe() int {
	switch e.Kind {
	case EventCoup:
		if e.Macao != nil {
			return e.Macao.Shoe
		}
		return e.Coup.Shoe
	case EventAlert:
		return e.Alert.Shoe
	case EventVoid:
		return e.Void.Shoe
	}
	return 0
}

// CoupNumber returns the coup number of the selected event.
func (e *Event) CoupNumber() int {
	switch e.Kind {
	case EventCoup:
		if e.Macao != nil {
			return e.Macao.Coup
		}
		return e.Coup.Coup
	case EventAlert:
		return e.Alert.Coup
	case EventVoid:
		return e.Void.Coup
	}
	return 0
}

// MarshalJSON encodes the selected event. A chemin de fer coup line is
// CoupEvent's without dragon7, panda8 and banker_wins_on_6 (punto banco's
// side-bet facts, which mean nothing there; see cheminLine). A banque coup
// line has the keys
// type, game, shoe, coup, right, left, banker, right_total, left_total,
// banker_total, right_winner and left_winner ("right"/"left", "banker" or
// "tie"), natural ({"right":…,"left":…,"banker":…}), cards, options and
// settlement (right, left, a_cheval); the other games' lines are
// CoupEvent's fields.
func (e Event) MarshalJSON() ([]byte, error) {
	switch e.Kind {
	case EventCoup:
		if e.Macao != nil {
			return json.Marshal(e.Macao)
		}
		if e.Coup.Game == GameBanque {
			return json.Marshal(newBanqueLine(&e.Coup))
		}
		if !e.Coup.Game.PuntoBancoDeal() {
			return json.Marshal(newCheminLine(&e.Coup))
		}
		return json.Marshal(e.Coup)
	case EventAlert:
		return json.Marshal(e.Alert)
	case EventVoid:
		return json.Marshal(e.Void)
	}
	return nil, fmt.Errorf("tableau: invalid event kind %d", uint8(e.Kind))
}

// UnmarshalJSON decodes any of the three event shapes, selected by "type".
func (e *Event) UnmarshalJSON(b []byte) error {
	var head struct {
		Type  EventKind       `json:"type"`
		Seats json.RawMessage `json:"seats"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return fmt.Errorf("tableau: event: %w", err)
	}
	*e = Event{Kind: head.Type}
	var err error
	switch head.Type {
	case EventCoup:
		if head.Seats != nil { // a Macao or Victoria coup line
			e.Macao = new(MacaoCoupEvent)
			err = json.Unmarshal(b, e.Macao)
			break
		}
		var g struct {
			Game Game `json:"game"`
		}
		if err = json.Unmarshal(b, &g); err == nil && g.Game == GameBanque {
			var l banqueLine
			if err = json.Unmarshal(b, &l); err == nil {
				e.Coup = l.event()
			}
			break
		}
		err = json.Unmarshal(b, &e.Coup)
	case EventAlert:
		err = json.Unmarshal(b, &e.Alert)
	case EventVoid:
		err = json.Unmarshal(b, &e.Void)
	}
	if err != nil {
		return fmt.Errorf("tableau: %s event: %w", head.Type, err)
	}
	return nil
}

// String formats the event as its JSON line (or an error note).
func (e Event) String() string {
	b, err := e.MarshalJSON()
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// alertEvent and voidEvent build Events (the fold builds coup events in
// place: Fold.emitCoup).
func alertEvent(shoe, coup int, code AlertCode, card Card) Event {
	return Event{Kind: EventAlert, Alert: AlertEvent{Type: EventAlert, Shoe: shoe, Coup: coup, Code: code, Card: card}}
}

func voidEvent(shoe, coup int) Event {
	return Event{Kind: EventVoid, Void: VoidEvent{Type: EventVoid, Shoe: shoe, Coup: coup}}
}

// cheminLine is the JSON form of a chemin de fer coup line
// (Event.MarshalJSON): CoupEvent's keys but the punto banco side-bet
// facts. player_pair and banker_pair stay: they are keys of the shared
// contract's coup line (a fact of the cards, shown on the roads), though
// chemin de fer offers no pair bet. Its decoding is CoupEvent's (the keys
// left out decode as false).
type cheminLine struct {
	Type        EventKind  `json:"type"`
	Game        Game       `json:"game"`
	Shoe        int        `json:"shoe"`
	Coup        int        `json:"coup"`
	Player      Hand       `json:"player"`
	Banker      Hand       `json:"banker"`
	PlayerTotal int        `json:"player_total"`
	BankerTotal int        `json:"banker_total"`
	Winner      Winner     `json:"winner"`
	Natural     bool       `json:"natural"`
	PlayerPair  bool       `json:"player_pair"`
	BankerPair  bool       `json:"banker_pair"`
	Cards       int        `json:"cards"`
	Options     OptionList `json:"options,omitzero"`
	Settlement  Settlement `json:"settlement,omitzero"`
	Dealer      string     `json:"dealer,omitempty"`
}

func newCheminLine(e *CoupEvent) cheminLine {
	return cheminLine{
		Type: e.Type, Game: e.Game, Shoe: e.Shoe, Coup: e.Coup,
		Player: e.Player, Banker: e.Banker, PlayerTotal: e.PlayerTotal, BankerTotal: e.BankerTotal,
		Winner: e.Winner, Natural: e.Natural, PlayerPair: e.PlayerPair, BankerPair: e.BankerPair,
		Cards: e.Cards, Options: e.Options, Settlement: e.Settlement, Dealer: e.Dealer,
	}
}
