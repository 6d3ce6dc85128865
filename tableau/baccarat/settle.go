package baccarat

import (
	"errors"
	"fmt"

	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/enum"
)

// ErrRules is wrapped by rule-profile errors (unknown game, bad tie payout).
var ErrRules = errors.New("tableau: bad rules")

// Rules is a table's rule profile: the game (see Game: it carries the
// dealing and drawing rules too), the commission, the tie and
// pair payouts and the side bets offered with their pay tables (the house
// rules: see houserules.go). The zero value is punto banco with a 5%
// commission, ties paying 8:1, pairs 11:1 (suited or not) and no side bet.
type Rules struct {
	Game Game
	// Commission is the house's share of a banker win (zero value: the
	// game's usual, 5% under punto banco; see Commission).
	Commission Commission
	TiePays    int // tie pays TiePays:1; 8 or 9; 0 means 8
	// PairPays is what player pair and banker pair pay, to 1: 0 means 11
	// (the usual table); some houses pay 12. 1–MaxSidePay.
	PairPays int
	// PairSuitedPays is what player pair and banker pair pay, to 1, when
	// the pair is suited (the two cards of the same rank and suit; some
	// houses pay 25): 0 means the same as PairPays (no suited pay, the
	// usual table). When set it is PairPays–MaxSidePay. A pair whose
	// suit is unknown (a rank-only read) is not settled while a suited
	// pair pays more, as Perfect Pair is not (see PairSuitedPayout).
	PairSuitedPays int
	Side           SideRules // side bets offered (none in the zero value)
}

// SideRules says which side bets a table offers (see sidebets.go) and
// what they pay.
type SideRules struct {
	Offered SideSet
	Pays    SidePays // zero fields: DefaultSidePays
}

// tiePays returns the effective tie payout.
func (r Rules) tiePays() int {
	if r.TiePays == 0 {
		return 8
	}
	return r.TiePays
}

// pairPays returns the effective pair payout.
func (r Rules) pairPays() int {
	if r.PairPays == 0 {
		return 11
	}
	return r.PairPays
}

// pairSuitedPays returns the effective suited pair payout: PairSuitedPays,
// or the pair payout when it is 0.
func (r Rules) pairSuitedPays() int {
	if r.PairSuitedPays == 0 {
		return r.pairPays()
	}
	return r.PairSuitedPays
}

// SuitedPairPaysMore reports whether a suited pair pays more than an
// unsuited one (the house rule is on): only then does a pair bet hang on
// the suits.
func (r Rules) SuitedPairPaysMore() bool { return r.pairSuitedPays() > r.pairPays() }

// pairSuit says what the first two cards of a hand are as a pair bet
// sees them.
type pairSuit uint8

const (
	noPair          pairSuit = iota // different ranks
	pairUnsuited                    // same rank, different suits
	pairSuited                      // same rank and suit
	pairSuitUnknown                 // same rank, a suit unknown (a rank-only read)
)

// pairSuitOf returns what h's first two cards are as a pair. It is the one
// test of a suited pair: the pair bets' suited pay and Perfect Pair both
// use it.
func pairSuitOf(h *Hand) pairSuit {
	if !h.Pair() {
		return noPair
	}
	a, b := h.Cards[0].Suit, h.Cards[1].Suit
	switch {
	case a == card.SuitUnknown || b == card.SuitUnknown:
		return pairSuitUnknown
	case a == b:
		return pairSuited
	}
	return pairUnsuited
}

// pairPayout settles a pair bet on a hand whose first two cards are k: a
// suited pair pays the suited payout, any other pair the pair payout. A
// pair whose suit is unknown is not settled (the zero Payout) when a
// suited pair pays more, since its payout hangs on that suit; otherwise
// it pays the pair payout.
func (r Rules) pairPayout(k pairSuit) Payout {
	switch k {
	case noPair:
		return lose
	case pairSuited:
		return win(float64(r.pairSuitedPays()))
	case pairSuitUnknown:
		if r.SuitedPairPaysMore() {
			return Payout{}
		}
	}
	return win(float64(r.pairPays()))
}

// Validate checks the profile: a known game, a commission the game takes,
// a tie payout of 8 or 9, pair and side-bet payouts in range. It returns
// the first finding of Problems (an *RuleError, wrapping ErrRules), or nil.
func (r Rules) Validate() error {
	return r.firstProblem()
}

// String formats the profile as "punto-banco tie 8:1", with
// " commission 4%" when a commission other than 5% is set, " pair 12:1"
// when pairs do not pay 11, " suited pair 25:1" when a suited pair pays
// more, followed by " side dragon-player,lucky6" when side bets are
// offered.
func (r Rules) String() string {
	s := r.Game.String()
	if r.Game.DealsPuntoBanco() {
		s += fmt.Sprintf(" tie %d:1", r.tiePays())
	}
	if r.Commission.set && r.CommissionBP() != DefaultCommissionBP {
		s += " commission " + formatBP(r.CommissionBP())
	}
	if p := r.pairPays(); p != 11 {
		s += fmt.Sprintf(" pair %d:1", p)
	}
	if r.SuitedPairPaysMore() {
		s += fmt.Sprintf(" suited pair %d:1", r.pairSuitedPays())
	}
	if r.Side.Offered != 0 {
		s += " side " + r.Side.Offered.String()
	}
	return s
}

// Bet is a wager on a coup.
type Bet uint8

// The bets. Dragon 7 and Panda 8 are offered only under GameEZ.
const (
	BetPlayer Bet = iota
	BetBanker
	BetTie
	BetPlayerPair // the player's first two cards share a rank; pays 11:1
	BetBankerPair // the banker's first two cards share a rank; pays 11:1
	BetDragon7    // EZ: banker wins with a three-card 7; pays 40:1
	BetPanda8     // EZ: player wins with a three-card 8; pays 25:1
)

// Bets lists every bet.
var Bets = []Bet{BetPlayer, BetBanker, BetTie, BetPlayerPair, BetBankerPair, BetDragon7, BetPanda8}

// String returns "player", "banker", "tie", "player-pair", "banker-pair",
// "dragon7" or "panda8".
func (b Bet) String() string {
	switch b {
	case BetPlayer:
		return "player"
	case BetBanker:
		return "banker"
	case BetTie:
		return "tie"
	case BetPlayerPair:
		return "player-pair"
	case BetBankerPair:
		return "banker-pair"
	case BetDragon7:
		return "dragon7"
	case BetPanda8:
		return "panda8"
	case BetRight:
		return "right"
	case BetLeft:
		return "left"
	case BetACheval:
		return "a-cheval"
	}
	if IsSideBet(b) {
		return sideBetNames[b-BetPerfectPair]
	}
	return fmt.Sprintf("Bet(%d)", uint8(b))
}

// Offers reports whether the profile offers bet b: in chemin de fer the
// punters' side (player) and the bank's (banker) only; in banque right,
// left and à cheval only.
func (r Rules) Offers(b Bet) bool {
	if !r.Game.DealsPuntoBanco() {
		switch r.Game.def.(type) {
		case banqueGame:
			return b == BetRight || b == BetLeft || b == BetACheval
		}
		return b == BetPlayer || b == BetBanker
	}
	switch b {
	case BetPlayer, BetBanker, BetTie, BetPlayerPair, BetBankerPair:
		return true
	case BetDragon7, BetPanda8:
		return r.Game == GameEZ
	case BetRight, BetLeft, BetACheval:
		return false
	}
	return r.Side.Offered.Has(b)
}

// Outcome is a bet's result. OutcomeNone (zero) means "not settled".
type Outcome uint8

// The outcomes.
const (
	OutcomeNone Outcome = iota
	Win
	Lose
	Push
)

// String returns "win", "lose", "push" or "".
func (o Outcome) String() string { return outcomeNames.Word(o) }

var outcomeNames = enum.Names[Outcome]{Words: []string{Win: "win", Lose: "lose", Push: "push"}}

// MarshalText encodes the String ("" for OutcomeNone).
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText decodes "win", "lose", "push" or "".
func (o *Outcome) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*o = OutcomeNone
		return nil
	}
	return outcomeNames.Decode(o, b, "outcome")
}

// Payout is a settled bet: the outcome and the net result per unit staked
// (a win at 19:20 is +0.95, a loss -1, a push 0).
type Payout struct {
	Outcome Outcome `json:"result"`
	Net     float64 `json:"net"`
}

func win(net float64) Payout { return Payout{Win, net} }

var (
	lose = Payout{Lose, -1}
	push = Payout{Push, 0}
)

// Errors returned by Settle.
var (
	ErrCoupIncomplete = errors.New("tableau: coup not complete")
	ErrBetNotOffered  = errors.New("tableau: bet not offered under these rules")
)

// Settle settles bet b on the complete coup c under the profile r. Errors:
// ErrCoupIncomplete if c is not complete, ErrBetNotOffered if the profile
// does not offer b (wrapped), ErrRules for an invalid profile.
//
// Payouts (net per unit): player wins 1:1 (+1). Banker wins: punto banco
// less the commission (+0.95 at the usual 5%, +0.96 at 4%); Super 6 1:1, but 1:2 (+0.5) on a total
// of 6; EZ 1:1, but a push on a Dragon 7. Player and banker bets push on a
// tie. Tie pays TiePays:1. Player pair and banker pair pay PairPays:1
// (11:1), a suited pair PairSuitedPays:1 (the same unless set); a pair
// whose suit is unknown while a suited pair pays more is not settled (the
// zero Payout, no error). Dragon 7 pays 40:1, Panda 8 25:1. Every losing
// bet is -1.
func (r Rules) Settle(c Coup, b Bet) (Payout, error) {
	if err := r.Validate(); err != nil {
		return Payout{}, err
	}
	if !r.Offers(b) {
		return Payout{}, fmt.Errorf("%w: %s under %s", ErrBetNotOffered, b, r.Game.Name())
	}
	if r.Game == GameBanque {
		if rw, _ := c.SideWinners(); rw == WinnerNone {
			return Payout{}, ErrCoupIncomplete
		}
		var e CoupEvent
		c.fillEvent(&e, r, 0, 0, true)
		return e.Settlement.Of(b), nil
	}
	f := c.facts()
	if f.winner == WinnerNone {
		return Payout{}, ErrCoupIncomplete
	}
	if IsSideBet(b) {
		sf := c.sideFacts()
		p := r.Side.Pays.effective()
		return settleSide(&f, &sf, b, &p), nil
	}
	return r.settle(&f, b), nil
}

// settle is Settle for a valid profile offering b, on a complete coup
// described by f.
func (r Rules) settle(f *coupFacts, b Bet) Payout {
	w := f.winner
	switch b {
	case BetPlayer:
		return sidePayout(w)
	case BetBanker:
		switch w {
		case WinnerTie:
			return push
		case WinnerPlayer:
			return lose
		}
		switch r.Game.payProfile() {
		case paySuper6:
			if f.bankerWinsOn6 {
				return win(0.5)
			}
			return win(1)
		case payEZ:
			if f.dragon7 {
				return push
			}
			return win(1)
		}
		return win(r.BankerNet()) // 1 − the commission
	case BetTie:
		if w == WinnerTie {
			return win(float64(r.tiePays()))
		}
		return lose
	case BetPlayerPair:
		return r.pairPayout(f.playerSuit)
	case BetBankerPair:
		return r.pairPayout(f.bankerSuit)
	case BetDragon7:
		if f.dragon7 {
			return win(40)
		}
		return lose
	case BetPanda8:
		if f.panda8 {
			return win(25)
		}
		return lose
	}
	return Payout{}
}

// Settlement is every offered bet settled on one coup. Bets the profile
// does not offer are the zero Payout (omitted from JSON).
type Settlement struct {
	Player     Payout `json:"player,omitzero"`
	Banker     Payout `json:"banker,omitzero"`
	Tie        Payout `json:"tie,omitzero"`
	PlayerPair Payout `json:"player_pair,omitzero"`
	BankerPair Payout `json:"banker_pair,omitzero"`
	Dragon7    Payout `json:"dragon7,omitzero"`
	Panda8     Payout `json:"panda8,omitzero"`

	// PlayerPair and BankerPair are zero too when a suited pair pays more
	// (Rules.PairSuitedPays) and a rank-only read leaves the pair's suit,
	// and so its payout, unknown.

	// The side bets, only when offered (Rules.Side). PerfectPair is also
	// zero when a rank-only read leaves its outcome unknown.
	PerfectPair  Payout `json:"perfect_pair,omitzero"`
	EitherPair   Payout `json:"either_pair,omitzero"`
	Big          Payout `json:"big,omitzero"`
	Small        Payout `json:"small,omitzero"`
	DragonPlayer Payout `json:"dragon_player,omitzero"`
	DragonBanker Payout `json:"dragon_banker,omitzero"`
	Lucky6       Payout `json:"lucky6,omitzero"`

	// Banque's bets (in its line's settlement as right, left, a_cheval).
	Right   Payout `json:"-"`
	Left    Payout `json:"-"`
	ACheval Payout `json:"-"`
}

// sidePayouts returns the side-bet fields of s in SideBets order.
func (s *Settlement) sidePayouts() [7]*Payout {
	return [7]*Payout{&s.PerfectPair, &s.EitherPair, &s.Big, &s.Small, &s.DragonPlayer, &s.DragonBanker, &s.Lucky6}
}

// settleSides fills the side bets r offers on the complete coup c (facts
// f) into s.
func (r Rules) settleSides(c *Coup, f *coupFacts, s *Settlement) {
	if r.Side.Offered == 0 {
		return
	}
	sf := c.sideFacts()
	p := r.Side.Pays.effective()
	for i, dst := range s.sidePayouts() {
		if b := SideBets[i]; r.Side.Offered.Has(b) {
			*dst = settleSide(f, &sf, b, &p)
		}
	}
}

// Of returns the payout of bet b (zero if not settled or not offered).
func (s *Settlement) Of(b Bet) Payout {
	switch b {
	case BetPlayer:
		return s.Player
	case BetBanker:
		return s.Banker
	case BetTie:
		return s.Tie
	case BetPlayerPair:
		return s.PlayerPair
	case BetBankerPair:
		return s.BankerPair
	case BetDragon7:
		return s.Dragon7
	case BetPanda8:
		return s.Panda8
	case BetRight:
		return s.Right
	case BetLeft:
		return s.Left
	case BetACheval:
		return s.ACheval
	}
	if IsSideBet(b) {
		return *s.sidePayouts()[b-BetPerfectPair]
	}
	return Payout{}
}

// SettleAll settles every bet the profile offers on the complete coup c.
// It returns the zero Settlement and an error if c is incomplete or the
// profile is invalid.
func (r Rules) SettleAll(c Coup) (Settlement, error) {
	if err := r.Validate(); err != nil {
		return Settlement{}, err
	}
	if r.Game == GameBanque {
		if rw, _ := c.SideWinners(); rw == WinnerNone {
			return Settlement{}, ErrCoupIncomplete
		}
		var e CoupEvent
		c.fillEvent(&e, r, 0, 0, true)
		return e.Settlement, nil
	}
	f := c.facts() // once for all bets: the fold settles every coup
	if f.winner == WinnerNone {
		return Settlement{}, ErrCoupIncomplete
	}
	var s Settlement
	dst := [...]*Payout{&s.Player, &s.Banker, &s.Tie, &s.PlayerPair, &s.BankerPair, &s.Dragon7, &s.Panda8}
	for i, b := range Bets {
		if r.Offers(b) {
			*dst[i] = r.settle(&f, b)
		}
	}
	r.settleSides(&c, &f, &s)
	return s, nil
}

// DealsPuntoBanco reports whether g is dealt by the punto banco tableau,
// every decision forced: punto banco, Super 6, EZ (the games Games lists,
// which differ in settlement only).
func (g Game) DealsPuntoBanco() bool {
	if g.def == nil {
		return true
	}
	_, ok := g.def.(puntoBancoGame)
	return ok
}
