package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/sabot-table/sabot/tableau"
)

// banqueOnlyFlags are the flags of `sabot odds --game banque` alone.
var banqueOnlyFlags = []string{"right-five", "left-five"}

type banqueFlags struct{ right, left *string }

func addBanqueFlags(fs *flag.FlagSet) *banqueFlags {
	return &banqueFlags{
		right: fs.String("right-five", "", "banque: the right tableau on 5, `draw|stand` (default: --punter-five)"),
		left:  fs.String("left-five", "", "banque: the left tableau on 5, `draw|stand` (default: --punter-five)"),
	}
}

// banqueConfig is the parsed banque game of `sabot odds`.
type banqueConfig struct {
	game     tableau.BanqueGame
	strategy string // the --banker list as given
}

// apply checks the banque flags (and the chemin de fer flags banque
// shares: --punter-five, --banker; refusing the others) and fills c.
func (f *banqueFlags) apply(c *banqueConfig, set map[string]bool, cf *cheminFlags) []error {
	var errs []error
	for _, name := range []string{"solve", "banker-table", "banker-sees", "replacement"} {
		if set[name] {
			errs = append(errs, fmt.Errorf("--%s: only with --game chemin-de-fer", name))
		}
	}
	reported := map[string]bool{}
	five := func(name, v string) tableau.Rule {
		if v == "" {
			name, v = "punter-five", *cf.five
		}
		r, err := tableau.ParseRule(v)
		if (err != nil || r == tableau.Option) && !reported[name] {
			reported[name] = true
			errs = append(errs, fmt.Errorf("--%s %q: want draw or stand (each tableau's 5 is fixed for the odds)", name, v))
		}
		return r
	}
	c.game.RightFive = five("right-five", *f.right)
	c.game.LeftFive = five("left-five", *f.left)
	b, err := tableau.ParseBanqueBanker(*cf.banker)
	if err != nil {
		errs = append(errs, fmt.Errorf("--banker %q: %v", *cf.banker, err))
	}
	c.game.Banker, c.strategy = b, strings.TrimSpace(*cf.banker)
	return errs
}

// banqueSideJSON is one tableau's results against the banker.
type banqueSideJSON struct {
	Win  float64 `json:"win"`
	Lose float64 `json:"lose"`
	Tie  float64 `json:"tie"`
	EV   float64 `json:"ev"` // per unit staked on this side, 1:1, ties push
}

// banqueOddsJSON is `sabot odds --game banque`.
type banqueOddsJSON struct {
	Game          string         `json:"game"`
	Decks         int            `json:"decks"`
	CardsLeft     int            `json:"cards_left"`
	RightFive     string         `json:"right_five"`
	LeftFive      string         `json:"left_five"`
	Banker        string         `json:"banker"` // the strategy as given ("" the default: draw on 0–5)
	Right         banqueSideJSON `json:"right"`
	Left          banqueSideJSON `json:"left"`
	ACheval       float64        `json:"a_cheval_ev"` // a bet on both sides, half each
	BankEV        float64        `json:"bank_ev"`     // the bank's per unit on each side
	BankerNatural float64        `json:"banker_natural"`
	// Counts are the exact integers in ordered nine-card sequences, as
	// decimal strings (they exceed 2^64).
	Counts map[string]string `json:"counts"`
}

func (c *banqueConfig) analyze(rc *tableau.RankCounts, decks int) (any, error) {
	o, err := tableau.AnalyzeBanque(rc, &c.game)
	if err != nil {
		return nil, err
	}
	side := func(s tableau.BanqueSide) banqueSideJSON {
		return banqueSideJSON{Win: o.Prob(s.Win), Lose: o.Prob(s.Lose), Tie: o.Prob(s.Tie), EV: o.EV(s)}
	}
	r, l := side(o.Right), side(o.Left)
	return banqueOddsJSON{
		Game: "banque", Decks: decks, CardsLeft: rc.Total(),
		RightFive: c.game.RightFive.String(), LeftFive: c.game.LeftFive.String(), Banker: c.strategy,
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
