package tableau

import "fmt"

// MacaoOptions configures a MacaoFold. The zero value is a 2-deck Macao
// shoe with one seat (see MacaoRules), cut rule last-coup, without markers.
type MacaoOptions struct {
	Decks   int // decks in the shoe, 1–8; 0 means DefaultMacaoDecks (2)
	Rules   MacaoRules
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
	opts MacaoOptions

	shoe  int
	phase Phase
	comp  Composition

	burnN, burnWant int

	coupNum int
	coup    MacaoCoup
	voided  bool

	cut      bool
	lastCoup int

	misfit MacaoMisfit // why the last token raised an alert (MacaoFits: it did not, or not from the game)
	dealer string      // the dealer signed in ("" none), kept across shoes, as in Fold
}

// NewMacaoFold returns a MacaoFold for opts. Errors: deck count outside
// 1–8 (ErrDecks), invalid rules (ErrMacaoRules), unknown cut rule
// (ErrCutRule).
func NewMacaoFold(opts MacaoOptions) (*MacaoFold, error) {
	if opts.Decks == 0 {
		opts.Decks = DefaultMacaoDecks
	}
	if opts.Decks < 1 || opts.Decks > MaxDecks {
		return nil, fmt.Errorf("%w: %d (want 1–%d)", ErrDecks, opts.Decks, MaxDecks)
	}
	if opts.CutRule > CutOneMore {
		return nil, fmt.Errorf("%w: %d", ErrCutRule, uint8(opts.CutRule))
	}
	c, err := NewMacaoCoup(opts.Rules)
	if err != nil {
		return nil, err
	}
	opts.Rules = c.Rules()
	return &MacaoFold{opts: opts, coup: c}, nil
}

// Options returns the fold's options (Decks and Rules.Seats filled in).
func (f *MacaoFold) Options() MacaoOptions { return f.opts }

// Shoe is the current shoe number (1-based; 0 before the first token).
func (f *MacaoFold) Shoe() int { return f.shoe }

// Phase is where the shoe is: burn, between coups or in a coup.
func (f *MacaoFold) Phase() Phase { return f.phase }

// CoupNumber is the number of the current coup, or of the last one when
// between coups (0 before the first coup of the shoe).
func (f *MacaoFold) CoupNumber() int { return f.coupNum }

// Coup returns the current coup (nil between coups); it is the fold's
// own, valid until the next token.
func (f *MacaoFold) Coup() *MacaoCoup {
	if f.phase != PhaseCoup {
		return nil
	}
	return &f.coup
}

// Voided reports whether the current coup has been voided.
func (f *MacaoFold) Voided() bool { return f.phase == PhaseCoup && f.voided }

// LastMisfit is why the last token fed raised misplaced-token, hand-limit
// or extra-card, and MacaoFits if it raised none of them.
func (f *MacaoFold) LastMisfit() MacaoMisfit { return f.misfit }

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
	case TokStand:
		out = f.Stand(out)
	case TokRefuse:
		out = f.Refuse(out)
	case TokDealer:
		f.misfit = MacaoFits
		f.dealer = tok.Dealer
	}
	if f.dealer != "" {
		for i := n; i < len(out); i++ {
			out[i].setDealer(f.dealer)
		}
	}
	return out
}

// Dealer is the id of the dealer signed in, "" when none is.
func (f *MacaoFold) Dealer() string { return f.dealer }

// FoldMacaoTokens folds a whole transcript with opts and returns its
// events, including those End raises.
func FoldMacaoTokens(opts MacaoOptions, toks []Token) ([]Event, error) {
	f, err := NewMacaoFold(opts)
	if err != nil {
		return nil, err
	}
	var out []Event
	for _, t := range toks {
		out = f.Feed(t, out)
	}
	return f.End(out), nil
}

func (f *MacaoFold) open() {
	f.misfit = MacaoFits
	if f.phase == PhaseNoShoe {
		f.begin()
	}
}

func (f *MacaoFold) begin() {
	comp, _ := NewComposition(f.opts.Decks) // Decks validated by NewMacaoFold
	f.coup.Reset()                          // in place: the coup is 6 KiB
	f.shoe, f.phase, f.comp = f.shoe+1, PhaseBurn, comp
	f.burnN, f.burnWant, f.coupNum, f.voided, f.cut, f.lastCoup = 0, 0, 0, false, false, 0
}

// inCoup reports whether a coup is in progress: current, not voided, not
// complete.
func (f *MacaoFold) inCoup() bool {
	return f.phase == PhaseCoup && !f.voided && !f.coup.Complete()
}

func (f *MacaoFold) finish(out []Event) []Event {
	switch f.phase {
	case PhaseBurn:
		if f.burnN > 0 {
			out = append(out, alertEvent(f.shoe, 0, AlertBurnCount, Card{}))
		}
	case PhaseCoup:
		if f.inCoup() {
			out = append(out, alertEvent(f.shoe, f.coupNum, AlertIncompleteCoup, Card{}))
		}
	}
	if f.phase != PhaseNoShoe {
		f.phase = PhaseBetween
	}
	return out
}

// NewShoe is the "shoe" token: a new shoe begins.
func (f *MacaoFold) NewShoe(out []Event) []Event {
	f.misfit = MacaoFits
	out = f.finish(out)
	f.begin()
	return out
}

// End is the end of input (see Fold.End).
func (f *MacaoFold) End(out []Event) []Event {
	f.misfit = MacaoFits
	return f.finish(out)
}

func (f *MacaoFold) draw(card Card, coup int, out []Event) []Event {
	if !f.comp.Draw(card) {
		out = append(out, alertEvent(f.shoe, coup, AlertComposition, card))
	}
	return out
}

// alert raises the alert of misfit m (if any), remembering it for
// LastMisfit.
func (f *MacaoFold) alert(m MacaoMisfit, card Card, out []Event) []Event {
	if m == MacaoFits {
		return out
	}
	f.misfit = m
	return append(out, alertEvent(f.shoe, f.coupNum, m.Code(), card))
}

// Card folds one card drawn from the shoe. An invalid card raises
// unreadable-card and is not used.
func (f *MacaoFold) Card(card Card, out []Event) []Event {
	f.open()
	if !card.Valid() {
		return append(out, alertEvent(f.shoe, f.coupNum, AlertUnreadableCard, Card{}))
	}
	switch f.phase {
	case PhaseBurn:
		out = f.draw(card, 0, out)
		if f.burnN == 0 {
			v := card.Value()
			if v == 0 {
				v = 10
			}
			f.burnWant = 1 + v
		}
		f.burnN++
		if !f.opts.Markers && f.burnN == f.burnWant {
			f.phase = PhaseBetween
		}
		return out
	case PhaseCoup:
		switch {
		case f.voided:
			if f.opts.Markers {
				return f.draw(card, f.coupNum, out)
			}
		case !f.coup.Complete():
			out = f.draw(card, f.coupNum, out)
			out = f.alert(f.coup.Card(card), card, out)
			if f.coup.Complete() {
				out = f.emitCoup(out)
			}
			return out
		case f.opts.Markers:
			out = f.draw(card, f.coupNum, out)
			return f.alert(MacaoCardComplete, card, out)
		}
	}
	// Between coups (or after a complete or voided coup without markers):
	// this card starts the next coup.
	f.coupNum++
	f.coup.Reset()
	f.voided = false
	f.phase = PhaseCoup
	out = f.draw(card, f.coupNum, out)
	if f.lastCoup > 0 && f.coupNum > f.lastCoup {
		out = append(out, alertEvent(f.shoe, f.coupNum, AlertAfterCut, card))
	}
	f.coup.Card(card) // the first card of a coup fits and never completes it (two hands at least)
	return out
}

func (f *MacaoFold) emitCoup(out []Event) []Event {
	return append(out, Event{Kind: EventCoup, Macao: f.coup.Event(f.shoe, f.coupNum)})
}

// Stand folds "stand": the hand whose turn it is ends its turn. Where no
// hand has a turn — during the deal, after the coup is complete, between
// coups, during the burn — it raises misplaced-token and changes nothing;
// in a voided coup with markers it is ignored.
func (f *MacaoFold) Stand(out []Event) []Event {
	f.open()
	switch {
	case f.phase == PhaseCoup && f.voided && f.opts.Markers:
		return out
	case f.inCoup():
		out = f.alert(f.coup.Stand(), Card{}, out)
		if f.coup.Complete() {
			out = f.emitCoup(out)
		}
		return out
	case f.phase == PhaseCoup && !f.voided:
		return f.alert(MacaoStandComplete, Card{}, out)
	}
	return f.alert(MacaoStandNoCoup, Card{}, out)
}

// Refuse folds "refuse": the hand whose turn it is sets aside the ten or
// court card it has just drawn. Where it does not fit it raises
// misplaced-token and changes nothing; in a voided coup with markers it is
// ignored.
func (f *MacaoFold) Refuse(out []Event) []Event {
	f.open()
	switch {
	case f.phase == PhaseCoup && f.voided && f.opts.Markers:
		return out
	case f.inCoup():
		return f.alert(f.coup.Refuse(), Card{}, out)
	case f.opts.Rules.NoRefuse:
		return f.alert(MacaoRefuseOff, Card{}, out)
	case f.phase == PhaseCoup && !f.voided:
		return f.alert(MacaoRefuseNoCard, Card{}, out)
	}
	return f.alert(MacaoRefuseNoCoup, Card{}, out)
}

// Marker folds the dealer's coup button ("|"). Ignored without markers.
func (f *MacaoFold) Marker(out []Event) []Event {
	f.open()
	if !f.opts.Markers {
		return out
	}
	switch f.phase {
	case PhaseBurn:
		if f.burnN == 0 || f.burnN != f.burnWant {
			out = append(out, alertEvent(f.shoe, 0, AlertBurnCount, Card{}))
		}
	case PhaseCoup:
		if f.inCoup() {
			out = append(out, alertEvent(f.shoe, f.coupNum, AlertMissingCard, Card{}))
		}
	}
	f.phase = PhaseBetween
	return out
}

// Cut folds the cut card coming out of the shoe (see Fold.Cut).
func (f *MacaoFold) Cut(out []Event) []Event {
	f.open()
	if f.cut {
		return out
	}
	f.cut = true
	f.lastCoup = f.coupNum + 1
	if f.inCoup() && f.opts.CutRule == CutLastCoup {
		f.lastCoup = f.coupNum
	}
	return out
}

// Void folds the supervisor's void (see Fold.Void).
func (f *MacaoFold) Void(out []Event) []Event {
	f.open()
	if f.phase != PhaseCoup || f.voided {
		return out
	}
	f.voided = true
	out = append(out, voidEvent(f.shoe, f.coupNum))
	if !f.opts.Markers {
		f.phase = PhaseBetween
	}
	return out
}
