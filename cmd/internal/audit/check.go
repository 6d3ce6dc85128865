// Package audit is sabot check: it reads a shoe transcript twice in
// constant memory (a first pass that only tokenizes it, a second that folds
// it against the game's tableau), and prints every coup, alert and void as
// a JSON line, in the order they happen. The transcript input that is read
// twice (Input, OpenInput, Scan) also serves sabot roads.
package audit

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"runtime"
	"strings"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// Config is a parsed sabot check command line.
type Config struct {
	// Opts are the fold's options; Opts.Markers is set by Run from
	// Markers and the transcript.
	Opts tableau.Options
	// Markers is "auto", "on" or "off" (coup markers "|"; auto: on if the
	// transcript has any).
	Markers string
	// File is the transcript's path, "-" for standard input.
	File string
	// Advantage is the --advantage threshold; off by default.
	Advantage odds.AdvantageThreshold
	// Macao is set for --game macao or victoria, folded by
	// tableau.MacaoFold (macao.go); nil for the other games.
	Macao *tableau.MacaoOptions
}

// SetMarkers sets c.Opts.Markers, and c.Macao's, from c.Markers: on, off,
// or with "auto" whether the first pass (sc) saw any "|".
func (c *Config) SetMarkers(sc ScanResult) {
	switch c.Markers {
	case "on":
		c.Opts.Markers = true
	case "auto":
		c.Opts.Markers = sc.Markers
	}
	if c.Macao != nil {
		c.Macao.Markers = c.Opts.Markers
	}
}

// Run is sabot check of cfg. It reads the transcript twice, in constant
// memory: the first pass only tokenizes it (a parse error then prints
// nothing on standard output, and --markers auto learns whether there is
// any "|"), the second folds it token by token and prints each event as it
// happens. Standard input, or a FILE that cannot be read twice (a pipe, a
// terminal), is spooled during the first pass to a temporary file,
// unlinked at once.
//
// It returns the exit status: 0 no alert, 1 at least one alert (or a
// transcript without any card), 2 the input cannot be read or parsed,
// said on stderr.
func Run(ctx context.Context, cfg Config, stdin io.Reader, stdout, stderr io.Writer) int {
	in, err := OpenInput(cfg.File, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "sabot check: %v\n", err)
		return 2
	}
	defer in.Close()

	// Pass 1: tokens only.
	sc, err := Scan(ctx, in)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "sabot check: interrupted")
		return 2
	}
	if err != nil {
		PrintError(stderr, "sabot check", in.name, err)
		return 2
	}
	if sc.Cards == 0 {
		fmt.Fprintf(stderr, "sabot check: %s: no cards (%d bytes, nothing to check)\n", in.name, sc.Size)
		return 1
	}
	cfg.SetMarkers(sc)

	// Pass 2: fold and print, over exactly the bytes the first pass read.
	second, err := in.Second(sc.Size)
	if err != nil {
		fmt.Fprintf(stderr, "sabot check: %s: %v\n", in.name, err)
		return 2
	}
	fold := foldCheck
	if shoeParallel(cfg, sc.Size) {
		fold = foldCheckShoes // check_par.go: two folds
	}
	alerts, err := fold(cfg, ctxReader{ctx, second}, in.name, stdout, stderr)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "sabot check: interrupted")
		return 2
	}
	if err != nil {
		PrintError(stderr, "sabot check", in.name, err)
		var pe *tableau.ParseError
		if errors.As(err, &pe) { // the first pass read these bytes without error
			fmt.Fprintf(stderr, "sabot check: %s: changed while it was being checked: the output does not match it\n", in.name)
		}
		return 2
	}
	if n, same := in.same(second, sc.Size); !same {
		// Truncated or rewritten between the passes (bytes appended are
		// not read: the first pass stopped before them).
		fmt.Fprintf(stderr, "sabot check: %s: changed while it was being checked (%d of %d bytes read again, or other bytes): the output does not match it\n", in.name, n, sc.Size)
		return 2
	}
	if alerts > 0 {
		return 1
	}
	return 0
}

// PrintError prints err, met reading the transcript name, on stderr: a
// parse error as the compiler-style "FILE:LINE:COL: ..." line, anything
// else as "CMD: NAME: ERR" (cmd "sabot check", "sabot roads").
func PrintError(stderr io.Writer, cmd, name string, err error) {
	var pe *tableau.ParseError
	if errors.As(err, &pe) {
		fmt.Fprintln(stderr, pe.Located())
		return
	}
	fmt.Fprintf(stderr, "%s: %s: %v\n", cmd, name, err)
}

// Input is the transcript sabot check (and sabot roads) reads twice: a regular file
// read in place, or a spool (a temporary file) filled from standard input
// or a pipe during the first pass.
type Input struct {
	name  string
	f     *os.File  // the file read in place, or the spool
	start int64     // offset of the transcript in f
	src   io.Reader // the non-seekable source being spooled; nil for a regular file
	spool string    // the spool's path, removed by close; "" without a spool
	orig  *os.File  // a FILE being spooled, closed by close
	// spooled is how many bytes of src are in the spool.
	spooled int64
	// sums checksum what the first pass read, part by part (consecutive
	// byte ranges from start): one part, or two scanned at once.
	sums []*summer
}

// maxSpoolBytes bounds the spool (disk, in $TMPDIR): 4 GiB, about 40
// years of a busy table. A longer standard input is refused; give it as a
// FILE.
const maxSpoolBytes int64 = 4 << 30 // int64: 4 GiB overflows int on 32-bit ARM

// OpenInput opens FILE ("-": standard input, stdin) for Scan and then
// Second; the caller closes it. A directory is an error naming it as one.
func OpenInput(file string, stdin io.Reader) (*Input, error) {
	if file == "-" {
		in := &Input{name: "<stdin>"}
		if f, ok := stdin.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				if off, err := f.Seek(0, io.SeekCurrent); err == nil {
					in.f, in.start = f, off // sabot check < file: read it in place
					return in, nil
				}
			}
		}
		if stdin == nil {
			stdin = strings.NewReader("")
		}
		return in, in.startSpool(stdin)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory", file)
	}
	in := &Input{name: file}
	if st.Mode().IsRegular() {
		in.f = f
		return in, nil
	}
	// A pipe, FIFO or device (sabot check <(zcat year.shoe.gz)): spool it.
	in.orig = f
	if err := in.startSpool(f); err != nil {
		f.Close()
		return nil, err
	}
	return in, nil
}

// startSpool creates the spool for src, in $TMPDIR (or /tmp). It takes
// as much disk as the input (a tmpfs /tmp takes it from memory: set
// TMPDIR to a disk directory for a year's transcript).
func (in *Input) startSpool(src io.Reader) error {
	f, err := os.CreateTemp("", "sabot-check-*.shoe")
	if err != nil {
		return fmt.Errorf("spooling %s: %w", in.name, err)
	}
	in.f, in.src = f, src
	// Unlinked at once (it is read through f): nothing is left behind even
	// if the process is killed. Where that fails, close removes it.
	if os.Remove(f.Name()) != nil {
		in.spool = f.Name()
	}
	return nil
}

// first is the reader of the first pass: the file, or the source copied
// into the spool as it is read.
func (in *Input) first() io.Reader {
	var r io.Reader = &spoolReader{in: in}
	if in.src == nil {
		r = io.NewSectionReader(in.f, in.start, math.MaxInt64-in.start)
	}
	in.sums = []*summer{{r: r}}
	return in.sums[0]
}

// SplitScanMin is the size from which the first pass over a regular file
// is split in two parts, scanned at once on two cores (a variable for the
// tests).
var SplitScanMin int64 = 256 << 10

// maxSplitSearch bounds the search, from the middle of the file, for the
// newline after which the second part starts; without one the file is
// scanned in one part.
const maxSplitSearch = 64 << 10

// firstParts are the readers of the first pass: first() as one part, or,
// for a regular file of at least SplitScanMin bytes on two or more cores,
// two parts split just after a newline near its middle (QuickScan the
// first, QuickScanRest the second).
// With two parts, firstSize is the first part's size.
func (in *Input) firstParts() (parts []io.Reader, firstSize int64) {
	if in.src != nil || runtime.GOMAXPROCS(0) < 2 {
		return []io.Reader{in.first()}, 0
	}
	st, err := in.f.Stat()
	if err != nil || st.Size()-in.start < SplitScanMin {
		return []io.Reader{in.first()}, 0
	}
	mid := in.start + (st.Size()-in.start)/2
	var win [4 << 10]byte
	cut := int64(-1)
	for off := mid; off < mid+maxSplitSearch && cut < 0; off += int64(len(win)) {
		n, _ := in.f.ReadAt(win[:], off)
		if i := bytes.IndexByte(win[:n], '\n'); i >= 0 {
			cut = off + int64(i) + 1
		} else if n < len(win) {
			break
		}
	}
	if cut < 0 {
		return []io.Reader{in.first()}, 0
	}
	in.sums = []*summer{
		{r: io.NewSectionReader(in.f, in.start, cut-in.start)},
		{r: io.NewSectionReader(in.f, cut, math.MaxInt64-cut)},
	}
	return []io.Reader{in.sums[0], in.sums[1]}, cut - in.start
}

// again reads the input from its start once more during the first pass:
// what has been spooled so far, then the rest of the source (spooled as it
// is read).
func (in *Input) again() io.Reader {
	if in.src == nil {
		return in.first()
	}
	in.sums = []*summer{{r: io.MultiReader(io.NewSectionReader(in.f, 0, in.spooled), &spoolReader{in: in})}}
	return in.sums[0]
}

// SecondPass reads the second pass's bytes, checksummed in the first
// pass's parts.
type SecondPass struct {
	io.Reader
	parts []*summer
}

// Second is the reader of the second pass: the size bytes the first pass
// tokenized (bytes appended to a growing file since are not read).
func (in *Input) Second(size int) (*SecondPass, error) {
	if in.src != nil {
		if _, err := in.f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
	}
	p := &SecondPass{}
	rs := make([]io.Reader, len(in.sums))
	off, left := in.start, int64(size)
	for i, s := range in.sums {
		n := min(s.n, left)
		if i == len(in.sums)-1 {
			n = left
		}
		p.parts = append(p.parts, &summer{r: io.NewSectionReader(in.f, off, n)})
		rs[i] = p.parts[i]
		off, left = off+n, left-n
	}
	p.Reader = io.MultiReader(rs...)
	return p, nil
}

// same reports whether the second pass read exactly the size bytes the
// first pass read, part by part, and how many it read.
func (in *Input) same(p *SecondPass, size int) (n int64, ok bool) {
	ok = true
	for i, s := range p.parts {
		n += s.n
		ok = ok && s.n == in.sums[i].n && s.crc == in.sums[i].crc
	}
	return n, ok && n == int64(size)
}

// Name is the input's name in messages: FILE, or "<stdin>".
func (in *Input) Name() string { return in.name }

// Close closes the input and removes its spool, if any.
func (in *Input) Close() {
	if in.orig != nil {
		in.orig.Close()
	}
	if in.f != nil && in.f != os.Stdin {
		in.f.Close()
	}
	if in.spool != "" {
		os.Remove(in.spool)
	}
}

// spoolReader reads the input's source and appends what it reads to the
// spool.
type spoolReader struct{ in *Input }

func (s *spoolReader) Read(p []byte) (int, error) {
	if s.in.spooled+int64(len(p)) > maxSpoolBytes {
		p = p[:max(0, maxSpoolBytes-s.in.spooled)]
		if len(p) == 0 {
			return 0, fmt.Errorf("%s is longer than %d bytes, the most spooled to a temporary file: give the transcript as a FILE", s.in.name, maxSpoolBytes)
		}
	}
	n, err := s.in.src.Read(p)
	if n > 0 {
		if _, werr := s.in.f.Write(p[:n]); werr != nil {
			return n, fmt.Errorf("spooling to a temporary file (set TMPDIR to a directory with space): %w", werr)
		}
		s.in.spooled += int64(n)
	}
	return n, err
}

// summer checksums (CRC-32C) and counts what is read through it, so that
// the second pass can tell whether it read the bytes the first pass
// validated.
type summer struct {
	r   io.Reader
	n   int64
	crc uint32
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (s *summer) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n += int64(n)
	s.crc = crc32.Update(s.crc, castagnoli, p[:n])
	return n, err
}

// ScanResult is what the first pass (Scan) learns.
type ScanResult struct {
	Size    int  // bytes tokenized: the whole input
	Cards   int  // card tokens
	Markers bool // any "|" (for --markers auto)
}

// ctxReader fails with ctx's error once ctx is done (an interrupt), so
// that both passes stop within one read.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Scan is the first pass: tableau.QuickScan (on a regular file
// of SplitScanMin bytes or more, QuickScan and QuickScanRest on its two
// halves at once), and only if it gives up (an error to report, or Unicode
// white space) the Lexer over the input from its start, which positions
// and explains the error.
func Scan(ctx context.Context, in *Input) (ScanResult, error) {
	var (
		sum tableau.Summary
		ok  bool
		err error
	)
	if parts, firstSize := in.firstParts(); len(parts) == 1 {
		sum, ok, err = tableau.QuickScan(ctxReader{ctx, parts[0]})
	} else {
		sum, ok, err = quickScanParts(ctx, parts, firstSize)
	}
	if err != nil {
		return ScanResult{}, fmt.Errorf("read error: %w", err)
	}
	if ok {
		return ScanResult{Size: sum.Bytes, Cards: sum.Cards, Markers: sum.Markers > 0}, nil
	}
	var res ScanResult
	l := tableau.NewLexer(ctxReader{ctx, in.again()}, in.name)
	for {
		t, err := l.Next()
		if err == io.EOF {
			res.Size = l.Offset()
			return res, nil
		}
		if err != nil {
			return res, err
		}
		switch t.Kind {
		case tableau.TokCard:
			res.Cards++
		case tableau.TokMarker:
			res.Markers = true
		}
	}
}

// quickScanParts scans the two parts of the first pass at once, the first
// (of firstSize bytes) on another goroutine, and adds up their summaries.
// It gives up (ok false) if either part does or if the first part was cut
// short (the file shrank).
func quickScanParts(ctx context.Context, parts []io.Reader, firstSize int64) (tableau.Summary, bool, error) {
	var (
		a        tableau.Summary
		okA      bool
		errA     error
		finished = make(chan struct{})
	)
	go func() {
		defer close(finished)
		a, okA, errA = tableau.QuickScan(ctxReader{ctx, parts[0]})
	}()
	b, okB, errB := tableau.QuickScanRest(ctxReader{ctx, parts[1]})
	<-finished
	if err := cmp.Or(errA, errB); err != nil {
		return tableau.Summary{}, false, err
	}
	if int64(a.Bytes)+int64(b.Bytes) > math.MaxInt {
		return tableau.Summary{}, false, tableau.ErrTooLarge
	}
	sum := tableau.Summary{Bytes: a.Bytes + b.Bytes, Cards: a.Cards + b.Cards, Markers: a.Markers + b.Markers}
	return sum, okA && okB && int64(a.Bytes) == firstSize, nil
}

// foldCheck is the second pass: it folds r token by token (with the
// advantage check before each coup under --advantage), writes each event
// as a JSON line, warns on stderr of every "void" that voids nothing, and
// returns the number of alerts.
//
// Three goroutines share the work, so that both cores stay busy: the
// lexer fills batches of up to TokBatch tokens, the fold turns them
// into batches of up to checkBatch events, and the writer (this goroutine)
// encodes those; checkBatches batches of each kind circulate. Memory: the
// fold's state (one shoe), checkBatches × (TokBatch tokens +
// checkBatch events), the read and output buffers — whatever the input's
// size.
func foldCheck(cfg Config, r io.Reader, name string, stdout, stderr io.Writer) (alerts int, err error) {
	var (
		f  *tableau.Fold
		mf *tableau.MacaoFold
	)
	if cfg.Macao != nil {
		mf, err = tableau.NewMacaoFold(*cfg.Macao)
	} else {
		f, err = tableau.NewFold(cfg.Opts)
	}
	if err != nil {
		return 0, err
	}
	stop := make(chan struct{}) // closed by the writer when it fails

	tokFree := make(chan *checkTokBuf, checkBatches)
	tokFull := make(chan *checkTokBuf, checkBatches)
	for range checkBatches {
		tokFree <- &checkTokBuf{toks: make([]checkTok, 0, TokBatch)}
	}
	lexDone := make(chan struct{})
	go func() {
		defer close(lexDone)
		defer close(tokFull)
		lexTokens(tableau.NewLexer(r, name), mf != nil, tokFree, tokFull, stop)
	}()

	free := make(chan *checkBatchBuf, checkBatches)
	full := make(chan *checkBatchBuf, checkBatches)
	for range checkBatches {
		free <- &checkBatchBuf{evs: make([]tableau.Event, 0, checkBatch+16)}
	}
	foldErr := make(chan error, 1)
	go func() {
		defer close(full)
		foldErr <- foldTokens(f, mf, cfg, name, tokFree, tokFull, free, full, stop)
	}()

	w := bufio.NewWriterSize(stdout, 64<<10)
	var werr error
	for b := range full {
		if werr == nil {
			alerts, werr = writeBatch(w, stderr, b, alerts)
			if werr != nil {
				close(stop)
			}
		}
		b.evs, b.warns = b.evs[:0], b.warns[:0]
		free <- b
	}
	err = <-foldErr
	<-lexDone // r is not read after foldCheck returns
	return alerts, endOutput(w, werr, err)
}

// endOutput ends the output of a check whose writer failed with werr and
// whose lexer or fold with err: werr first; else err, once the events
// before it are flushed (they are good output); else flushing w.
func endOutput(w *bufio.Writer, werr, err error) error {
	if werr != nil {
		return werr
	}
	if err != nil {
		w.Flush()
		return err
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// Batches between foldCheck's three goroutines.
const (
	// TokBatch is the most tokens in a batch from the lexer to a fold
	// (the tests cut shoes around it).
	TokBatch     = 1024
	checkBatch   = 256 // events per batch (a batch may exceed it by one token's events)
	checkBatches = 4   // batches of each kind in circulation
)

// checkTokBuf is a batch of tokens; err, if not nil, comes after them
// (io.EOF at the end of the input). Cards and markers travel as checkToks
// alone; any other token is a checkTok marked whole and, whole, the next
// of extra (at most TokBatch).
type checkTokBuf struct {
	toks  []checkTok
	extra []tableau.Token
	err   error
}

// checkTok is a token as it goes from the lexer to the fold: 4 bytes, not
// the 72 of a tableau.Token, whose copy from one core's cache to the
// other's cost more than lexing it. A card or marker is its kind and card
// alone (the fold reads no token's position; a lexed card has no UID).
type checkTok struct {
	kind  tableau.TokenKind
	rank  tableau.Rank
	suit  tableau.Suit
	whole bool // the token is the next of the batch's extra
}

// add packs t at the end of tb: a card or marker as its checkTok alone,
// any other token (or, with positions, every token) also whole in extra.
func (tb *checkTokBuf) add(t *tableau.Token, positions bool) {
	whole := positions || t.Kind != tableau.TokCard && t.Kind != tableau.TokMarker || t.Card.UID != "" || t.Dealer != "" ||
		t.Card.Rank > card.NumRanks || t.Card.Suit > card.NumSuits
	tb.toks = append(tb.toks, checkTok{kind: t.Kind, rank: t.Card.Rank, suit: t.Card.Suit, whole: whole})
	if whole {
		tb.extra = append(tb.extra, *t)
	}
}

// token unpacks ct, the next token of a batch whose whole tokens not yet
// unpacked are *extra: the next of them (taken off *extra), or the
// shared token of ct's marker or card (cardTokens, markerToken).
func (ct checkTok) token(extra *[]tableau.Token) *tableau.Token {
	switch {
	case ct.whole:
		t := &(*extra)[0]
		*extra = (*extra)[1:]
		return t
	case ct.kind == tableau.TokMarker:
		return &markerToken
	default:
		return &cardTokens[ct.rank][ct.suit]
	}
}

// cardTokens and markerToken are the tokens the fold is fed for plain
// cards and markers: copied from these tables, not built field by field
// on the stack (whose copy into Feed's argument stalls on the narrow
// stores just made: 7% of the CPU profile).
var (
	cardTokens = func() (t [card.NumRanks + 1][card.NumSuits + 1]tableau.Token) {
		for r := range t {
			for s := range t[r] {
				t[r][s] = tableau.Token{Kind: tableau.TokCard, Card: tableau.Card{Rank: tableau.Rank(r), Suit: tableau.Suit(s)}}
			}
		}
		return t
	}()
	markerToken = tableau.Token{Kind: tableau.TokMarker}
)

// lexScratch is how many tokens the lexer reads at a time into its own
// buffer (which stays in its core's cache) before packing them.
const lexScratch = 256

// checkBatchBuf is a batch of events and the warnings to print among them.
type checkBatchBuf struct {
	evs   []tableau.Event
	warns []checkWarning
}

// checkWarning is a line for standard error, printed before event at.
type checkWarning struct {
	at   int
	text string
}

// lexTokens is foldCheck's lexer: it fills token batches from l until the
// input ends or fails (the last batch carries the error) or stop closes.
// With positions, every token travels whole (Macao and Victoria name the
// position of a card that does not fit).
func lexTokens(l *tableau.Lexer, positions bool, free chan *checkTokBuf, full chan<- *checkTokBuf, stop <-chan struct{}) {
	scratch := make([]tableau.Token, 0, lexScratch)
	for {
		var tb *checkTokBuf
		select {
		case tb = <-free:
		case <-stop:
			return
		}
		tb.toks, tb.extra, tb.err = tb.toks[:0], tb.extra[:0], nil
		for len(tb.toks) < TokBatch && tb.err == nil {
			scratch, tb.err = l.AppendTokens(scratch[:0], min(lexScratch, TokBatch-len(tb.toks)))
			for i := range scratch {
				tb.add(&scratch[i], positions)
			}
		}
		select {
		case full <- tb:
		case <-stop:
			return
		}
		if tb.err != nil {
			return
		}
	}
}

// foldTokens is foldCheck's fold: it feeds every token of the token
// batches to f, or to mf for Macao and Victoria (f nil; see
// macaoWarning), and hands full event batches over.
func foldTokens(f *tableau.Fold, mf *tableau.MacaoFold, cfg Config, name string, tokFree chan<- *checkTokBuf, tokFull <-chan *checkTokBuf, free <-chan *checkBatchBuf, full chan<- *checkBatchBuf, stop <-chan struct{}) error {
	var voided lastVoided
	var sf shoeFold = f // for voidIgnoredReason
	markers := cfg.Opts.Markers
	if mf != nil {
		sf, markers = mf, cfg.Macao.Markers
	}
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
		extra := tb.extra
		for _, ct := range tb.toks {
			t := ct.token(&extra)
			n := len(b.evs)
			switch {
			case cfg.Advantage.On():
				b.evs = f.FeedAdvantages(*t, cfg.Advantage.Value(), b.evs)
			case mf == nil:
				b.evs = f.Feed(*t, b.evs)
			default:
				b.evs = mf.Feed(*t, b.evs)
				b.warns = macaoWarning(b.warns, mf, t, b.evs, n, name)
			}
			if t.Kind == tableau.TokVoid {
				b.warns = voided.note(b.warns, t, b.evs, n, name, sf, markers)
			}
			if t.Kind == tableau.TokStand && mf == nil {
				b.warns = standWarning(b.warns, t, b.evs, n, name)
			}
			if t.Kind == tableau.TokRefuse && mf == nil { // misplaced-token: say where
				b.warns = append(b.warns, checkWarning{at: n, text: fmt.Sprintf("%s:%s: misplaced-token: refuse: only in --game macao and victoria", name, t.Pos)})
			}
			if len(b.evs) >= checkBatch || len(b.warns) >= checkBatch {
				if !send() {
					return nil // the writer failed and says why
				}
			}
		}
		err := tb.err
		tokFree <- tb // never blocks: checkBatches token batches in all
		switch {
		case err == io.EOF:
			if mf != nil {
				b.evs = mf.End(b.evs)
			} else {
				b.evs = f.End(b.evs)
			}
			full <- b
			return nil
		case err != nil:
			full <- b
			return err // the file changed since the first pass
		}
	}
	return nil // stop closed: the writer failed and says why
}

// standWarning says where a "stand" (or "non") with no coup in progress
// is, among the events evs[n:] it gave: the Fold raises misplaced-token for
// it, and this line on standard error, "FILE:LINE:COL: misplaced-token:
// why", comes just before that alert (as Macao's).
func standWarning(warns []checkWarning, t *tableau.Token, evs []tableau.Event, n int, name string) []checkWarning {
	for j := n; j < len(evs); j++ {
		if evs[j].Kind == baccarat.EventAlert && evs[j].Alert.Code == baccarat.AlertMisplacedToken {
			return append(warns, checkWarning{at: j, text: fmt.Sprintf("%s:%s: misplaced-token: stand with no coup in progress (during the burn or between coups)", name, t.Pos)})
		}
	}
	return warns
}

// writeBatch writes a batch's events as JSON lines and its warnings, in
// order, and returns the alert count so far.
func writeBatch(w *bufio.Writer, stderr io.Writer, b *checkBatchBuf, alerts int) (int, error) {
	warns := b.warns
	for i := range b.evs {
		for len(warns) > 0 && warns[0].at == i {
			if err := w.Flush(); err != nil { // keep the order on a terminal
				return alerts, fmt.Errorf("writing output: %w", err)
			}
			fmt.Fprintln(stderr, warns[0].text)
			warns = warns[1:]
		}
		// Encode into the writer's free buffer: no copy, and no
		// allocation as a line (under 1 KiB) fits.
		if w.Available() < 1<<10 {
			if err := w.Flush(); err != nil {
				return alerts, fmt.Errorf("writing output: %w", err)
			}
		}
		line, err := b.evs[i].AppendJSON(w.AvailableBuffer())
		if err != nil {
			return alerts, fmt.Errorf("encoding event: %w", err)
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return alerts, fmt.Errorf("writing output: %w", err)
		}
		if b.evs[i].Kind == baccarat.EventAlert {
			alerts++
		}
	}
	if len(warns) > 0 {
		if err := w.Flush(); err != nil {
			return alerts, fmt.Errorf("writing output: %w", err)
		}
		for _, wn := range warns {
			fmt.Fprintln(stderr, wn.text)
		}
	}
	return alerts, nil
}

// voidOf returns the void event among evs, or nil.
func voidOf(evs []tableau.Event) *tableau.VoidEvent {
	for i := range evs {
		if evs[i].Kind == baccarat.EventVoid {
			return &evs[i].Void
		}
	}
	return nil
}

// lastVoided is the last coup a "void" voided (zero before any), for the
// warning on a "void" that voids nothing.
type lastVoided struct{ shoe, coup int }

// note takes the "void" t, whose events are evs[n:]: it records the coup
// the void voided or, if it voided nothing, appends to warns the line
// "FILE:LINE:COL: warning: void ignored: why" (why from the fold f after
// it, as voidIgnoredReason), printed after those events.
func (v *lastVoided) note(warns []checkWarning, t *tableau.Token, evs []tableau.Event, n int, name string, f shoeFold, markers bool) []checkWarning {
	if e := voidOf(evs[n:]); e != nil {
		v.shoe, v.coup = e.Shoe, e.Coup
		return warns
	}
	return append(warns, checkWarning{at: len(evs), text: fmt.Sprintf("%s:%s: warning: void ignored: %s",
		name, t.Pos, voidIgnoredReason(f, markers, v.shoe, v.coup))})
}

// voidIgnoredReason says why a "void" voided nothing, from the fold's
// state after it and the last coup voided.
func voidIgnoredReason(f shoeFold, markers bool, vShoe, vCoup int) string {
	shoe, coup := f.Shoe(), f.CoupNumber()
	switch {
	case f.Phase() == tableau.PhaseBurn:
		return fmt.Sprintf("shoe %d is still burning cards, no coup to void", shoe)
	case coup == 0:
		return fmt.Sprintf("no coup dealt yet in shoe %d", shoe)
	case vShoe == shoe && vCoup == coup:
		return fmt.Sprintf("coup %d of shoe %d is already voided", coup, shoe)
	case markers:
		return fmt.Sprintf("coup %d of shoe %d was already closed by \"|\"", coup, shoe)
	}
	return fmt.Sprintf("no coup in progress after coup %d of shoe %d", coup, shoe)
}
