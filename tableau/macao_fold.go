package tableau

import (
	"fmt"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// MacaoOptions configures a MacaoFold. The zero value is a 2-deck Macao
// shoe with one seat (see MacaoRules), cut rule last-coup, without markers.
type MacaoOptions struct {
	Decks   int // decks in the shoe, 1–8; 0 means DefaultMacaoDecks (2)
	Rules   baccarat.MacaoRules
	CutRule CutRule
	// Markers: the dealer's coup button ("|") delimits coups and ends the
	// burn, as in Options.
	Markers bool
}

// MacaoFold is the shoe state machine of a Macao or Victoria shoe: the
// shoe procedure of Fold (burn, markers, cut card, void, composition,
// after-cut, incomplete-coup, shoe and coup numbering, all as documented
// on Fold) around a MacaoCoup instead of a punto banco coup. It folds
// transcript tokens — cards, "stand", "refuse", "|", "cut", "void",
// "shoe" — into events: coup lines (Event.Macao set), alerts and voids.
//
// Differences from Fold, all from the game: a coup is complete when every
// hand has had its turn (the banker's "stand" ends it, or the banker's
// natural or bust); "stand" and "refuse" that do not fit raise
// misplaced-token (and so does either where no coup is in progress),
// bounds raise hand-limit (see MacaoMisfit); a voided coup with markers
// takes every token until its "|" unchecked. LastMisfit tells a caller
// (sabot check) why the last token raised its alert, to print it with the
// token's position.
//
// Memory: one MacaoCoup (about 6 KiB) and the composition, whatever the
// input; each coup line allocates its event. Nothing panics on any input.
type MacaoFold struct {
	shoeRun // the shoe procedure, Fold's (fold.go)

	opts   MacaoOptions
	coup   baccarat.MacaoCoup
	misfit baccarat.MacaoMisfit // why the last token raised an alert (MacaoFits: it did not, or not from the game)
}

// NewMacaoFold returns a MacaoFold for opts. Errors: deck count outside
// 1–8 (ErrDecks), invalid rules (ErrMacaoRules), unknown cut rule
// (ErrCutRule).
func NewMacaoFold(opts MacaoOptions) (*MacaoFold, error) {
	if opts.Decks == 0 {
		opts.Decks = baccarat.DefaultMacaoDecks
	}
	if opts.Decks < 1 || opts.Decks > baccarat.MaxDecks {
		return nil, fmt.Errorf("%w: %d (want 1–%d)", baccarat.ErrDecks, opts.Decks, baccarat.MaxDecks)
	}
	if opts.CutRule > CutOneMore {
		return nil, fmt.Errorf("%w: %d", ErrCutRule, uint8(opts.CutRule))
	}
	c, err := baccarat.NewMacaoCoup(opts.Rules)
	if err != nil {
		return nil, err
	}
	opts.Rules = c.Rules()
	return &MacaoFold{shoeRun: shoeRun{decks: opts.Decks, markers: opts.Markers, cutRule: opts.CutRule, overrun: DefaultOverrunCards}, opts: opts, coup: c}, nil
}

// Options returns the fold's options (Decks and Rules.Seats filled in).
func (f *MacaoFold) Options() MacaoOptions { return f.opts }

// Coup returns the current coup (nil between coups); it is the fold's
// own, valid until the next token.
func (f *MacaoFold) Coup() *baccarat.MacaoCoup {
	if f.phase != PhaseCoup {
		return nil
	}
	return &f.coup
}

// LastMisfit is why the last token fed raised misplaced-token, hand-limit
// or extra-card, and MacaoFits if it raised none of them.
func (f *MacaoFold) LastMisfit() baccarat.MacaoMisfit { return f.misfit }

// Feed folds one transcript token. Its events carry the dealer signed in
// ("dealer ID" tokens, as in Fold).
func (f *MacaoFold) Feed(tok Token, out []Event) []Event {
	n := len(out)
	switch tok.Kind {
	case TokCard:
		out = f.Card(tok.Card, out)
	case TokShoe:
		out = f.NewShoe(out)
	case TokMarker:
		out = f.Marker(out)
	case TokCut:
		out = f.Cut(out)
	case TokVoid:
		out = f.Void(out)
	case TokDealer:
		f.misfit = baccarat.MacaoFits
		f.dealer = tok.Dealer
	case TokStand:
		out = f.Stand(out)
	case TokRefuse:
		out = f.Refuse(out)
	case TokDeclare: // declarations are checked in punto banco only (Fold.Declare)
		f.open()
		out = append(out, alertEvent(f.shoe, f.coupNum, baccarat.AlertMisplacedDeclare, Card{}))
	}
	return f.stampDealer(out, n)
}

// FoldMacaoTokens folds a whole transcript with opts and returns its
// events, including those End raises.
func FoldMacaoTokens(opts MacaoOptions, toks []Token) ([]Event, error) {
	f, err := NewMacaoFold(opts)
	if err != nil {
		return nil, err
	}
	return foldAll(f, toks), nil
}

// open forgets the last misfit and starts the implicit first shoe (see
// Fold.open).
func (f *MacaoFold) open() {
	f.misfit = baccarat.MacaoFits
	if f.phase == PhaseNoShoe {
		f.begin()
	}
}

func (f *MacaoFold) begin() {
	f.shoeRun.begin()
	f.coup.Reset() // in place: the coup is 6 KiB
}

// inCoup reports whether a coup is in progress: current, not voided, not
// complete.
func (f *MacaoFold) inCoup() bool {
	return f.phase == PhaseCoup && !f.voided && !f.coup.Complete()
}

// NewShoe is the "shoe" token: a new shoe begins.
func (f *MacaoFold) NewShoe(out []Event) []Event {
	f.misfit = baccarat.MacaoFits
	out = f.finish(f.inCoup(), out)
	f.begin()
	return out
}

// End is the end of input (see Fold.End).
func (f *MacaoFold) End(out []Event) []Event {
	f.misfit = baccarat.MacaoFits
	return f.end(f.inCoup(), out)
}

// alert raises the alert of misfit m (if any), remembering it for
// LastMisfit.
func (f *MacaoFold) alert(m baccarat.MacaoMisfit, card Card, out []Event) []Event {
	if m == baccarat.MacaoFits {
		return out
	}
	f.misfit = m
	return append(out, alertEvent(f.shoe, f.coupNum, m.Code(), card))
}

// Card folds one card drawn from the shoe. An invalid card raises
// unreadable-card and is not used.
func (f *MacaoFold) Card(card Card, out []Event) []Event {
	f.open()
	out, step := f.card(card, f.inCoup(), out)
	switch step {
	case stepDeal:
		out = f.alert(f.coup.Card(card), card, out)
		if f.coup.Complete() {
			out = f.emitCoup(out)
		}
	case stepExtra:
		out = f.alert(baccarat.MacaoCardComplete, card, out)
	case stepStart:
		f.coup.Reset()
		f.coup.Card(card) // the first card of a coup fits and never completes it (two hands at least)
	}
	return out
}

func (f *MacaoFold) emitCoup(out []Event) []Event {
	return append(out, Event{Kind: baccarat.EventCoup, Macao: f.coup.Event(f.shoe, f.coupNum)})
}

// openTurnToken opens the shoe for a "stand" or "refuse" (see open) and
// reports whether the token is to be ignored: it falls in a voided coup
// with markers, where tokens until the coup's "|" belong to it unchecked.
func (f *MacaoFold) openTurnToken() bool {
	f.open()
	return f.phase == PhaseCoup && f.voided && f.opts.Markers
}

// Stand folds "stand": the hand whose turn it is ends its turn. Where no
// hand has a turn — during the deal, after the coup is complete, between
// coups, during the burn — it raises misplaced-token and changes nothing;
// in a voided coup with markers it is ignored.
func (f *MacaoFold) Stand(out []Event) []Event {
	if f.openTurnToken() {
		return out
	}
	switch {
	case f.inCoup():
		out = f.alert(f.coup.Stand(), Card{}, out)
		if f.coup.Complete() {
			out = f.emitCoup(out)
		}
		return out
	case f.phase == PhaseCoup && !f.voided:
		return f.alert(baccarat.MacaoStandComplete, Card{}, out)
	}
	return f.alert(baccarat.MacaoStandNoCoup, Card{}, out)
}

// Refuse folds "refuse": the hand whose turn it is sets aside the ten or
// court card it has just drawn. Where it does not fit it raises
// misplaced-token and changes nothing; in a voided coup with markers it is
// ignored.
func (f *MacaoFold) Refuse(out []Event) []Event {
	if f.openTurnToken() {
		return out
	}
	switch {
	case f.inCoup():
		return f.alert(f.coup.Refuse(), Card{}, out)
	case f.opts.Rules.NoRefuse:
		return f.alert(baccarat.MacaoRefuseOff, Card{}, out)
	case f.phase == PhaseCoup && !f.voided:
		return f.alert(baccarat.MacaoRefuseNoCard, Card{}, out)
	}
	return f.alert(baccarat.MacaoRefuseNoCoup, Card{}, out)
}

// Marker folds the dealer's coup button ("|"). Ignored without markers.
// After the deal it closes the coup: every hand whose turn is still to
// come stands (every turn is an option), and the coup line follows. During
// the deal, where cards are owed, it raises missing-card.
func (f *MacaoFold) Marker(out []Event) []Event {
	f.open()
	if f.opts.Markers && f.inCoup() && f.coup.StandAll() {
		out = f.emitCoup(out)
	}
	out, closing := f.marker(out)
	if closing && !f.coup.Complete() {
		out = append(out, alertEvent(f.shoe, f.coupNum, baccarat.AlertMissingCard, Card{}))
	}
	return out
}

// Cut folds the cut card coming out of the shoe (see Fold.Cut).
func (f *MacaoFold) Cut(out []Event) []Event {
	f.open()
	f.cutCard(f.inCoup())
	return out
}

// Void folds the supervisor's void (see Fold.Void).
func (f *MacaoFold) Void(out []Event) []Event {
	f.open()
	return f.void(out)
}
