package main

import (
	"flag"
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

// macaoGames are the `sabot check --game` names folded by tableau.MacaoFold.
var macaoGames = []string{"macao", "victoria"}

// macaoFlags are the flags of `sabot check --game macao|victoria`.
type macaoFlags struct {
	seats                     *int
	count, refuse, equal, pay *string
}

// macaoFlagNames are the flags only Macao and Victoria take.
var macaoFlagNames = []string{"seats", "count", "refuse-tens", "equal", "pays"}

// macaoCommonFlags are the other flags that apply to them (the shoe's).
var macaoCommonFlags = []string{"game", "decks", "cut-rule", "markers"}

func addMacaoFlags(fs *flag.FlagSet) *macaoFlags {
	return &macaoFlags{
		seats:  fs.Int("seats", tableau.DefaultMacaoSeats, fmt.Sprintf("macao, victoria: punters' seats against the banker, %d–%d", tableau.MinMacaoSeats, tableau.MaxMacaoSeats)),
		count:  fs.String("count", "modulo", "macao, victoria: counting: modulo (10) or bust (over 9 busts the hand)"),
		refuse: fs.String("refuse-tens", "on", "macao, victoria: a ten or court card just drawn may be refused (\"refuse\"): on or off"),
		equal:  fs.String("equal", "banker", "macao, victoria: equal totals and equal cards: banker (wins) or push"),
		pay:    fs.String("pays", "3-2", "macao, victoria: a winning natural 9 and natural 8 pay 3-2 (3:1, 2:1) or 2-1 (2:1, 1:1)"),
	}
}

// macaoOptions returns the MacaoFold options of game ("macao" or
// "victoria"), or the errors that name each bad flag. set holds the flags
// given on the command line.
func (m *macaoFlags) options(game string, decks int, cut tableau.CutRule, set map[string]bool) (tableau.MacaoOptions, []error) {
	var errs []error
	for name := range set {
		if !slices.Contains(macaoFlagNames, name) && !slices.Contains(macaoCommonFlags, name) {
			errs = append(errs, fmt.Errorf("--%s does not apply to --game %s (its flags: --%s, --%s)", name, game,
				strings.Join(macaoCommonFlags[1:], ", --"), strings.Join(macaoFlagNames, ", --")))
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	opts := tableau.MacaoOptions{CutRule: cut, Rules: tableau.MacaoRules{Victoria: game == "victoria", Seats: *m.seats}}
	if set["decks"] {
		opts.Decks = decks // checked with the other games' decks
	}
	if *m.seats < tableau.MinMacaoSeats || *m.seats > tableau.MaxMacaoSeats {
		errs = append(errs, fmt.Errorf("--seats %d: want %d–%d", *m.seats, tableau.MinMacaoSeats, tableau.MaxMacaoSeats))
	}
	var err error
	if opts.Rules.Count, err = tableau.ParseMacaoCount(*m.count); err != nil {
		errs = append(errs, fmt.Errorf("--count %q: want modulo or bust", *m.count))
	}
	switch strings.ToLower(*m.refuse) {
	case "on":
	case "off":
		opts.Rules.NoRefuse = true
	default:
		errs = append(errs, fmt.Errorf("--refuse-tens %q: want on or off", *m.refuse))
	}
	if opts.Rules.Equal, err = tableau.ParseMacaoEqual(*m.equal); err != nil {
		errs = append(errs, fmt.Errorf("--equal %q: want banker or push", *m.equal))
	}
	if opts.Rules.Pays, err = tableau.ParseMacaoPayTable(*m.pay); err != nil {
		errs = append(errs, fmt.Errorf("--pays %q: want 3-2 or 2-1", *m.pay))
	}
	return opts, errs
}

// macaoOnly returns the errors for Macao flags given with another game.
func macaoOnly(game string, set map[string]bool) []error {
	var errs []error
	for _, name := range macaoFlagNames {
		if set[name] {
			errs = append(errs, fmt.Errorf("--%s applies to --game macao and victoria only, not %s", name, game))
		}
	}
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
