package odds

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// AdvantageThreshold says when advantage alerts are raised. It is the one
// meaning of `sabot check --advantage T` and of sabotd's [alerts]
// advantage_threshold = T. The zero value is off (no flag, no key, or
// "off"). On, with a threshold T (AdvantageAbove), every offered bet
// whose exact expectation for the player, per unit staked, exceeds T
// raises an advantage alert: T = 0 means any positive expectation, 0.01
// more than +1%. T is a fraction of the stake, 0 ≤ T < 1
// (MaxAdvantageThreshold): a negative T would call a losing bet an
// advantage, and T = 5 meant as 5% would never fire.
type AdvantageThreshold struct {
	on bool
	t  float64
}

// MaxAdvantageThreshold is the bound a threshold must stay below (+100%).
const MaxAdvantageThreshold = 1

// ErrAdvantageThreshold is wrapped when a threshold is out of range or not
// a number.
var ErrAdvantageThreshold = errors.New("tableau: bad advantage threshold")

// AdvantageAbove returns the threshold T, switched on. Errors (wrapping
// ErrAdvantageThreshold): T negative, not below MaxAdvantageThreshold, or
// NaN.
func AdvantageAbove(t float64) (AdvantageThreshold, error) {
	if !(t >= 0 && t < MaxAdvantageThreshold) { // also refuses NaN
		return AdvantageThreshold{}, fmt.Errorf("%w: %v: want a fraction of the stake, 0 ≤ T < %d (0: any positive expectation, 0.01: more than +1%%), or off", ErrAdvantageThreshold, t, MaxAdvantageThreshold)
	}
	return AdvantageThreshold{on: true, t: t + 0}, nil // + 0: no -0
}

// ParseAdvantageThreshold parses "off" (any case) or a number for
// AdvantageAbove.
func ParseAdvantageThreshold(s string) (AdvantageThreshold, error) {
	if strings.EqualFold(s, "off") {
		return AdvantageThreshold{}, nil
	}
	t, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return AdvantageThreshold{}, fmt.Errorf("%w: %q: want a number such as 0 or 0.01, or off", ErrAdvantageThreshold, s)
	}
	return AdvantageAbove(t)
}

// On reports whether advantage alerts are raised.
func (a AdvantageThreshold) On() bool { return a.on }

// Value is the threshold T (0 when off).
func (a AdvantageThreshold) Value() float64 { return a.t }

// String returns "off" or T ("0", "0.01").
func (a AdvantageThreshold) String() string {
	if !a.on {
		return "off"
	}
	return strconv.FormatFloat(a.t, 'g', -1, 64)
}

// AdvantageBet is what an advantage alert carries: the bet whose
// expectation for the player exceeds the threshold, and that expectation.
// In JSON: {"type":"alert","code":"advantage","shoe":1,"coup":73,
// "bet":"dragon7","ev":0.0521}.
type AdvantageBet struct {
	Bet string  `json:"bet"` // OddsKey of the bet: "dragon7", "player_pair", …
	EV  float64 `json:"ev"`  // expected net result per unit staked, for the player
}

// CompositionAdvantages is Advantages on a composition: the main bets on its
// ranks, the pair bets with the suits where a suited pair pays more, and
// the side bets r offers with the suits where they are known (Perfect
// Pair, and the pair bets when a suited pair pays more, are valued only
// then: see PairOdds.EV).
func CompositionAdvantages(dst []BetEV, comp *baccarat.Composition, r baccarat.Rules, threshold float64) ([]BetEV, error) {
	if err := r.Validate(); err != nil {
		return dst, err
	}
	rc := comp.RemainingRanks()
	var o Odds
	if err := o.Analyze(&rc); err != nil {
		return dst, err
	}
	suited := r.SuitedPairPaysMore()
	if !suited && r.Side.Offered == 0 {
		return o.AppendAdvantages(dst, r, threshold), nil
	}
	cc, known := comp.RemainingCards()
	if !known {
		// Suits unknown: value the rest by ranks alone.
		cc = baccarat.CardCounts{}
		for i, v := range rc {
			cc[i][0] = v
		}
	}
	var po PairOdds
	if suited {
		var err error
		if po, err = AnalyzePairs(&cc, known); err != nil {
			return dst, err
		}
	}
	for _, bet := range oddsBetOrder {
		if ev, ok := mainEV(&o, &po, bet, r); ok && ev > threshold {
			dst = append(dst, BetEV{Bet: bet, EV: ev})
		}
	}
	return appendSideAdvantages(dst, &cc, known, r, threshold)
}

// mainEV is the EV of a main bet: from o, but for the pair bets from po
// where a suited pair pays more (po is then AnalyzePairs of the same shoe).
func mainEV(o *Odds, po *PairOdds, bet baccarat.Bet, r baccarat.Rules) (float64, bool) {
	if (bet == baccarat.BetPlayerPair || bet == baccarat.BetBankerPair) && r.SuitedPairPaysMore() {
		return po.EV(bet, r)
	}
	return o.EV(bet, r)
}

// BestAdvantage is the odds engine reduced to one answer: the offered bet
// with the highest expectation for the player on the next coup dealt from
// the remaining shoe, as its OddsKey and EV. It returns ("", -1) when the
// shoe cannot be valued (fewer than six cards left) or rules are invalid.
func BestAdvantage(remaining *baccarat.Composition, rules baccarat.Rules) (bet string, ev float64) {
	rc := remaining.RemainingRanks()
	var o Odds
	if rules.Validate() != nil || o.Analyze(&rc) != nil {
		return "", -1
	}
	var po PairOdds
	if rules.SuitedPairPaysMore() {
		cc, known := remaining.RemainingCards()
		po, _ = AnalyzePairs(&cc, known) // unvalued (EV not ok) on error
	}
	best, bestEV := baccarat.Bet(0), -2.0
	for _, b := range oddsBetOrder {
		if e, ok := mainEV(&o, &po, b, rules); ok && e > bestEV {
			best, bestEV = b, e
		}
	}
	if rules.Side.Offered != 0 {
		var buf [7]BetEV
		sides, _ := CompositionAdvantages(buf[:0], remaining, baccarat.Rules{Side: rules.Side}, -2)
		for _, s := range sides {
			if baccarat.IsSideBet(s.Bet) && s.EV > bestEV {
				best, bestEV = s.Bet, s.EV
			}
		}
	}
	return OddsKey(best), bestEV
}
