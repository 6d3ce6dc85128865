package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sabot-table/sabot/tableau"
)

// shoeFold is what voidIgnoredReason reads of a fold: *tableau.Fold or
// *tableau.MacaoFold.
type shoeFold interface {
	Phase() tableau.Phase
	Shoe() int
	CoupNumber() int
}

// macaoCommonFlags are the flags other than its parameters that apply to
// a Macao or Victoria shoe (the shoe's).
var macaoCommonFlags = []string{"game", "decks", "cut-rule", "markers"}

// macaoFlagsApply returns an error for each flag given that does not
// apply to Macao or Victoria game g: the punto banco house rules, side
// bets and --advantage (its parameters are checked with the game's).
func macaoFlagsApply(g tableau.Game, set map[string]bool) []error {
	info, _ := tableau.LookupGame(g.Name())
	own := slices.Clone(macaoCommonFlags)
	for _, p := range info.Params {
		own = append(own, p.Name)
	}
	param := map[string]bool{} // any game's: checkGame reports those
	for _, gi := range tableau.GameInfos() {
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

// macaoWarning is foldTokens' part for a Macao or Victoria shoe: a token
// that raised misplaced-token, hand-limit or extra-card (mf.LastMisfit)
// gets a line on standard error, "FILE:LINE:COL: CODE: why", printed
// before its alert among the events evs[n:] the token gave (a composition
// alert may come first).
func macaoWarning(warns []checkWarning, mf *tableau.MacaoFold, t *tableau.Token, evs []tableau.Event, n int, name string) []checkWarning {
	m := mf.LastMisfit()
	if m == tableau.MacaoFits {
		return warns
	}
	at := n
	for j := n; j < len(evs); j++ {
		if evs[j].Kind == tableau.EventAlert && evs[j].Alert.Code == m.Code() {
			at = j
			break
		}
	}
	text := fmt.Sprintf("%s:%s: %s: %s", name, t.Pos, m.Code(), m)
	if t.Kind == tableau.TokCard {
		text += " (" + t.Card.String() + ")"
	}
	return append(warns, checkWarning{at: at, text: text})
}
