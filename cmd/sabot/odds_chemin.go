package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/sabot-table/sabot/cmd/internal/oddsreport"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/chemin"
)

// cheminOnlyFlags are the flags of `sabot odds --game chemin-de-fer`.
var cheminOnlyFlags = []string{"punter-five", "banker-table", "banker", "solve", "banker-sees", "punter-sees", "replacement"}

// cheminFlags are the chemin de fer flags as parsed.
type cheminFlags struct {
	five, table, banker, sees, punterSees *string
	solve, replacement                    *bool
}

func addCheminFlags(fs *flag.FlagSet) *cheminFlags {
	return &cheminFlags{
		five:        fs.String("punter-five", "option", "chemin de fer: the punter on 5, `draw|stand` (option: his choice, for --solve)"),
		table:       fs.String("banker-table", "scarne", "chemin de fer: the banker's table, `scarne|free` (free: every banker decision is his)"),
		banker:      fs.String("banker", "", "chemin de fer: the banker's choice at each option, `T/V=draw|stand,...` (T/stood, T/*; unlisted: the punto banco tableau)"),
		sees:        fs.String("banker-sees", "total", "chemin de fer --solve: the banker decides on his `total|hand` (hand: the two cards he holds)"),
		punterSees:  fs.String("punter-sees", "total", "chemin de fer --solve: the punter decides on 5 by his `total|hand` (hand: the two cards he holds; Ethier and Gámez's Model B3 with --banker-sees hand; needs --commission 0)"),
		solve:       fs.Bool("solve", false, "chemin de fer: solve the game (both sides' equilibrium strategies over the option cells, and the value)"),
		replacement: fs.Bool("replacement", false, "chemin de fer --solve: deal every card from the full shoe, as if put back (Kemeny and Snell's model)"),
	}
}

// apply checks the chemin de fer flags and fills c; one error per bad
// flag.
func (f *cheminFlags) apply(c *oddsreport.CheminConfig, set map[string]bool, commission baccarat.Commission) []error {
	var errs []error
	five, err := baccarat.ParseRule(*f.five)
	if err != nil {
		errs = append(errs, fmt.Errorf("--punter-five %q: want draw, stand or option", *f.five))
	}
	bt, err := baccarat.ParseBankerTable(*f.table)
	if err != nil {
		errs = append(errs, fmt.Errorf("--banker-table %q: want scarne or free", *f.table))
	}
	sees, err := chemin.ParseBankerSees(*f.sees)
	if err != nil {
		errs = append(errs, fmt.Errorf("--banker-sees %q: want total or hand", *f.sees))
	}
	punterSees, err := chemin.ParseBankerSees(*f.punterSees)
	if err != nil {
		errs = append(errs, fmt.Errorf("--punter-sees %q: want total or hand", *f.punterSees))
	}
	c.Solve, c.Five, c.BankerTable = *f.solve, five, bt
	if len(errs) > 0 {
		return errs
	}
	tab, err := baccarat.CheminDeFer(five, bt)
	if err != nil {
		return []error{err}
	}
	c.Game = chemin.CheminGame{Table: tab, Sees: sees, Replacement: *f.replacement, Commission: commission,
		PunterSeesHand: punterSees == chemin.SeesHand}
	if c.Solve {
		if set["banker"] {
			errs = append(errs, errors.New("--banker and --solve exclude each other (--solve finds the banker's strategy)"))
		}
		if c.Game.PunterSeesHand && c.Game.CommissionBP() != 0 {
			errs = append(errs, fmt.Errorf("--punter-sees hand: solved without commission only; give --commission 0 (it is %g%%)", float64(c.Game.CommissionBP())/100))
		}
		if c.Game.PunterSeesHand && five != baccarat.Option {
			errs = append(errs, fmt.Errorf("--punter-sees hand: the punter's 5 must be his option (--punter-five option, not %s)", five))
		}
		return errs
	}
	for _, name := range []string{"banker-sees", "punter-sees", "replacement"} {
		if set[name] {
			errs = append(errs, fmt.Errorf("--%s: only with --solve", name))
		}
	}
	if five == baccarat.Option {
		errs = append(errs, errors.New("--punter-five: give draw or stand for the odds of a strategy, or --solve for the game"))
	}
	if c.Game.Table, err = chemin.ChooseBanker(tab, *f.banker); err != nil {
		errs = append(errs, fmt.Errorf("--banker %q: %v", *f.banker, err))
	}
	return errs
}
