package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/sabot-table/sabot/cmd/internal/houseflags"
	"github.com/sabot-table/sabot/cmd/internal/oddsreport"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/chemin"
)

// cheminFlags are the chemin de fer flags as parsed; names are the flags
// of `sabot odds --game chemin-de-fer`, as addCheminFlags defines them.
type cheminFlags struct {
	five, table, banker, sees, punterSees *string
	solve, replacement                    *bool
	names                                 houseflags.Names
}

func addCheminFlags(fs *flag.FlagSet) *cheminFlags {
	f := &cheminFlags{}
	n := f.names.Add
	f.five = fs.String(n("punter-five"), "option", "chemin de fer: the punter on 5, `draw|stand` (option: his choice, for --solve)")
	f.table = fs.String(n("banker-table"), "scarne", "chemin de fer: the banker's table, `scarne|free` (free: every banker decision is his)")
	f.banker = fs.String(n("banker"), "", "chemin de fer: the banker's choice at each option, `T/V=draw|stand,...` (T/stood, T/*; unlisted: the punto banco tableau)")
	f.solve = fs.Bool(n("solve"), false, "chemin de fer: solve the game (both sides' equilibrium strategies over the option cells, and the value)")
	f.sees = fs.String(n("banker-sees"), "total", "chemin de fer --solve: the banker decides on his `total|hand` (hand: the two cards he holds)")
	f.punterSees = fs.String(n("punter-sees"), "total", "chemin de fer --solve: the punter decides on 5 by his `total|hand` (hand: the two cards he holds; Ethier and Gámez's Model B3 with --banker-sees hand; needs --commission 0)")
	f.replacement = fs.Bool(n("replacement"), false, "chemin de fer --solve: deal every card from the full shoe, as if put back (Kemeny and Snell's model)")
	return f
}

// apply checks the chemin de fer flags and fills c; one error per bad
// flag.
func (f *cheminFlags) apply(c *oddsreport.CheminConfig, set map[string]bool, commission baccarat.Commission) []error {
	var errs []error
	five := flagValue(&errs, "punter-five", *f.five, "draw, stand or option", baccarat.ParseRule)
	bt := flagValue(&errs, "banker-table", *f.table, "scarne or free", baccarat.ParseBankerTable)
	sees := flagValue(&errs, "banker-sees", *f.sees, "total or hand", chemin.ParseBankerSees)
	punterSees := flagValue(&errs, "punter-sees", *f.punterSees, "total or hand", chemin.ParseBankerSees)
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
