package main

import (
	"fmt"
	"io"
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

// foldMacaoTokens is foldTokens for a Macao or Victoria shoe: it feeds
// every token to f and hands full event batches over. Each token that
// raises misplaced-token, hand-limit or extra-card gets a line on standard
// error, "FILE:LINE:COL: CODE: why" (printed before its alert), and so
// does a "void" that voids nothing, as for punto banco.
func foldMacaoTokens(f *tableau.MacaoFold, markers bool, name string, tokFree chan<- *checkTokBuf, tokFull <-chan *checkTokBuf, free <-chan *checkBatchBuf, full chan<- *checkBatchBuf, stop <-chan struct{}) error {
	var voided struct{ shoe, coup int } // the last coup voided
	b := <-free
	send := func() bool {
		select {
		case full <- b:
		case <-stop:
			return false
		}
		select {
		case b = <-free:
			return true
		case <-stop:
			return false
		}
	}
	for tb := range tokFull {
		for i := range tb.extra { // every token travels whole (lexTokens with positions)
			t := &tb.extra[i]
			n := len(b.evs)
			b.evs = f.Feed(*t, b.evs)
			if m := f.LastMisfit(); m != tableau.MacaoFits {
				at := n
				for j := n; j < len(b.evs); j++ { // before the misfit's alert (a composition alert may come first)
					if b.evs[j].Kind == tableau.EventAlert && b.evs[j].Alert.Code == m.Code() {
						at = j
						break
					}
				}
				text := fmt.Sprintf("%s:%s: %s: %s", name, t.Pos, m.Code(), m)
				if t.Kind == tableau.TokCard {
					text += " (" + t.Card.String() + ")"
				}
				b.warns = append(b.warns, checkWarning{at: at, text: text})
			}
			if t.Kind == tableau.TokVoid {
				if v := voidOf(b.evs[n:]); v != nil {
					voided.shoe, voided.coup = v.Shoe, v.Coup
				} else {
					b.warns = append(b.warns, checkWarning{at: len(b.evs), text: fmt.Sprintf("%s:%s: warning: void ignored: %s",
						name, t.Pos, voidIgnoredReason(f, markers, voided.shoe, voided.coup))})
				}
			}
			if len(b.evs) >= checkBatch || len(b.warns) >= checkBatch {
				if !send() {
					return nil // the writer failed and says why
				}
			}
		}
		err := tb.err
		tokFree <- tb
		switch {
		case err == io.EOF:
			b.evs = f.End(b.evs)
			full <- b
			return nil
		case err != nil:
			full <- b
			return err
		}
	}
	return nil
}
