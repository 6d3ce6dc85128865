package chemin

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/internal/strategy"
)

// ChooseBanker returns t with every banker option chosen: a banker's pure
// strategy, written as a comma-separated list of CELL=draw or CELL=stand,
// where CELL is T/V (the banker's total T, 0–7, against a punter's third
// card of value V, 0–9), T/stood (the punter stood) or T/* (every option
// of total T not listed elsewhere). A banker option the list does not name
// follows the punto banco tableau (PuntoBanco), so "" is the banker playing
// punto banco's rules wherever the table leaves him free, and "3/9=stand"
// under the Scarne table changes one cell. Naming a cell that is not an
// option of t, or one cell twice, is an error; errors are prefixed
// "tableau:" and name the entry (1-based) and its text.
func ChooseBanker(t baccarat.DrawTable, s string) (baccarat.DrawTable, error) {
	type choice struct {
		rule baccarat.Rule
		set  bool
	}
	var cells [10][11]choice
	var wild [10]choice
	bad := func(e strategy.Entry, why string) error {
		return fmt.Errorf("tableau: banker strategy entry %d %q: %s (want T/V=draw|stand, T/stood=… or T/*=…, T 0–7, V 0–9)", e.N, e.Text, why)
	}
	for e, err := range strategy.Entries(s, bad) {
		if err != nil {
			return t, err
		}
		r := baccarat.MustStand
		if e.Draw {
			r = baccarat.MustDraw
		}
		ts, vs, ok := strings.Cut(e.Cell, "/")
		if !ok {
			return t, bad(e, "no '/' between the total and the third card")
		}
		total, err := strconv.Atoi(ts)
		if err != nil || total < 0 || total > 7 {
			return t, bad(e, fmt.Sprintf("banker total %q is not 0–7", ts))
		}
		if vs == "*" {
			if wild[total].set {
				return t, bad(e, "total given twice")
			}
			wild[total] = choice{r, true}
			continue
		}
		col := 0
		if vs != "stood" {
			v, err := strconv.Atoi(vs)
			if err != nil || v < 0 || v > 9 {
				return t, bad(e, fmt.Sprintf("third card %q is not 0–9 or stood", vs))
			}
			col = v + 1
		}
		if t.Banker[total][col] != baccarat.Option {
			return t, bad(e, fmt.Sprintf("the table says %s there, not option", t.Banker[total][col]))
		}
		if cells[total][col].set {
			return t, bad(e, "cell given twice")
		}
		cells[total][col] = choice{r, true}
	}
	for b := range 10 {
		found := false
		for col := range 11 {
			if t.Banker[b][col] != baccarat.Option {
				continue
			}
			found = true
			c := cells[b][col]
			switch {
			case c.set:
				t.Banker[b][col] = c.rule
			case wild[b].set:
				t.Banker[b][col] = wild[b].rule
			default:
				t.Banker[b][col] = baccarat.MustStand
				if baccarat.PuntoBanco.Banker[b][col] == baccarat.MustDraw {
					t.Banker[b][col] = baccarat.MustDraw
				}
			}
		}
		if wild[b].set && !found {
			return t, fmt.Errorf("tableau: banker strategy: %d/* names no option of the table", b)
		}
	}
	return t, nil
}
