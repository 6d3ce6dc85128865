package tableau

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// SnapshotVersion is the version of the snapshot format Snapshot writes
// and the newest RestoreTable reads. Version 1 is a JSON object; a
// snapshot of another version is refused with ErrSnapshotVersion.
const SnapshotVersion = 1

// ErrSnapshotVersion is wrapped when a snapshot has a version RestoreTable
// does not read (written by a newer Sabot, or not a snapshot at all).
var ErrSnapshotVersion = errors.New("tableau: unsupported snapshot version")

// ErrSnapshot is wrapped when a snapshot cannot be decoded or holds a
// state no sequence of inputs can reach (a corrupt snapshot).
var ErrSnapshot = errors.New("tableau: bad snapshot")

// snapCard is a card with its UID (Card's own JSON form drops the UID and
// refuses invalid cards).
type snapCard struct {
	R Rank   `json:"r,omitempty"`
	S Suit   `json:"s,omitempty"`
	U string `json:"u,omitempty"`
}

func toSnapCard(c Card) snapCard { return snapCard{c.Rank, c.Suit, c.UID} }
func (c snapCard) card() Card    { return Card{Rank: c.R, Suit: c.S, UID: c.U} }
func toSnapHand(h baccarat.Hand) []snapCard {
	return snapCards(h.Cards[:max(0, min(h.N, baccarat.MaxHandCards))])
}

func snapCards(cs []Card) []snapCard {
	out := make([]snapCard, len(cs))
	for i, c := range cs {
		out[i] = toSnapCard(c)
	}
	return out
}

// restoreCoup sets c's hands and its option state (the hand whose turn
// it is, the dead flag, the choices made) from a snapshot's fields; what
// begins the names in its errors ("" for the coup in progress, "last
// coup's " for the one shown between coups).
func (s *tableSnap) restoreCoup(c *baccarat.Coup, what string, player, banker, left []snapCard, turn int, dead bool, opts []baccarat.OptionChoice) error {
	var err error
	if c.Player, err = s.hand(player, what+"player hand"); err != nil {
		return err
	}
	if c.Banker, err = s.hand(banker, what+"banker hand"); err != nil {
		return err
	}
	if c.Left, err = s.hand(left, what+"left hand"); err != nil {
		return err
	}
	if turn < 0 || turn > baccarat.MaxOptions || len(opts) > baccarat.MaxOptions {
		return fmt.Errorf("%w: %sturn %d, %d options", ErrSnapshot, what, turn, len(opts))
	}
	c.Restore(turn, dead, opts)
	return nil
}

func (s *tableSnap) hand(cs []snapCard, what string) (baccarat.Hand, error) {
	var h baccarat.Hand
	if len(cs) > baccarat.MaxHandCards {
		return h, fmt.Errorf("%w: %s holds %d cards", ErrSnapshot, what, len(cs))
	}
	for i, c := range cs {
		h.Cards[i] = c.card()
		if !h.Cards[i].Valid() {
			return h, fmt.Errorf("%w: %s: invalid card (rank %d, suit %d)", ErrSnapshot, what, c.R, c.S)
		}
	}
	h.N = len(cs)
	return h, nil
}

// snapCount is one output counter: shoe, coup, kind and the count.
type snapCount [4]int

// snapLatched is a latched entry in its own JSON form, except the card,
// which keeps its UID (its "card" key shadows LatchedAlert's).
type snapLatched struct {
	LatchedAlert
	Card snapCard `json:"card"`
}

// tableSnap is version 1 of the snapshot: every field of Table and Fold
// that is state (not configuration, not a cache). snapshot_test.go fails
// if Table or Fold gains a field that is neither here nor listed there as
// derived.
type tableSnap struct {
	V int `json:"v"`

	// Fold.
	Shoe     int        `json:"shoe"`
	Phase    Phase      `json:"phase"`
	Decks    int        `json:"decks"` // the composition's decks (the shoe's, which a new config may change)
	Drawn    int        `json:"drawn"`
	Rank     []int16    `json:"rank"`   // by Rank, 1–13
	Suited   [][]int16  `json:"suited"` // by Rank 1–13, then Suit 1–4
	BurnN    int        `json:"burn_n"`
	BurnWant int        `json:"burn_want"`
	CoupNum  int        `json:"coup_num"`
	Player   []snapCard `json:"player"`
	Banker   []snapCard `json:"banker"`
	Voided   bool       `json:"voided"`
	Cut      bool       `json:"cut"`
	LastCoup int        `json:"last_coup"`
	// The coup's state beyond its hands in the games with options
	// (game*.go): banque's left tableau, whose turn it is, a stand at a
	// forced draw, the choices made. Omitted when empty, so punto banco
	// snapshots read as before.
	Left    []snapCard              `json:"left,omitempty"`
	Turn    int                     `json:"turn,omitempty"`
	Dead    bool                    `json:"dead,omitempty"`
	Options []baccarat.OptionChoice `json:"options,omitempty"`

	// Table.
	ShoeID      string        `json:"shoe_id"`
	CurShoe     int           `json:"cur_shoe"`
	InShoe      int           `json:"in_shoe"`
	UIDs        []snapCard    `json:"uids"` // sorted by UID
	Counts      []snapCount   `json:"counts"`
	Latched     []snapLatched `json:"latched"`
	Offline     bool          `json:"offline"`
	BetsOpen    bool          `json:"bets_open"`
	Gate        bool          `json:"gate"`
	Results     []CoupResult  `json:"results"`
	ShownPlayer []snapCard    `json:"shown_player"` // Table.lastCoup
	ShownBanker []snapCard    `json:"shown_banker"`
	// The last coup's game and its state beyond the two hands, where the
	// table's game is not punto banco's deal (Game{}): without them a
	// restored banque or chemin de fer table showed its last coup as a
	// punto banco coup of the same cards. Omitted when empty.
	ShownGame    bool                    `json:"shown_game,omitempty"`
	ShownLeft    []snapCard              `json:"shown_left,omitempty"`
	ShownTurn    int                     `json:"shown_turn,omitempty"`
	ShownDead    bool                    `json:"shown_dead,omitempty"`
	ShownOptions []baccarat.OptionChoice `json:"shown_options,omitempty"`
	LastVoided   bool                    `json:"last_voided"`
	LastSeq      uint64                  `json:"last_seq"`
	PrevShoe     int                     `json:"prev_shoe"`
	PrevID       string                  `json:"prev_id"`
	// Overrun is read and ignored: older versions saved whether the table
	// had raised shoe-overrun; the fold now derives it from the cards drawn.
	Overrun bool           `json:"overrun,omitempty"`
	Dropped ResultsSummary `json:"results_dropped,omitzero"` // results dropped past MaxShoeResults

	// Dealers (dealer.go): the dealer signed in (Fold.dealer), the
	// shift's start and counts. Omitted when empty, so snapshots of
	// tables without dealers read as before.
	Dealer      string         `json:"dealer,omitempty"`
	ShiftStart  *time.Time     `json:"shift_start,omitempty"`
	Shift       []DealerCounts `json:"shift,omitempty"`
	ShiftOthers *DealerCounts  `json:"shift_others,omitempty"`
}

// Snapshot encodes the table's state (not its configuration) so that
// RestoreTable rebuilds a table that, given the same further inputs, gives
// byte-identical outputs, ids and views to this one. The encoding is
// versioned (SnapshotVersion) and deterministic: the same state gives the
// same bytes. Its size is bounded by constants: UIDs seen ≤ MaxShoeUIDs,
// output counters of two coups, coup results ≤ MaxShoeResults, latched
// entries ≤ MaxLatched.
func (t *Table) Snapshot() ([]byte, error) {
	f := t.fold
	cs := f.comp.State()
	s := tableSnap{
		V:    SnapshotVersion,
		Shoe: f.shoe, Phase: f.phase, Decks: cs.Decks, Drawn: cs.Drawn,
		BurnN: f.burnN, BurnWant: f.burnWant, CoupNum: f.coupNum,
		Player: toSnapHand(f.coup.Player), Banker: toSnapHand(f.coup.Banker), Left: toSnapHand(f.coup.Left),
		Turn: f.coup.Turn(), Dead: f.coup.Dead(), Options: f.coup.Options(),
		Voided: f.voided, Cut: f.cut, LastCoup: f.lastCoup,

		ShoeID: t.shoeID, CurShoe: t.curShoe, InShoe: t.inShoe,
		Offline: t.offline, BetsOpen: t.betsOpen, Gate: t.gate,
		Results:     append([]CoupResult{}, t.results...),
		ShownPlayer: toSnapHand(t.lastCoup.Player), ShownBanker: toSnapHand(t.lastCoup.Banker),
		ShownGame: t.lastCoup.Game() != baccarat.Game{}, ShownLeft: toSnapHand(t.lastCoup.Left),
		ShownTurn: t.lastCoup.Turn(), ShownDead: t.lastCoup.Dead(), ShownOptions: t.lastCoup.Options(),
		LastVoided: t.lastVoided, LastSeq: t.lastSeq, PrevShoe: t.prevShoe, PrevID: t.prevID,
		Dropped: t.dropped,
		Dealer:  f.dealer, Shift: t.shift,
	}
	if !t.shiftStart.IsZero() {
		st := t.shiftStart.UTC()
		s.ShiftStart = &st
	}
	if o := t.shiftOthers; o.Coups != 0 || o.Voids != 0 || len(o.Alerts) > 0 {
		s.ShiftOthers = &o
	}
	s.Rank = append([]int16{}, cs.Rank[:]...)
	for r := range cs.Suited {
		s.Suited = append(s.Suited, append([]int16{}, cs.Suited[r][:]...))
	}
	s.UIDs = make([]snapCard, 0, len(t.uids))
	for uid, c := range t.uids {
		sc := toSnapCard(c)
		sc.U = uid
		s.UIDs = append(s.UIDs, sc)
	}
	slices.SortFunc(s.UIDs, func(a, b snapCard) int { return cmp.Compare(a.U, b.U) })
	s.Counts = []snapCount{}
	for _, c := range []coupCounts{t.prevCounts, t.counts} {
		for kind, n := range c.n {
			if n > 0 {
				s.Counts = append(s.Counts, snapCount{c.shoe, c.coup, kind, n})
			}
		}
	}
	slices.SortFunc(s.Counts, func(a, b snapCount) int { return slices.Compare(a[:], b[:]) })
	s.Latched = make([]snapLatched, len(t.latched))
	for i, a := range t.latched {
		s.Latched[i] = snapLatched{LatchedAlert: a, Card: toSnapCard(a.Card)}
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("tableau: snapshot: %w", err)
	}
	return b, nil
}

func decodeSnap(data []byte) (*tableSnap, error) {
	var head struct {
		V *int `json:"v"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	if head.V == nil {
		return nil, fmt.Errorf("%w: no version (not a table snapshot)", ErrSnapshotVersion)
	}
	if *head.V != SnapshotVersion {
		return nil, fmt.Errorf("%w: found version %d, this Sabot reads version %d", ErrSnapshotVersion, *head.V, SnapshotVersion)
	}
	var s tableSnap
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	return &s, nil
}

// RestoreTable returns a table configured by cfg in the state a snapshot
// (Table.Snapshot) holds. The snapshot carries state, not configuration:
// cfg applies from now on, and the current shoe keeps the number of decks
// it began with. Errors: those of NewTable; ErrSnapshotVersion for a
// snapshot of another version; ErrSnapshot for one that cannot be decoded
// or is inconsistent. Nothing panics on any data.
func RestoreTable(cfg TableConfig, data []byte) (*Table, error) {
	t, err := NewTable(cfg)
	if err != nil {
		return nil, err
	}
	s, err := decodeSnap(data)
	if err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrSnapshot, fmt.Sprintf(format, a...))
	}
	f := t.fold
	if s.Phase > PhaseCoup {
		return nil, bad("phase %d", s.Phase)
	}
	if s.Shoe < 0 || s.CoupNum < 0 || s.BurnN < 0 || s.BurnWant < 0 || s.LastCoup < 0 || s.InShoe < 0 || s.Drawn < 0 {
		return nil, bad("negative count")
	}
	if (s.Phase == PhaseNoShoe) != (s.Shoe == 0) {
		return nil, bad("shoe %d in phase %s", s.Shoe, s.Phase)
	}
	cs := f.comp.State()
	if s.Shoe > 0 {
		if s.Decks < 1 || s.Decks > baccarat.MaxDecks {
			return nil, bad("%d decks", s.Decks)
		}
		cs.Decks = s.Decks
	}
	if len(s.Rank) != card.NumRanks || len(s.Suited) != card.NumRanks {
		return nil, bad("composition of %d ranks", len(s.Rank))
	}
	cs.Drawn = s.Drawn
	copy(cs.Rank[:], s.Rank)
	for r, row := range s.Suited {
		if len(row) != card.NumSuits {
			return nil, bad("composition of %d suits", len(row))
		}
		copy(cs.Suited[r][:], row)
	}
	f.comp.SetState(cs)
	f.shoe, f.phase, f.burnN, f.burnWant, f.coupNum = s.Shoe, s.Phase, s.BurnN, s.BurnWant, s.CoupNum
	if err := s.restoreCoup(&f.coup, "", s.Player, s.Banker, s.Left, s.Turn, s.Dead, s.Options); err != nil {
		return nil, err
	}
	f.voided, f.cut, f.lastCoup = s.Voided, s.Cut, s.LastCoup

	t.shoeID, t.curShoe, t.inShoe = s.ShoeID, s.CurShoe, s.InShoe
	for _, c := range s.UIDs {
		if c.U == "" {
			return nil, bad("empty UID")
		}
		t.uids[c.U] = c.card()
	}
	// The counters in (shoe, coup) order (the snapshot sorts them): the
	// last coup's are the current ones, the one before's the previous.
	for _, c := range s.Counts {
		if c[2] < int(OutputCard) || c[2] > int(OutputGate) {
			return nil, bad("output counter of kind %d", c[2])
		}
		if c[0] != t.counts.shoe || c[1] != t.counts.coup {
			t.prevCounts, t.counts = t.counts, coupCounts{shoe: c[0], coup: c[1]}
		}
		t.counts.n[c[2]] = c[3]
	}
	for _, a := range s.Latched {
		if len(t.latched) == MaxLatched {
			return nil, bad("more than %d latched entries", MaxLatched)
		}
		l := a.LatchedAlert
		l.Card = a.Card.card()
		t.latched = append(t.latched, l)
	}
	t.offline, t.betsOpen, t.gate = s.Offline, s.BetsOpen, s.Gate
	if len(s.Results) > MaxShoeResults || len(s.UIDs) > MaxShoeUIDs || s.Dropped.Coups < 0 {
		return nil, bad("%d results (%d dropped), %d UIDs: more than a shoe keeps", len(s.Results), s.Dropped.Coups, len(s.UIDs))
	}
	t.results = append(t.results[:0], s.Results...)
	t.dropped = s.Dropped
	if s.ShownGame {
		t.lastCoup = baccarat.NewCoup(f.opts.Rules.Game)
	}
	if err := s.restoreCoup(&t.lastCoup, "last coup's ", s.ShownPlayer, s.ShownBanker, s.ShownLeft, s.ShownTurn, s.ShownDead, s.ShownOptions); err != nil {
		return nil, err
	}
	t.lastVoided, t.lastSeq, t.prevShoe, t.prevID = s.LastVoided, s.LastSeq, s.PrevShoe, s.PrevID
	if err := t.restoreDealers(s); err != nil {
		return nil, bad("%v", err)
	}
	return t, nil
}
