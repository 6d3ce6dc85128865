package baccarat

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sabot-table/sabot/tableau/internal/enum"
)

// This file holds the house rules that differ from casino to casino and
// are configuration (sabotd's [rules] table, the CLI's --commission,
// --tie-pays, --pair-pays, --pair-suited-pays, --side-bets and --pays-*
// flags): the
// commission on a banker win, and the one validation of a whole profile
// (Rules.Problems), whose findings name the rule by its configuration key
// so that the daemon and the CLI each report it in their own terms.

// Commission is the share of a winning banker bet the house keeps in the
// games that charge one (punto banco; the bank in chemin de fer): a
// banker win then pays 1 − rate to 1 (+0.95 at 5%). It is held in basis
// points (hundredths of a percent), so every rate dealt — 5%, 4%, 2.5%,
// none — is exact.
//
// The zero value is the game's usual rate: 5% under punto banco, none
// under Super 6 and EZ (their banker rules replace the commission). A
// rate set explicitly (CommissionOf, ParseCommission) is used as it is;
// under Super 6 and EZ only 0 is valid.
//
// Note that below about 2.69% (8 decks) the banker bet has a positive
// expectation for the player off the top of the shoe: at 2.5% it is
// +0.089%, which the advantage check reports.
type Commission struct {
	set bool
	bp  uint16
}

// MaxCommissionBP bounds a commission: 1000 basis points, 10% (no table
// charges more; a larger figure is a typing error, such as 5 meant as 5%).
const MaxCommissionBP = 1000

// DefaultCommissionBP is the usual commission of punto banco: 5%.
const DefaultCommissionBP = 500

// CommissionOf returns the commission of bp basis points (500 is 5%),
// 0–MaxCommissionBP. Errors wrap ErrRules.
func CommissionOf(bp int) (Commission, error) {
	if bp < 0 || bp > MaxCommissionBP {
		return Commission{}, fmt.Errorf("%w: commission of %d basis points: want 0 to %d (10%%)", ErrRules, bp, MaxCommissionBP)
	}
	return Commission{set: true, bp: uint16(bp)}, nil
}

// ParseCommission parses a commission written as a percentage ("5%",
// "2.5%", "0%") or as a fraction of the banker's win ("0.05", "0.025",
// "0"); "" is the zero value (the game's usual rate). The rate must be a
// whole number of basis points (0.01%) from 0 to 10%. Errors wrap
// ErrRules and say how to write 5%.
func ParseCommission(s string) (Commission, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Commission{}, nil
	}
	pct := strings.HasSuffix(t, "%")
	num := strings.ReplaceAll(strings.TrimSpace(strings.TrimSuffix(t, "%")), "_", "")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Commission{}, fmt.Errorf("%w: commission %q: want a percentage such as \"5%%\" or \"2.5%%\", or a fraction such as 0.05", ErrRules, s)
	}
	scale := 10000.0 // a fraction
	if pct {
		scale = 100
	}
	bp := math.Round(v * scale)
	switch {
	case v < 0:
		return Commission{}, fmt.Errorf("%w: commission %q: must not be negative", ErrRules, s)
	case bp > MaxCommissionBP:
		hint := ""
		if !pct && v >= 1 {
			hint = fmt.Sprintf(" (a fraction of the banker's win: for %v%% write %q or %v)", v, num+"%", v/100)
		}
		return Commission{}, fmt.Errorf("%w: commission %q: at most 10%%%s", ErrRules, s, hint)
	case math.Abs(v*scale-bp) > 1e-6:
		return Commission{}, fmt.Errorf("%w: commission %q: want a whole number of hundredths of a percent (5%%, 4%%, 2.5%%)", ErrRules, s)
	}
	return Commission{set: true, bp: uint16(bp)}, nil
}

// IsSet reports whether the rate was set (the zero value is not: it is
// the game's usual rate).
func (c Commission) IsSet() bool { return c.set }

// BasisPoints returns the rate set, in basis points (0 for the zero
// value; see Rules.CommissionBP for the rate in force).
func (c Commission) BasisPoints() int { return int(c.bp) }

// String returns the rate as a percentage ("5%", "2.5%", "0%"), or ""
// for the zero value.
func (c Commission) String() string {
	if !c.set {
		return ""
	}
	return formatBP(int(c.bp))
}

// formatBP writes basis points as a percentage: 500 "5%", 250 "2.5%".
func formatBP(bp int) string {
	return strconv.FormatFloat(float64(bp)/100, 'f', -1, 64) + "%"
}

// MarshalText encodes String.
func (c Commission) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText decodes with ParseCommission: "5%", "0.05", or "" (the
// zero value). A TOML or JSON number arrives here as its text, so
// commission = 0.04 and commission = "4%" both read as 4%.
func (c *Commission) UnmarshalText(b []byte) error { return enum.UnmarshalText(c, b, ParseCommission) }

// CommissionBP returns the commission in force, in basis points: the rate
// set, or the game's usual one (DefaultCommissionBP under punto banco and
// chemin de fer, 0 under Super 6, EZ and banque).
func (r Rules) CommissionBP() int {
	if r.Commission.set {
		return int(r.Commission.bp)
	}
	if r.Game.takesCommission() {
		return DefaultCommissionBP
	}
	return 0
}

// TiePayout is the tie bet's payout in force, n of n:1 (8 when TiePays is
// 0).
func (r Rules) TiePayout() int { return r.tiePays() }

// PairPayout is the pair bets' payout in force, n of n:1 (11 when
// PairPays is 0).
func (r Rules) PairPayout() int { return r.pairPays() }

// PairSuitedPayout is the pair bets' payout in force on a suited pair, n
// of n:1: PairSuitedPays, or PairPayout when it is 0 (no suited pay).
func (r Rules) PairSuitedPayout() int { return r.pairSuitedPays() }

// Effective returns the pay table in force: p with each zero field
// replaced by its default (DefaultSidePays).
func (p SidePays) Effective() SidePays { return p.effective() }

// BankerNet is what a banker win pays per unit in a commission game: 1 −
// the commission (0.95 at 5%). The division is exact to the nearest
// float64, so 9500/10000 is the literal 0.95.
func (r Rules) BankerNet() float64 {
	return float64(10000-r.CommissionBP()) / 10000
}

// RuleError is a finding of Rules.Problems: Key names the rule as the
// configuration key of sabotd's [rules] table ("commission", "tie_pays",
// "pair_pays", "pair_suited_pays", "side_bets", "pays_dragon", …; the CLI flag is the same
// with '-' for '_', "--tie-pays"), or "game"; Msg says what is wrong
// with the value. It wraps ErrRules.
type RuleError struct {
	Key string
	Msg string
}

func (e *RuleError) Error() string { return ErrRules.Error() + ": " + e.Key + ": " + e.Msg }

// Unwrap returns ErrRules.
func (e *RuleError) Unwrap() error { return ErrRules }

// Problems returns everything wrong with the profile, one *RuleError per
// rule, in the order game, commission, tie_pays, pair_pays,
// pair_suited_pays, side_bets, then the side-bet pay tables; nil if it is valid. Validate is its first
// finding. It is the one validation of house rules: sabotd's
// configuration and the CLI flags both report its findings.
func (r Rules) Problems() []*RuleError { return r.problems(false) }

// ProblemsGiven is Problems for a profile read from configuration or
// flags, where TiePays, PairPays and every pay-table figure are always
// given (their defaults filled in before): 0 there is a bad value, not
// the default. PairSuitedPays is the exception: 0 is its given value for
// "no suited pay" (a suited pair pays the pair payout).
func (r Rules) ProblemsGiven() []*RuleError { return r.problems(true) }

func (r Rules) problems(given bool) []*RuleError {
	var out []*RuleError
	bad := func(key, format string, args ...any) {
		out = append(out, &RuleError{Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if !r.Game.valid() {
		bad("game", "invalid game")
	}
	if r.Side.Offered != 0 && !r.Game.DealsPuntoBanco() {
		bad("side_bets", "%s: side bets are not offered in %s", r.Side.Offered, r.Game.Name())
	}
	if c := r.Commission; c.set {
		switch {
		case c.bp > MaxCommissionBP:
			bad("commission", "%s: at most 10%%", formatBP(int(c.bp)))
		case c.bp != 0 && !r.Game.takesCommission() && r.Game.valid():
			why := "its banker rule replaces it"
			if !r.Game.DealsPuntoBanco() {
				why = "the house holds the bank"
			}
			bad("commission", "%s: %s charges no commission (%s); use 0 or leave it out", formatBP(int(c.bp)), r.Game, why)
		}
	}
	tie, pair := r.tiePays(), r.pairPays()
	if given {
		tie, pair = r.TiePays, r.PairPays
	}
	if t := tie; t != 8 && t != 9 {
		bad("tie_pays", "%d: a tie pays 8 or 9 to 1", t)
	}
	if p := pair; p < 1 || p > MaxSidePay {
		bad("pair_pays", "%d: want 1 to %d (usually 11, some houses 12)", p, MaxSidePay)
	}
	if s := r.PairSuitedPays; s != 0 {
		switch {
		case s < 0 || s > MaxSidePay:
			bad("pair_suited_pays", "%d: want 0 (a suited pair pays as any pair) or the pair payout to %d (some houses 25)", s, MaxSidePay)
		case pair >= 1 && pair <= MaxSidePay && s < pair:
			bad("pair_suited_pays", "%d: below pair_pays %d (a suited pair pays at least as much as any pair; 0 for the same)", s, pair)
		}
	}
	// A house rule the game does not use is refused, not ignored: chemin
	// de fer and banque have no tie bet and no pair bets. (A given
	// pair_pays or tie_pays at its default cannot be told from one left
	// out, and changes nothing.)
	if r.Game.valid() {
		none := func(key string, v int, bet string) {
			bad(key, "%d: %s has no %s; leave it out", v, r.Game.Name(), bet)
		}
		if !r.Offers(BetTie) && r.TiePays != 0 && r.TiePays != 8 {
			none("tie_pays", r.TiePays, "tie bet")
		}
		if !r.Offers(BetPlayerPair) {
			if r.PairPays != 0 && r.PairPays != 11 {
				none("pair_pays", r.PairPays, "pair bets")
			}
			if r.PairSuitedPays != 0 {
				none("pair_suited_pays", r.PairSuitedPays, "pair bets")
			}
		}
	}
	if r.Side.Offered>>len(SideBets) != 0 {
		bad("side_bets", "invalid side-bet set %#x", uint8(r.Side.Offered))
	}
	return append(out, r.Side.Pays.problems(given)...)
}

// problems checks every pay-table figure: finite, more than 0 (after
// defaults, unless given: then 0 is a figure, not the default) and at most
// MaxSidePay. Each finding names the table's key and, in a table of
// several figures, which one.
func (p SidePays) problems(given bool) []*RuleError {
	e := p
	if !given {
		e = p.effective()
	}
	var out []*RuleError
	check := func(key string, names []string, v ...float64) {
		for i, f := range v {
			if f > 0 && f <= MaxSidePay { // also refuses NaN
				continue
			}
			what := ""
			if len(names) > 0 {
				what = fmt.Sprintf("figure %d (%s) ", i+1, names[i])
			}
			out = append(out, &RuleError{Key: key, Msg: fmt.Sprintf("%s%v: want more than 0, at most %d", what, f, MaxSidePay)})
			return
		}
	}
	check("pays_perfect_pair", []string{"one hand", "both hands"}, e.PerfectPair, e.PerfectPairBoth)
	check("pays_either_pair", nil, e.EitherPair)
	check("pays_big", nil, e.Big)
	check("pays_small", nil, e.Small)
	check("pays_dragon", []string{"a win by 9", "by 8", "by 7", "by 6", "by 5", "by 4"}, e.Dragon[:]...)
	check("pays_dragon_natural", nil, e.DragonNatural)
	check("pays_lucky6", []string{"two cards", "three cards"}, e.Lucky6Two, e.Lucky6Three)
	return out
}

// firstProblem is Validate's answer: the first finding of Problems, or
// nil.
func (r Rules) firstProblem() error {
	if ps := r.Problems(); len(ps) > 0 {
		return ps[0]
	}
	return nil
}

// takesCommission reports whether the game's banker bet pays less a
// commission: punto banco, and chemin de fer's bank (not Super 6, EZ or
// banque).
func (g Game) takesCommission() bool {
	switch g.def.(type) {
	case nil, cheminDeFerGame:
		return true
	}
	return false
}
