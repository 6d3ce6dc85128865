package tableau

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// Dealer sign-in: a dealer takes the table ("dealer ID" in a transcript,
// InputDealer for the daemon: the shoe's badge reader, the pit's `dealer`
// command or the table's keys) and every coup, alert and void from then on
// carries the id (CoupEvent.Dealer, AlertEvent.Dealer, VoidEvent.Dealer)
// until the dealer signs out ("dealer -") or the next dealer signs in
// (which signs the first out). The dealer is table state: it stays across
// shoes, and the Table counts each dealer's coups and alerts per shift
// (TableView.Shift).

// MaxDealerIDBytes is the longest dealer id: 32 bytes, enough for a badge
// UID in hex (16 bytes) or an employee number with a prefix.
const MaxDealerIDBytes = 32

// DealerSignOut is the transcript's "dealer -": no dealer.
const DealerSignOut = "-"

// ErrDealerID is wrapped by the errors of ValidateDealerID, and by the
// *ParseError of a "dealer" token whose id is not valid (it wraps
// ErrSyntax).
var ErrDealerID = fmt.Errorf("%w: bad dealer id", ErrSyntax)

// ValidateDealerID checks a dealer id: 1 to MaxDealerIDBytes bytes of
// ASCII letters, digits, '.', '_' and '-', starting with a letter or a
// digit (so "-", the sign-out, is never an id). The same set as MQTT table
// names, so an id is safe in topics, metrics labels and JSON unescaped.
func ValidateDealerID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty", ErrDealerID)
	}
	if len(id) > MaxDealerIDBytes {
		return fmt.Errorf("%w: %d bytes, longer than %d", ErrDealerID, len(id), MaxDealerIDBytes)
	}
	for i := 0; i < len(id); i++ {
		b := id[i]
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		case (b == '.' || b == '_' || b == '-') && i > 0:
		default:
			if i == 0 && (b == '.' || b == '_' || b == '-') {
				return fmt.Errorf("%w: starts with %q (want a letter or digit)", ErrDealerID, b)
			}
			what := fmt.Sprintf("%q", b)
			if b < 0x20 || b >= 0x7f {
				what = fmt.Sprintf("0x%02x", b)
			}
			return fmt.Errorf("%w: byte %d is %s (want letters, digits, '.', '_', '-')", ErrDealerID, i+1, what)
		}
	}
	return nil
}

// SetDealer signs dealer id in ("" signs out whoever is signed in). The
// caller validates id (ValidateDealerID); the Lexer and the Table do.
func (f *Fold) SetDealer(id string) { f.dealer = id }

// Dealer is the id of the dealer signed in, "" when none is.
func (s *shoeRun) Dealer() string { return s.dealer }

// stampDealer sets the dealer signed in on the events out[from:].
func (s *shoeRun) stampDealer(out []Event, from int) []Event {
	if s.dealer == "" {
		return out
	}
	for i := from; i < len(out); i++ {
		out[i].setDealer(s.dealer)
	}
	return out
}

// setDealer sets the selected event's dealer.
func (e *Event) setDealer(id string) {
	switch e.Kind {
	case baccarat.EventCoup:
		if e.Macao != nil {
			e.Macao.Dealer = id
			return
		}
		e.Coup.Dealer = id
	case baccarat.EventAlert:
		e.Alert.Dealer = id
	case baccarat.EventVoid:
		e.Void.Dealer = id
	}
}

// kindOf classifies a token's word, or, after "dealer", keeps it as the
// dealer id (a card-like "7" is an id there).
func (l *Lexer) kindOf(word []byte) (TokenKind, Rank, Suit) {
	if l.word {
		l.arg = string(word)
		return TokDealer, 0, 0
	}
	return classifyWord(word)
}

// dealerToken reads the id after "dealer" (the token t): the next word,
// "-" for a sign-out or a valid dealer id. A missing id or a bad one is a
// *ParseError at the id (at "dealer" when the input ends), wrapping
// ErrDealerID.
func (l *Lexer) dealerToken(t Token) (Token, error) {
	l.word = true
	a, err := l.next()
	l.word = false
	id := l.arg
	l.arg = ""
	if errors.Is(err, ErrTokenTooLong) {
		return Token{}, err
	}
	if err != nil {
		if err == io.EOF {
			l.perr = &ParseError{File: l.file, Pos: t.Pos, Err: fmt.Errorf("%w: \"dealer\" needs an id (or - to sign out)", ErrDealerID)}
			return Token{}, l.perr
		}
		return Token{}, err
	}
	t.Dealer = id
	if id == DealerSignOut {
		t.Dealer = ""
		return t, nil
	}
	if verr := ValidateDealerID(id); verr != nil {
		l.perr = &ParseError{File: l.file, Pos: a.Pos, Token: truncateText(id, MaxQuotedBytes), Err: verr}
		return Token{}, l.perr
	}
	return t, nil
}

// MaxShiftDealers bounds the dealers whose counts a Table keeps for one
// shift (TableView.Shift.Dealers): dealers rotate every 20 to 60 minutes,
// so an 8-hour shift sees a handful at one table. The counts of dealers
// signing in past the bound are summed in Shift.Others, so the shift's
// totals stay exact. It also bounds the retained MQTT state.
const MaxShiftDealers = 12

// MaxShifts bounds ShiftSchedule.Starts: a shift at least every two hours.
const MaxShifts = 12

// ErrShifts is wrapped when a ShiftSchedule is invalid.
var ErrShifts = errors.New("tableau: bad shift schedule")

// ShiftSchedule says when the dealers' shifts begin each day: Starts are
// minutes after local midnight in Location (nil: UTC), ascending and
// distinct, each in 0–1439, at most MaxShifts of them; none means one
// shift a day from midnight. A shift runs from one start to the next
// (the last to the first of the next day). Local times follow the
// location's daylight-saving rules, so "06:00" is 06:00 on the wall clock
// every day.
type ShiftSchedule struct {
	Starts   []int
	Location *time.Location
}

// Validate checks the schedule; errors wrap ErrShifts.
func (s ShiftSchedule) Validate() error {
	if len(s.Starts) > MaxShifts {
		return fmt.Errorf("%w: %d shift starts, at most %d", ErrShifts, len(s.Starts), MaxShifts)
	}
	for i, m := range s.Starts {
		if m < 0 || m >= 24*60 {
			return fmt.Errorf("%w: start %d is %d minutes after midnight (want 0–1439)", ErrShifts, i+1, m)
		}
		if i > 0 && m <= s.Starts[i-1] {
			return fmt.Errorf("%w: start %d (%02d:%02d) is not after start %d (%02d:%02d)", ErrShifts, i+1, m/60, m%60, i, s.Starts[i-1]/60, s.Starts[i-1]%60)
		}
	}
	return nil
}

// Start returns the start of the shift at is in: the latest shift start
// at or before at.
func (s ShiftSchedule) Start(at time.Time) time.Time {
	loc := s.Location
	if loc == nil {
		loc = time.UTC
	}
	starts := s.Starts
	if len(starts) == 0 {
		starts = []int{0}
	}
	lt := at.In(loc)
	y, mo, d := lt.Date()
	for day := 0; day >= -2; day-- { // a shift began today, or yesterday (two days back covers DST gaps)
		for i := len(starts) - 1; i >= 0; i-- {
			st := time.Date(y, mo, d+day, starts[i]/60, starts[i]%60, 0, 0, loc)
			if !st.After(at) {
				return st
			}
		}
	}
	return time.Date(y, mo, d-2, 0, 0, 0, 0, loc) // not reached
}

// DealerCounts is one dealer's tally for the current shift: coups dealt
// (results decided while signed in), coups voided and alerts raised, by
// alert code.
type DealerCounts struct {
	Dealer string                     `json:"dealer"`
	Coups  int                        `json:"coups"`
	Voids  int                        `json:"voids"`
	Alerts map[baccarat.AlertCode]int `json:"alerts"`
}

// ShiftView is TableView.Shift: the current shift's start and its
// per-dealer counts, in the order the dealers first signed in.
type ShiftView struct {
	Start   time.Time      `json:"start"`
	Dealers []DealerCounts `json:"dealers"`
	// Others sums the counts of dealers past MaxShiftDealers (its Dealer
	// is empty); omitted when there are none.
	Others DealerCounts `json:"others,omitzero"`
}

func (c DealerCounts) clone() DealerCounts {
	a := make(map[baccarat.AlertCode]int, len(c.Alerts))
	for k, v := range c.Alerts {
		a[k] = v
	}
	c.Alerts = a
	return c
}

// signIn signs id in ("" signs out); an invalid id changes nothing (the
// daemon refuses it before it is journaled; a hand-edited journal cannot
// make the outputs carry one).
func (t *Table) signIn(id string) {
	if id != "" && ValidateDealerID(id) != nil {
		return
	}
	t.fold.SetDealer(id)
	if id != "" {
		t.dealerCounts(id) // listed from sign-in, even before a coup
	}
}

// rollShift starts a new shift when at is past the next shift start. A
// clock that goes back does not reopen an earlier shift.
func (t *Table) rollShift(at time.Time) {
	st := t.cfg.Shifts.Start(at)
	if !st.After(t.shiftStart) {
		return
	}
	t.shiftStart = st
	clear(t.shift)
	t.shift = t.shift[:0]
	t.shiftOthers = DealerCounts{}
	if d := t.fold.Dealer(); d != "" {
		t.dealerCounts(d) // the dealer at the table carries on into the new shift
	}
}

// dealerCounts returns id's counts for the shift, adding an entry (or, past
// MaxShiftDealers, the Others entry).
func (t *Table) dealerCounts(id string) *DealerCounts {
	for i := range t.shift {
		if t.shift[i].Dealer == id {
			return &t.shift[i]
		}
	}
	if len(t.shift) >= MaxShiftDealers { // bound: MaxShiftDealers per shift, the rest summed
		return &t.shiftOthers
	}
	t.shift = append(t.shift, DealerCounts{Dealer: id, Alerts: map[baccarat.AlertCode]int{}})
	return &t.shift[len(t.shift)-1]
}

// attribute stamps the dealer signed in on the coups, alerts and voids of
// one input and counts them for the shift.
func (t *Table) attribute(outs []Output) {
	id := t.fold.Dealer()
	if id == "" {
		return
	}
	for i := range outs {
		o := &outs[i]
		switch o.Kind {
		case OutputCoup, OutputAlert, OutputVoid:
		default:
			continue
		}
		o.Event.setDealer(id)
		c := t.dealerCounts(id)
		switch o.Kind {
		case OutputCoup:
			c.Coups++
		case OutputVoid:
			c.Voids++
		case OutputAlert:
			if c.Alerts == nil {
				c.Alerts = map[baccarat.AlertCode]int{}
			}
			c.Alerts[o.Event.Alert.Code]++ // keys: alert codes, ≤ MaxLatched
		}
	}
}

// shiftView is TableView.Shift; zero before the first input.
func (t *Table) shiftView() ShiftView {
	if t.shiftStart.IsZero() {
		return ShiftView{}
	}
	v := ShiftView{Start: t.shiftStart.UTC(), Dealers: make([]DealerCounts, len(t.shift))}
	for i, c := range t.shift {
		v.Dealers[i] = c.clone()
	}
	if t.shiftOthers.Coups > 0 || t.shiftOthers.Voids > 0 || len(t.shiftOthers.Alerts) > 0 {
		v.Others = t.shiftOthers.clone()
	}
	return v
}

// restoreDealers restores the dealer and the shift counts of a snapshot.
func (t *Table) restoreDealers(s *tableSnap) error {
	if s.Dealer != "" {
		if err := ValidateDealerID(s.Dealer); err != nil {
			return err
		}
	}
	t.fold.dealer = s.Dealer
	if s.ShiftStart != nil {
		t.shiftStart = *s.ShiftStart
	}
	if len(s.Shift) > MaxShiftDealers {
		return fmt.Errorf("%d dealers in the shift, more than %d", len(s.Shift), MaxShiftDealers)
	}
	check := func(c DealerCounts) error {
		if c.Coups < 0 || c.Voids < 0 || len(c.Alerts) > MaxLatched {
			return fmt.Errorf("dealer %q: bad counts", c.Dealer)
		}
		for _, n := range c.Alerts {
			if n < 0 {
				return fmt.Errorf("dealer %q: negative alert count", c.Dealer)
			}
		}
		return nil
	}
	for _, c := range s.Shift {
		if err := ValidateDealerID(c.Dealer); err != nil {
			return err
		}
		if err := check(c); err != nil {
			return err
		}
		if c.Alerts == nil {
			c.Alerts = map[baccarat.AlertCode]int{}
		}
		t.shift = append(t.shift, c.clone())
	}
	if s.ShiftOthers != nil {
		if err := check(*s.ShiftOthers); err != nil {
			return err
		}
		t.shiftOthers = s.ShiftOthers.clone()
	}
	return nil
}
