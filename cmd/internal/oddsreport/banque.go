package oddsreport

import (
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// BanqueConfig is the baccarat banque game of sabot odds.
type BanqueConfig struct {
	Game     odds.BanqueGame // each tableau's 5 and the banker's draw table
	Strategy string          // the --banker list as given, trimmed
}

// BanqueSideOdds is one tableau's results against the banker.
type BanqueSideOdds struct {
	Win  float64 `json:"win"`
	Lose float64 `json:"lose"`
	Tie  float64 `json:"tie"`
	EV   float64 `json:"ev"` // per unit staked on this side, 1:1, ties push
}

// BanqueOdds is `sabot odds --game banque`.
type BanqueOdds struct {
	Game          string         `json:"game"`
	Decks         int            `json:"decks"`
	CardsLeft     int            `json:"cards_left"`
	RightFive     string         `json:"right_five"`
	LeftFive      string         `json:"left_five"`
	Banker        string         `json:"banker"` // the strategy as given ("" the default: draw on 0–5)
	Right         BanqueSideOdds `json:"right"`
	Left          BanqueSideOdds `json:"left"`
	ACheval       float64        `json:"a_cheval_ev"` // a bet on both sides, half each
	BankEV        float64        `json:"bank_ev"`     // the bank's per unit on each side
	BankerNatural float64        `json:"banker_natural"`
	// Counts are the exact integers in ordered nine-card sequences, as
	// decimal strings (they exceed 2^64).
	Counts map[string]string `json:"counts"`
}

func (c *BanqueConfig) analyze(rc *baccarat.RankCounts, decks int) (any, error) {
	o, err := odds.AnalyzeBanque(rc, &c.Game)
	if err != nil {
		return nil, err
	}
	side := func(s odds.BanqueSide) BanqueSideOdds {
		return BanqueSideOdds{Win: o.Prob(s.Win), Lose: o.Prob(s.Lose), Tie: o.Prob(s.Tie), EV: o.EV(s)}
	}
	r, l := side(o.Right), side(o.Left)
	return BanqueOdds{
		Game: "banque", Decks: decks, CardsLeft: rc.Total(),
		RightFive: c.Game.RightFive.String(), LeftFive: c.Game.LeftFive.String(), Banker: c.Strategy,
		Right: r, Left: l, ACheval: (r.EV + l.EV) / 2, BankEV: -(r.EV + l.EV) / 2,
		BankerNatural: o.Prob(o.BankerNatural),
		Counts: map[string]string{
			"sequences": o.Sequences.String(),
			"right_win": o.Right.Win.String(), "right_lose": o.Right.Lose.String(), "right_tie": o.Right.Tie.String(),
			"left_win": o.Left.Win.String(), "left_lose": o.Left.Lose.String(), "left_tie": o.Left.Tie.String(),
			"banker_natural": o.BankerNatural.String(),
		},
	}, nil
}
