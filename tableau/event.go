package tableau

import (
	"encoding/json"
	"fmt"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// AlertEvent is an alert: the "alert" line of `sabot check` and the MQTT
// alert payload. Coup is the number of the coup the alert belongs to, 0 for
// the burn. Card is the card that caused it; it is the zero Card (and the
// "card" key is omitted) when no single card did.
type AlertEvent struct {
	Type baccarat.EventKind `json:"type"` // always EventAlert
	Shoe int                `json:"shoe"`
	Coup int                `json:"coup"`
	Code baccarat.AlertCode `json:"code"`
	Card Card               `json:"card,omitzero"`
	// AdvantageBet is set on advantage alerts only (nil otherwise); its
	// fields appear in the alert's JSON as "bet" and "ev".
	*odds.AdvantageBet
	// Dealer is the id of the dealer signed in when the alert was
	// raised; empty (omitted) when none is.
	Dealer string `json:"dealer,omitempty"`
	// Declared and Computed are set on result-mismatch alerts only: the
	// result the dealer declared and the winner the cards give ("player",
	// "banker" or "tie"); omitted otherwise.
	Declared baccarat.Winner `json:"declared,omitzero"`
	Computed baccarat.Winner `json:"computed,omitzero"`
}

// VoidEvent is the supervisor voiding a coup: the "void" line of
// `sabot check`. A voided coup keeps its number and has no result (even if
// its coup line was already emitted).
type VoidEvent struct {
	Type baccarat.EventKind `json:"type"` // always EventVoid
	Shoe int                `json:"shoe"`
	Coup int                `json:"coup"`
	// Dealer is the id of the dealer signed in when the coup was voided;
	// empty (omitted) when none is.
	Dealer string `json:"dealer,omitempty"`
}

// Event is one output event of the shoe fold: exactly one of Coup, Alert or
// Void is meaningful, as Kind says. It is a plain value so that the fold can
// append events to a reused slice without allocating. Its JSON form is the
// form of the selected event.
type Event struct {
	Kind  baccarat.EventKind
	Coup  baccarat.CoupEvent
	Alert AlertEvent
	Void  VoidEvent
	// Macao is a Macao or Victoria coup line (Kind EventCoup; Coup is
	// then unused), nil otherwise. See MacaoCoupEvent.
	Macao *baccarat.MacaoCoupEvent
}

// Shoe returns the shoe number of the selected event.
func (e *Event) Shoe() int {
	shoe, _ := e.numbers()
	return shoe
}

// CoupNumber returns the coup number of the selected event.
func (e *Event) CoupNumber() int {
	_, coup := e.numbers()
	return coup
}

// numbers returns the shoe and coup numbers of the selected event (0, 0
// for an event of no kind).
func (e *Event) numbers() (shoe, coup int) {
	switch e.Kind {
	case baccarat.EventCoup:
		if e.Macao != nil {
			return e.Macao.Shoe, e.Macao.Coup
		}
		return e.Coup.Shoe, e.Coup.Coup
	case baccarat.EventAlert:
		return e.Alert.Shoe, e.Alert.Coup
	case baccarat.EventVoid:
		return e.Void.Shoe, e.Void.Coup
	}
	return 0, 0
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
	case baccarat.EventCoup:
		if e.Macao != nil {
			return json.Marshal(e.Macao)
		}
		if e.Coup.Game == baccarat.GameBanque {
			return json.Marshal(newBanqueLine(&e.Coup))
		}
		if !e.Coup.Game.DealsPuntoBanco() {
			return json.Marshal(newCheminLine(&e.Coup))
		}
		return json.Marshal(e.Coup)
	case baccarat.EventAlert:
		return json.Marshal(e.Alert)
	case baccarat.EventVoid:
		return json.Marshal(e.Void)
	}
	return nil, fmt.Errorf("tableau: invalid event kind %d", uint8(e.Kind))
}

// UnmarshalJSON decodes any of the three event shapes, selected by "type".
func (e *Event) UnmarshalJSON(b []byte) error {
	var head struct {
		Type  baccarat.EventKind `json:"type"`
		Seats json.RawMessage    `json:"seats"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return fmt.Errorf("tableau: event: %w", err)
	}
	*e = Event{Kind: head.Type}
	var err error
	switch head.Type {
	case baccarat.EventCoup:
		if head.Seats != nil { // a Macao or Victoria coup line
			e.Macao = new(baccarat.MacaoCoupEvent)
			err = json.Unmarshal(b, e.Macao)
			break
		}
		var g struct {
			Game baccarat.Game `json:"game"`
		}
		if err = json.Unmarshal(b, &g); err == nil && g.Game == baccarat.GameBanque {
			var l banqueLine
			if err = json.Unmarshal(b, &l); err == nil {
				e.Coup = l.event()
			}
			break
		}
		err = json.Unmarshal(b, &e.Coup)
	case baccarat.EventAlert:
		err = json.Unmarshal(b, &e.Alert)
	case baccarat.EventVoid:
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
func alertEvent(shoe, coup int, code baccarat.AlertCode, card Card) Event {
	return Event{Kind: baccarat.EventAlert, Alert: AlertEvent{Type: baccarat.EventAlert, Shoe: shoe, Coup: coup, Code: code, Card: card}}
}

func voidEvent(shoe, coup int) Event {
	return Event{Kind: baccarat.EventVoid, Void: VoidEvent{Type: baccarat.EventVoid, Shoe: shoe, Coup: coup}}
}

// cheminLine is the JSON form of a chemin de fer coup line
// (Event.MarshalJSON): CoupEvent's keys but the punto banco side-bet
// facts. player_pair and banker_pair stay: they are keys of the shared
// contract's coup line (a fact of the cards, shown on the roads), though
// chemin de fer offers no pair bet. Its decoding is CoupEvent's (the keys
// left out decode as false).
type cheminLine struct {
	Type        baccarat.EventKind  `json:"type"`
	Game        baccarat.Game       `json:"game"`
	Shoe        int                 `json:"shoe"`
	Coup        int                 `json:"coup"`
	Player      baccarat.Hand       `json:"player"`
	Banker      baccarat.Hand       `json:"banker"`
	PlayerTotal int                 `json:"player_total"`
	BankerTotal int                 `json:"banker_total"`
	Winner      baccarat.Winner     `json:"winner"`
	Natural     bool                `json:"natural"`
	PlayerPair  bool                `json:"player_pair"`
	BankerPair  bool                `json:"banker_pair"`
	Cards       int                 `json:"cards"`
	Options     baccarat.OptionList `json:"options,omitzero"`
	Settlement  baccarat.Settlement `json:"settlement,omitzero"`
	Dealer      string              `json:"dealer,omitempty"`
}

func newCheminLine(e *baccarat.CoupEvent) cheminLine {
	return cheminLine{
		Type: e.Type, Game: e.Game, Shoe: e.Shoe, Coup: e.Coup,
		Player: e.Player, Banker: e.Banker, PlayerTotal: e.PlayerTotal, BankerTotal: e.BankerTotal,
		Winner: e.Winner, Natural: e.Natural, PlayerPair: e.PlayerPair, BankerPair: e.BankerPair,
		Cards: e.Cards, Options: e.Options, Settlement: e.Settlement, Dealer: e.Dealer,
	}
}
