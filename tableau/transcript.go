package tableau

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TokenKind is the kind of one transcript token.
type TokenKind uint8

// The transcript token kinds.
const (
	TokCard   TokenKind = iota + 1 // a card: "AS", "10h", "7"
	TokShoe                        // "shoe": a new shoe begins
	TokMarker                      // "|": the dealer's coup button
	TokCut                         // "cut": the cut card came out
	TokVoid                        // "void": the supervisor voids the current coup
)

// String returns the token kind's transcript spelling ("card" for cards).
func (k TokenKind) String() string {
	switch k {
	case TokCard:
		return "card"
	case TokShoe:
		return "shoe"
	case TokMarker:
		return "|"
	case TokCut:
		return "cut"
	case TokVoid:
		return "void"
	}
	return fmt.Sprintf("TokenKind(%d)", uint8(k))
}

// Pos is a position in a transcript: 1-based line and column (columns count
// Unicode code points) and the 0-based byte offset.
type Pos struct {
	Line, Col, Offset int
}

// String formats the position as "line:col".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Token is one transcript token with its position. Card is set for TokCard.
type Token struct {
	Kind TokenKind
	Card Card
	Pos  Pos
}

// String returns the token's canonical transcript spelling.
func (t Token) String() string {
	if t.Kind == TokCard {
		return t.Card.String()
	}
	return t.Kind.String()
}

// ErrSyntax is wrapped by every *ParseError.
var ErrSyntax = errors.New("tableau: transcript syntax error")

// ParseError reports a token the transcript grammar does not know, or input
// that cannot be read. File is empty unless the caller sets it.
type ParseError struct {
	File  string // name used in messages; "" if unknown
	Pos   Pos    // where the offending token starts
	Token string // the offending token as written ("" for read errors)
	Err   error  // underlying read error, if any
}

// Error formats the error as "tableau: FILE:LINE:COL: unknown token "X"".
func (e *ParseError) Error() string {
	return "tableau: " + e.Located()
}

// Located formats the error without the package prefix, as
// "FILE:LINE:COL: unknown token "X"" (FILE omitted when empty), the form a
// command-line tool prints.
func (e *ParseError) Located() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(':')
	}
	fmt.Fprintf(&b, "%d:%d: ", e.Pos.Line, e.Pos.Col)
	if e.Err != nil {
		fmt.Fprintf(&b, "read error: %v", e.Err)
	} else {
		fmt.Fprintf(&b, "unknown token %q", e.Token)
	}
	return b.String()
}

// Unwrap returns the read error, or ErrSyntax for an unknown token.
func (e *ParseError) Unwrap() error {
	if e.Err != nil {
		return e.Err
	}
	return ErrSyntax
}

// Lexer reads transcript tokens from a stream, one at a time.
//
// The transcript syntax: UTF-8 text (a leading byte order mark is
// skipped); "#" starts a comment to the end of the line; tokens are separated by any white space; case is ignored. Tokens are
// cards (see ParseCard), "shoe", "|", "cut" and "void".
type Lexer struct {
	r    *bufio.Reader
	pos  Pos // position of the next rune
	buf  []byte
	file string
}

// NewLexer returns a Lexer reading r. file names the input in errors; it may
// be empty.
func NewLexer(r io.Reader, file string) *Lexer {
	return &Lexer{r: bufio.NewReader(r), pos: Pos{Line: 1, Col: 1}, file: file}
}

func (l *Lexer) advance(ru rune, size int) {
	l.pos.Offset += size
	if ru == '\n' {
		l.pos.Line++
		l.pos.Col = 1
	} else {
		l.pos.Col++
	}
}

// Next returns the next token. At the end of input it returns io.EOF. A
// token the grammar does not know, or a read error, gives a *ParseError.
func (l *Lexer) Next() (Token, error) {
	// Skip white space and comments.
	for {
		ru, size, err := l.r.ReadRune()
		if err != nil {
			if err == io.EOF {
				return Token{}, io.EOF
			}
			return Token{}, &ParseError{File: l.file, Pos: l.pos, Err: err}
		}
		if ru == '\uFEFF' && l.pos.Offset == 0 {
			l.pos.Offset += size // a byte order mark: not a column
			continue
		}
		if ru == '#' {
			l.advance(ru, size)
			for {
				ru, size, err = l.r.ReadRune()
				if err != nil {
					if err == io.EOF {
						return Token{}, io.EOF
					}
					return Token{}, &ParseError{File: l.file, Pos: l.pos, Err: err}
				}
				l.advance(ru, size)
				if ru == '\n' {
					break
				}
			}
			continue
		}
		if unicode.IsSpace(ru) {
			l.advance(ru, size)
			continue
		}
		if err := l.r.UnreadRune(); err != nil {
			return Token{}, &ParseError{File: l.file, Pos: l.pos, Err: err}
		}
		break
	}
	start := l.pos
	l.buf = l.buf[:0]
	for {
		ru, size, err := l.r.ReadRune()
		if err != nil {
			if err == io.EOF {
				break
			}
			return Token{}, &ParseError{File: l.file, Pos: l.pos, Err: err}
		}
		if unicode.IsSpace(ru) || ru == '#' {
			if err := l.r.UnreadRune(); err != nil {
				return Token{}, &ParseError{File: l.file, Pos: l.pos, Err: err}
			}
			break
		}
		l.advance(ru, size)
		if ru == utf8.RuneError && size == 1 {
			l.buf = append(l.buf, 0xff) // keep invalid bytes visible in errors
			continue
		}
		l.buf = utf8.AppendRune(l.buf, ru)
	}
	tok := Token{Pos: start}
	word := l.buf
	switch {
	case keyword(word, "shoe"):
		tok.Kind = TokShoe
	case len(word) == 1 && word[0] == '|':
		tok.Kind = TokMarker
	case keyword(word, "cut"):
		tok.Kind = TokCut
	case keyword(word, "void"):
		tok.Kind = TokVoid
	default:
		c, ok := parseCard(word)
		if !ok {
			return Token{}, &ParseError{File: l.file, Pos: start, Token: string(word)}
		}
		tok.Kind = TokCard
		tok.Card = c
	}
	return tok, nil
}

// ParseTranscript reads a whole transcript. It returns every token, or the
// first *ParseError (with File set to file) and no tokens, so that nothing
// from an unreadable transcript is taken as valid.
func ParseTranscript(r io.Reader, file string) ([]Token, error) {
	l := NewLexer(r, file)
	var toks []Token
	for {
		t, err := l.Next()
		if err == io.EOF {
			return toks, nil
		}
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
	}
}

// FormatTranscript writes tokens in canonical transcript form, one coup per
// line where markers allow: "shoe" and "|" end lines.
func FormatTranscript(w io.Writer, toks []Token) error {
	bw := bufio.NewWriter(w)
	sep := ""
	for _, t := range toks {
		bw.WriteString(sep)
		bw.WriteString(t.String())
		sep = " "
		if t.Kind == TokMarker || t.Kind == TokShoe {
			bw.WriteByte('\n')
			sep = ""
		}
	}
	if sep != "" {
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("tableau: writing transcript: %w", err)
	}
	return nil
}

// keyword reports whether word is the lower-case ASCII keyword kw in any
// ASCII case (no Unicode folding: "ſhoe" is not "shoe").
func keyword(word []byte, kw string) bool {
	if len(word) != len(kw) {
		return false
	}
	for i := range word {
		b := word[i]
		if b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		if b != kw[i] {
			return false
		}
	}
	return true
}
