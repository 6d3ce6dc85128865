package tableau_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"unicode"
	"unicode/utf8"

	"github.com/sabot-table/sabot/tableau"
)

// refLex is an independent, rune-at-a-time reading of the transcript
// syntax (bufio.Reader.ReadRune, unicode.IsSpace, no buffer management and
// no length limit) used as the reference for the Lexer's fast path. It
// returns the tokens and the error message (Located) of the first bad token.
func refLex(src []byte, file string) (toks []tableau.Token, errMsg string) {
	r := bufio.NewReader(strings.NewReader(string(src)))
	pos := tableau.Pos{Line: 1, Col: 1}
	adv := func(ru rune, size int) {
		pos.Offset += size
		if ru == '\n' {
			pos.Line++
			pos.Col = 1
		} else {
			pos.Col++
		}
	}
	for {
		ru, size, err := r.ReadRune()
		if err != nil {
			return toks, ""
		}
		switch {
		case ru == '\uFEFF' && pos.Offset == 0:
			pos.Offset += size
			continue
		case ru == '#':
			adv(ru, size)
			for ru != '\n' {
				if ru, size, err = r.ReadRune(); err != nil {
					return toks, ""
				}
				adv(ru, size)
			}
			continue
		case unicode.IsSpace(ru):
			adv(ru, size)
			continue
		}
		start := pos
		var word []byte
		for {
			if ru == '#' || unicode.IsSpace(ru) {
				r.UnreadRune()
				break
			}
			adv(ru, size)
			if ru == utf8.RuneError && size == 1 {
				word = append(word, 0xff)
			} else {
				word = utf8.AppendRune(word, ru)
			}
			if ru, size, err = r.ReadRune(); err != nil {
				break
			}
		}
		tok := tableau.Token{Pos: start}
		switch w := strings.ToLower(string(word)); {
		case w == "|":
			tok.Kind = tableau.TokMarker
		case w == "shoe" && len(word) == 4:
			tok.Kind = tableau.TokShoe
		case w == "cut" && len(word) == 3:
			tok.Kind = tableau.TokCut
		case w == "void" && len(word) == 4:
			tok.Kind = tableau.TokVoid
		case w == "stand" && len(word) == 5, w == "non" && len(word) == 3:
			tok.Kind = tableau.TokStand
		case w == "refuse" && len(word) == 6:
			tok.Kind = tableau.TokRefuse
		default:
			c, err := tableau.ParseCard(string(word))
			if err != nil {
				if !utf8.Valid(word) {
					// The byte named by value (ParseError.Located).
					i := 0
					for r, n := utf8.DecodeRune(word); r != utf8.RuneError || n != 1; r, n = utf8.DecodeRune(word[i:]) {
						i += n
					}
					return toks, fmt.Sprintf("%s:%d:%d: unknown token %q: byte 0x%02X at its byte %d is not UTF-8 (transcripts are UTF-8 text)",
						file, start.Line, start.Col, strings.ToValidUTF8(string(word), "\uFFFD"), word[i], i+1)
				}
				return toks, fmt.Sprintf("%s:%d:%d: unknown token %q", file, start.Line, start.Col, word)
			}
			tok.Kind, tok.Card = tableau.TokCard, c
		}
		toks = append(toks, tok)
	}
}

// lexAll runs the Lexer over r to the end or the first error.
func lexAll(r io.Reader, file string) (toks []tableau.Token, errMsg string) {
	l := tableau.NewLexer(r, file)
	for {
		t, err := l.Next()
		if err == io.EOF {
			return toks, ""
		}
		if err != nil {
			var pe *tableau.ParseError
			if !errors.As(err, &pe) {
				return toks, "not a *ParseError: " + err.Error()
			}
			return toks, pe.Located()
		}
		toks = append(toks, t)
	}
}

// chunkReader returns its data in reads of random sizes 1–7 bytes, so that
// tokens, runes and comments are split at every possible place.
type chunkReader struct {
	data []byte
	rng  *rand.Rand
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), 1+c.rng.IntN(7))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// TestLexerMatchesReference compares the Lexer with refLex on the sample
// transcripts and on random inputs built from the syntax's pieces
// (multi-byte runes and spaces, invalid bytes, a BOM, comments), read whole,
// one byte at a time and in random chunks: tokens, positions and the first
// error must be identical.
func TestLexerMatchesReference(t *testing.T) {
	var inputs [][]byte
	paths, _ := filepath.Glob("testdata/*.shoe")
	more, _ := filepath.Glob("testdata/contract/*.shoe")
	for _, p := range append(paths, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, b)
	}
	pieces := []string{"AS", "10h", "td", "7", "Q", "shoe", "SHOE", "|", "cut", "Void", " ", "  ", "\t", "\n", "\r\n",
		"# comment é\n", "#x", "\u00a0", "\u2028", "\u0085", "é", "ſ", "\xff", "\xe2\x82", "1H", "2H|", "#", "\uFEFF", "\u3000"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range archScaled(3000) {
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteString("\uFEFF")
		}
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		inputs = append(inputs, []byte(b.String()))
	}
	for i, src := range inputs {
		wantToks, wantErr := refLex(src, "f")
		for name, r := range map[string]io.Reader{
			"whole":  strings.NewReader(string(src)),
			"bytes":  iotest.OneByteReader(strings.NewReader(string(src))),
			"chunks": &chunkReader{data: src, rng: rand.New(rand.NewPCG(uint64(i), 9))},
		} {
			toks, errMsg := lexAll(r, "f")
			if errMsg != wantErr || fmt.Sprint(toks) != fmt.Sprint(wantToks) || !samePositions(toks, wantToks) {
				t.Fatalf("input %d %q read %s:\n got %v %q\nwant %v %q", i, src, name, toks, errMsg, wantToks, wantErr)
			}
		}
	}
}

// lexBatches runs Lexer.AppendTokens over r, n tokens at a time, to the
// end or the first error.
func lexBatches(r io.Reader, file string, n int) (toks []tableau.Token, errMsg string) {
	l := tableau.NewLexer(r, file)
	for {
		var err error
		before := len(toks)
		toks, err = l.AppendTokens(toks, n)
		if err == nil && len(toks)-before != n {
			return toks, fmt.Sprintf("appended %d tokens of %d without an error", len(toks)-before, n)
		}
		if err == io.EOF {
			return toks, ""
		}
		if err != nil {
			var pe *tableau.ParseError
			if !errors.As(err, &pe) {
				return toks, "not a *ParseError: " + err.Error()
			}
			return toks, pe.Located()
		}
	}
}

// TestLexerAppendTokensMatchesReference: AppendTokens (the batch fast
// path of sabot check) gives Next's tokens, positions and first error (and
// so refLex's, but for the length limit and "dealer ID") —
// on the samples, on random inputs of the syntax's pieces, and on inputs
// padded so that their pieces straddle the 64 KiB read buffer's boundary,
// read whole, a byte at a time and in random chunks, in batches of 1, 3
// and 1000 tokens.
func TestLexerAppendTokensMatchesReference(t *testing.T) {
	var inputs [][]byte
	paths, _ := filepath.Glob("testdata/*.shoe")
	more, _ := filepath.Glob("testdata/contract/*.shoe")
	for _, p := range append(paths, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, b)
	}
	pieces := []string{"AS", "10h", "td", "7", "Q", "shoe", "SHOE", "|", "cut", "Void", " ", "  ", "\t", "\n", "\r\n",
		"# comment é\n", "#x", "\u00a0", "\u2028", "\u0085", "é", "ſ", "\xff", "\xe2\x82", "1H", "2H|", "#", "\uFEFF", "\u3000",
		"ah", "2x", "x2", "10", "1", strings.Repeat("K", 64), strings.Repeat("K", 65),
		"dealer AS", "DEALER d-7", "dealer -", "dealer", "dealer #c\n2H", "dealer \u00a0 x"}
	rng := rand.New(rand.NewPCG(3, 4))
	for k := range archScaled(1500) {
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteString("\uFEFF")
		}
		if k%3 == 0 { // towards the 64 KiB boundary
			if rng.IntN(2) == 0 {
				b.WriteString(strings.Repeat(" ", 65536-rng.IntN(40)))
			} else {
				b.WriteString("#" + strings.Repeat("c", 65536-rng.IntN(40)-2) + "\n")
			}
		}
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		inputs = append(inputs, []byte(b.String()))
	}
	for i, src := range inputs {
		// Next, itself compared with refLex (which has no length limit).
		wantToks, wantErr := lexAll(strings.NewReader(string(src)), "f")
		if !strings.Contains(string(src), strings.Repeat("K", 64)) && !strings.Contains(strings.ToLower(string(src)), "dealer") {
			if refToks, refErr := refLex(src, "f"); refErr != wantErr || !samePositions(refToks, wantToks) {
				t.Fatalf("input %d %.300q: Next and refLex disagree", i, src)
			}
		}
		for _, n := range []int{1, 3, 1000} {
			for name, r := range map[string]io.Reader{
				"whole":  strings.NewReader(string(src)),
				"bytes":  iotest.OneByteReader(strings.NewReader(string(src))),
				"chunks": &chunkReader{data: src, rng: rand.New(rand.NewPCG(uint64(i), 9))},
			} {
				if name == "bytes" && len(src) > 1000 && n != 1000 {
					continue // slow; the other readers cover it
				}
				toks, errMsg := lexBatches(r, "f", n)
				if errMsg != wantErr || !samePositions(toks, wantToks) {
					t.Fatalf("input %d %.300q read %s in batches of %d:\n got %.500v %q\nwant %.500v %q", i, src, name, n, toks, errMsg, wantToks, wantErr)
				}
			}
		}
	}
}

func samePositions(a, b []tableau.Token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Pos != b[i].Pos || a[i].Kind != b[i].Kind || a[i].Card != b[i].Card {
			return false
		}
	}
	return true
}

// TestLexerTokenLimit: a token of MaxTokenBytes is an ordinary (unknown)
// token; one byte more is refused as too long, at the token's start, with
// a short quote — whether ASCII or multi-byte.
func TestLexerTokenLimit(t *testing.T) {
	at := strings.Repeat("A", tableau.MaxTokenBytes)
	_, msg := lexAll(strings.NewReader("shoe 2H\n  "+at+" 3C"), "f")
	if want := fmt.Sprintf("f:2:3: unknown token %q", at); msg != want {
		t.Errorf("%d-byte token: %q, want %q", tableau.MaxTokenBytes, msg, want)
	}
	over := at + "A"
	toks, msg := lexAll(strings.NewReader("shoe 2H\n  "+over+" 3C"), "f")
	if want := `f:2:3: token longer than 64 bytes: "AAAAAAAAAAAAAAAA"…`; msg != want || len(toks) != 2 {
		t.Errorf("%d-byte token: %q after %v, want %q", len(over), msg, toks, want)
	}
	// é is two bytes: 32 of them are 64 bytes; a 33rd is too long, and the
	// quote does not split a rune.
	toks, msg = lexAll(strings.NewReader(strings.Repeat("é", 33)), "g")
	if want := `g:1:1: token longer than 64 bytes: "éééééééé"…`; msg != want || len(toks) != 0 {
		t.Errorf("multi-byte: %q, want %q", msg, want)
	}
	_, err := tableau.ParseTranscript(strings.NewReader(over), "f")
	if !errors.Is(err, tableau.ErrTokenTooLong) || !errors.Is(err, tableau.ErrSyntax) {
		t.Errorf("error %v does not wrap ErrTokenTooLong and ErrSyntax", err)
	}
}

// countingReader yields n bytes of b (no allocation per read) and counts
// what was read.
type countingReader struct {
	b    byte
	n    int64
	read int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read >= c.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), c.n-c.read)
	for i := range p[:k] {
		p[i] = c.b
	}
	c.read += k
	return int(k), nil
}

// TestLexerHugeTokenConstantMemory: a 64 MiB token after a valid start is
// refused with file:line:col and a short quote, after reading no more than
// one read buffer past its first bytes and allocating well under a
// megabyte (the lexer's buffer is 64 KiB), where reading the token whole
// took about 500 MiB.
func TestLexerHugeTokenConstantMemory(t *testing.T) {
	const size = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	huge := &countingReader{b: 'A', n: size}
	_, err := tableau.ParseTranscript(io.MultiReader(strings.NewReader("shoe 2H 3C\n4D "), huge), "big.shoe")
	runtime.ReadMemStats(&after)
	var pe *tableau.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, tableau.ErrTokenTooLong) {
		t.Fatalf("got %v, want a token-too-long *ParseError", err)
	}
	if want := `big.shoe:2:4: token longer than 64 bytes: "AAAAAAAAAAAAAAAA"…`; pe.Located() != want {
		t.Errorf("message %q, want %q", pe.Located(), want)
	}
	if len(pe.Error()) > 200 {
		t.Errorf("error message is %d bytes long", len(pe.Error()))
	}
	if huge.read > 1<<20 {
		t.Errorf("read %d bytes of the token; the refusal should come after MaxTokenBytes", huge.read)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("allocated %d bytes refusing a 64 MiB token, want < 1 MiB", alloc)
	}
}

// TestLexerLongCommentsAndLines: comments and white space are skipped
// without being held, so an 8 MiB comment line and 8 MiB of spaces cost
// nothing and positions stay right.
func TestLexerLongCommentsAndLines(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	src := io.MultiReader(strings.NewReader("shoe #"), &countingReader{b: 'x', n: 8 << 20},
		strings.NewReader("\n2H"), &countingReader{b: ' ', n: 8 << 20}, strings.NewReader("3C"))
	toks, msg := lexAll(src, "f")
	runtime.ReadMemStats(&after)
	if msg != "" || len(toks) != 3 {
		t.Fatalf("%v %q", toks, msg)
	}
	if p := toks[2].Pos; p.Line != 2 || p.Col != 3+8<<20 || p.Offset != 6+8<<20+1+2+8<<20 {
		t.Errorf("3C at %+v", p)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("allocated %d bytes", alloc)
	}
}

// TestLexerStickyErrorAndOffset: after an error every Next returns it; at
// the end Offset is the input's size.
func TestLexerStickyErrorAndOffset(t *testing.T) {
	l := tableau.NewLexer(strings.NewReader("2H 1H 3C"), "f")
	l.Next()
	_, e1 := l.Next()
	_, e2 := l.Next()
	if e1 == nil || e1 != e2 {
		t.Errorf("errors %v then %v", e1, e2)
	}
	l = tableau.NewLexer(strings.NewReader("\uFEFF2H 3C # é\n"), "f")
	for {
		if _, err := l.Next(); err != nil {
			break
		}
	}
	if l.Offset() != len("\uFEFF2H 3C # é\n") {
		t.Errorf("Offset %d", l.Offset())
	}
}

// BenchmarkLexer tokenizes 64 copies of the clean 8-deck shoe (202 KB)
// with the streaming Lexer; MB/s is input bytes per second.
func BenchmarkLexer(b *testing.B) {
	one, err := os.ReadFile("testdata/clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	src := strings.Repeat(string(one), 64)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	r := strings.NewReader(src)
	for b.Loop() {
		r.Reset(src)
		l := tableau.NewLexer(r, "x")
		for {
			if _, err := l.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}

// BenchmarkLexerAppendTokens is BenchmarkLexer through AppendTokens, in
// batches of 1024 tokens (as sabot check reads them).
func BenchmarkLexerAppendTokens(b *testing.B) {
	one, err := os.ReadFile("testdata/clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	src := strings.Repeat(string(one), 64)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	r := strings.NewReader(src)
	toks := make([]tableau.Token, 0, 1024)
	for b.Loop() {
		r.Reset(src)
		l := tableau.NewLexer(r, "x")
		for {
			toks, err = l.AppendTokens(toks[:0], cap(toks))
			if err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}

// lexSummary is the Lexer's verdict on src: the summary, or ok false.
func lexSummary(src string) (tableau.Summary, bool) {
	l := tableau.NewLexer(strings.NewReader(src), "")
	var s tableau.Summary
	for {
		t, err := l.Next()
		if err == io.EOF {
			s.Bytes = l.Offset()
			return s, true
		}
		if err != nil {
			return s, false
		}
		switch t.Kind {
		case tableau.TokCard:
			s.Cards++
		case tableau.TokMarker:
			s.Markers++
		}
	}
}

// asciiOutsideComments reports whether src has no non-ASCII byte outside
// comments (a leading BOM aside): the inputs QuickScan must accept when
// the Lexer does.
func asciiOutsideComments(src string) bool {
	src = strings.TrimPrefix(src, "\uFEFF")
	inComment := false
	for i := 0; i < len(src); i++ {
		switch b := src[i]; {
		case inComment:
			inComment = b != '\n'
		case b == '#':
			inComment = true
		case b >= utf8.RuneSelf:
			return false
		}
	}
	return true
}

// TestQuickScanAgreesWithLexer: QuickScan never accepts what the Lexer
// refuses, gives the Lexer's counts when it accepts, and accepts every
// valid transcript that is ASCII outside comments; so do QuickScan and
// QuickScanRest on two parts split after a newline — on random inputs
// placed so that their pieces straddle the read buffer's boundary, and on
// the samples.
func TestQuickScanAgreesWithLexer(t *testing.T) {
	pieces := []string{"AS", "10h", "td", "7", "Q", "shoe", "SHOE", "|", "cut", "Void", " ", "  ", "\t", "\n", "\r\n",
		"# comment é\n", "#x", "\u00a0", "\u2028", "é", "\xff", "1H", "2H|", "#", "\uFEFF", strings.Repeat("K", 63), "10"}
	rng := rand.New(rand.NewPCG(7, 8))
	var inputs []string
	paths, _ := filepath.Glob("testdata/*.shoe")
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		inputs = append(inputs, string(b), strings.Repeat(string(b), 30))
	}
	for range archScaled(4000) {
		var b strings.Builder
		if rng.IntN(8) == 0 {
			b.WriteString("\uFEFF")
		}
		switch rng.IntN(3) { // pad towards the 64 KiB boundary
		case 1:
			b.WriteString(strings.Repeat(" ", 65536-rng.IntN(80)))
		case 2:
			b.WriteString("#" + strings.Repeat("c", 65536-rng.IntN(80)-2) + "\n")
		}
		for range rng.IntN(25) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		inputs = append(inputs, b.String())
	}
	accepted := 0
	for i, src := range inputs {
		want, wantOK := lexSummary(src)
		got, ok, err := tableau.QuickScan(strings.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		if ok && (!wantOK || got != want) {
			t.Fatalf("input %d (%d bytes, ends %q): QuickScan accepts %+v, Lexer %v %+v", i, len(src), src[max(0, len(src)-100):], got, wantOK, want)
		}
		if !ok && wantOK && asciiOutsideComments(src) {
			t.Fatalf("input %d (%d bytes, ends %q): QuickScan gave up on a valid ASCII transcript", i, len(src), src[max(0, len(src)-100):])
		}
		if ok {
			accepted++
		}
		// Split after a newline, the two parts scanned apart (QuickScan,
		// QuickScanRest) give the same verdict and summary as the whole.
		if cut := rng.IntN(len(src) + 1); strings.IndexByte(src[cut:], '\n') >= 0 {
			cut += strings.IndexByte(src[cut:], '\n') + 1
			a, okA, errA := tableau.QuickScan(strings.NewReader(src[:cut]))
			b, okB, errB := tableau.QuickScanRest(strings.NewReader(src[cut:]))
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			sum := tableau.Summary{Bytes: a.Bytes + b.Bytes, Cards: a.Cards + b.Cards, Markers: a.Markers + b.Markers}
			if okA && okB && (!wantOK || sum != want) {
				t.Fatalf("input %d split at %d (%q|%q): parts accept %+v, Lexer %v %+v", i, cut, src[max(0, cut-40):cut], src[cut:min(len(src), cut+40)], sum, wantOK, want)
			}
			if !(okA && okB) && wantOK && asciiOutsideComments(src) && !strings.HasPrefix(src[cut:], "\uFEFF") {
				t.Fatalf("input %d split at %d (%q|%q): the parts gave up on a valid ASCII transcript", i, cut, src[max(0, cut-40):cut], src[cut:min(len(src), cut+40)])
			}
		}
	}
	// A byte order mark after a newline is a token's byte, not skipped.
	if _, ok, _ := tableau.QuickScanRest(strings.NewReader("\uFEFF2H 3C\n")); ok {
		t.Error("QuickScanRest skips a byte order mark")
	}
	if accepted < archScaled(300) {
		t.Errorf("only %d inputs accepted", accepted)
	}
	// A read error is returned.
	if _, _, err := tableau.QuickScan(io.MultiReader(strings.NewReader("shoe 2H"), iotest.ErrReader(io.ErrUnexpectedEOF))); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read error: %v", err)
	}
}
