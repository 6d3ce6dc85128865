package tableau

import (
	"fmt"
	"io"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// ErrDeclare is wrapped by the *ParseError of a "declare" token without a
// valid result (P, B or T). It wraps ErrSyntax.
var ErrDeclare = fmt.Errorf("%w: bad declaration", ErrSyntax)

// declareState is what the Fold knows of the coup a "declare" token may
// declare: the last complete coup, until it is declared or the shoe moves
// on (a card of the next coup, a void, a new shoe).
type declareState struct {
	open   bool            // a complete coup awaits its declaration
	shoe   int             // its shoe
	coup   int             // its number
	winner baccarat.Winner // the winner the cards give
}

// Declare folds the dealer's declared result of the coup just complete
// ("declare P|B|T", issue 24 part 2). A declaration equal to the winner
// the cards give changes nothing. One that differs raises
// result-mismatch (latched, error) carrying both results. With no complete
// coup to declare (before the coup is complete, during the burn, after a
// void, a second declaration of the same coup) it raises
// misplaced-declare and changes nothing.
func (f *Fold) Declare(w baccarat.Winner, out []Event) []Event {
	f.open()
	if !f.decl.open || f.decl.shoe != f.shoe || f.decl.coup != f.coupNum || f.inCoup() {
		return append(out, alertEvent(f.shoe, f.coupNum, baccarat.AlertMisplacedDeclare, Card{}))
	}
	f.decl.open = false
	if w == f.decl.winner {
		return out
	}
	e := alertEvent(f.decl.shoe, f.decl.coup, baccarat.AlertResultMismatch, Card{})
	e.Alert.Declared, e.Alert.Computed = w, f.decl.winner
	return append(out, e)
}

// parseDeclared reads a declared result: "P", "B" or "T" (or "player",
// "banker", "tie"), in any ASCII case; WinnerNone for anything else.
func parseDeclared(word []byte) baccarat.Winner {
	switch {
	case keyword(word, "p"), keyword(word, "player"):
		return baccarat.WinnerPlayer
	case keyword(word, "b"), keyword(word, "banker"):
		return baccarat.WinnerBanker
	case keyword(word, "t"), keyword(word, "tie"):
		return baccarat.WinnerTie
	}
	return baccarat.WinnerNone
}

// declareToken reads the result after "declare" (the token t): the next
// word, P, B or T. A missing or unknown result is a *ParseError at the
// word (at "declare" when the input ends), wrapping ErrDeclare.
func (l *Lexer) declareToken(t Token) (Token, error) {
	l.word = true
	a, err := l.next()
	l.word = false
	word := l.arg
	l.arg = ""
	if err == io.EOF {
		l.perr = &ParseError{File: l.file, Pos: t.Pos, Err: fmt.Errorf("%w: \"declare\" needs a result (P, B or T)", ErrDeclare)}
		return Token{}, l.perr
	}
	if err != nil {
		return Token{}, err
	}
	t.Declared = parseDeclared([]byte(word))
	if t.Declared == baccarat.WinnerNone {
		l.perr = &ParseError{File: l.file, Pos: a.Pos, Token: truncateText(word, MaxQuotedBytes), Err: fmt.Errorf("%w: a declared result is P, B or T", ErrDeclare)}
		return Token{}, l.perr
	}
	return t, nil
}

// noDeclaration raises no-declaration, on the coup that was not declared,
// when Options.RequireDeclare is on and a new coup starts while the last
// complete one awaits its declaration.
func (f *Fold) noDeclaration(out []Event) []Event {
	if !f.opts.RequireDeclare || !f.decl.open || f.decl.shoe != f.shoe {
		return out
	}
	f.decl.open = false
	return append(out, alertEvent(f.decl.shoe, f.decl.coup, baccarat.AlertNoDeclaration, Card{}))
}
