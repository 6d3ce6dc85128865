package tableau

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/internal/enum"
	"github.com/sabot-table/sabot/tableau/odds"
)

// InputKind is the kind of one input event of the table controller: what
// the shoe, the dealer's and supervisor's keys and the pit system tell the
// table. The values are the journal's and MQTT's spelling.
type InputKind string

// The input kinds. Card, Button, Cut, Void, Shoe and Stand are the
// transcript's card, "|", "cut", "void", "shoe" and "stand"; the others
// are the daemon's own.
const (
	InputCard       InputKind = "card"        // a card drawn (Card, UID)
	InputButton     InputKind = "button"      // the dealer's coup button: "|"
	InputCut        InputKind = "cut"         // the cut card came out: "cut"
	InputVoid       InputKind = "void"        // the supervisor's void key or command: "void"
	InputShoe       InputKind = "shoe"        // a new shoe begins: "shoe"
	InputStand      InputKind = "stand"       // the hand whose turn it is declines a card: "stand"
	InputUnreadable InputKind = "unreadable"  // the shoe saw a card it could not read
	InputAlarm      InputKind = "alarm"       // a shoe hardware alarm (Code, Text)
	InputOffline    InputKind = "offline"     // the shoe link went down
	InputOnline     InputKind = "online"      // the shoe link is back
	InputAck        InputKind = "ack"         // the supervisor acknowledges the latched alerts (Operator)
	InputBetsOpen   InputKind = "bets-open"   // live dealer: betting is open
	InputBetsClosed InputKind = "bets-closed" // live dealer: betting closed, cards may be drawn
	InputBacklog    InputKind = "backlog"     // the MQTT outbox is filling up (Text)
	// InputClockJump: the daemon saw the wall clock jump (Text: by how
	// much); InputArchivePruned: it removed the oldest journal archive to
	// keep the archive directory under its cap (Text: which).
	InputClockJump     InputKind = "clock-jump"
	InputArchivePruned InputKind = "archive-pruned"
	// InputJournalFailed: the daemon could not write its journal for a
	// while (Text: since when, for how long, the error); journaled as soon
	// as it can write again, so journal-failed latches and is published
	// like every alert.
	InputJournalFailed InputKind = "journal-failed"
	// InputSessionTakeover: the MQTT publisher saw another daemon publish
	// as this table (Text: which, and for how long this one stays away).
	InputSessionTakeover InputKind = "session-takeover"
	// InputRejected is a command refused before it reached the table (bad
	// JSON, wrong table, unknown operator, ...): Code names the command,
	// Text the reason, Operator and Ref who sent it. It is journaled for
	// the audit trail only and changes nothing.
	InputRejected InputKind = "command-rejected"
	// InputEvent is a significant event of the audit trail (power-up,
	// shutdown, config change, lid open, ...): Code names it, Text and
	// Ref say more (see drivers/mqtt's EventPayload). It is journaled for
	// the audit trail and published as an event message; the table
	// ignores it.
	InputEvent InputKind = "event"
	// InputDealer: a dealer signs in (Dealer, a valid id: ValidateDealerID)
	// or, with Dealer empty, signs out; Source says how (the shoe's badge
	// reader, the pit's command, the table's keys). The transcript's
	// "dealer ID" and "dealer -".
	InputDealer InputKind = "dealer"
)

// Input is one input event. Its JSON form is what the daemon's journal
// stores, so a restart replays exactly the same inputs.
type Input struct {
	Kind InputKind `json:"kind"`
	// Card is the card drawn (InputCard); its UID travels in UID.
	Card Card `json:"card,omitzero"`
	// UID is the reader's identifier of the physical card (RFID shoes).
	UID string `json:"uid,omitempty"`
	// Code and Text describe an alarm or a backlog ("E3", "Card Not Read").
	Code string `json:"code,omitempty"`
	Text string `json:"text,omitempty"`
	// Source says where the input came from ("shoe", "gpio", "mqtt",
	// "demo") and Operator who gave a command; for the audit trail.
	Source   string `json:"source,omitempty"`
	Operator string `json:"operator,omitempty"`
	// Ref is the source's own reference (the shoe's boot id and sequence
	// number), kept so that a restarted daemon can drop a redelivered event.
	Ref string `json:"ref,omitempty"`
	// Dealer is the dealer signing in (InputDealer); empty signs out.
	Dealer string `json:"dealer,omitempty"`
}

// TokenInput converts a transcript token to the equivalent input.
func TokenInput(t Token) Input {
	switch t.Kind {
	case TokCard:
		return Input{Kind: InputCard, Card: t.Card, UID: t.Card.UID}
	case TokShoe:
		return Input{Kind: InputShoe}
	case TokMarker:
		return Input{Kind: InputButton}
	case TokCut:
		return Input{Kind: InputCut}
	case TokVoid:
		return Input{Kind: InputVoid}
	case TokDealer:
		return Input{Kind: InputDealer, Dealer: t.Dealer}
	case TokStand:
		return Input{Kind: InputStand}
	}
	return Input{}
}

// Token returns the transcript token equivalent to in, and false for inputs
// that have no transcript form (acks, alarms, link state, ...).
func (in Input) Token() (Token, bool) {
	switch in.Kind {
	case InputCard:
		return Token{Kind: TokCard, Card: in.Card}, true
	case InputShoe:
		return Token{Kind: TokShoe}, true
	case InputButton:
		return Token{Kind: TokMarker}, true
	case InputCut:
		return Token{Kind: TokCut}, true
	case InputVoid:
		return Token{Kind: TokVoid}, true
	case InputDealer:
		return Token{Kind: TokDealer, Dealer: in.Dealer}, true
	case InputStand:
		return Token{Kind: TokStand}, true
	}
	return Token{}, false
}

// MisdealPolicy says what a surplus card (extra-card) does to the coup.
type MisdealPolicy uint8

// The misdeal policies.
const (
	// MisdealAlertOnly: the coup's result stands per the tableau; the
	// surplus card is reported (extra-card). The default.
	MisdealAlertOnly MisdealPolicy = iota
	// MisdealVoid: the coup is voided as well.
	MisdealVoid
)

// ParseMisdealPolicy parses "alert-only" or "void".
func ParseMisdealPolicy(s string) (MisdealPolicy, error) {
	switch s {
	case "alert-only", "":
		return MisdealAlertOnly, nil
	case "void":
		return MisdealVoid, nil
	}
	return 0, fmt.Errorf("tableau: misdeal policy %q: want alert-only or void", s)
}

// TableConfig configures a Table.
type TableConfig struct {
	// Table is the table's name, the first part of every output ID.
	Table string
	// Fold holds decks, rules, cut rule and marker mode (see Options).
	Fold Options
	// Misdeal is the surplus-card policy.
	Misdeal MisdealPolicy
	// RequireBetsClosed raises early-draw for a coup card drawn while
	// betting is open. Betting reopens when a coup ends.
	RequireBetsClosed bool
	// Registry maps RFID reader UIDs to the cards they are attached to; a
	// read whose rank (or known suit) disagrees raises card-mismatch. Nil:
	// no registry.
	Registry map[string]Card
	// Gate: the shoe has a gate to lock whenever the tableau needs no card.
	Gate bool
	// AdvantageThreshold, when on, runs the advantage check of `sabot check
	// --advantage` (Fold.FeedAdvantages): on the first card of each coup,
	// every offered bet whose exact expectation for the player on that
	// coup exceeds the threshold raises advantage. The zero value is off.
	// Advantage alerts are for surveillance: they do not latch. The same check also runs after
	// every card for the live view (TableView.Advantage), so surveillance
	// sees a late-shoe edge building up inside a coup.
	AdvantageThreshold odds.AdvantageThreshold
	// OverrunCards is how many cards beyond what the decks hold (52 ×
	// decks) one shoe may give before its fold raises shoe-overrun (once
	// per shoe): a new shoe was never signalled (a Bee-Tek shoe sends no
	// new-shoe event; the key was never pressed). 0 means
	// DefaultOverrunCards; negative is an error (ErrOverrunCards).
	OverrunCards int
	// Shifts says when the dealers' shifts begin, for the per-dealer
	// counts of TableView.Shift. The zero value: one shift a day, from
	// midnight UTC.
	Shifts ShiftSchedule
}

// DefaultOverrunCards is TableConfig.OverrunCards when none is configured:
// a deck's worth of cards beyond the shoe.
const DefaultOverrunCards = 52

// MaxOverrunCards bounds TableConfig.OverrunCards (about a month of a busy
// table's cards).
const MaxOverrunCards = 1_000_000

// ErrOverrunCards is wrapped when TableConfig.OverrunCards is outside
// 0–MaxOverrunCards.
var ErrOverrunCards = errors.New("tableau: bad overrun cards")

// OutputKind is the kind of a Table output.
type OutputKind uint8

// The output kinds.
const (
	OutputCard  OutputKind = iota + 1 // a card was drawn: Card
	OutputCoup                        // a coup completed: Event.Coup
	OutputAlert                       // an alert: Event.Alert and Alert
	OutputVoid                        // a coup was voided: Event.Void
	OutputAck                         // a latched alert was acknowledged: Ack
	OutputGate                        // the gate must lock or unlock: GateLocked
)

// String returns "card", "coup", "alert", "void", "ack" or "gate" (the
// MQTT topic names; ack is published under alert/ack).
func (k OutputKind) String() string { return outputKindNames.Name(k) }

var outputKindNames = enum.Names[OutputKind]{Type: "OutputKind", Words: []string{
	OutputCard: "card", OutputCoup: "coup", OutputAlert: "alert",
	OutputVoid: "void", OutputAck: "ack", OutputGate: "gate",
}}

// CardPlay describes a drawn card: where it went and the totals after it.
type CardPlay struct {
	Card     Card              `json:"card"`
	UID      string            `json:"uid,omitempty"`
	Position baccarat.Position `json:"position"`
	// Index is the card's place in its hand (1–3) or in the burn (1–11).
	Index       int           `json:"index"`
	PlayerTotal int           `json:"player_total"`
	BankerTotal int           `json:"banker_total"`
	Need        baccarat.Need `json:"-"`
	// InShoe is the number of cards drawn from this shoe so far, this one
	// included.
	InShoe int `json:"in_shoe"`
}

// AckInfo is an acknowledged latched entry: Count alerts of Code, the
// first AlertID, the newest LastAlertID.
type AckInfo struct {
	AlertID     string             `json:"alert_id"`
	LastAlertID string             `json:"last_alert_id"`
	Count       int                `json:"count"`
	Code        baccarat.AlertCode `json:"code"`
	Operator    string             `json:"operator,omitempty"`
}

// Output is one thing the table wants done: publish a card, coup, alert,
// void or ack, or move the gate. ID is stable: it is derived from the
// shoe, the coup and the count of such outputs in that coup, so replaying
// the same inputs gives the same IDs. Time is the causing input's time.
type Output struct {
	Kind   OutputKind
	ID     string
	Seq    uint64 // the causing input's sequence number
	Time   time.Time
	Shoe   int
	ShoeID string
	Coup   int

	Event      Event // OutputCoup, OutputAlert, OutputVoid: the `sabot check` event
	Card       CardPlay
	Alert      baccarat.AlertInfo
	Ack        AckInfo
	GateLocked bool
	// VoidsResult is set on OutputVoid when the voided coup's result had
	// already been output (OutputCoup): consumers must reverse it.
	VoidsResult bool
}

// LatchedAlert is the latched entry of one alert code: every alert of that
// code raised since the last acknowledgement, coalesced. Shoe, Coup, Card
// and Text are those of the newest.
type LatchedAlert struct {
	// ID is the first alert's id: the entry's identity, and the alert_id
	// of its acknowledgement.
	ID string `json:"id"`
	// LastID is the newest alert's id (ID when Count is 1).
	LastID string `json:"last_id"`
	// Count is the number of alerts coalesced, at least 1 (it saturates at
	// the largest int rather than wrapping).
	Count int                `json:"count"`
	Code  baccarat.AlertCode `json:"code"`
	Shoe  int                `json:"shoe"`
	Coup  int                `json:"coup"`
	Card  Card               `json:"card,omitzero"`
	Text  string             `json:"text"`
}

// ResultCounts counts a run of completed coups: by winner, and those with
// a player pair, a banker pair, a natural. It is the head of
// ResultsSummary and of the scoreboard's statistics (display.Stats), in
// the same JSON keys.
type ResultCounts struct {
	Coups       int `json:"coups"` // Banker + Player + Tie
	Banker      int `json:"banker"`
	Player      int `json:"player"`
	Tie         int `json:"tie"`
	PlayerPairs int `json:"player_pairs"`
	BankerPairs int `json:"banker_pairs"`
	Naturals    int `json:"naturals"`
}

// ResultsSummary sums up a run of coup results in constant memory: what a
// Table keeps of the results it drops from a shoe past MaxShoeResults
// coups, so that the shoe's statistics stay exact. Results with no winner
// are not counted.
type ResultsSummary struct {
	ResultCounts
	// LongestBanker and LongestPlayer are the longest runs of banker and
	// player wins; ties do not break a run.
	LongestBanker int `json:"longest_banker"`
	LongestPlayer int `json:"longest_player"`
	// Run is the winner (banker or player) of the run the results end in,
	// RunLen its length so far (a later result may extend it).
	Run    baccarat.Winner `json:"run,omitzero"`
	RunLen int             `json:"run_len"`
}

// Add counts one more result, after those already summed up.
func (s *ResultsSummary) Add(r CoupResult) {
	switch r.Winner {
	case baccarat.WinnerBanker:
		s.Banker++
	case baccarat.WinnerPlayer:
		s.Player++
	case baccarat.WinnerTie:
		s.Tie++
	default:
		return
	}
	s.Coups++
	if r.PlayerPair {
		s.PlayerPairs++
	}
	if r.BankerPair {
		s.BankerPairs++
	}
	if r.Natural {
		s.Naturals++
	}
	if r.Winner == baccarat.WinnerTie {
		return
	}
	if r.Winner == s.Run {
		s.RunLen++
	} else {
		s.Run, s.RunLen = r.Winner, 1
	}
	if s.Run == baccarat.WinnerBanker {
		s.LongestBanker = max(s.LongestBanker, s.RunLen)
	} else {
		s.LongestPlayer = max(s.LongestPlayer, s.RunLen)
	}
}

// CoupResult is a completed coup of the current shoe, for scoreboard roads.
type CoupResult struct {
	Coup       int             `json:"coup"`
	Winner     baccarat.Winner `json:"winner"`
	Natural    bool            `json:"natural"`
	PlayerPair bool            `json:"player_pair"`
	BankerPair bool            `json:"banker_pair"`
	Total      int             `json:"total"` // the winner's total (player's on a tie)
}

// Table is the table controller: a pure state machine that takes the
// table's input events one at a time and returns what should happen. It is
// built on the shoe Fold, so the same shoe given to `sabot check` and to a
// Table yields the same coups, alerts and voids; the Table adds the
// daemon's own alerts (duplicate-card, card-mismatch, unreadable-card,
// shoe-alarm, shoe-sequence, shoe-offline/online, early-draw, advantage,
// outbox-backlog),
// latches alerts until acknowledged, applies the misdeal policy, tracks the
// gate and gives every output a stable ID. It does no I/O.
//
// Bounded by design: nothing in a Table grows with the coups, cards or
// alerts seen. Across shoes, state is per shoe and cleared when a shoe
// begins; within one shoe (also one that never ends) every structure has a
// constant cap, enforced where it is filled: latched entries ≤ MaxLatched
// (latch), results ≤ MaxShoeResults (foldEvent), reader UIDs ≤
// MaxShoeUIDs of ≤ MaxUIDBytes each (cardAlerts), alert texts ≤
// MaxAlertTextBytes (daemonAlertAt), output counters two coups' worth
// (nextN), the live advantage list ≤ 7 bets, the event scratch slice the
// events of one input.
type Table struct {
	cfg  TableConfig
	fold *Fold

	shoeID  string
	curShoe int             // the shoe number shoeID belongs to
	inShoe  int             // cards drawn in this shoe
	uids    map[string]Card // UIDs seen in this shoe, ≤ MaxShoeUIDs
	// counts and prevCounts count the outputs of the current coup and of
	// the one before it that had outputs, per kind, for their ids (nextN).
	counts, prevCounts coupCounts
	latched            []LatchedAlert // one entry per code, ≤ MaxLatched
	offline            bool
	betsOpen           bool
	gate               bool
	results            []CoupResult // the shoe's newest MaxShoeResults results
	// dropped sums up the shoe's results dropped from results (beyond
	// MaxShoeResults).
	dropped  ResultsSummary
	lastCoup baccarat.Coup // the last completed or current coup, for the display; empty after a void
	// lastVoided: the last coup was voided (until the next coup starts).
	lastVoided bool
	lastSeq    uint64
	scratch    []Event
	extra      []Output // reused for the daemon alerts of one input
	prevShoe   int      // the shoe before the current one
	prevID     string   // its id, for events that close it (incomplete-coup)

	// The live advantage check, cached for the shoe and card count it was
	// computed at (View recomputes it only after a card is drawn).
	adv      []odds.AdvantageBet
	advAt    [2]int // shoe, cards drawn in it
	advValid bool

	// The current shift's per-dealer counts (dealer.go): shiftStart is its
	// start (zero before the first input), shift the dealers seen in it
	// (≤ MaxShiftDealers), shiftOthers the sum of those past the bound.
	shiftStart  time.Time
	shift       []DealerCounts
	shiftOthers DealerCounts
}

// coupCounts counts one coup's outputs per kind.
type coupCounts struct {
	shoe, coup int
	n          [OutputGate + 1]int
}

// MaxShoeResults bounds the results a Table keeps for one shoe
// (TableView.Results): more than twice the coups an 8-deck shoe can deal
// (416 cards, at least 4 a coup), so only a shoe that never ends reaches
// it; past it the oldest results are dropped and summed up
// (TableView.ResultsDropped), so statistics over the shoe stay exact.
const MaxShoeResults = 256

// MaxUIDBytes is the longest reader UID the Table checks (duplicate-card,
// card-mismatch).
const MaxUIDBytes = 128

// MaxShoeUIDs bounds the reader UIDs a Table remembers for one shoe (the
// duplicate-card check): twice the cards of an 8-deck shoe. Past it, a UID
// first read after the cap is not remembered, so its duplicates in the same
// shoe are not reported; UIDs remembered before keep being checked.
const MaxShoeUIDs = 2 * 52 * baccarat.MaxDecks

// NewTable returns a Table for cfg; errors come from NewFold, and wrap
// ErrRules for an advantage check on a game not dealt by the punto banco
// tableau, ErrOverrunCards for a bad OverrunCards.
func NewTable(cfg TableConfig) (*Table, error) {
	if cfg.Fold.OverrunCards == 0 {
		cfg.Fold.OverrunCards = cfg.OverrunCards // the fold raises shoe-overrun
	}
	f, err := NewFold(cfg.Fold)
	if err != nil {
		return nil, err
	}
	cfg.Fold = f.Options()
	if g := cfg.Fold.Rules.Game; cfg.AdvantageThreshold.On() && !g.DealsPuntoBanco() {
		return nil, fmt.Errorf("%w: the advantage check values the punto banco tableau's bets, not %s's: leave it off", baccarat.ErrRules, g.Name())
	}
	if cfg.OverrunCards < 0 || cfg.OverrunCards > MaxOverrunCards {
		return nil, fmt.Errorf("%w: %d (want 0 for the default %d, or up to %d)", ErrOverrunCards, cfg.OverrunCards, DefaultOverrunCards, MaxOverrunCards)
	}
	if cfg.OverrunCards == 0 {
		cfg.OverrunCards = DefaultOverrunCards
	}
	if err := cfg.Shifts.Validate(); err != nil {
		return nil, err
	}
	return &Table{
		cfg:      cfg,
		fold:     f,
		uids:     map[string]Card{},
		betsOpen: true,
	}, nil
}

// Config returns the table's configuration (Fold.Decks and OverrunCards
// filled in).
func (t *Table) Config() TableConfig { return t.cfg }

// Fold gives read access to the underlying shoe fold.
func (t *Table) Fold() *Fold { return t.fold }

// LastSeq returns the sequence number of the last input applied.
func (t *Table) LastSeq() uint64 { return t.lastSeq }

// shoeIDFor derives a shoe's id from the input that began it: its UTC time
// and sequence number, so ids stay unique even if the journal is reset.
func shoeIDFor(seq uint64, at time.Time) string {
	return at.UTC().Format("20060102T150405Z") + "-" + strconv.FormatUint(seq, 10)
}

// Apply applies one input with its journal sequence number and time, and
// appends its outputs to out. Inputs must be applied in journal order;
// nothing panics on any input.
func (t *Table) Apply(seq uint64, at time.Time, in Input, out []Output) []Output {
	t.lastSeq = seq
	t.rollShift(at)
	first := len(out)
	evs := t.scratch[:0]
	extra := t.extra[:0] // daemon alerts to put after the fold's alerts, before coups
	switch in.Kind {
	case InputShoe:
		evs = t.fold.NewShoe(evs)
	case InputCard:
		card := in.Card
		card.UID = in.UID
		if !card.Valid() {
			evs = t.fold.Card(card, evs) // the fold raises unreadable-card
			break
		}
		before := t.snapshot()
		if t.cfg.AdvantageThreshold.On() {
			evs = t.fold.FeedAdvantages(Token{Kind: TokCard, Card: card}, t.cfg.AdvantageThreshold.Value(), evs)
		} else {
			evs = t.fold.Card(card, evs)
		}
		t.beginShoeIfNew(seq, at)
		play := t.place(before, card)
		out = append(out, t.output(OutputCard, seq, at, play.coup, func(o *Output) { o.Card = play.CardPlay }))
		extra = t.cardAlerts(card, play, extra)
	case InputButton:
		evs = t.fold.Marker(evs)
	case InputCut:
		evs = t.fold.Cut(evs)
	case InputVoid:
		evs = t.fold.Void(evs)
	case InputStand:
		evs = t.fold.Stand(evs)
	case InputUnreadable:
		extra = append(extra, t.daemonAlert(baccarat.AlertUnreadableCard, Card{}, defaultText(baccarat.AlertUnreadableCard)+suffix(in.Text)))
	case InputAlarm:
		if baccarat.AlertCode(in.Code) == baccarat.AlertShoeSequence {
			// Raised by the shoe driver, not the shoe: its own alert.
			extra = append(extra, t.daemonAlert(baccarat.AlertShoeSequence, Card{}, in.Text))
			break
		}
		text := strings.TrimSpace(in.Code + " " + in.Text)
		if text == "" {
			text = "shoe alarm"
		}
		extra = append(extra, t.daemonAlert(baccarat.AlertShoeAlarm, Card{}, text))
	case InputOffline:
		if !t.offline {
			t.offline = true
			extra = append(extra, t.daemonAlert(baccarat.AlertShoeOffline, Card{}, defaultText(baccarat.AlertShoeOffline)+suffix(in.Text)))
		}
	case InputOnline:
		if t.offline {
			t.offline = false
			extra = append(extra, t.daemonAlert(baccarat.AlertShoeOnline, Card{}, ""))
		}
	case InputBacklog:
		extra = append(extra, t.daemonAlert(baccarat.AlertOutboxBacklog, Card{}, defaultText(baccarat.AlertOutboxBacklog)+suffix(in.Text)))
	case InputClockJump:
		extra = append(extra, t.daemonAlert(baccarat.AlertClockJump, Card{}, defaultText(baccarat.AlertClockJump)+suffix(in.Text)))
	case InputArchivePruned:
		extra = append(extra, t.daemonAlert(baccarat.AlertArchivePruned, Card{}, defaultText(baccarat.AlertArchivePruned)+suffix(in.Text)))
	case InputJournalFailed:
		extra = append(extra, t.daemonAlert(baccarat.AlertJournalFailed, Card{}, defaultText(baccarat.AlertJournalFailed)+suffix(in.Text)))
	case InputSessionTakeover:
		extra = append(extra, t.daemonAlert(baccarat.AlertSessionTakeover, Card{}, defaultText(baccarat.AlertSessionTakeover)+suffix(in.Text)))
	case InputRejected, InputEvent:
		// Audit records only: they change nothing.
	case InputDealer:
		t.signIn(in.Dealer)
	case InputBetsOpen:
		t.betsOpen = true
	case InputBetsClosed:
		t.betsOpen = false
	case InputAck:
		// One output per latched entry, so at most one per alert code
		// however many alerts were coalesced.
		for _, a := range t.latched {
			out = append(out, Output{Kind: OutputAck, ID: AckID(a.ID), Seq: seq, Time: at,
				Shoe: a.Shoe, ShoeID: t.shoeID, Coup: a.Coup,
				Ack: AckInfo{AlertID: a.ID, LastAlertID: a.LastID, Count: a.Count, Code: a.Code, Operator: in.Operator}})
		}
		t.latched = t.latched[:0]
	}
	t.beginShoeIfNew(seq, at)
	// The fold's events: its alerts first, then the daemon's alerts for the
	// same card, then coups and voids.
	for i := range evs {
		if evs[i].Kind == baccarat.EventAlert {
			out = t.foldEvent(evs[i], seq, at, out)
			if evs[i].Alert.Code == baccarat.AlertExtraCard && t.cfg.Misdeal == MisdealVoid {
				evs = t.fold.Void(evs)
			}
		}
	}
	for _, x := range extra {
		out = t.emitAlert(x.Event.Alert, x.Alert, seq, at, out)
	}
	for i := range evs {
		if evs[i].Kind != baccarat.EventAlert {
			out = t.foldEvent(evs[i], seq, at, out)
		}
	}
	t.scratch = evs[:0]
	clear(extra) // drop references to the texts
	t.extra = extra[:0]
	t.afterInput(in, seq, at, &out)
	t.attribute(out[first:])
	return out
}

// defaultText is code's default text from the alert table.
func defaultText(code baccarat.AlertCode) string {
	m, _ := baccarat.LookupAlert(code)
	return m.Text
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// beginShoeIfNew gives a shoe that has just begun its id and clears the
// per-shoe state.
func (t *Table) beginShoeIfNew(seq uint64, at time.Time) {
	if t.fold.Shoe() != t.curShoe {
		t.prevShoe, t.prevID = t.curShoe, t.shoeID
		t.curShoe = t.fold.Shoe()
		t.shoeID = shoeIDFor(seq, at)
		t.inShoe = 0
		clear(t.uids)
		t.results, t.dropped = t.results[:0], ResultsSummary{}
		t.lastCoup, t.lastVoided = baccarat.Coup{}, false
	}
}

// foldSnapshot is what place compares to find where a card went.
type foldSnapshot struct {
	phase   Phase
	coupNum int
	coup    baccarat.Coup
}

func (t *Table) snapshot() foldSnapshot {
	return foldSnapshot{phase: t.fold.Phase(), coupNum: t.fold.CoupNumber(), coup: t.fold.Coup()}
}

type placed struct {
	CardPlay
	coup     int
	coupCard bool // dealt into a hand of a coup (not burn, not surplus)
}

// place works out where the card just folded went by comparing the fold
// before and after.
func (t *Table) place(before foldSnapshot, card Card) placed {
	t.inShoe++
	p := placed{CardPlay: CardPlay{Card: card, UID: card.UID, InShoe: t.inShoe}}
	f := t.fold
	c := f.Coup()
	p.PlayerTotal, p.BankerTotal, p.Need = c.PlayerTotal(), c.BankerTotal(), c.Need()
	firstPos := baccarat.PositionPlayer // the hand Coup.Player is: banque's right tableau
	if f.opts.Rules.Game == baccarat.GameBanque {
		firstPos = baccarat.PositionRight
	}
	switch {
	case f.Phase() == PhaseBurn || (before.phase == PhaseBurn && f.Phase() == PhaseBetween):
		p.Position = baccarat.PositionBurn
		p.Index, _ = f.Burn()
		p.PlayerTotal, p.BankerTotal = 0, 0
	case f.CoupNumber() != before.coupNum || before.phase != PhaseCoup:
		p.Position, p.Index = firstPos, 1
		p.coup, p.coupCard = f.CoupNumber(), true
	case c.Player.N > before.coup.Player.N:
		p.Position, p.Index, p.coup, p.coupCard = firstPos, c.Player.N, f.CoupNumber(), true
	case c.Left.N > before.coup.Left.N:
		p.Position, p.Index, p.coup, p.coupCard = baccarat.PositionLeft, c.Left.N, f.CoupNumber(), true
	case c.Banker.N > before.coup.Banker.N:
		p.Position, p.Index, p.coup, p.coupCard = baccarat.PositionBanker, c.Banker.N, f.CoupNumber(), true
	default:
		p.Position, p.coup = baccarat.PositionNone, f.CoupNumber()
	}
	if f.Phase() == PhaseCoup && !f.Voided() {
		t.lastCoup, t.lastVoided = c, false
	}
	return p
}

// cardAlerts raises the daemon's card alerts: duplicate-card, card-mismatch
// and early-draw.
func (t *Table) cardAlerts(c Card, p placed, extra []Output) []Output {
	// A UID longer than MaxUIDBytes is not a reader's (the schemas allow
	// 128 bytes): it is passed on but not checked, so the UIDs remembered
	// stay bounded by MaxShoeUIDs × MaxUIDBytes.
	if c.UID != "" && len(c.UID) <= MaxUIDBytes {
		if prev, dup := t.uids[c.UID]; dup {
			extra = append(extra, t.daemonAlertAt(p.coup, baccarat.AlertDuplicateCard, c,
				fmt.Sprintf("card UID %s seen twice in this shoe (first as %s)", c.UID, prev)))
		} else if len(t.uids) < MaxShoeUIDs { // bound: MaxShoeUIDs per shoe
			t.uids[c.UID] = c
		}
		if reg, ok := t.cfg.Registry[c.UID]; ok && (reg.Rank != c.Rank || (c.Suit != card.SuitUnknown && reg.Suit != card.SuitUnknown && reg.Suit != c.Suit)) {
			extra = append(extra, t.daemonAlertAt(p.coup, baccarat.AlertCardMismatch, c,
				fmt.Sprintf("UID %s is registered as %s but was read as %s", c.UID, reg, c)))
		}
	}
	if t.cfg.RequireBetsClosed && p.coupCard && t.betsOpen {
		extra = append(extra, t.daemonAlertAt(p.coup, baccarat.AlertEarlyDraw, c, "card drawn while betting is open"))
	}
	return extra
}

// currentCoup is the coup number an alert without a card belongs to: the
// current coup, 0 during the burn.
func (t *Table) currentCoup() int {
	if t.fold.Phase() == PhaseBurn {
		return 0
	}
	return t.fold.CoupNumber()
}

func (t *Table) daemonAlert(code baccarat.AlertCode, card Card, text string) Output {
	return t.daemonAlertAt(t.currentCoup(), code, card, text)
}

func (t *Table) daemonAlertAt(coup int, code baccarat.AlertCode, card Card, text string) Output {
	card.UID = ""
	return Output{Event: alertEvent(t.fold.Shoe(), coup, code, card),
		Alert: code.Info(truncateText(text, MaxAlertTextBytes))}
}

// MaxAlertTextBytes bounds an alert's text (AlertInfo.Text, and so a
// latched entry's): the daemon's alerts carry text from outside (a shoe
// alarm's code and text); longer text is cut at a UTF-8 boundary.
const MaxAlertTextBytes = 1024

// truncateText cuts s to at most n bytes without splitting a UTF-8
// sequence.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// alertText is the human text for the fold's alerts: the alert table's
// text, worded with the card or coup where the fold gives one.
func alertText(a AlertEvent) string {
	switch a.Code {
	case baccarat.AlertExtraCard:
		return fmt.Sprintf("surplus card %s after coup %d was complete", a.Card, a.Coup)
	case baccarat.AlertMissingCard:
		return fmt.Sprintf("coup %d closed before the tableau was complete: no result", a.Coup)
	case baccarat.AlertComposition:
		return fmt.Sprintf("%s cannot come from this shoe (more than the decks hold)", a.Card)
	case baccarat.AlertShoeOverrun:
		return "more cards drawn in this shoe than its decks hold and the overrun allowance: no new shoe was signalled (shoe key, MQTT shoe command or the shoe); the table carries on"
	case baccarat.AlertAfterCut:
		return fmt.Sprintf("coup %d started after the shoe's last coup (cut card)", a.Coup)
	case baccarat.AlertIncompleteCoup:
		return fmt.Sprintf("coup %d was left incomplete", a.Coup)
	case baccarat.AlertAdvantage:
		if a.AdvantageBet != nil {
			return fmt.Sprintf("%s bet expectation %+.2f%% on coup %d", a.AdvantageBet.Bet, 100*a.AdvantageBet.EV, a.Coup)
		}
	}
	return "" // the table's default text
}

// nextN counts an output of kind in coup coup of shoe shoe and returns its
// number within that coup, from 1. Outputs come in coup order: within a
// shoe coup numbers only grow, and the only output of an earlier shoe is
// the alert that closes it (incomplete-coup, burn-count), raised before
// the new shoe's first output. So two coups' counters suffice (bound: 2 ×
// the output kinds), and a coup's counter is never needed again once a
// later coup has outputs.
func (t *Table) nextN(shoe, coup int, kind OutputKind) int {
	c := &t.counts
	switch {
	case c.shoe == shoe && c.coup == coup:
	case t.prevCounts.shoe == shoe && t.prevCounts.coup == coup:
		c = &t.prevCounts
	default:
		t.prevCounts, t.counts = t.counts, coupCounts{shoe: shoe, coup: coup}
	}
	if int(kind) >= len(c.n) {
		return 0 // not an output kind that has a counter
	}
	c.n[kind]++
	return c.n[kind]
}

// id gives the next output of kind in shoe's coup its id (OutputID).
func (t *Table) id(shoe, coup int, kind OutputKind) string {
	n := t.nextN(shoe, coup, kind)
	sid := t.shoeID
	if shoe == t.prevShoe && shoe != t.fold.Shoe() {
		sid = t.prevID
	}
	return OutputID(t.cfg.Table, sid, coup, kind.String(), uint64(n))
}

func (t *Table) output(kind OutputKind, seq uint64, at time.Time, coup int, fill func(*Output)) Output {
	return t.outputIn(t.fold.Shoe(), kind, seq, at, coup, fill)
}

// outputIn builds an output of shoe number shoe (the current shoe, or the
// one a new shoe has just closed).
func (t *Table) outputIn(shoe int, kind OutputKind, seq uint64, at time.Time, coup int, fill func(*Output)) Output {
	o := Output{Kind: kind, Seq: seq, Time: at, Shoe: shoe, ShoeID: t.shoeID, Coup: coup}
	if shoe == t.prevShoe && shoe != t.fold.Shoe() {
		o.ShoeID = t.prevID
	}
	o.ID = t.id(shoe, coup, kind)
	if fill != nil {
		fill(&o)
	}
	return o
}

func (t *Table) foldEvent(ev Event, seq uint64, at time.Time, out []Output) []Output {
	switch ev.Kind {
	case baccarat.EventAlert:
		a := ev.Alert
		text := alertText(a)
		if a.Code == baccarat.AlertShoeOverrun {
			holds := 52 * t.fold.Options().Decks
			text = fmt.Sprintf("%d cards drawn in this shoe, %d decks hold %d: no new shoe was signalled (shoe key, MQTT shoe command or the shoe); the table carries on",
				holds+t.fold.PastHolds(), t.fold.Options().Decks, holds)
		}
		return t.emitAlert(a, a.Code.Info(text), seq, at, out)
	case baccarat.EventCoup:
		c := ev.Coup
		// The results feed the scoreboard roads: coups with one winner
		// (banque's, settled per tableau, have none and are left out).
		if c.Winner != baccarat.WinnerNone {
			if len(t.results) == MaxShoeResults { // bound: MaxShoeResults per shoe, the oldest dropped
				t.dropped.Add(t.results[0])
				t.results = append(t.results[:0], t.results[1:]...)
			}
			t.results = append(t.results, CoupResult{Coup: c.Coup, Winner: c.Winner, Natural: c.Natural,
				PlayerPair: c.PlayerPair, BankerPair: c.BankerPair, Total: winnerTotal(c)})
		}
		return append(out, t.outputIn(c.Shoe, OutputCoup, seq, at, c.Coup, func(o *Output) { o.Event = ev }))
	case baccarat.EventVoid:
		v := ev.Void
		t.lastCoup, t.lastVoided = baccarat.Coup{}, true // a voided coup is not shown as the last coup
		had := false
		for i := len(t.results) - 1; i >= 0; i-- {
			if t.results[i].Coup == v.Coup {
				t.results = append(t.results[:i], t.results[i+1:]...)
				had = true
				break
			}
		}
		return append(out, t.outputIn(v.Shoe, OutputVoid, seq, at, v.Coup, func(o *Output) { o.Event = ev; o.VoidsResult = had }))
	}
	return out
}

func winnerTotal(c baccarat.CoupEvent) int {
	if c.Winner == baccarat.WinnerBanker {
		return c.BankerTotal
	}
	return c.PlayerTotal
}

func (t *Table) emitAlert(a AlertEvent, info baccarat.AlertInfo, seq uint64, at time.Time, out []Output) []Output {
	ev := Event{Kind: baccarat.EventAlert, Alert: a}
	ev.Alert.Type = baccarat.EventAlert
	o := t.outputIn(a.Shoe, OutputAlert, seq, at, a.Coup, func(o *Output) { o.Event = ev; o.Alert = info })
	if info.AwaitsAck {
		t.latch(LatchedAlert{ID: o.ID, LastID: o.ID, Count: 1, Code: a.Code, Shoe: a.Shoe, Coup: a.Coup, Card: a.Card, Text: info.Text})
	}
	return append(out, o)
}

// latch coalesces a latched alert into its code's entry, or adds the entry.
// Bound: one entry per alert code, so len(t.latched) ≤ MaxLatched (every
// code the Table raises is an AlertCode constant of the alert table).
func (t *Table) latch(a LatchedAlert) {
	for i := range t.latched {
		e := &t.latched[i]
		if e.Code == a.Code {
			if e.Count < math.MaxInt {
				e.Count++
			}
			e.LastID, e.Shoe, e.Coup, e.Card, e.Text = a.ID, a.Shoe, a.Coup, a.Card, a.Text
			return
		}
	}
	t.latched = append(t.latched, a)
}

// MaxLatched bounds the Table's latched entries: one per alert code.
const MaxLatched = baccarat.NumAlertCodes

// afterInput runs the checks that follow every input: betting reopening
// when a coup ends, the advantage check after a card, and the gate.
func (t *Table) afterInput(in Input, seq uint64, at time.Time, out *[]Output) {
	f := t.fold
	cur := f.Coup()
	coupOver := f.Phase() == PhaseBetween || (f.Phase() == PhaseCoup && (f.Voided() || cur.Complete()) && !f.Options().Markers)
	if coupOver && (in.Kind == InputButton || in.Kind == InputCard || in.Kind == InputVoid) {
		t.betsOpen = true
	}
	if t.cfg.Gate {
		locked := t.gateShouldLock()
		if locked != t.gate {
			t.gate = locked
			*out = append(*out, Output{Kind: OutputGate, ID: GateID(t.cfg.Table, seq),
				Seq: seq, Time: at, Shoe: f.Shoe(), ShoeID: t.shoeID, Coup: f.CoupNumber(), GateLocked: locked})
		}
	}
}

// gateShouldLock: the tableau needs no card — the current coup is complete
// or voided and not yet closed by the coup button, or betting is open on a
// table that requires it closed, or the shoe is offline.
func (t *Table) gateShouldLock() bool {
	f := t.fold
	c := f.Coup()
	if f.Phase() == PhaseCoup && f.Options().Markers && (f.Voided() || c.Complete()) {
		return true
	}
	if t.cfg.RequireBetsClosed && t.betsOpen && f.Phase() != PhaseBurn && f.Phase() != PhaseNoShoe &&
		(f.Phase() == PhaseBetween || c.Cards() == 0 || c.Complete()) {
		return true
	}
	return false
}

// TableView is a snapshot of the table for displays, the MQTT state topic
// and the scoreboard.
type TableView struct {
	Table  string `json:"table"`
	Shoe   int    `json:"shoe"`
	ShoeID string `json:"shoe_id"`
	Phase  string `json:"phase"` // "no-shoe", "burn", "between" or "coup"
	Coup   int    `json:"coup"`  // current (or last) coup number
	// Player and Banker are the current coup's cards (the last coup's
	// between coups, until the next coup starts).
	Player      baccarat.Hand `json:"player"`
	Banker      baccarat.Hand `json:"banker"`
	PlayerTotal int           `json:"player_total"`
	BankerTotal int           `json:"banker_total"`
	Waiting     string        `json:"waiting"` // Need: "player", ..., "complete"
	// Banque only (empty otherwise): Player is the right tableau, Left the
	// left one; RightWinner and LeftWinner each tableau's result against
	// the banker once complete (WinnerPlayer: the tableau wins). The
	// displays show all three totals.
	Left        baccarat.Hand   `json:"left,omitzero"`
	LeftTotal   int             `json:"left_total,omitempty"`
	RightWinner baccarat.Winner `json:"right_winner,omitzero"`
	LeftWinner  baccarat.Winner `json:"left_winner,omitzero"`
	Banque      bool            `json:"banque,omitempty"`
	Complete    bool            `json:"complete"`
	Voided      bool            `json:"voided"`
	Winner      baccarat.Winner `json:"winner,omitzero"`
	Natural     bool            `json:"natural"`
	BurnDrawn   int             `json:"burn_drawn"`
	BurnWant    int             `json:"burn_want"`
	CutCard     bool            `json:"cut_card"`
	LastCoup    int             `json:"last_coup,omitempty"`
	// IsLastCoup: the current or next coup is the shoe's last.
	IsLastCoup bool           `json:"is_last_coup"`
	CardsDrawn int            `json:"cards_drawn"`
	Remaining  int            `json:"cards_remaining"`
	ByRank     map[string]int `json:"remaining_by_rank"`
	// Alerts are the latched entries (one per alert code awaiting
	// acknowledgement, see LatchedAlert) in the order their first alert
	// was raised; AlertCount is the number of alerts they coalesce.
	Alerts     []LatchedAlert `json:"alerts"`
	AlertCount int            `json:"alert_count"`
	Offline    bool           `json:"offline"`
	BetsOpen   bool           `json:"bets_open"`
	GateLocked bool           `json:"gate_locked"`
	// Results are the shoe's completed coups, voided coups left out: the
	// newest MaxShoeResults; ResultsDropped sums up the older ones dropped
	// (zero in a real shoe).
	Results        []CoupResult   `json:"results"`
	ResultsDropped ResultsSummary `json:"results_dropped,omitzero"`
	// Advantage is the live advantage check after the last card drawn
	// (with TableConfig.AdvantageThreshold on): every offered bet whose
	// exact expectation for the player on the next coup dealt from the
	// shoe as it stands now exceeds the threshold, in the order banker,
	// player, tie, player pair, banker pair, Dragon 7, Panda 8. Empty when
	// the check is off, no bet qualifies, or fewer than six cards remain.
	Advantage []odds.AdvantageBet `json:"advantage,omitempty"`
	// Dealer is the dealer signed in, "" when none is.
	Dealer string `json:"dealer"`
	// Shift is the current shift's per-dealer counts (zero, and
	// omitted, before the first input): at most MaxShiftDealers dealers.
	Shift ShiftView `json:"shift,omitzero"`
}

// MaxViewAlerts bounds TableView.Alerts, so a view costs the same however
// many alerts wait for acknowledgement: every latched entry, one per alert
// code (MaxLatched).
const MaxViewAlerts = MaxLatched

// View returns the current snapshot. Its slices are copies.
func (t *Table) View() TableView {
	f := t.fold
	v := TableView{
		Table: t.cfg.Table, Shoe: f.Shoe(), ShoeID: t.shoeID, Phase: f.Phase().String(), Coup: f.CoupNumber(),
		CutCard: f.CutCard(), LastCoup: f.LastCoup(), CardsDrawn: t.inShoe, Offline: t.offline,
		BetsOpen: t.betsOpen, GateLocked: t.gate,
		Alerts:         append([]LatchedAlert{}, t.latched[max(0, len(t.latched)-MaxViewAlerts):]...),
		AlertCount:     t.latchedCount(),
		Results:        append([]CoupResult{}, t.results...),
		ResultsDropped: t.dropped,
		Dealer:         f.Dealer(),
		Shift:          t.shiftView(),
	}
	v.BurnDrawn, v.BurnWant = f.Burn()
	c := t.lastCoup
	if f.Phase() == PhaseCoup {
		c = f.Coup()
	}
	v.Player, v.Banker = c.Player, c.Banker
	v.PlayerTotal, v.BankerTotal = c.PlayerTotal(), c.BankerTotal()
	v.Waiting = c.Need().String()
	if c.Game().Name() == "banque" {
		v.Banque, v.Left, v.LeftTotal = true, c.Left, c.LeftTotal()
		v.RightWinner, v.LeftWinner = c.SideWinners()
	}
	if c.Cards() > 0 {
		v.Complete = c.Complete()
		v.Winner = c.Winner()
		v.Natural = v.Complete && c.Natural()
	}
	// Voided: the current coup is voided, or, between coups, the last one
	// was.
	v.Voided = f.Voided() || (f.Phase() != PhaseCoup && t.lastVoided)
	if f.LastCoup() > 0 {
		next := f.CoupNumber()
		if cur := f.Coup(); f.Phase() != PhaseCoup || cur.Complete() || f.Voided() {
			next++
		}
		v.IsLastCoup = next >= f.LastCoup() || f.CoupNumber() == f.LastCoup()
	}
	comp := f.Composition()
	if comp.Decks() > 0 {
		v.Remaining = comp.Remaining()
		v.ByRank = make(map[string]int, card.NumRanks)
		for r := card.RankAce; r <= card.RankKing; r++ {
			v.ByRank[r.String()] = comp.RemainingRank(r)
		}
	}
	if adv := t.liveAdvantage(); len(adv) > 0 {
		v.Advantage = append([]odds.AdvantageBet(nil), adv...)
	}
	return v
}

// liveAdvantage returns the live advantage check for the shoe as it stands,
// recomputing it (exact odds, about 60 µs) only when a card has been drawn
// since the last call.
func (t *Table) liveAdvantage() []odds.AdvantageBet {
	f := t.fold
	if !t.cfg.AdvantageThreshold.On() || f.Shoe() == 0 {
		return nil
	}
	at := [2]int{f.Shoe(), t.inShoe}
	if t.advValid && t.advAt == at {
		return t.adv
	}
	var buf [odds.NumMainBets]odds.BetEV
	bets, err := f.Advantages(buf[:0], t.cfg.AdvantageThreshold.Value())
	t.adv = t.adv[:0]
	if err == nil { // an error: fewer than six cards left, nothing to value
		for _, b := range bets {
			t.adv = append(t.adv, odds.AdvantageBet{Bet: odds.OddsKey(b.Bet), EV: b.EV})
		}
	}
	t.advAt, t.advValid = at, true
	return t.adv
}

// latchedCount is the number of alerts awaiting acknowledgement (the sum
// of the entries' counts), saturating at the largest int.
func (t *Table) latchedCount() int {
	n := 0
	for _, a := range t.latched {
		n = min(n, math.MaxInt-a.Count) + a.Count
	}
	return n
}

// Latched returns the latched entries (one per alert code awaiting
// acknowledgement), in the order their first alert was raised.
func (t *Table) Latched() []LatchedAlert { return append([]LatchedAlert(nil), t.latched...) }

// GateLocked reports whether the gate should be locked now.
func (t *Table) GateLocked() bool { return t.gate }
