package tableau

import (
	"errors"
	"fmt"
)

// OddsProfile names a rule profile for valuing bets: how the banker bet is
// paid and which side bets are offered.
type OddsProfile string

// The rule profiles the odds engine values.
const (
	// OddsPuntoBanco: banker wins pay 19:20 (5% commission), player 1:1,
	// player and banker push on a tie.
	OddsPuntoBanco OddsProfile = "punto-banco"
	// OddsSuper6: no commission; a banker win with a total of 6 pays 1:2.
	OddsSuper6 OddsProfile = "super6"
	// OddsEZ: EZ Baccarat. No commission; a banker win with a three-card 7
	// pushes banker bets; Dragon 7 pays 40:1 and Panda 8 pays 25:1.
	OddsEZ OddsProfile = "ez"
)

// OddsRules is the rule profile and tie payout bets are valued under.
type OddsRules struct {
	Profile OddsProfile // OddsPuntoBanco, OddsSuper6 or OddsEZ
	TiePays int         // 8 (8:1) or 9 (9:1)
}

// ErrOddsRules is wrapped by errors about an unknown profile or tie payout.
var ErrOddsRules = errors.New("tableau: odds rules")

// Validate reports an unknown profile or a tie payout other than 8 or 9.
func (r OddsRules) Validate() error {
	switch r.Profile {
	case OddsPuntoBanco, OddsSuper6, OddsEZ:
	default:
		return fmt.Errorf("%w: unknown profile %q (want punto-banco, super6 or ez)", ErrOddsRules, string(r.Profile))
	}
	if r.TiePays != 8 && r.TiePays != 9 {
		return fmt.Errorf("%w: tie pays %d:1 (want 8 or 9)", ErrOddsRules, r.TiePays)
	}
	return nil
}

// OddsBet names a bet, spelled as in `sabot odds` output and advantage
// alerts.
type OddsBet string

// The bets the odds engine values. Dragon 7 and Panda 8 are offered only
// under OddsEZ.
const (
	OddsBetBanker     OddsBet = "banker"
	OddsBetPlayer     OddsBet = "player"
	OddsBetTie        OddsBet = "tie"
	OddsBetPlayerPair OddsBet = "player_pair"
	OddsBetBankerPair OddsBet = "banker_pair"
	OddsBetDragon7    OddsBet = "dragon7"
	OddsBetPanda8     OddsBet = "panda8"
)

// Offered lists the bets r offers, in the fixed order banker, player, tie,
// player_pair, banker_pair, then dragon7 and panda8 under OddsEZ.
func (r OddsRules) Offered() []OddsBet {
	if r.Profile == OddsEZ {
		return oddsBetsEZ[:]
	}
	return oddsBetsEZ[:5]
}

var oddsBetsEZ = [...]OddsBet{OddsBetBanker, OddsBetPlayer, OddsBetTie, OddsBetPlayerPair, OddsBetBankerPair, OddsBetDragon7, OddsBetPanda8}

// EV returns the player's expected net result per unit staked on bet under
// r, for the next coup (a fraction: −0.0106 is a 1.06% house edge). ok is
// false if r does not offer the bet or the odds are empty.
//
// Payouts: player 1:1 and punto banco banker 19:20, both pushing on a tie;
// Super 6 banker 1:1 except 1:2 on a banker 6; EZ banker 1:1 except a push
// on a banker three-card 7; tie 8:1 or 9:1; each pair 11:1; Dragon 7 40:1;
// Panda 8 25:1. These give the published 8-deck house edges (Wizard of
// Odds): banker 1.06%, player 1.24%, tie 14.36% (8:1) / 4.84% (9:1), pairs
// 10.36%, Super 6 banker 1.46%, EZ banker 1.02%, Dragon 7 7.61%, Panda 8
// 10.19%.
func (o *Odds) EV(bet OddsBet, r OddsRules) (ev float64, ok bool) {
	if o.Sequences == 0 {
		return 0, false
	}
	t := float64(o.Sequences)
	b, p := float64(o.Banker), float64(o.Player)
	switch bet {
	case OddsBetBanker:
		switch r.Profile {
		case OddsPuntoBanco:
			return (0.95*b - p) / t, true
		case OddsSuper6:
			return (b - 0.5*float64(o.Super6) - p) / t, true
		case OddsEZ:
			return (b - float64(o.Dragon7) - p) / t, true
		}
		return 0, false
	case OddsBetPlayer:
		return (p - b) / t, true
	case OddsBetTie:
		if r.TiePays != 8 && r.TiePays != 9 {
			return 0, false
		}
		win := float64(o.Tie)
		return (float64(r.TiePays)*win - (t - win)) / t, true
	case OddsBetPlayerPair:
		return (12*float64(o.PlayerPair) - t) / t, true
	case OddsBetBankerPair:
		return (12*float64(o.BankerPair) - t) / t, true
	case OddsBetDragon7:
		if r.Profile != OddsEZ {
			return 0, false
		}
		return (41*float64(o.Dragon7) - t) / t, true
	case OddsBetPanda8:
		if r.Profile != OddsEZ {
			return 0, false
		}
		return (26*float64(o.Panda8) - t) / t, true
	}
	return 0, false
}

// HouseEdge is −EV: the house's expected gain per unit staked on bet.
func (o *Odds) HouseEdge(bet OddsBet, r OddsRules) (edge float64, ok bool) {
	ev, ok := o.EV(bet, r)
	return -ev, ok
}

// BetEV is one bet's expectation for the player, per unit staked.
type BetEV struct {
	Bet OddsBet
	EV  float64
}

// AppendAdvantages appends to dst every bet r offers whose EV for the
// player exceeds threshold (0 for "any player edge", 0.01 for "more than
// 1%"), in the order of Offered, and returns the extended slice. With a
// dst of capacity 7 it does not allocate.
func (o *Odds) AppendAdvantages(dst []BetEV, r OddsRules, threshold float64) []BetEV {
	for _, bet := range r.Offered() {
		if ev, ok := o.EV(bet, r); ok && ev > threshold {
			dst = append(dst, BetEV{Bet: bet, EV: ev})
		}
	}
	return dst
}

// Advantages is the live advantage check the daemon runs after every card:
// it analyses the next coup dealt from the remaining shoe rc exactly (see
// Odds.Analyze; tens of microseconds, no allocation) and appends to dst the
// bets r offers whose expectation for the player exceeds threshold. It
// returns dst unchanged and an error if rc cannot be analysed (for
// instance, fewer than six cards left) or r is invalid.
func Advantages(dst []BetEV, rc *RankCounts, r OddsRules, threshold float64) ([]BetEV, error) {
	if err := r.Validate(); err != nil {
		return dst, err
	}
	var o Odds
	if err := o.Analyze(rc); err != nil {
		return dst, err
	}
	return o.AppendAdvantages(dst, r, threshold), nil
}
