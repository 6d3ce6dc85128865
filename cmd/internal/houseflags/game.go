package houseflags

// The games of tableau's registry as `sabot check` flags: --game, each
// game's parameters (--punter-five, --banker-table, Macao's ...), and
// which flags apply to which game, all read from the registry, so that a
// new game is one registration and no list here.

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// Names records the names of the flags a group defines, in the order it
// defines them (Add wraps each name where the flag is defined), so the
// group's list is its definitions and not a second list to keep in step.
type Names []string

// Add records name and returns it.
func (n *Names) Add(name string) string {
	*n = append(*n, name)
	return name
}

// AddGameParams defines a flag for every parameter of the registry's
// games (--punter-five, --banker-table), without a default of its own:
// the game's applies when it is not given.
func AddGameParams(fs *flag.FlagSet) map[string]*string {
	params := map[string]*string{}
	for _, info := range baccarat.GameInfos() {
		for _, p := range info.Params {
			if params[p.Name] != nil {
				continue
			}
			params[p.Name] = fs.String(p.Name, "", fmt.Sprintf("%s: %s (%s; default %s)", info.Name, p.Usage, strings.Join(p.Values, ", "), p.Default))
		}
	}
	return params
}

// Game makes the game of --game (or --rules) and the game parameter
// flags given (set: the flags given; params: from AddGameParams), with
// one error per bad flag naming it.
func Game(game, rules string, set map[string]bool, params map[string]*string) (baccarat.Game, []error) {
	var errs []error
	name := rules
	switch {
	case game != "":
		if set["rules"] && !strings.EqualFold(rules, game) {
			errs = append(errs, fmt.Errorf("--game %q and --rules %q disagree (give one)", game, rules))
		}
		name = game
		if _, ok := baccarat.LookupGame(strings.ToLower(game)); !ok {
			return baccarat.Game{}, append(errs, fmt.Errorf("--game %q: want %s", game, strings.Join(baccarat.GameNames(), ", ")))
		}
	default:
		if g, err := baccarat.ParseGame(rules); err != nil || !g.DealsPuntoBanco() {
			return baccarat.Game{}, append(errs, fmt.Errorf("--rules %q: want punto-banco, super6 or ez", rules))
		}
	}
	info, _ := baccarat.LookupGame(strings.ToLower(name))
	given := map[string]string{}
	for p, v := range params {
		if !set[p] {
			continue
		}
		if !slices.ContainsFunc(info.Params, func(q baccarat.GameParam) bool { return q.Name == p }) {
			errs = append(errs, fmt.Errorf("--%s: not a parameter of %s", p, info.Name))
			continue
		}
		given[p] = *v
	}
	g, err := baccarat.NewGame(name, given)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), baccarat.ErrRules.Error()+": ")
		return baccarat.Game{}, append(errs, fmt.Errorf("--game %s: %s", info.Name, msg))
	}
	return g, errs
}

// MacaoFlagsApply returns an error for each flag given that does not
// apply to Macao or Victoria game g: the punto banco house rules, side
// bets and --advantage (its parameters are checked with the game's). anyGame
// are the flags every game's shoe takes, as `sabot check` defines them.
func MacaoFlagsApply(g baccarat.Game, set map[string]bool, anyGame Names) []error {
	info, _ := baccarat.LookupGame(g.Name())
	own := []string{"game"} // named by the message, not listed in it
	for _, name := range anyGame {
		if name != "game" {
			own = append(own, name)
		}
	}
	for _, p := range info.Params {
		own = append(own, p.Name)
	}
	param := map[string]bool{} // any game's: Game reports those
	for _, gi := range baccarat.GameInfos() {
		for _, p := range gi.Params {
			param[p.Name] = true
		}
	}
	var errs []error
	for name := range set {
		if !slices.Contains(own, name) && !param[name] {
			errs = append(errs, fmt.Errorf("--%s does not apply to --game %s (its flags: --%s)", name, g.Name(), strings.Join(own[1:], ", --")))
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errs
}
