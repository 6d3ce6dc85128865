package display

import (
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// FromView adapts the table controller's snapshot (tableau.Table.View) to
// the display's input:
//
//   - Offline from v.Offline;
//   - the burn (phase "burn"): BurnRemaining = BurnWant − BurnDrawn, or
//     unknown (-1, shown as "br" alone) before the first burn card;
//   - the coup's cards (the current coup's, or the last coup's between
//     coups), Waiting for "player-third"/"banker-third", the winner and
//     natural once complete; a voided coup shows blank (it no longer
//     counts);
//   - banque (v.Banque): the left tableau too, "left-third" as HandLeft,
//     and each tableau's result against the banker once complete (see
//     Compose for the three totals);
//   - LastCoup from v.IsLastCoup;
//   - Alert: the oldest alert latched and awaiting acknowledgement
//     (flashing); acknowledging clears the latch, and the display returns
//     to the coup. A shoe outage shows dashes while the link is down, then
//     E14 until acknowledged.
//
// Phase "no-shoe" shows blank.
func FromView(v tableau.TableView) TableState {
	s := TableState{Coup: v.Coup, Offline: v.Offline, LastCoup: v.IsLastCoup}
	for _, a := range v.Alerts {
		if a.Code != baccarat.AlertShoeOnline {
			s.Alert = string(a.Code)
			break
		}
	}
	switch v.Phase {
	case "burn":
		s.Burning = true
		s.BurnRemaining = -1
		if v.BurnWant > 0 {
			s.BurnRemaining = max(v.BurnWant-v.BurnDrawn, 0)
		}
		return s
	case "no-shoe":
		return s
	}
	s.Player = v.Player.Cards[:min(max(v.Player.N, 0), baccarat.MaxHandCards)]
	s.Banker = v.Banker.Cards[:min(max(v.Banker.N, 0), baccarat.MaxHandCards)]
	switch v.Waiting {
	case "player-third":
		s.Waiting = HandPlayer
	case "banker-third":
		s.Waiting = HandBanker
	case "left-third":
		s.Waiting = HandLeft
	}
	if v.Banque {
		s.Banque = true
		s.Left = v.Left.Cards[:min(max(v.Left.N, 0), baccarat.MaxHandCards)]
	}
	if v.Voided {
		s.Player, s.Banker, s.Left, s.Waiting, s.Voided = nil, nil, nil, HandNone, true
		return s
	}
	if v.Banque && v.Complete {
		res := map[baccarat.Winner]Result{baccarat.WinnerPlayer: ResultPlayer, baccarat.WinnerBanker: ResultBanker, baccarat.WinnerTie: ResultTie}
		s.RightResult, s.LeftResult = res[v.RightWinner], res[v.LeftWinner]
		return s
	}
	if v.Complete {
		switch v.Winner {
		case baccarat.WinnerPlayer:
			s.Result = ResultPlayer
		case baccarat.WinnerBanker:
			s.Result = ResultBanker
		case baccarat.WinnerTie:
			s.Result = ResultTie
		}
		s.Natural = v.Natural
	}
	return s
}
