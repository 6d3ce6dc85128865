// Package strategy reads the strategy lists of tableau's odds and chemin
// layers: comma-separated entries CELL=draw or CELL=stand, such as
// "3/9=stand,6/*=draw" (chemin.ChooseBanker) or "5/*/*=stand"
// (odds.ParseBanqueBanker). It splits a list into its entries and reads
// each entry's action; each layer reads its own cells. It imports only the
// standard library; being internal to tableau, every layer may use it.
package strategy

import (
	"fmt"
	"iter"
	"strings"
)

// Entry is one entry of a strategy list.
type Entry struct {
	N    int    // its place in the list, 1-based
	Text string // the entry as written, trimmed of white space
	Cell string // what stands before '=', trimmed
	Draw bool   // the action is "draw" (else it is "stand")
}

// Entries yields the entries of s in order; a blank s has none. An entry
// without '=', or whose action (after '=', trimmed) is neither draw nor
// stand, yields the error bad(e, why), why being "no '='" or `"ACT" is not
// draw or stand` (ACT as written after '='), and e with only N and Text
// set; the caller stops there.
func Entries(s string, bad func(e Entry, why string) error) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		if strings.TrimSpace(s) == "" {
			return
		}
		for i, text := range strings.Split(s, ",") {
			e := Entry{N: i + 1, Text: strings.TrimSpace(text)}
			cell, act, ok := strings.Cut(e.Text, "=")
			var err error
			switch {
			case !ok:
				err = bad(e, "no '='")
			case strings.TrimSpace(act) == "draw":
				e.Cell, e.Draw = strings.TrimSpace(cell), true
			case strings.TrimSpace(act) == "stand":
				e.Cell = strings.TrimSpace(cell)
			default:
				err = bad(e, fmt.Sprintf("%q is not draw or stand", act))
			}
			if !yield(e, err) {
				return
			}
		}
	}
}
