package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/sabot-table/sabot/cmd/internal/houseflags"
	"github.com/sabot-table/sabot/cmd/internal/oddsreport"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// banqueFlags are the banque flags as parsed; names are the flags of
// `sabot odds --game banque` alone, as addBanqueFlags defines them.
type banqueFlags struct {
	right, left *string
	names       houseflags.Names
}

func addBanqueFlags(fs *flag.FlagSet) *banqueFlags {
	f := &banqueFlags{}
	n := f.names.Add
	f.right = fs.String(n("right-five"), "", "banque: the right tableau on 5, `draw|stand` (default: --punter-five)")
	f.left = fs.String(n("left-five"), "", "banque: the left tableau on 5, `draw|stand` (default: --punter-five)")
	return f
}

// apply checks the banque flags (and the chemin de fer flags banque
// shares: --punter-five, --banker; refusing the others) and fills c.
func (f *banqueFlags) apply(c *oddsreport.BanqueConfig, set map[string]bool, cf *cheminFlags) []error {
	var errs []error
	for _, name := range []string{"solve", "banker-table", "banker-sees", "replacement"} {
		if set[name] {
			errs = append(errs, fmt.Errorf("--%s: only with --game chemin-de-fer", name))
		}
	}
	reported := map[string]bool{}
	five := func(name, v string) baccarat.Rule {
		if v == "" {
			name, v = "punter-five", *cf.five
		}
		r, err := baccarat.ParseRule(v)
		if (err != nil || r == baccarat.Option) && !reported[name] {
			reported[name] = true
			errs = append(errs, fmt.Errorf("--%s %q: want draw or stand (each tableau's 5 is fixed for the odds)", name, v))
		}
		return r
	}
	c.Game.RightFive = five("right-five", *f.right)
	c.Game.LeftFive = five("left-five", *f.left)
	b, err := odds.ParseBanqueBanker(*cf.banker)
	if err != nil {
		errs = append(errs, fmt.Errorf("--banker %q: %v", *cf.banker, err))
	}
	c.Game.Banker, c.Strategy = b, strings.TrimSpace(*cf.banker)
	return errs
}
