package audit

import (
	"fmt"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// shoeFold is what voidIgnoredReason reads of a fold: *tableau.Fold or
// *tableau.MacaoFold.
type shoeFold interface {
	Phase() tableau.Phase
	Shoe() int
	CoupNumber() int
}

// macaoWarning is foldTokens' part for a Macao or Victoria shoe: a token
// that raised misplaced-token, hand-limit or extra-card (mf.LastMisfit)
// gets a line on standard error, "FILE:LINE:COL: CODE: why", printed
// before its alert among the events evs[n:] the token gave (a composition
// alert may come first).
func macaoWarning(warns []checkWarning, mf *tableau.MacaoFold, t *tableau.Token, evs []tableau.Event, n int, name string) []checkWarning {
	m := mf.LastMisfit()
	if m == baccarat.MacaoFits {
		return warns
	}
	at := n
	for j := n; j < len(evs); j++ {
		if evs[j].Kind == baccarat.EventAlert && evs[j].Alert.Code == m.Code() {
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
