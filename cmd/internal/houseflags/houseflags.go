// Package houseflags is the house rules as command-line flags, one
// definition for every command that takes them (`sabot check`, `sabot
// odds`): --commission, --tie-pays, --pair-pays, --pair-suited-pays,
// --side-bets and the pay tables --pays-*, sabotd's [rules] keys with '-'
// for '_' (Add, Flags.Apply); and the way back, a table's options written
// as the `sabot check` flags that give them (Args, CheckArgs), for `sabot
// export`.
package houseflags

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// Flags are the house-rule flags shared by `sabot check` and
// `sabot odds` (one helper, so both commands take the same flags with the
// same defaults and the same errors): --commission, --tie-pays,
// --pair-pays, --pair-suited-pays, which side bets are offered (--side-bets) and each pay
// table (--pays-*). They are sabotd's [rules] keys with '-' for '_'.
type Flags struct {
	commission                                                          baccarat.Commission
	tie, pair, pairSuited                                               *int
	offered, perfect, either, big, small, dragon, dragonNatural, lucky6 *string
	errs                                                                []error // from --commission, reported by Apply
}

const sideBetsHelp = "side bets offered, comma-separated: perfect-pair, either-pair, big, small, dragon-player, dragon-banker, lucky6, dragon (both), all, or none"

// Add registers the house-rule flags on fs.
func Add(fs *flag.FlagSet) *Flags {
	h := &Flags{
		tie:           fs.Int("tie-pays", 8, "tie payout: 8 (8:1) or 9 (9:1)"),
		pair:          fs.Int("pair-pays", 11, "player pair and banker pair pay `N` to 1 (11, some houses 12)"),
		pairSuited:    fs.Int("pair-suited-pays", 0, "player pair and banker pair pay `N` to 1 on a suited pair, same rank and suit (some houses 25); 0: as any pair"),
		offered:       fs.String("side-bets", "none", sideBetsHelp),
		perfect:       fs.String("pays-perfect-pair", "25,200", "Perfect Pair pays `ONE,BOTH` to 1 (one hand, both hands)"),
		either:        fs.String("pays-either-pair", "5", "Either Pair pays `N` to 1"),
		big:           fs.String("pays-big", "0.54", "Big (5 or 6 cards) pays `N` to 1"),
		small:         fs.String("pays-small", "1.5", "Small (4 cards) pays `N` to 1"),
		dragon:        fs.String("pays-dragon", "30,10,6,4,2,1", "Dragon Bonus pays for a non-natural win by `9,8,7,6,5,4`"),
		dragonNatural: fs.String("pays-dragon-natural", "1", "Dragon Bonus pays `N` to 1 on a natural win (a natural tie pushes)"),
		lucky6:        fs.String("pays-lucky6", "12,20", "Lucky 6 pays `TWO,THREE` to 1 (banker wins with a two-card / three-card 6)"),
	}
	fs.Func("commission", "the house's share of a banker win, as a `RATE` \"5%\", \"4%\", \"2.5%\" or 0, or a fraction 0.05 (default: the game's, 5% under punto banco, none under super6 and ez)", func(s string) error {
		c, err := baccarat.ParseCommission(s)
		if err != nil {
			h.errs = append(h.errs, fmt.Errorf("--commission %q: %s", s, strings.TrimPrefix(trimRules(err), "commission "+fmt.Sprintf("%q", s)+": ")))
			return nil // reported by Apply, with the other rule errors
		}
		h.commission = c
		return nil
	})
	return h
}

// Apply sets r's house rules from the flags (r.Game is the caller's) and
// returns one error per bad flag, naming the flag and the value. The
// values are checked by tableau's one validation (Rules.ProblemsGiven).
func (h *Flags) Apply(r *baccarat.Rules) []error {
	errs := append([]error(nil), h.errs...)
	sr, serrs := h.sideRules()
	errs = append(errs, serrs...)
	r.Side = sr
	r.Commission = h.commission
	r.TiePays = *h.tie
	r.PairPays = *h.pair
	r.PairSuitedPays = *h.pairSuited
	for _, p := range r.ProblemsGiven() {
		if p.Key == "game" {
			continue // the caller's flag
		}
		errs = append(errs, fmt.Errorf("--%s %s", strings.ReplaceAll(p.Key, "_", "-"), p.Msg))
	}
	return errs
}

// sideRules returns the side rules the flags give, or one error per bad
// flag naming the flag and the value.
func (h *Flags) sideRules() (baccarat.SideRules, []error) {
	// A bad list keeps its default, so it is reported once.
	sr := baccarat.SideRules{Pays: baccarat.DefaultSidePays}
	var errs []error
	set, err := baccarat.ParseSideSet(*h.offered)
	if err != nil {
		errs = append(errs, fmt.Errorf("--side-bets %q: %s", *h.offered, trimRules(err)))
	}
	sr.Offered = set
	list := func(name, s string, n int, dst ...*float64) {
		v, err := baccarat.ParsePayList(s, n)
		if err != nil {
			errs = append(errs, fmt.Errorf("--%s %q: %s", name, s, trimRules(err)))
			return
		}
		for i, d := range dst {
			*d = v[i]
		}
	}
	p := &sr.Pays
	list("pays-perfect-pair", *h.perfect, 2, &p.PerfectPair, &p.PerfectPairBoth)
	list("pays-either-pair", *h.either, 1, &p.EitherPair)
	list("pays-big", *h.big, 1, &p.Big)
	list("pays-small", *h.small, 1, &p.Small)
	d := &p.Dragon
	list("pays-dragon", *h.dragon, 6, &d[0], &d[1], &d[2], &d[3], &d[4], &d[5])
	list("pays-dragon-natural", *h.dragonNatural, 1, &p.DragonNatural)
	list("pays-lucky6", *h.lucky6, 2, &p.Lucky6Two, &p.Lucky6Three)
	return sr, errs
}

// Args renders r's house rules as the flags that give them, for
// a `sabot check` command line: --tie-pays always, --commission and
// --pair-pays when they differ from the usual, --pair-suited-pays when a
// suited pair pays more, --side-bets and the pay tables of the bets
// offered.
func Args(r baccarat.Rules) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--tie-pays %d", r.TiePayout())
	if c := r.CommissionBP(); c != (baccarat.Rules{Game: r.Game}).CommissionBP() {
		fmt.Fprintf(&b, " --commission %s", strconv.FormatFloat(float64(c)/100, 'f', -1, 64)+"%")
	}
	if p := r.PairPayout(); p != 11 {
		fmt.Fprintf(&b, " --pair-pays %d", p)
	}
	if p := r.PairSuitedPayout(); p > r.PairPayout() {
		fmt.Fprintf(&b, " --pair-suited-pays %d", p)
	}
	off := r.Side.Offered
	if off == 0 {
		return b.String()
	}
	list := func(v ...float64) string {
		s := make([]string, len(v))
		for i, f := range v {
			s[i] = strconv.FormatFloat(f, 'f', -1, 64)
		}
		return strings.Join(s, ",")
	}
	p := r.Side.Pays.Effective()
	fmt.Fprintf(&b, " --side-bets %s", off)
	for _, t := range []struct {
		on   bool
		flag string
		v    []float64
	}{
		{off.Has(baccarat.BetPerfectPair), "pays-perfect-pair", []float64{p.PerfectPair, p.PerfectPairBoth}},
		{off.Has(baccarat.BetEitherPair), "pays-either-pair", []float64{p.EitherPair}},
		{off.Has(baccarat.BetBig), "pays-big", []float64{p.Big}},
		{off.Has(baccarat.BetSmall), "pays-small", []float64{p.Small}},
		{off.Has(baccarat.BetDragonPlayer) || off.Has(baccarat.BetDragonBanker), "pays-dragon", p.Dragon[:]},
		{off.Has(baccarat.BetDragonPlayer) || off.Has(baccarat.BetDragonBanker), "pays-dragon-natural", []float64{p.DragonNatural}},
		{off.Has(baccarat.BetLucky6), "pays-lucky6", []float64{p.Lucky6Two, p.Lucky6Three}},
	} {
		if t.on {
			fmt.Fprintf(&b, " --%s %s", t.flag, list(t.v...))
		}
	}
	return b.String()
}

// trimRules drops the "tableau: bad rules: " prefix: the flag names the
// context.
func trimRules(err error) string {
	s := err.Error()
	if p := baccarat.ErrRules.Error() + ": "; len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// CheckArgs renders o as `sabot check` flags: --decks, the game (--rules
// and a punto banco profile, or --game with its parameters), the house
// rules as Args writes them, --cut-rule and --markers.
func CheckArgs(o tableau.Options) string {
	m := "off"
	if o.Markers {
		m = "on"
	}
	decks := o.Decks
	if decks == 0 {
		decks = o.Rules.Game.DefaultDecks()
	}
	g := o.Rules.Game
	house := Args(o.Rules)
	if !g.DealsPuntoBanco() { // --game and the game's parameters
		game := "--game " + g.Name()
		info, _ := baccarat.LookupGame(g.Name())
		for i, v := range g.Params() {
			game += fmt.Sprintf(" --%s %s", info.Params[i].Name, v)
		}
		return fmt.Sprintf("--decks %d %s %s --cut-rule %s --markers %s", decks, game, house, o.CutRule, m)
	}
	return fmt.Sprintf("--decks %d --rules %s %s --cut-rule %s --markers %s", decks, g, house, o.CutRule, m)
}
