package tableau_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau"
)

func TestLexerTokensAndPositions(t *testing.T) {
	const src = "\uFEFFSHOE 10h td\t7 # a comment | cut\r\n  |  Cut VOID as\n#x\nqC"
	want := []struct {
		s              string
		kind           tableau.TokenKind
		line, col, off int
	}{
		{"shoe", tableau.TokShoe, 1, 1, 3},
		{"TH", tableau.TokCard, 1, 6, 8},
		{"TD", tableau.TokCard, 1, 10, 12},
		{"7", tableau.TokCard, 1, 13, 15},
		{"|", tableau.TokMarker, 2, 3, 38},
		{"cut", tableau.TokCut, 2, 6, 41},
		{"void", tableau.TokVoid, 2, 10, 45},
		{"AS", tableau.TokCard, 2, 15, 50},
		{"QC", tableau.TokCard, 4, 1, 56},
	}
	toks, err := tableau.ParseTranscript(strings.NewReader(src), "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(toks) != len(want) {
		t.Fatalf("%d tokens: %v", len(toks), toks)
	}
	for i, w := range want {
		tk := toks[i]
		if tk.String() != w.s || tk.Kind != w.kind || tk.Pos != (tableau.Pos{Line: w.line, Col: w.col, Offset: w.off}) {
			t.Errorf("token %d: %s %v at %+v, want %s %v at %d:%d+%d", i, tk, tk.Kind, tk.Pos, w.s, w.kind, w.line, w.col, w.off)
		}
	}
	if toks[3].Card.Suit != card.SuitUnknown || toks[3].Card.Rank != card.Rank7 {
		t.Errorf("rank-only 7: %+v", toks[3].Card)
	}
}

func TestLexerErrors(t *testing.T) {
	for _, tc := range []struct {
		src, want string
	}{
		{"shoe 2H 3C\n9S 3H KD 5C 1H 7C", `f.shoe:2:13: unknown token "1H"`},
		{"shoe éé 2H", `f.shoe:1:6: unknown token "éé"`},
		{"2H|", `f.shoe:1:1: unknown token "2H|"`},
		{"shoe\n\n   11", `f.shoe:3:4: unknown token "11"`},
		{"ShoeS", `f.shoe:1:1: unknown token "ShoeS"`},
		{"\u017fhoe", "f.shoe:1:1: unknown token \"\u017fhoe\""},
	} {
		toks, err := tableau.ParseTranscript(strings.NewReader(tc.src), "f.shoe")
		var pe *tableau.ParseError
		if !errors.As(err, &pe) || toks != nil {
			t.Errorf("%q: %v, %d tokens", tc.src, err, len(toks))
			continue
		}
		if pe.Located() != tc.want || pe.Error() != "tableau: "+tc.want || !errors.Is(err, tableau.ErrSyntax) {
			t.Errorf("%q: %q, want %q", tc.src, pe.Located(), tc.want)
		}
	}
	// A read error is reported with its position and wrapped.
	r := io.MultiReader(strings.NewReader("shoe 2H "), iotest.ErrReader(io.ErrUnexpectedEOF))
	_, err := tableau.ParseTranscript(r, "f")
	var pe *tableau.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.HasPrefix(pe.Located(), "f:1:9: read error") {
		t.Errorf("read error: %v", err)
	}
}

func TestFormatTranscript(t *testing.T) {
	toks, err := tableau.ParseTranscript(strings.NewReader("shoe 2h 3c 4d | 9s 3h kd 5c 7 | cut void 10S"), "")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tableau.FormatTranscript(&b, toks); err != nil {
		t.Fatal(err)
	}
	want := "shoe\n2H 3C 4D |\n9S 3H KD 5C 7 |\ncut void TS\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if err := tableau.FormatTranscript(errWriter{}, toks); err == nil {
		t.Error("no error from a failing writer")
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
