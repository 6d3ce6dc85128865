package tableau

import (
	"errors"
	"fmt"
	"strings"
)

// CutRule is the end-of-shoe rule: which coup is the last once the cut
// card comes out.
type CutRule uint8

// The cut rules. CutLastCoup is the zero value and the default.
const (
	// CutLastCoup: the coup in progress when the cut card appears is the
	// last; if the cut card appears between coups, the next coup is the
	// last. The rule for a cut card placed in front of the seventh-last
	// card.
	CutLastCoup CutRule = iota
	// CutOneMore: finish the coup in progress and deal one more; if the cut
	// card appears between coups, the next coup is the last.
	CutOneMore
)

// String returns "last-coup" or "one-more".
func (r CutRule) String() string {
	switch r {
	case CutLastCoup:
		return "last-coup"
	case CutOneMore:
		return "one-more"
	}
	return fmt.Sprintf("CutRule(%d)", uint8(r))
}

// ErrCutRule is wrapped when a cut rule is unknown.
var ErrCutRule = errors.New("tableau: bad cut rule")

// ParseCutRule parses "last-coup" or "one-more" (case-insensitive).
func ParseCutRule(s string) (CutRule, error) {
	switch strings.ToLower(s) {
	case "last-coup":
		return CutLastCoup, nil
	case "one-more":
		return CutOneMore, nil
	}
	return 0, fmt.Errorf("%w: %q (want last-coup or one-more)", ErrCutRule, s)
}

// MarshalText encodes the String.
func (r CutRule) MarshalText() ([]byte, error) {
	if r > CutOneMore {
		return nil, fmt.Errorf("%w: %d", ErrCutRule, uint8(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText decodes with ParseCutRule.
func (r *CutRule) UnmarshalText(b []byte) error {
	v, err := ParseCutRule(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Options configures a Fold. The zero value is an 8-deck punto banco shoe,
// tie 8:1, cut rule last-coup, without markers.
type Options struct {
	Decks int // decks in the shoe, 1–8; 0 means the game's DefaultDecks (8 for punto banco)
	// Rules is the game (Rules.Game: how coups are dealt, drawn, compared
	// and settled) and the house's rule profile used to settle each coup.
	Rules   Rules
	CutRule CutRule // end-of-shoe rule
	// Markers: the dealer's coup button ("|") delimits coups and ends the
	// burn. Without markers, coups are delimited by the tableau alone and
	// "|" tokens are ignored.
	Markers bool
}

// HasMarkers reports whether toks contain a "|": the rule `sabot check
// --markers auto` uses to choose marker mode.
func HasMarkers(toks []Token) bool {
	for i := range toks {
		if toks[i].Kind == TokMarker {
			return true
		}
	}
	return false
}

// Phase is where a shoe is in its life.
type Phase uint8

// The phases of a Fold.
const (
	PhaseNoShoe  Phase = iota // before the first token
	PhaseBurn                 // the burn is running
	PhaseBetween              // between coups (burn done, no coup current)
	PhaseCoup                 // a coup is current: in progress, complete or voided
)

// String returns "no-shoe", "burn", "between" or "coup".
func (p Phase) String() string {
	switch p {
	case PhaseNoShoe:
		return "no-shoe"
	case PhaseBurn:
		return "burn"
	case PhaseBetween:
		return "between"
	case PhaseCoup:
		return "coup"
	}
	return fmt.Sprintf("Phase(%d)", uint8(p))
}

// Fold is the shoe state machine: it folds transcript tokens (or the live
// shoe's cards and the dealer's buttons), one at a time, into output events
// — coups, alerts and voids — in the order they happen. It tracks the shoe
// number, the burn, composition, the cut card and coup numbering, and runs
// a Coup for each coup. `sabot check` folds a whole transcript; the daemon
// feeds it live and replays it from its journal, so both give the same
// events.
//
// Every feeding method appends the events the input causes to out and
// returns the extended slice; with a reused slice, feeding allocates
// nothing. Nothing panics on any input sequence.
//
// Semantics (see docs/cli.md, "sabot check"):
//   - The first token, or "shoe", begins a shoe: coup numbers restart at 1,
//     the composition is full, the burn runs: the first card plus as many
//     cards as its value (10/J/Q/K burn 10). Without markers the burn ends by
//     count; with markers the first "|" ends it, and a burn of the wrong
//     length raises burn-count (coup 0).
//   - A coup number is used when the coup's first card is drawn. The coup
//     line is emitted when the tableau is complete.
//   - With markers, a card after the coup is complete and before "|" raises
//     extra-card (coup result stands); "|" before complete raises
//     missing-card (no result); "|" with nothing since the last is ignored.
//     Without markers, the card after a complete coup starts the next coup.
//   - "void" voids the current coup: the one in progress, or the last
//     complete one while it is current (with markers until its "|", without
//     until the next card). Otherwise it is ignored. A voided coup keeps
//     its number; with markers, cards until its "|" belong to it unchecked.
//   - A card the shoe cannot contain raises composition (before anything
//     else the card causes, with the number of the coup it is drawn into)
//     and is still used.
//   - A coup started after the last coup (per the cut rule) raises
//     after-cut on its first card and is still validated. A second cut
//     card in one shoe is ignored.
//   - End of input or a new shoe in the middle of a coup raises
//     incomplete-coup; in the middle of the burn, burn-count (a shoe that
//     ends before its first card raises nothing).
type Fold struct {
	opts Options

	shoe  int
	phase Phase
	comp  Composition

	burnN    int // burn cards so far
	burnWant int // 1 + the burn card's value (10 for 0), once known

	coupNum int  // number of the current (or last) coup; 0 before the first
	coup    Coup // the current coup
	voided  bool // the current coup was voided

	cut      bool // the cut card came out in this shoe
	lastCoup int  // the shoe's last coup per the cut rule; 0 until the cut card

	dealer string // the dealer signed in ("" none): kept across shoes (dealer.go)
}

// NewFold returns a Fold for opts. Errors: deck count outside 1–8
// (ErrDecks), invalid rules (ErrRules), unknown cut rule (ErrCutRule).
func NewFold(opts Options) (*Fold, error) {
	if _, ok := opts.Rules.Game.Macao(); ok { // macao_game.go
		return nil, fmt.Errorf("%w (%s)", ErrCheckOnly, opts.Rules.Game.Name())
	}
	if opts.Decks == 0 {
		opts.Decks = opts.Rules.Game.DefaultDecks()
	}
	if opts.Decks < 1 || opts.Decks > MaxDecks {
		return nil, fmt.Errorf("%w: %d (want 1–%d)", ErrDecks, opts.Decks, MaxDecks)
	}
	if err := opts.Rules.Validate(); err != nil {
		return nil, err
	}
	if opts.CutRule > CutOneMore {
		return nil, fmt.Errorf("%w: %d", ErrCutRule, uint8(opts.CutRule))
	}
	return &Fold{opts: opts, coup: NewCoup(opts.Rules.Game)}, nil
}

// Options returns the fold's options (Decks filled in).
func (f *Fold) Options() Options { return f.opts }

// Shoe is the current shoe number (1-based; 0 before the first token).
func (f *Fold) Shoe() int { return f.shoe }

// Phase is where the shoe is: burn, between coups or in a coup.
func (f *Fold) Phase() Phase { return f.phase }

// CoupNumber is the number of the current coup, or of the last one when
// between coups (0 before the first coup of the shoe).
func (f *Fold) CoupNumber() int { return f.coupNum }

// Coup returns a copy of the current coup (cards dealt so far, Need,
// totals). It is empty between coups.
func (f *Fold) Coup() Coup {
	if f.phase != PhaseCoup {
		return NewCoup(f.opts.Rules.Game)
	}
	return f.coup
}

// Voided reports whether the current coup has been voided.
func (f *Fold) Voided() bool { return f.phase == PhaseCoup && f.voided }

// Composition returns a copy of the shoe's composition so far.
func (f *Fold) Composition() Composition { return f.comp }

// Burn returns the number of burn cards drawn so far and the number the
// burn card calls for in total (1 + its value, 10 for tens and court
// cards; 0 before the burn card).
func (f *Fold) Burn() (drawn, want int) { return f.burnN, f.burnWant }

// CutCard reports whether the cut card has come out in this shoe.
func (f *Fold) CutCard() bool { return f.cut }

// LastCoup is the number of the shoe's last coup per the cut rule, or 0
// while the cut card has not come out.
func (f *Fold) LastCoup() int { return f.lastCoup }

// Feed folds one transcript token. The events it gives carry the dealer
// signed in (Dealer).
func (f *Fold) Feed(tok Token, out []Event) []Event {
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
		f.SetDealer(tok.Dealer)
	case TokStand:
		out = f.Stand(out)
	case TokRefuse: // Macao and Victoria only (MacaoFold): never fits here
		f.open()
		out = append(out, alertEvent(f.shoe, f.coupNum, AlertMisplacedToken, Card{}))
	}
	return f.stampDealer(out, n)
}

// FoldTokens folds a whole transcript with opts and returns its events,
// including those End raises.
func FoldTokens(opts Options, toks []Token) ([]Event, error) {
	f, err := NewFold(opts)
	if err != nil {
		return nil, err
	}
	var out []Event
	for _, t := range toks {
		out = f.Feed(t, out)
	}
	return f.End(out), nil
}

// open starts the implicit first shoe if no token has started one yet, so
// that every kind of first token opens shoe 1 ("shoe" is implicit before
// the first token if absent).
func (f *Fold) open() {
	if f.phase == PhaseNoShoe {
		f.begin()
	}
}

// begin starts a new shoe (the caller has finished the previous one).
func (f *Fold) begin() {
	comp, _ := NewComposition(f.opts.Decks) // Decks validated by NewFold
	*f = Fold{opts: f.opts, shoe: f.shoe + 1, phase: PhaseBurn, comp: comp, dealer: f.dealer, coup: f.coup}
	f.coup.Reset()
}

// finish raises what an unfinished burn or coup leaves behind.
func (f *Fold) finish(out []Event) []Event {
	switch f.phase {
	case PhaseBurn:
		if f.burnN > 0 { // a shoe without a single card has nothing to report
			out = append(out, alertEvent(f.shoe, 0, AlertBurnCount, Card{}))
		}
	case PhaseCoup:
		if !f.voided && f.coup.need() != NeedNone {
			out = append(out, alertEvent(f.shoe, f.coupNum, AlertIncompleteCoup, Card{}))
		}
	}
	if f.phase != PhaseNoShoe {
		f.phase = PhaseBetween
	}
	return out
}

// NewShoe is the "shoe" token: a new shoe begins.
func (f *Fold) NewShoe(out []Event) []Event {
	out = f.finish(out)
	f.begin()
	return out
}

// End is the end of input. It raises incomplete-coup or burn-count if a
// coup or the burn is unfinished; afterwards the shoe is between coups.
func (f *Fold) End(out []Event) []Event { return f.stampDealer(f.finish(out), len(out)) }

// draw records card in the composition and raises composition, attributed
// to coup number coup, if the shoe cannot contain it.
func (f *Fold) draw(card Card, coup int, out []Event) []Event {
	if !f.comp.Draw(card) {
		out = append(out, alertEvent(f.shoe, coup, AlertComposition, card))
	}
	return out
}

// Card folds one card drawn from the shoe. An invalid card (bad rank or
// suit) raises unreadable-card and is not used.
func (f *Fold) Card(card Card, out []Event) []Event {
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
				// Until its "|", cards belong to the voided coup.
				return f.draw(card, f.coupNum, out)
			}
		case f.coup.need() != NeedNone:
			out = f.draw(card, f.coupNum, out)
			if need, _ := f.coup.Deal(card); need == NeedNone {
				out = f.emitCoup(out)
			}
			return out
		case f.opts.Markers:
			out = f.draw(card, f.coupNum, out)
			return append(out, alertEvent(f.shoe, f.coupNum, AlertExtraCard, card))
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
	f.coup.Deal(card)
	return out
}

func (f *Fold) emitCoup(out []Event) []Event {
	// Built in place: an Event is 432 bytes, copied once less each way.
	out = append(out, Event{Kind: EventCoup})
	f.coup.settledEvent(&out[len(out)-1].Coup, f.opts.Rules, f.shoe, f.coupNum) // coup complete, rules validated
	return out
}

// Marker folds the dealer's coup button ("|"). Ignored without markers.
func (f *Fold) Marker(out []Event) []Event {
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
		if !f.voided {
			// "|" at an option is the hand's stand: stand through the
			// options (and the forced stands between them) until the coup
			// is complete or a hand must draw.
			if f.coup.need() != NeedNone {
				for d, ok := f.coup.Decision(); ok && d.Rule != MustDraw && f.coup.need() != NeedNone; d, ok = f.coup.Decision() {
					f.coup.Stand()
				}
				if f.coup.need() == NeedNone {
					out = f.emitCoup(out)
				}
			}
			if a := f.coup.Close(); a != "" {
				out = append(out, alertEvent(f.shoe, f.coupNum, a, Card{}))
			}
		}
	}
	f.phase = PhaseBetween
	return out
}

// Stand folds the "stand" token (also "non"): the hand whose turn it is
// declines a card (see Coup.Stand). At a forced stand, and when no coup is
// in progress (between coups, after a complete or voided coup, during the
// burn), it is accepted and changes nothing. At an option it records the
// choice, and emits the coup line if that completes the coup. At a forced
// draw it raises missing-card: the coup gets no result and is over (as
// "|" before the coup is complete; the next card starts the next coup).
func (f *Fold) Stand(out []Event) []Event {
	f.open()
	if f.phase != PhaseCoup || f.voided || f.coup.need() == NeedNone {
		return out
	}
	need, a := f.coup.Stand()
	switch {
	case a != "":
		out = append(out, alertEvent(f.shoe, f.coupNum, a, Card{}))
		f.phase = PhaseBetween
	case need == NeedNone:
		out = f.emitCoup(out)
	}
	return out
}

// Cut folds the cut card coming out of the shoe. It fixes the shoe's last
// coup: under CutLastCoup the coup in progress, under CutOneMore the one
// after it; between coups (or during the burn, or after a complete or
// voided coup) the next coup under both rules.
func (f *Fold) Cut(out []Event) []Event {
	f.open()
	if f.cut {
		return out
	}
	f.cut = true
	f.lastCoup = f.coupNum + 1
	if f.phase == PhaseCoup && !f.voided && f.coup.need() != NeedNone && f.opts.CutRule == CutLastCoup {
		f.lastCoup = f.coupNum
	}
	return out
}

// Void folds the supervisor's void: it voids the current coup (in
// progress, or complete and still current) and emits a void event;
// otherwise it is ignored.
func (f *Fold) Void(out []Event) []Event {
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
