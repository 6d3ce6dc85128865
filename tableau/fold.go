package tableau

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/internal/enum"
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
func (r CutRule) String() string { return cutRuleNames.Name(r) }

var cutRuleNames = enum.Names[CutRule]{Type: "CutRule", Words: []string{CutLastCoup: "last-coup", CutOneMore: "one-more"}}

// ErrCutRule is wrapped when a cut rule is unknown.
var ErrCutRule = errors.New("tableau: bad cut rule")

// ParseCutRule parses "last-coup" or "one-more" (case-insensitive).
func ParseCutRule(s string) (CutRule, error) {
	if r, ok := cutRuleNames.Lookup(strings.ToLower(s)); ok {
		return r, nil
	}
	return 0, fmt.Errorf("%w: %q (want last-coup or one-more)", ErrCutRule, s)
}

// MarshalText encodes the String.
func (r CutRule) MarshalText() ([]byte, error) {
	return cutRuleNames.Encode(r, func() error { return fmt.Errorf("%w: %d", ErrCutRule, uint8(r)) })
}

// UnmarshalText decodes with ParseCutRule.
func (r *CutRule) UnmarshalText(b []byte) error { return enum.UnmarshalText(r, b, ParseCutRule) }

// Options configures a Fold. The zero value is an 8-deck punto banco shoe,
// tie 8:1, cut rule last-coup, without markers.
type Options struct {
	// RequireDeclare: every complete coup is to be declared ("declare
	// P|B|T"); the next coup's first card raises no-declaration when the
	// last one was not (declare.go). Off by default.
	RequireDeclare bool
	Decks          int // decks in the shoe, 1–8; 0 means the game's DefaultDecks (8 for punto banco)
	// Rules is the game (Rules.Game: how coups are dealt, drawn, compared
	// and settled) and the house's rule profile used to settle each coup.
	Rules   baccarat.Rules
	CutRule CutRule // end-of-shoe rule
	// Markers: the dealer's coup button ("|") delimits coups and ends the
	// burn. Without markers, coups are delimited by the tableau alone and
	// "|" tokens are ignored.
	Markers bool
	// OverrunCards is how many cards beyond what the decks hold (52 ×
	// decks) one shoe may give before shoe-overrun is raised (once per
	// shoe, on the card past it): a new shoe was never signalled. 0 means
	// DefaultOverrunCards; negative or over MaxOverrunCards is an error
	// (ErrOverrunCards).
	OverrunCards int
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
func (p Phase) String() string { return phaseNames.Name(p) }

var phaseNames = enum.Names[Phase]{Type: "Phase", Words: []string{
	PhaseNoShoe: "no-shoe", PhaseBurn: "burn", PhaseBetween: "between", PhaseCoup: "coup",
}}

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
	coup    baccarat.Coup // the current coup: first, at a cache line's start (2-6% faster than after the shoe's fields in BenchmarkFoldShoe)
	shoeRun               // the shoe procedure, shared with MacaoFold
	opts    Options
	decl    declareState // the coup a "declare" token may declare (declare.go)
}

// shoeRun is the shoe procedure, the one Fold documents, shared by Fold
// and MacaoFold around their coups: the shoe number, the burn, the
// composition, coup numbering, the cut card, voids and the dealer signed
// in. Its methods do the shoe's part of each token and say what is left
// for the coup; the caller has opened the shoe (open) and tells whether a
// coup is in progress (inCoup: current, not voided, not complete).
type shoeRun struct {
	decks   int     // validated, 1–8
	markers bool    // Options.Markers
	cutRule CutRule // validated
	overrun int     // Options.OverrunCards, the default filled in

	shoe  int
	phase Phase
	comp  baccarat.Composition

	burnN    int // burn cards so far
	burnWant int // 1 + the burn card's value (10 for 0), once known

	coupNum int  // number of the current (or last) coup; 0 before the first
	voided  bool // the current coup was voided

	cut      bool // the cut card came out in this shoe
	lastCoup int  // the shoe's last coup per the cut rule; 0 until the cut card

	dealer string // the dealer signed in ("" none): kept across shoes (dealer.go)
}

// NewFold returns a Fold for opts. Errors: deck count outside 1–8
// (ErrDecks), invalid rules (ErrRules), unknown cut rule (ErrCutRule).
func NewFold(opts Options) (*Fold, error) {
	if _, ok := opts.Rules.Game.Macao(); ok { // macao_game.go
		return nil, fmt.Errorf("%w (%s)", baccarat.ErrCheckOnly, opts.Rules.Game.Name())
	}
	if opts.Decks == 0 {
		opts.Decks = opts.Rules.Game.DefaultDecks()
	}
	if opts.Decks < 1 || opts.Decks > baccarat.MaxDecks {
		return nil, fmt.Errorf("%w: %d (want 1–%d)", baccarat.ErrDecks, opts.Decks, baccarat.MaxDecks)
	}
	if err := opts.Rules.Validate(); err != nil {
		return nil, err
	}
	if opts.CutRule > CutOneMore {
		return nil, fmt.Errorf("%w: %d", ErrCutRule, uint8(opts.CutRule))
	}
	if opts.OverrunCards < 0 || opts.OverrunCards > MaxOverrunCards {
		return nil, fmt.Errorf("%w: %d (want 0 for the default %d, or up to %d)", ErrOverrunCards, opts.OverrunCards, DefaultOverrunCards, MaxOverrunCards)
	}
	if opts.OverrunCards == 0 {
		opts.OverrunCards = DefaultOverrunCards
	}
	return &Fold{shoeRun: shoeRun{decks: opts.Decks, markers: opts.Markers, cutRule: opts.CutRule, overrun: opts.OverrunCards}, opts: opts, coup: baccarat.NewCoup(opts.Rules.Game)}, nil
}

// Options returns the fold's options (Decks filled in).
func (f *Fold) Options() Options { return f.opts }

// Shoe is the current shoe number (1-based; 0 before the first token).
func (s *shoeRun) Shoe() int { return s.shoe }

// Phase is where the shoe is: burn, between coups or in a coup.
func (s *shoeRun) Phase() Phase { return s.phase }

// CoupNumber is the number of the current coup, or of the last one when
// between coups (0 before the first coup of the shoe).
func (s *shoeRun) CoupNumber() int { return s.coupNum }

// Coup returns a copy of the current coup (cards dealt so far, Need,
// totals). It is empty between coups.
func (f *Fold) Coup() baccarat.Coup {
	if f.phase != PhaseCoup {
		return baccarat.NewCoup(f.opts.Rules.Game)
	}
	return f.coup
}

// Voided reports whether the current coup has been voided.
func (s *shoeRun) Voided() bool { return s.phase == PhaseCoup && s.voided }

// Composition returns a copy of the shoe's composition so far.
func (s *shoeRun) Composition() baccarat.Composition { return s.comp }

// Burn returns the number of burn cards drawn so far and the number the
// burn card calls for in total (1 + its value, 10 for tens and court
// cards; 0 before the burn card).
func (s *shoeRun) Burn() (drawn, want int) { return s.burnN, s.burnWant }

// CutCard reports whether the cut card has come out in this shoe.
func (s *shoeRun) CutCard() bool { return s.cut }

// LastCoup is the number of the shoe's last coup per the cut rule, or 0
// while the cut card has not come out.
func (s *shoeRun) LastCoup() int { return s.lastCoup }

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
	case TokDeclare:
		out = f.Declare(tok.Declared, out)
	case TokRefuse: // Macao and Victoria only (MacaoFold): never fits here
		f.open()
		out = append(out, alertEvent(f.shoe, f.coupNum, baccarat.AlertMisplacedToken, Card{}))
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
	return foldAll(f, toks), nil
}

// feeder is a fold a whole transcript is driven through: Fold and
// MacaoFold.
type feeder interface {
	Feed(tok Token, out []Event) []Event
	End(out []Event) []Event
}

// foldAll feeds every token of toks to f, then ends the transcript, and
// returns the events: the one driver of FoldTokens and FoldMacaoTokens.
func foldAll[F feeder](f F, toks []Token) []Event {
	var out []Event
	for _, t := range toks {
		out = f.Feed(t, out)
	}
	return f.End(out)
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
// Not inlined: open, on every token's path, stays small enough to be.
//
//go:noinline
func (f *Fold) begin() {
	f.shoeRun.begin()
	f.coup.Reset()
}

// inCoup reports whether a coup is in progress: current, not voided, not
// complete.
func (f *Fold) inCoup() bool {
	return f.phase == PhaseCoup && !f.voided && f.coup.Need() != baccarat.NeedNone
}

// NewShoe is the "shoe" token: a new shoe begins.
func (f *Fold) NewShoe(out []Event) []Event {
	out = f.finish(f.inCoup(), out)
	f.begin()
	return out
}

// End is the end of input. It raises incomplete-coup or burn-count if a
// coup or the burn is unfinished; afterwards the shoe is between coups.
func (f *Fold) End(out []Event) []Event { return f.end(f.inCoup(), out) }

// Card folds one card drawn from the shoe. An invalid card (bad rank or
// suit) raises unreadable-card and is not used.
func (f *Fold) Card(card Card, out []Event) []Event {
	f.open()
	out, step := f.card(card, f.inCoup(), out)
	switch step {
	case stepDeal:
		if need, _ := f.coup.Deal(card); need == baccarat.NeedNone {
			out = f.emitCoup(out)
		}
	case stepExtra:
		out = append(out, alertEvent(f.shoe, f.coupNum, baccarat.AlertExtraCard, card))
	case stepStart:
		out = f.noDeclaration(out)
		f.coup.Reset()
		f.coup.Deal(card)
	}
	return out
}

func (f *Fold) emitCoup(out []Event) []Event {
	// Built in place: an Event is 432 bytes, copied once less each way.
	out = append(out, Event{Kind: baccarat.EventCoup})
	f.coup.SettledEvent(&out[len(out)-1].Coup, f.opts.Rules, f.shoe, f.coupNum) // coup complete, rules validated
	f.decl = declareState{open: true, shoe: f.shoe, coup: f.coupNum, winner: out[len(out)-1].Coup.Winner}
	return out
}

// Marker folds the dealer's coup button ("|"). Ignored without markers.
func (f *Fold) Marker(out []Event) []Event {
	f.open()
	out, closing := f.marker(out)
	if !closing {
		return out
	}
	// "|" at an option is the hand's stand: stand through the options (and
	// the forced stands between them) until the coup is complete or a hand
	// must draw.
	if f.coup.Need() != baccarat.NeedNone {
		for d, ok := f.coup.Decision(); ok && d.Rule != baccarat.MustDraw && f.coup.Need() != baccarat.NeedNone; d, ok = f.coup.Decision() {
			f.coup.Stand()
		}
		if f.coup.Need() == baccarat.NeedNone {
			out = f.emitCoup(out)
		}
	}
	if a := f.coup.Close(); a != "" {
		out = append(out, alertEvent(f.shoe, f.coupNum, a, Card{}))
	}
	return out
}

// Stand folds the "stand" token (also "non"): the hand whose turn it is
// declines a card (see Coup.Stand). At a forced stand, and in the current
// coup once it is complete (until "|" with markers, until the next card
// without) or voided, it is accepted and changes nothing. At an option it
// records the choice, and emits the coup line if that completes the coup.
// At a forced draw it raises missing-card: the coup gets no result and is
// over (as "|" before the coup is complete; the next card starts the next
// coup). With no coup at all — during the burn, between coups (after "|",
// after a coup closed by missing-card, after a void without markers) — it
// raises misplaced-token (as in Macao) and changes nothing.
func (f *Fold) Stand(out []Event) []Event {
	f.open()
	if !f.inCoup() {
		if f.phase != PhaseCoup {
			out = append(out, alertEvent(f.shoe, f.coupNum, baccarat.AlertMisplacedToken, Card{}))
		}
		return out
	}
	need, a := f.coup.Stand()
	switch {
	case a != "":
		out = append(out, alertEvent(f.shoe, f.coupNum, a, Card{}))
		f.phase = PhaseBetween
	case need == baccarat.NeedNone:
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
	f.cutCard(f.inCoup())
	return out
}

// Void folds the supervisor's void: it voids the current coup (in
// progress, or complete and still current) and emits a void event;
// otherwise it is ignored.
func (f *Fold) Void(out []Event) []Event {
	f.open()
	return f.void(out)
}

// begin starts a new shoe (the caller has finished the previous one and
// resets its coup).
func (s *shoeRun) begin() {
	comp, _ := baccarat.NewComposition(s.decks) // decks validated by NewFold or NewMacaoFold
	*s = shoeRun{decks: s.decks, markers: s.markers, cutRule: s.cutRule, overrun: s.overrun, shoe: s.shoe + 1, phase: PhaseBurn, comp: comp, dealer: s.dealer}
}

// finish raises what an unfinished burn or coup (inCoup) leaves behind.
func (s *shoeRun) finish(inCoup bool, out []Event) []Event {
	switch s.phase {
	case PhaseBurn:
		if s.burnN > 0 && !s.overBurn() { // a shoe without a single card has nothing to report
			out = append(out, alertEvent(s.shoe, 0, baccarat.AlertBurnCount, Card{}))
		}
	case PhaseCoup:
		if inCoup {
			out = append(out, alertEvent(s.shoe, s.coupNum, baccarat.AlertIncompleteCoup, Card{}))
		}
	}
	if s.phase != PhaseNoShoe {
		s.phase = PhaseBetween
	}
	return out
}

// end is the end of input: finish, the alerts it raises carrying the
// dealer signed in.
func (s *shoeRun) end(inCoup bool, out []Event) []Event {
	return s.stampDealer(s.finish(inCoup, out), len(out))
}

// draw records card in the composition and raises composition, attributed
// to coup number coup, if the shoe cannot contain it. Once the shoe has
// given more cards than its decks hold, every card is one it cannot
// contain: composition is raised once, on the first of them, and
// shoe-overrun once, on the card past OverrunCards more (a shoe that never
// ends raised composition on every card, 49,000 a month). Both are
// derived from the cards drawn, so a restored shoe raises neither again.
func (s *shoeRun) draw(card Card, coup int, out []Event) []Event {
	ok := s.comp.Draw(card)
	holds, n := 52*s.decks, s.comp.Drawn()
	switch {
	case n == holds+1:
		out = append(out, alertEvent(s.shoe, coup, baccarat.AlertComposition, card))
	case n > holds:
	case !ok:
		out = append(out, alertEvent(s.shoe, coup, baccarat.AlertComposition, card))
	}
	if s.overrun > 0 && n == holds+s.overrun+1 {
		out = append(out, alertEvent(s.shoe, coup, baccarat.AlertShoeOverrun, Card{}))
	}
	return out
}

// PastHolds is how many cards the current shoe has given beyond what its
// decks hold (0 while it has not).
func (s *shoeRun) PastHolds() int { return max(0, s.comp.Drawn()-52*s.decks) }

// cardStep is what is left of a card for the coup once the shoe has
// taken its part.
type cardStep uint8

const (
	stepDone  cardStep = iota // nothing: unreadable, a burn card, or a voided coup's with markers
	stepDeal                  // deal it to the coup in progress (drawn already)
	stepExtra                 // the coup is complete: raise extra-card (drawn already; markers)
	stepStart                 // reset the coup and deal it its first card (numbered, drawn, after-cut raised)
)

// card is the shoe's part of a card drawn: unreadable-card for an invalid
// card, the burn, composition, coup numbering and after-cut.
func (s *shoeRun) card(card Card, inCoup bool, out []Event) ([]Event, cardStep) {
	if !card.Valid() {
		return append(out, alertEvent(s.shoe, s.coupNum, baccarat.AlertUnreadableCard, Card{})), stepDone
	}
	switch s.phase {
	case PhaseBurn:
		out = s.draw(card, 0, out)
		if s.burnN == 0 {
			v := card.Value()
			if v == 0 {
				v = 10
			}
			s.burnWant = 1 + v
		}
		s.burnN++
		if !s.markers && s.burnN == s.burnWant {
			s.phase = PhaseBetween
		}
		if s.markers && s.burnN == s.burnWant+1 {
			// The first card past the count the burn card gives makes the
			// burn wrong for certain: raise it now, not at the "|" (a shoe
			// that marks coups itself may send none for hundreds of cards).
			// Stateless: a burn past its count has raised it (overBurn).
			out = append(out, alertEvent(s.shoe, 0, baccarat.AlertBurnCount, Card{}))
		}
		return out, stepDone
	case PhaseCoup:
		switch {
		case s.voided:
			if s.markers {
				// Until its "|", cards belong to the voided coup.
				return s.draw(card, s.coupNum, out), stepDone
			}
		case inCoup:
			return s.draw(card, s.coupNum, out), stepDeal
		case s.markers:
			return s.draw(card, s.coupNum, out), stepExtra
		}
	}
	// Between coups (or after a complete or voided coup without markers):
	// this card starts the next coup.
	s.coupNum++
	s.voided = false
	s.phase = PhaseCoup
	out = s.draw(card, s.coupNum, out)
	if s.lastCoup > 0 && s.coupNum > s.lastCoup {
		out = append(out, alertEvent(s.shoe, s.coupNum, baccarat.AlertAfterCut, card))
	}
	return out, stepStart
}

// marker is the shoe's part of "|" (ignored without markers): burn-count
// for a burn of the wrong length; closing reports that it closes the
// current coup, not voided, for the caller to close (missing-card if
// incomplete). The shoe is between coups afterwards.
func (s *shoeRun) marker(out []Event) (_ []Event, closing bool) {
	if !s.markers {
		return out, false
	}
	switch s.phase {
	case PhaseBurn:
		if (s.burnN == 0 || s.burnN != s.burnWant) && !s.overBurn() {
			out = append(out, alertEvent(s.shoe, 0, baccarat.AlertBurnCount, Card{}))
		}
	case PhaseCoup:
		closing = !s.voided
	}
	s.phase = PhaseBetween
	return out, closing
}

// overBurn reports whether the burn (with markers) has taken more cards
// than its burn card gives: burn-count was raised on the first of them.
func (s *shoeRun) overBurn() bool { return s.markers && s.burnN > s.burnWant && s.burnN > 0 }

// cutCard is the cut card coming out (see Fold.Cut); the second in a
// shoe is ignored.
func (s *shoeRun) cutCard(inCoup bool) {
	if s.cut {
		return
	}
	s.cut = true
	s.lastCoup = s.coupNum + 1
	if inCoup && s.cutRule == CutLastCoup {
		s.lastCoup = s.coupNum
	}
}

// void is the supervisor's void (see Fold.Void).
func (s *shoeRun) void(out []Event) []Event {
	if s.phase != PhaseCoup || s.voided {
		return out
	}
	s.voided = true
	out = append(out, voidEvent(s.shoe, s.coupNum))
	if !s.markers {
		s.phase = PhaseBetween
	}
	return out
}
