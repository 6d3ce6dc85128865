package tableau

import (
	"errors"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// banqueLine is the JSON form of a banque coup line (Event.MarshalJSON).
type banqueLine struct {
	Type        baccarat.EventKind  `json:"type"`
	Game        baccarat.Game       `json:"game"`
	Shoe        int                 `json:"shoe"`
	Coup        int                 `json:"coup"`
	Right       baccarat.Hand       `json:"right"`
	Left        baccarat.Hand       `json:"left"`
	Banker      baccarat.Hand       `json:"banker"`
	RightTotal  int                 `json:"right_total"`
	LeftTotal   int                 `json:"left_total"`
	BankerTotal int                 `json:"banker_total"`
	RightWinner sideResult          `json:"right_winner"`
	LeftWinner  sideResult          `json:"left_winner"`
	Natural     banqueNatural       `json:"natural"`
	Cards       int                 `json:"cards"`
	Options     baccarat.OptionList `json:"options"`
	Settlement  struct {
		Right   baccarat.Payout `json:"right"`
		Left    baccarat.Payout `json:"left"`
		ACheval baccarat.Payout `json:"a_cheval"`
	} `json:"settlement,omitzero"`
	Dealer string `json:"dealer,omitempty"`
}

type banqueNatural struct {
	Right  bool `json:"right"`
	Left   bool `json:"left"`
	Banker bool `json:"banker"`
}

// sideResult is a banque tableau's result in JSON: the tableau's name
// when it wins ("right" or "left"), "banker" or "tie".
type sideResult struct {
	W    baccarat.Winner
	Side string // "right" or "left"
}

func (r sideResult) MarshalText() ([]byte, error) {
	if r.W == baccarat.WinnerPlayer {
		return []byte(r.Side), nil
	}
	return r.W.MarshalText()
}

func (r *sideResult) UnmarshalText(b []byte) error {
	if string(b) == "right" || string(b) == "left" {
		r.W = baccarat.WinnerPlayer
		return nil
	}
	if string(b) == "player" {
		return errBanqueWinner
	}
	return r.W.UnmarshalText(b)
}

var errBanqueWinner = errors.New("tableau: a banque winner is right, left, banker or tie")

func newBanqueLine(e *baccarat.CoupEvent) banqueLine {
	l := banqueLine{
		Type: e.Type, Game: e.Game, Shoe: e.Shoe, Coup: e.Coup,
		Right: e.Player, Left: e.Left, Banker: e.Banker,
		RightTotal: e.PlayerTotal, LeftTotal: e.LeftTotal, BankerTotal: e.BankerTotal,
		RightWinner: sideResult{e.RightWinner, "right"}, LeftWinner: sideResult{e.LeftWinner, "left"},
		Natural: banqueNatural{e.Naturals[0], e.Naturals[1], e.Naturals[2]},
		Cards:   e.Cards, Options: e.Options, Dealer: e.Dealer,
	}
	l.Settlement.Right, l.Settlement.Left, l.Settlement.ACheval = e.Settlement.Right, e.Settlement.Left, e.Settlement.ACheval
	return l
}

func (l *banqueLine) event() baccarat.CoupEvent {
	e := baccarat.CoupEvent{
		Type: l.Type, Game: l.Game, Shoe: l.Shoe, Coup: l.Coup,
		Player: l.Right, Left: l.Left, Banker: l.Banker,
		PlayerTotal: l.RightTotal, LeftTotal: l.LeftTotal, BankerTotal: l.BankerTotal,
		RightWinner: l.RightWinner.W, LeftWinner: l.LeftWinner.W,
		Natural:    l.Natural.Banker,
		Naturals:   [3]bool{l.Natural.Right, l.Natural.Left, l.Natural.Banker},
		PlayerPair: l.Right.Pair(), BankerPair: l.Banker.Pair(),
		Cards: l.Cards, Options: l.Options,
	}
	e.Options.Kept = true
	e.Settlement.Right, e.Settlement.Left, e.Settlement.ACheval = l.Settlement.Right, l.Settlement.Left, l.Settlement.ACheval
	return e
}
