package baccarat

import (
	"errors"
	"fmt"

	"github.com/sabot-table/sabot/tableau/internal/enum"
)

// Rule is what the drawing rules say at one decision point: the hand
// whose turn it is must stand, must draw, or is free to choose.
type Rule uint8

const (
	// MustStand: the hand stands; a card there is not this hand's.
	MustStand Rule = iota
	// MustDraw: the hand draws one card.
	MustDraw
	// Option: the hand's holder (the punter or the banker) chooses.
	Option
)

// String returns "stand", "draw" or "option".
func (r Rule) String() string { return ruleNames.Name(r) }

var ruleNames = enum.Names[Rule]{Type: "Rule", Words: []string{MustStand: "stand", MustDraw: "draw", Option: "option"}}

// ParseRule parses "stand", "draw" or "option" (the words String
// returns). The error is prefixed "tableau:" and names the bad word.
func ParseRule(s string) (Rule, error) {
	if r, ok := ruleNames.Lookup(s); ok {
		return r, nil
	}
	return 0, fmt.Errorf("tableau: unknown drawing rule %q (want stand, draw or option)", s)
}

// DrawTable is the drawing rules of a game of two hands, punter
// (player) against banker, in which each hand draws at most one third
// card: punto banco and its mini and midi tables, Super 6, EZ Baccarat
// and chemin de fer. It is the one place these rules are written: coup
// validation (Coup.Need) and the odds engine both read it.
//
// Punter[t] is the punter's rule on a two-card total t (0–9).
// Banker[b][0] is the banker's rule on a two-card total b when the
// punter stood; Banker[b][v+1] when the punter drew a third card of
// point value v (0 for tens and faces, 1 for an ace, …, 9). Naturals
// (8 or 9 on two cards, either hand) end the coup before any third
// card: their rows are MustStand and are never consulted.
type DrawTable struct {
	Punter [10]Rule
	Banker [10][11]Rule
}

// PunterRule returns the punter's rule on a two-card total (0–9); an
// out-of-range total gives MustStand.
func (t *DrawTable) PunterRule(total int) Rule {
	if total < 0 || total > 9 {
		return MustStand
	}
	return t.Punter[total]
}

// BankerRule returns the banker's rule on a two-card total (0–9) given
// the point value (0–9) of the punter's third card, or NoThirdCard if the
// punter stood. Out-of-range arguments give MustStand.
func (t *DrawTable) BankerRule(total, punterThird int) Rule {
	if total < 0 || total > 9 || punterThird < NoThirdCard || punterThird > 9 {
		return MustStand
	}
	return t.Banker[total][punterThird+1]
}

// Cell names one decision point of a DrawTable: the punter's on Total
// (Banker false, Third unused), or the banker's on Total given the
// punter's third card value Third (NoThirdCard when the punter stood).
type Cell struct {
	Banker bool
	Total  int
	Third  int
}

// String returns "punter 5", "banker 3/9" or "banker 6/stood".
func (c Cell) String() string {
	if !c.Banker {
		return fmt.Sprintf("punter %d", c.Total)
	}
	if c.Third == NoThirdCard {
		return fmt.Sprintf("banker %d/stood", c.Total)
	}
	return fmt.Sprintf("banker %d/%d", c.Total, c.Third)
}

// Options lists the table's Option cells, punter's first (by total), then
// the banker's by total and by column (punter stood first, then third
// card values 0–9). A table with no options gives nil.
func (t *DrawTable) Options() []Cell {
	var out []Cell
	for p := 0; p <= 9; p++ {
		if t.Punter[p] == Option {
			out = append(out, Cell{Total: p})
		}
	}
	for b := 0; b <= 9; b++ {
		for col := 0; col <= 10; col++ {
			if t.Banker[b][col] == Option {
				out = append(out, Cell{Banker: true, Total: b, Third: col - 1})
			}
		}
	}
	return out
}

// Fixed reports whether the table has no Option cell (every decision is
// forced), which is what the odds engine needs.
func (t *DrawTable) Fixed() bool {
	for p := 0; p <= 9; p++ {
		if t.Punter[p] == Option {
			return false
		}
	}
	for b := 0; b <= 9; b++ {
		for col := 0; col <= 10; col++ {
			if t.Banker[b][col] == Option {
				return false
			}
		}
	}
	return true
}

// ErrNotOption is returned (wrapped) by Choose for a cell that is not an
// option of the table.
var ErrNotOption = errors.New("tableau: not an option cell")

// Choose returns a copy of t with the option at cell fixed to choice
// (MustDraw or MustStand): a pure strategy of one side at that cell. The
// error wraps ErrNotOption when cell is not an Option of t, and names
// the cell.
func (t DrawTable) Choose(cell Cell, choice Rule) (DrawTable, error) {
	if choice != MustDraw && choice != MustStand {
		return t, fmt.Errorf("tableau: choice at %s must be draw or stand, not %s", cell, choice)
	}
	if cell.Total < 0 || cell.Total > 9 || cell.Third < NoThirdCard || cell.Third > 9 {
		return t, fmt.Errorf("tableau: %s: %w", cell, ErrNotOption)
	}
	p := &t.Punter[cell.Total]
	if cell.Banker {
		p = &t.Banker[cell.Total][cell.Third+1]
	}
	if *p != Option {
		return t, fmt.Errorf("tableau: %s is %s: %w", cell, *p, ErrNotOption)
	}
	*p = choice
	return t, nil
}

// PuntoBanco is the punto banco tableau, every decision forced:
// the player draws on 0–5 and stands on 6–7; when the player stood the
// banker draws on 0–5 and stands on 6–7; when the player drew a third
// card of value v the banker on 0–2 always draws, on 3 draws unless v is
// 8, on 4 draws on v 2–7, on 5 on v 4–7, on 6 on v 6–7, and stands on 7.
// Naturals (8–9) never draw.
//
// Source: the tableau printed on the layouts of Nevada and European punto
// banco tables; mini and midi baccarat, Super 6 and EZ Baccarat deal by
// the same rules.
var PuntoBanco = func() DrawTable {
	var t DrawTable
	for p := 0; p <= 5; p++ {
		t.Punter[p] = MustDraw
	}
	for b := 0; b <= 7; b++ {
		t.Banker[b][0] = drawIf(b <= 5)
		for v := 0; v <= 9; v++ {
			var draw bool
			switch b {
			case 0, 1, 2:
				draw = true
			case 3:
				draw = v != 8
			case 4:
				draw = v >= 2 && v <= 7
			case 5:
				draw = v >= 4 && v <= 7
			case 6:
				draw = v == 6 || v == 7
			}
			t.Banker[b][v+1] = drawIf(draw)
		}
	}
	return t
}()

func drawIf(b bool) Rule {
	if b {
		return MustDraw
	}
	return MustStand
}

// BankerTable selects the banker's side of the chemin de fer tableau.
type BankerTable uint8

const (
	// ScarneTable is the banker's table printed in French and Monte
	// Carlo chemin de fer rules (as given by Scarne): the banker's
	// choices are limited to two option cells, 3 against a third card
	// of 9 and 5 against a 4.
	ScarneTable BankerTable = iota
	// FreeTable leaves every banker decision after the punter's (totals
	// 0–7, whatever the punter did) to the banker.
	FreeTable
)

// String returns "scarne" or "free".
func (b BankerTable) String() string { return bankerTableNames.Name(b) }

var bankerTableNames = enum.Names[BankerTable]{Type: "BankerTable", Words: []string{ScarneTable: "scarne", FreeTable: "free"}}

// ParseBankerTable parses "scarne" or "free"; the error is prefixed
// "tableau:" and names the bad word.
func ParseBankerTable(s string) (BankerTable, error) {
	if b, ok := bankerTableNames.Lookup(s); ok {
		return b, nil
	}
	return 0, fmt.Errorf("tableau: unknown banker table %q (want scarne or free)", s)
}

// CheminDeFer returns the chemin de fer tableau. The punter draws on 0–4,
// stands on 6–7, and on 5 follows punterFive (Option by default in most
// houses; MustDraw or MustStand where the house fixes it). The banker
// follows banker:
//
// ScarneTable — punter stood: the banker draws on 0–5 and stands on 6–7.
// Punter drew a third card of value v: banker 0–2 draws; 3 draws unless
// v = 8, option on v = 9; 4 draws on v = 2–7, stands otherwise; 5 draws
// on v = 5–7, option on v = 4, stands otherwise; 6 draws on v = 6–7,
// stands otherwise; 7 stands.
//
// FreeTable — every banker decision on 0–7 is an option.
//
// Naturals (8–9) never draw. The error (prefixed "tableau:") names a
// punterFive or banker value out of range.
func CheminDeFer(punterFive Rule, banker BankerTable) (DrawTable, error) {
	var t DrawTable
	if punterFive > Option {
		return t, fmt.Errorf("tableau: punter's rule on 5: %s out of range", punterFive)
	}
	for p := 0; p <= 4; p++ {
		t.Punter[p] = MustDraw
	}
	t.Punter[5] = punterFive
	switch banker {
	case ScarneTable:
		for b := 0; b <= 7; b++ {
			t.Banker[b][0] = drawIf(b <= 5)
			for v := 0; v <= 9; v++ {
				r := MustStand
				switch b {
				case 0, 1, 2:
					r = MustDraw
				case 3:
					switch v {
					case 8:
						r = MustStand
					case 9:
						r = Option
					default:
						r = MustDraw
					}
				case 4:
					r = drawIf(v >= 2 && v <= 7)
				case 5:
					switch {
					case v >= 5 && v <= 7:
						r = MustDraw
					case v == 4:
						r = Option
					}
				case 6:
					r = drawIf(v == 6 || v == 7)
				}
				t.Banker[b][v+1] = r
			}
		}
	case FreeTable:
		for b := 0; b <= 7; b++ {
			for col := 0; col <= 10; col++ {
				t.Banker[b][col] = Option
			}
		}
	default:
		return t, fmt.Errorf("tableau: banker table %s out of range", banker)
	}
	return t, nil
}

// PunterRule is the punter's rule in chemin de fer and baccarat
// banque (each tableau in banque follows it): draw on 0–4, option on 5,
// stand on 6–7; naturals 8–9 never draw.
func PunterRule(total int) Rule {
	switch {
	case total >= 0 && total <= 4:
		return MustDraw
	case total == 5:
		return Option
	}
	return MustStand
}
