package audit

import (
	"bufio"
	"io"
	"runtime"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// The second pass of sabot check with two folds at once (foldCheckShoes).
//
// A shoe's fold depends on nothing before its "shoe" token but its shoe
// number and the dealer signed in (tableau.Fold.begin keeps only those), so
// the transcript is cut, just before "shoe" tokens, into segments of whole
// shoes that two folds take in turn; the writer prints their events in the
// transcript's order. The fold is most of the second pass's work (the
// settlement of every coup): with one fold it held one core while the
// other lexed and wrote, with two the work spreads over both.

// parFolds is how many folds foldCheckShoes runs.
const parFolds = 2

// minSegmentTokens is the fewest tokens of a segment before it may end at a
// "shoe" token (an 8-deck shoe is about 450), so that a batch is not cut
// for every short shoe; a batch still ends at TokBatch tokens, and a
// segment then goes on in the next batch, to the same fold.
const minSegmentTokens = TokBatch / 2

// parFoldMin is the smallest transcript (in bytes) folded by
// foldCheckShoes: below it the setup (twice the batches) outweighs the
// gain.
const parFoldMin = 256 << 10

// shoeParallel reports whether foldCheckShoes is to fold cfg's transcript
// of size bytes: of parFoldMin bytes or more, on two cores or more, for
// the punto banco deal (whose fold keeps nothing across shoes but the shoe
// number and the dealer).
func shoeParallel(cfg Config, size int) bool {
	if SerialFold {
		return false
	}
	if ParFoldAll {
		size = parFoldMin
	}
	return size >= parFoldMin && cfg.Macao == nil && cfg.Opts.Rules.Game.DealsPuntoBanco() && runtime.GOMAXPROCS(0) >= 2
}

// segBuf is a token batch of foldCheckShoes: a checkTokBuf and where it
// stands among the segments.
type segBuf struct {
	checkTokBuf
	// fresh: the batch starts a segment (at a "shoe" token, or at the
	// input's start); shoes is then the number of shoes begun before it
	// and dealer the dealer signed in.
	fresh  bool
	shoes  int
	dealer string
	// last: the batch ends its segment (a "shoe" token follows).
	last bool
}

// evBuf is an event batch of foldCheckShoes; end marks the last of a token
// batch.
type evBuf struct {
	checkBatchBuf
	end bool
}

// shoeFolder is one of foldCheckShoes' folds, with its batches.
type shoeFolder struct {
	f                *tableau.Fold
	tokFree, tokFull chan *segBuf
	free, full       chan *evBuf
	err              error // the fold's result, read after done
	done             chan struct{}
}

// foldCheckShoes is foldCheck for the punto banco deal on two cores or
// more: the lexer (lexSegments), parFolds folds (foldSegments) and the
// writer (this goroutine). It returns what foldCheck returns. Memory:
// parFolds folds' states (one shoe each) and parFolds × checkBatches
// batches of tokens and of events, the read and output buffers — whatever
// the input's size.
func foldCheckShoes(cfg Config, r io.Reader, name string, stdout, stderr io.Writer) (alerts int, err error) {
	stop := make(chan struct{}) // closed by the writer when it fails
	folds := make([]*shoeFolder, parFolds)
	for i := range folds {
		f, err := tableau.NewFold(cfg.Opts)
		if err != nil {
			return 0, err
		}
		sf := &shoeFolder{f: f, done: make(chan struct{}),
			tokFree: make(chan *segBuf, checkBatches), tokFull: make(chan *segBuf, checkBatches),
			free: make(chan *evBuf, checkBatches), full: make(chan *evBuf, checkBatches)}
		for range checkBatches {
			sf.tokFree <- &segBuf{checkTokBuf: checkTokBuf{toks: make([]checkTok, 0, TokBatch)}}
			sf.free <- &evBuf{checkBatchBuf: checkBatchBuf{evs: make([]tableau.Event, 0, checkBatch+16)}}
		}
		folds[i] = sf
		go func() {
			defer close(sf.done)
			defer close(sf.full)
			sf.err = foldSegments(sf, cfg, name, stop)
		}()
	}
	// order: which fold has each token batch's events, in the input's
	// order (at most the batches in circulation are ahead of the writer).
	order := make(chan int, parFolds*checkBatches)
	lexDone := make(chan struct{})
	go func() {
		defer close(lexDone)
		defer close(order)
		defer func() {
			for _, sf := range folds {
				close(sf.tokFull)
			}
		}()
		lexSegments(tableau.NewLexer(r, name), folds, order, stop)
	}()

	w := bufio.NewWriterSize(stdout, 64<<10)
	var werr error
write:
	for i := range order {
		sf := folds[i]
		for {
			b, ok := <-sf.full
			if !ok {
				break write // the fold stopped (an error): nothing follows
			}
			if werr == nil {
				alerts, werr = writeBatch(w, stderr, &b.checkBatchBuf, alerts)
			}
			end := b.end
			b.evs, b.warns, b.end = b.evs[:0], b.warns[:0], false
			sf.free <- b // never blocks: checkBatches event batches per fold
			if werr != nil {
				break write
			}
			if end {
				break
			}
		}
	}
	close(stop) // everyone is done, or must stop
	<-lexDone   // r is not read after foldCheckShoes returns
	for _, sf := range folds {
		<-sf.done
		if err == nil {
			err = sf.err
		}
	}
	return alerts, endOutput(w, werr, err)
}

// lexSegments is foldCheckShoes' lexer: it fills token batches from l,
// cuts segments before "shoe" tokens, hands each new segment to the next
// fold in turn (the batches of one segment all to the same) and tells the
// writer the order in which to read the folds' events. It returns when the
// input ends or fails (the last batch carries the error) or stop closes.
func lexSegments(l *tableau.Lexer, folds []*shoeFolder, order chan<- int, stop <-chan struct{}) {
	scratch := make([]tableau.Token, 0, lexScratch)
	var (
		pending []tableau.Token // lexed, not yet in a batch
		lerr    error           // the lexer's error, after pending
		shoes   int             // the fold's shoe number after the tokens batched so far
		started bool            // a token has been batched
		dealer  string          // the dealer signed in after them
		cur     = -1            // the fold of the current segment
	)
	fill := func() { // pending is empty: lex more
		if lerr == nil {
			scratch, lerr = l.AppendTokens(scratch[:0], lexScratch)
			pending = scratch
		}
	}
	for {
		if len(pending) == 0 {
			fill()
		}
		fresh := !started || len(pending) > 0 && pending[0].Kind == tableau.TokShoe
		next := cur
		if fresh || cur < 0 {
			next = (cur + 1) % len(folds)
		}
		var tb *segBuf
		select {
		case tb = <-folds[next].tokFree:
		case <-stop:
			return
		}
		cur = next
		tb.toks, tb.extra, tb.err = tb.toks[:0], tb.extra[:0], nil
		tb.fresh, tb.shoes, tb.dealer, tb.last = fresh, shoes, dealer, false
		for !tb.last && len(tb.toks) < TokBatch {
			if len(pending) == 0 {
				fill()
				if len(pending) == 0 {
					tb.err = lerr // the end, or an error
					break
				}
			}
			if !started { // the first token begins shoe 1, "shoe" or not
				started = true
				if pending[0].Kind != tableau.TokShoe {
					shoes = 1
				}
			}
			k, room := 0, min(len(pending), TokBatch-len(tb.toks))
			for ; k < room; k++ {
				t := &pending[k]
				switch t.Kind {
				case tableau.TokShoe:
					if len(tb.toks) >= minSegmentTokens {
						tb.last = true
					} else {
						shoes++
					}
				case tableau.TokDealer:
					dealer = t.Dealer
				}
				if tb.last {
					break
				}
				tb.add(t, false)
			}
			pending = pending[k:]
		}
		if !tb.last && tb.err == nil { // a full batch: does a "shoe" token follow?
			if len(pending) == 0 {
				fill()
				if len(pending) == 0 {
					tb.err = lerr
				}
			}
			tb.last = len(pending) > 0 && pending[0].Kind == tableau.TokShoe
		}
		select {
		case order <- cur:
		case <-stop:
			return
		}
		select {
		case folds[cur].tokFull <- tb:
		case <-stop:
			return
		}
		if tb.err != nil {
			return
		}
	}
}

// shiftedFold is a fold whose shoe numbers are shift behind the
// transcript's (for voidIgnoredReason).
type shiftedFold struct {
	*tableau.Fold
	shift int
}

func (s shiftedFold) Shoe() int { return s.Fold.Shoe() + s.shift }

// foldSegments is one fold of foldCheckShoes: it folds its token batches,
// numbering shoes as the transcript does, ends each segment (End: what an
// unfinished coup or burn leaves, as the "shoe" token after it would), and
// hands its event batches over, the last of each token batch marked.
func foldSegments(sf *shoeFolder, cfg Config, name string, stop <-chan struct{}) error {
	f := sf.f
	var (
		voided lastVoided // in the transcript's numbers
		shift  int        // transcript's shoe number - f's, in this segment
	)
	b := <-sf.free
	send := func(end bool) bool {
		b.end = end
		select {
		case sf.full <- b:
		case <-stop:
			return false
		}
		select {
		case b = <-sf.free:
			return true
		case <-stop:
			return false
		}
	}
	renumber := func(from int) {
		if shift == 0 {
			return
		}
		for i := from; i < len(b.evs); i++ {
			switch e := &b.evs[i]; e.Kind {
			case baccarat.EventCoup:
				e.Coup.Shoe += shift
			case baccarat.EventAlert:
				e.Alert.Shoe += shift
			case baccarat.EventVoid:
				e.Void.Shoe += shift
			}
		}
	}
	for tb := range sf.tokFull {
		if tb.fresh {
			shift = tb.shoes - f.Shoe()
			f.SetDealer(tb.dealer)
		}
		extra := tb.extra
		for _, ct := range tb.toks {
			t := ct.token(&extra)
			n := len(b.evs)
			if cfg.Advantage.On() {
				b.evs = f.FeedAdvantages(*t, cfg.Advantage.Value(), b.evs)
			} else {
				b.evs = f.Feed(*t, b.evs)
			}
			renumber(n)
			if t.Kind == tableau.TokStand {
				b.warns = standWarning(b.warns, t, b.evs, n, name)
			}
			if t.Kind == tableau.TokVoid {
				b.warns = voided.note(b.warns, t, b.evs, n, name, shiftedFold{f, shift}, cfg.Opts.Markers)
			}
			if len(b.evs) >= checkBatch || len(b.warns) >= checkBatch {
				if !send(false) {
					return nil // the writer failed and says why
				}
			}
		}
		err := tb.err
		if tb.last || err == io.EOF {
			n := len(b.evs)
			b.evs = f.End(b.evs)
			renumber(n)
		}
		sf.tokFree <- tb // never blocks: checkBatches token batches per fold
		if !send(true) {
			return nil
		}
		if err != nil && err != io.EOF {
			return err // the file changed since the first pass
		}
	}
	return nil
}

// SerialFold and ParFoldAll make sabot check fold with one fold always,
// or with two folds whatever the size (for the tests, which compare the
// two).
var SerialFold, ParFoldAll bool
