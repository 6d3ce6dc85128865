package tableau

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/enum"
)

// TokenKind is the kind of one transcript token.
type TokenKind uint8

// The transcript token kinds.
const (
	TokCard    TokenKind = iota + 1 // a card: "AS", "10h", "7"
	TokShoe                         // "shoe": a new shoe begins
	TokMarker                       // "|": the dealer's coup button
	TokCut                          // "cut": the cut card came out
	TokVoid                         // "void": the supervisor voids the current coup
	TokDealer                       // "dealer ID": a dealer signs in (Token.Dealer), "dealer -": signs out
	TokStand                        // "stand" or "non": the hand whose turn it is declines a card
	TokRefuse                       // "refuse": Macao and Victoria: the ten or court card just drawn is set aside
	TokDeclare                      // "declare P|B|T": the dealer's declared result of the coup just complete (Token.Declared)
)

// String returns the token kind's transcript spelling ("card" for cards).
func (k TokenKind) String() string { return tokenKindNames.Name(k) }

var tokenKindNames = enum.Names[TokenKind]{Type: "TokenKind", Words: []string{
	TokCard: "card", TokShoe: "shoe", TokMarker: "|", TokCut: "cut",
	TokVoid: "void", TokDealer: "dealer", TokStand: "stand", TokRefuse: "refuse", TokDeclare: "declare",
}}

// Pos is a position in a transcript: 1-based line and column (columns count
// Unicode code points) and the 0-based byte offset.
type Pos struct {
	Line, Col, Offset int
}

// String formats the position as "line:col".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Token is one transcript token with its position. Card is set for
// TokCard, Dealer for TokDealer (the id signing in; "" signs out).
type Token struct {
	Kind   TokenKind
	Card   Card
	Pos    Pos
	Dealer string
	// Declared is the result a TokDeclare declares (never WinnerNone).
	Declared baccarat.Winner
}

// String returns the token's canonical transcript spelling.
func (t Token) String() string {
	switch t.Kind {
	case TokCard:
		return t.Card.String()
	case TokDealer:
		if t.Dealer == "" {
			return "dealer " + DealerSignOut
		}
		return "dealer " + t.Dealer
	case TokDeclare:
		if l := t.Declared.Letter(); l != 0 {
			return "declare " + string(rune(l))
		}
		return "declare ?"
	}
	return t.Kind.String()
}

// MaxTokenBytes is the longest transcript token accepted, in bytes of
// input. A card is 1–3 bytes ("7", "AS", "10h"), the longest keyword
// ("dealer", "refuse") 6 and a dealer id at most MaxDealerIDBytes, so anything longer is a mistake (a binary file, a
// missing separator). The Lexer refuses such a token with a *ParseError
// wrapping ErrTokenTooLong as soon as its byte MaxTokenBytes+1 is read: it
// never holds more than MaxTokenBytes bytes of a token, and the error quotes
// at most MaxQuotedBytes of it.
const MaxTokenBytes = 64

// MaxQuotedBytes is the longest prefix of an over-long token that a
// *ParseError quotes.
const MaxQuotedBytes = 16

// readBufSize is the Lexer's read buffer: its memory is this constant plus
// MaxTokenBytes, whatever the input's size, line lengths or comments.
const readBufSize = 64 << 10

// ErrTooLarge is the read error of an input past math.MaxInt bytes (2 GiB
// on a 32-bit Pi: about 20 years of a busy table), whose byte offsets an
// int cannot hold.
var ErrTooLarge = fmt.Errorf("tableau: transcript larger than %d bytes", math.MaxInt)

// ErrSyntax is wrapped by every *ParseError that is not a read error.
var ErrSyntax = errors.New("tableau: transcript syntax error")

// ErrTokenTooLong is wrapped by the *ParseError of a token longer than
// MaxTokenBytes. It wraps ErrSyntax.
var ErrTokenTooLong = fmt.Errorf("%w: token longer than %d bytes", ErrSyntax, MaxTokenBytes)

// ParseError reports a token the transcript grammar does not know, a token
// longer than MaxTokenBytes, or input that cannot be read. File is the name
// given to NewLexer or ParseTranscript.
type ParseError struct {
	File  string // name used in messages; "" if unknown
	Pos   Pos    // where the offending token starts (the read position for read errors)
	Token string // the offending token as written, or its first MaxQuotedBytes bytes if too long ("" for read errors)
	Err   error  // ErrTokenTooLong, or the underlying read error; nil for an unknown token
}

// Error formats the error as "tableau: FILE:LINE:COL: unknown token "X"".
func (e *ParseError) Error() string {
	return "tableau: " + e.Located()
}

// Located formats the error without the package prefix, as
// "FILE:LINE:COL: unknown token "X"" (FILE omitted when empty), the form a
// command-line tool prints. A token past MaxTokenBytes reads
// "FILE:LINE:COL: token longer than 64 bytes: "AAAA…"".
func (e *ParseError) Located() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(':')
	}
	fmt.Fprintf(&b, "%d:%d: ", e.Pos.Line, e.Pos.Col)
	switch {
	case errors.Is(e.Err, ErrTokenTooLong):
		fmt.Fprintf(&b, "token longer than %d bytes: %q…", MaxTokenBytes, e.Token)
	case errors.Is(e.Err, ErrDealerID):
		detail := strings.TrimPrefix(e.Err.Error(), ErrDealerID.Error()+": ")
		if e.Token == "" {
			b.WriteString(detail)
		} else {
			fmt.Fprintf(&b, "bad dealer id %q: %s", e.Token, detail)
		}
	case errors.Is(e.Err, ErrDeclare):
		detail := strings.TrimPrefix(e.Err.Error(), ErrDeclare.Error()+": ")
		if e.Token == "" {
			b.WriteString(detail)
		} else {
			fmt.Fprintf(&b, "bad declaration %q: %s", e.Token, detail)
		}
	case e.Err != nil:
		fmt.Fprintf(&b, "read error: %v", e.Err)
	case !utf8.ValidString(e.Token):
		// Name the bad bytes by value: %q would show \xff, which reads as
		// four characters of the file.
		i := 0
		for i < len(e.Token) {
			r, n := utf8.DecodeRuneInString(e.Token[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		fmt.Fprintf(&b, "unknown token %q: byte 0x%02X at its byte %d is not UTF-8 (transcripts are UTF-8 text)", strings.ToValidUTF8(e.Token, "\uFFFD"), e.Token[i], i+1)
	default:
		fmt.Fprintf(&b, "unknown token %q", e.Token)
	}
	return b.String()
}

// Unwrap returns the read error or ErrTokenTooLong, or ErrSyntax for an
// unknown token.
func (e *ParseError) Unwrap() error {
	if e.Err != nil {
		return e.Err
	}
	return ErrSyntax
}

// Lexer reads transcript tokens from a stream, one at a time, in constant
// memory: a readBufSize read buffer and at most MaxTokenBytes of the
// current token, whatever the input.
//
// The transcript syntax: UTF-8 text (a leading byte order mark is
// skipped); "#" starts a comment to the end of the line; tokens are
// separated by any white space (unicode.IsSpace); case is ignored. Tokens
// are cards (see ParseCard), "shoe", "|", "cut", "void", "dealer ID", "stand" (or
// "non") and "refuse", each at most MaxTokenBytes bytes.
type Lexer struct {
	rd   io.Reader
	buf  []byte // read buffer; buf[r:w] is unread
	r, w int
	rerr error // the reader's error (io.EOF at the end), reported once buf is drained
	perr error // a *ParseError once one is returned: every later Next returns it
	pos  Pos   // position of buf[r]
	tok  [MaxTokenBytes]byte
	file string
	// word: the next token is a dealer id, read as it is into arg
	// (kindOf).
	word bool
	arg  string
}

// NewLexer returns a Lexer reading r. file names the input in errors; it may
// be empty.
func NewLexer(r io.Reader, file string) *Lexer {
	return &Lexer{rd: r, buf: make([]byte, readBufSize), pos: Pos{Line: 1, Col: 1}, file: file}
}

// Offset is the number of input bytes consumed so far: after Next returns
// io.EOF, the size of the input.
func (l *Lexer) Offset() int { return l.pos.Offset }

// more reads more input into buf, keeping buf[r:w]. It reports whether any
// byte was added; when not, rerr is set.
func (l *Lexer) more() bool {
	if l.rerr != nil {
		return false
	}
	if l.pos.Offset > math.MaxInt-2*len(l.buf) {
		l.rerr = ErrTooLarge
		return false
	}
	if l.r > 0 {
		l.w = copy(l.buf, l.buf[l.r:l.w])
		l.r = 0
	}
	for tries := 0; tries < 100; tries++ {
		n, err := l.rd.Read(l.buf[l.w:])
		l.w += n
		if err != nil {
			l.rerr = err
		}
		if n > 0 {
			return true
		}
		if err != nil {
			return false
		}
	}
	l.rerr = io.ErrNoProgress
	return false
}

// readErr turns the pending reader error into Next's result: io.EOF at the
// end of the input, a *ParseError for any other error.
func (l *Lexer) readErr() error {
	if l.rerr == io.EOF {
		return io.EOF
	}
	l.perr = &ParseError{File: l.file, Pos: l.pos, Err: l.rerr}
	return l.perr
}

// rune decodes the rune at buf[r], reading more input if it may be split.
func (l *Lexer) rune() (rune, int) {
	for !utf8.FullRune(l.buf[l.r:l.w]) && l.more() {
	}
	return utf8.DecodeRune(l.buf[l.r:l.w])
}

// asciiSpace is unicode.IsSpace restricted to ASCII (false for every byte
// from 0x80: those are decoded as runes first).
var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// tokenByte marks the bytes that continue a token on the fast path: ASCII
// other than white space and '#'.
var tokenByte = func() (t [256]bool) {
	for b := 0; b < utf8.RuneSelf; b++ {
		t[b] = !asciiSpace[b] && b != '#'
	}
	return t
}()

// skipComment consumes a comment: from buf[r] ('#') through the end of the
// line.
func (l *Lexer) skipComment() {
	for {
		chunk := l.buf[l.r:l.w]
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			l.r += i + 1
			l.pos.Offset += i + 1
			l.pos.Line++
			l.pos.Col = 1
			return
		}
		// Count whole runes only; a rune split by the buffer's end waits
		// for the next read.
		k := len(chunk)
		for i := 1; i < utf8.UTFMax && i <= len(chunk); i++ {
			if utf8.RuneStart(chunk[len(chunk)-i]) {
				if !utf8.FullRune(chunk[len(chunk)-i:]) {
					k = len(chunk) - i
				}
				break
			}
		}
		if l.rerr != nil {
			k = len(chunk)
		}
		l.pos.Col += utf8.RuneCount(chunk[:k])
		l.pos.Offset += k
		l.r += k
		if !l.more() && l.r == l.w {
			return
		}
	}
}

// Next returns the next token. At the end of input it returns io.EOF. A
// token the grammar does not know or longer than MaxTokenBytes, or a read
// error, gives a *ParseError; every later call returns the same error.
// "dealer" takes the next word as its id (dealerToken).
func (l *Lexer) Next() (Token, error) {
	t, err := l.next()
	if t.Kind == TokDealer && err == nil {
		return l.dealerToken(t)
	}
	if t.Kind == TokDeclare && err == nil {
		return l.declareToken(t)
	}
	return t, err
}

// next is Next without the dealer id.
func (l *Lexer) next() (Token, error) {
	if l.perr != nil {
		return Token{}, l.perr
	}
	// Skip white space and comments.
	for {
		// ASCII white space, in local variables.
		buf, r, col, line := l.buf[:l.w], l.r, l.pos.Col, l.pos.Line
		for r < len(buf) && asciiSpace[buf[r]] {
			if buf[r] == '\n' {
				line++
				col = 0
			}
			col++
			r++
		}
		l.pos.Offset += r - l.r
		l.pos.Col, l.pos.Line, l.r = col, line, r
		if l.r == l.w && !l.more() {
			return Token{}, l.readErr()
		}
		b := l.buf[l.r]
		if b < utf8.RuneSelf {
			if asciiSpace[b] {
				continue
			}
			if b == '#' {
				l.skipComment()
				continue
			}
			break
		}
		ru, size := l.rune()
		if ru == '\uFEFF' && l.pos.Offset == 0 {
			l.r += size
			l.pos.Offset += size // a byte order mark: not a column
			continue
		}
		if !unicode.IsSpace(ru) {
			break
		}
		l.r += size
		l.pos.Offset += size
		l.pos.Col++
	}
	start := l.pos
	// Fast path: an ASCII token that ends, with an ASCII delimiter, inside
	// the buffer is classified in place.
	{
		buf := l.buf[:l.w]
		i, end := l.r, min(len(buf), l.r+MaxTokenBytes+1)
		for i < end && tokenByte[buf[i]] {
			i++
		}
		if i < len(buf) && i-l.r <= MaxTokenBytes && buf[i] < utf8.RuneSelf {
			word := buf[l.r:i]
			if kind, rank, suit := l.kindOf(word); kind != 0 {
				l.pos.Offset += i - l.r
				l.pos.Col += i - l.r
				l.r = i
				return Token{Kind: kind, Card: Card{Rank: rank, Suit: suit}, Pos: start}, nil
			}
			return l.classify(word, start)
		}
	}
	n := 0 // bytes of the token in l.tok
	for {
		if l.r == l.w && !l.more() {
			if l.rerr != io.EOF {
				return Token{}, l.readErr()
			}
			break
		}
		b := l.buf[l.r]
		size := 1
		if b < utf8.RuneSelf {
			if asciiSpace[b] || b == '#' {
				break
			}
		} else {
			var ru rune
			ru, size = l.rune()
			if unicode.IsSpace(ru) {
				break
			}
			if ru == utf8.RuneError && size == 1 {
				b = 0xff // keep invalid bytes visible in errors
			}
		}
		if n+size > MaxTokenBytes {
			q := min(n, MaxQuotedBytes)
			for q > 0 && q < n && !utf8.RuneStart(l.tok[q]) {
				q-- // do not split a rune in the quote
			}
			l.perr = &ParseError{File: l.file, Pos: start, Token: string(l.tok[:q]), Err: ErrTokenTooLong}
			return Token{}, l.perr
		}
		if size == 1 {
			l.tok[n] = b
		} else {
			copy(l.tok[n:], l.buf[l.r:l.r+size])
		}
		n += size
		l.r += size
		l.pos.Offset += size
		l.pos.Col++
	}
	return l.classify(l.tok[:n], start)
}

// AppendTokens appends up to n of the next tokens to dst and returns the
// extended slice: the tokens Next would return, one by one, but scanned in
// a tight loop over the read buffer (the hot path of `sabot check`'s second
// pass). err is nil when n tokens were appended, io.EOF when the input
// ended first, or the *ParseError (or read error) Next returns, after the
// tokens before it. Anything but ASCII white space, comments and ASCII
// tokens ending inside the buffer (other than "dealer", which takes the
// next word as its id) goes through Next, so the tokens, positions and
// errors are exactly Next's.
func (l *Lexer) AppendTokens(dst []Token, n int) ([]Token, error) {
	for n > 0 {
		if l.perr != nil {
			return dst, l.perr
		}
		buf := l.buf[:l.w]
		r, line, col, off := l.r, l.pos.Line, l.pos.Col, l.pos.Offset
	scan:
		for n > 0 && r < len(buf) {
			switch b := buf[r]; {
			case asciiSpace[b]:
				r++
				off++
				col++
				if b == '\n' {
					line++
					col = 1
				}
				continue
			case b == '#':
				j := bytes.IndexByte(buf[r:], '\n')
				if j < 0 {
					break scan // the comment goes on past the buffer
				}
				r += j + 1
				off += j + 1
				line++
				col = 1
				continue
			case b >= utf8.RuneSelf:
				break scan
			}
			i, end := r, min(len(buf), r+MaxTokenBytes+1)
			for i < end && tokenByte[buf[i]] {
				i++
			}
			if i == len(buf) || i-r > MaxTokenBytes || buf[i] >= utf8.RuneSelf {
				break scan // it may go on in the next read, is too long or has a non-ASCII byte
			}
			kind, rank, suit := classifyWord(buf[r:i])
			if kind == 0 || kind == TokDealer || kind == TokDeclare {
				break scan // Next reports it, or reads the dealer's id
			}
			// Filled in place, field by field: a Token literal built on
			// the stack and copied costs twice as much.
			dst = append(dst, Token{})
			t := &dst[len(dst)-1]
			t.Kind, t.Card.Rank, t.Card.Suit = kind, rank, suit
			t.Pos.Line, t.Pos.Col, t.Pos.Offset = line, col, off
			col += i - r
			off += i - r
			r = i
			n--
		}
		l.r, l.pos = r, Pos{Line: line, Col: col, Offset: off}
		if n == 0 {
			break
		}
		t, err := l.Next()
		if err != nil {
			return dst, err
		}
		dst = append(dst, t)
		n--
	}
	return dst, nil
}

// classify makes the token of word, found at start.
func (l *Lexer) classify(word []byte, start Pos) (Token, error) {
	kind, rank, suit := l.kindOf(word)
	if kind == 0 {
		l.perr = &ParseError{File: l.file, Pos: start, Token: string(word)}
		return Token{}, l.perr
	}
	return Token{Kind: kind, Card: Card{Rank: rank, Suit: suit}, Pos: start}, nil
}

// classifyWord returns the kind of the token word (0 if unknown) and, for
// a card, its rank and suit. Scalars only: cheap to return.
func classifyWord(word []byte) (TokenKind, Rank, Suit) {
	if len(word) == 2 { // the usual card, rank and suit: no keyword has two letters
		if r, s := rankOfByte[word[0]], suitOfByte[word[1]]; r != 0 && s != card.SuitUnknown {
			return TokCard, r, s
		}
	}
	var first byte
	if len(word) > 0 {
		first = word[0] | 0x20 // ASCII lower case; '|' is unchanged
	}
	switch {
	case first == '|' && len(word) == 1:
		return TokMarker, 0, 0
	case first == 's' && keyword(word, "shoe"): // no rank starts with s, c or v
		return TokShoe, 0, 0
	case first == 'c' && keyword(word, "cut"):
		return TokCut, 0, 0
	case first == 'v' && keyword(word, "void"):
		return TokVoid, 0, 0
	case first == 'd' && keyword(word, "dealer"): // no rank starts with d
		return TokDealer, 0, 0
	case first == 'd' && keyword(word, "declare"):
		return TokDeclare, 0, 0
	case first == 's' && keyword(word, "stand"), first == 'n' && keyword(word, "non"): // no rank starts with n
		return TokStand, 0, 0
	case first == 'r' && keyword(word, "refuse"): // no rank starts with r
		return TokRefuse, 0, 0
	}
	c, ok := card.ParseBytes(word)
	if !ok {
		return 0, 0, 0
	}
	return TokCard, c.Rank, c.Suit
}

// rankOfByte and suitOfByte are card.RankFromByte and card.SuitFromByte as
// tables.
var rankOfByte, suitOfByte = func() (r [256]Rank, s [256]Suit) {
	for b := range 256 {
		r[b], s[b] = card.RankFromByte(byte(b)), card.SuitFromByte(byte(b))
	}
	return r, s
}()

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

// Summary is what a whole-transcript scan learns: its size and how many
// cards and coup markers ("|") it holds.
type Summary struct {
	Bytes   int
	Cards   int
	Markers int

	dealer  bool // the next token is a dealer id ("dealer ID")
	declare bool // the next token is a declared result ("declare P")
}

// QuickScan reads r to the end and, if every token in it is certainly
// valid, returns its Summary and ok. It is the fast first pass of `sabot
// check` (several times the Lexer's speed): it classifies tokens as the
// Lexer does but keeps no positions, so it gives up (ok false, no error)
// at the first token that is unknown, longer than MaxTokenBytes, or holds
// a byte outside ASCII (outside comments; a leading byte order mark is
// skipped) — the Lexer then reads the input again to find, position and
// explain the error, or to accept Unicode white space. It never accepts
// input the Lexer refuses. A read error is returned as it is. Memory: one
// readBufSize buffer.
func QuickScan(r io.Reader) (s Summary, ok bool, err error) {
	return quickScan(r, true)
}

// QuickScanRest is QuickScan for a part of a transcript that starts just
// after a newline ("\n": no token or comment goes on across it), so that
// the parts of a large file can be scanned at once on several cores: it
// skips no byte order mark (U+FEFF there is a token's byte, so it gives
// up). The transcript is accepted if every part is; the Summaries add up.
func QuickScanRest(r io.Reader) (s Summary, ok bool, err error) {
	return quickScan(r, false)
}

// quickScan is QuickScan, skipping a leading byte order mark if bom.
func quickScan(r io.Reader, bom bool) (s Summary, ok bool, err error) {
	buf := make([]byte, readBufSize)
	var tok [MaxTokenBytes]byte
	n := 0 // bytes of a token carried over from the previous read
	inComment, first := false, bom
	for {
		m, rerr := fill(r, buf)
		if rerr != nil && rerr != io.EOF {
			return s, false, rerr
		}
		chunk := buf[:m]
		if s.Bytes > math.MaxInt-m {
			return s, false, ErrTooLarge
		}
		s.Bytes += m
		if first && m > 0 {
			first = false
			chunk = bytes.TrimPrefix(chunk, []byte("\uFEFF")) // a BOM: fill read it whole unless the input is shorter
		}
		i := 0
		if inComment {
			j := bytes.IndexByte(chunk, '\n')
			if j < 0 {
				i = len(chunk)
			} else {
				i, inComment = j+1, false
			}
		}
		if n > 0 { // the rest of a token the last read ended in
			j := 0
			for j < len(chunk) && tokenByte[chunk[j]] {
				j++
			}
			if n+j > MaxTokenBytes {
				return s, false, nil
			}
			n += copy(tok[n:], chunk[:j])
			i = j
			if j < len(chunk) {
				if chunk[j] >= utf8.RuneSelf || !s.count(tok[:n]) {
					return s, false, nil
				}
				n = 0
			}
		}
		for i < len(chunk) {
			b := chunk[i]
			switch {
			case asciiSpace[b]:
				i++
				continue
			case b == '#':
				j := bytes.IndexByte(chunk[i:], '\n')
				if j < 0 {
					i, inComment = len(chunk), true
					continue
				}
				i += j + 1
				continue
			case b >= utf8.RuneSelf:
				return s, false, nil
			}
			// A token: its run of token bytes.
			j := i
			for j < len(chunk) && tokenByte[chunk[j]] {
				j++
			}
			if j == len(chunk) { // it may go on in the next read
				if j-i > MaxTokenBytes {
					return s, false, nil
				}
				n = copy(tok[:], chunk[i:j])
				break
			}
			if chunk[j] >= utf8.RuneSelf || !s.count(chunk[i:j]) {
				return s, false, nil // a non-ASCII byte ends or continues it, or unknown
			}
			i = j
		}
		if rerr == io.EOF {
			if n > 0 && !s.count(tok[:n]) || s.dealer || s.declare { // "dealer" without its id, "declare" without its result
				return s, false, nil
			}
			return s, true, nil
		}
	}
}

// count classifies one token for QuickScan; it reports false if the
// token is unknown or too long.
func (s *Summary) count(word []byte) bool {
	if len(word) > MaxTokenBytes {
		return false
	}
	if s.dealer { // the id after "dealer": valid, or the Lexer explains
		s.dealer = false
		return string(word) == DealerSignOut || ValidateDealerID(string(word)) == nil
	}
	if s.declare { // the result after "declare": valid, or the Lexer explains
		s.declare = false
		return parseDeclared(word) != baccarat.WinnerNone
	}
	switch kind, _, _ := classifyWord(word); kind {
	case 0:
		return false
	case TokDealer:
		s.dealer = true
	case TokDeclare:
		s.declare = true
	case TokCard:
		s.Cards++
	case TokMarker:
		s.Markers++
	}
	return true
}

// fill reads into buf until it is full, the input ends (io.EOF) or fails;
// a reader that makes no progress is io.ErrNoProgress.
func fill(r io.Reader, buf []byte) (int, error) {
	m, idle := 0, 0
	for m < len(buf) {
		k, err := r.Read(buf[m:])
		m += k
		if err != nil {
			return m, err
		}
		if k > 0 {
			idle = 0
		} else if idle++; idle >= 100 {
			return m, io.ErrNoProgress
		}
	}
	return m, nil
}
