package odds

import (
	"strings"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
)

// oddsBetOrder is the order bets are reported in by the odds engine and by
// `sabot odds` (banker first).
var oddsBetOrder = [...]baccarat.Bet{baccarat.BetBanker, baccarat.BetPlayer, baccarat.BetTie, baccarat.BetPlayerPair, baccarat.BetBankerPair, baccarat.BetDragon7, baccarat.BetPanda8}

// NumMainBets is the number of main bets the odds engine values (banker,
// player, tie, the two pairs, Dragon 7, Panda 8): the most BetEVs the main
// bets add to an Advantages answer, and the size of a buffer for them.
const NumMainBets = len(oddsBetOrder)

// OddsKey returns the JSON key of bet b in `sabot odds` output and in
// advantage alerts: "banker", "player", "tie", "player_pair",
// "banker_pair", "dragon7", "panda8" ("" for an unknown bet).
func OddsKey(b baccarat.Bet) string {
	switch b {
	case baccarat.BetPlayerPair:
		return "player_pair"
	case baccarat.BetBankerPair:
		return "banker_pair"
	case baccarat.BetPlayer, baccarat.BetBanker, baccarat.BetTie, baccarat.BetDragon7, baccarat.BetPanda8:
		return b.String()
	}
	if baccarat.IsSideBet(b) { // "perfect_pair", "dragon_player", …
		return strings.ReplaceAll(b.String(), "-", "_")
	}
	return ""
}

// EV returns the player's expected net result per unit staked on bet under
// the rule profile r, for the next coup (a fraction: −0.0106 is a 1.06%
// house edge). ok is false if r is invalid, does not offer the bet, or the
// odds are empty.
//
// Payouts: player 1:1 and punto banco banker 1 − the commission (19:20 at
// the usual 5%), both pushing on a tie;
// Super 6 banker 1:1 except 1:2 on a banker 6; EZ banker 1:1 except a push
// on a banker three-card 7; tie 8:1 or 9:1; each pair PairPays:1 (11:1);
// Dragon 7 40:1; Panda 8 25:1. Where a suited pair pays more
// (Rules.PairSuitedPays) the pair bets need the suits left, which Odds
// does not know: ok is false for them (see PairOdds.EV). These give the published 8-deck house edges (Wizard of
// Odds): banker 1.06%, player 1.24%, tie 14.36% (8:1) / 4.84% (9:1), pairs
// 10.36%, Super 6 banker 1.46%, EZ banker 1.02%, Dragon 7 7.61%, Panda 8
// 10.19%.
func (o *Odds) EV(bet baccarat.Bet, r baccarat.Rules) (ev float64, ok bool) {
	if o.Sequences == 0 || r.Validate() != nil || !r.Offers(bet) {
		return 0, false
	}
	t := float64(o.Sequences)
	b, p := float64(o.Banker), float64(o.Player)
	switch bet {
	case baccarat.BetBanker:
		switch r.Game {
		case baccarat.GameSuper6:
			return (b - 0.5*float64(o.Super6) - p) / t, true
		case baccarat.GameEZ:
			return (b - float64(o.Dragon7) - p) / t, true
		}
		return (r.BankerNet()*b - p) / t, true
	case baccarat.BetPlayer:
		return (p - b) / t, true
	case baccarat.BetTie:
		win := float64(o.Tie)
		return (float64(r.TiePayout())*win - (t - win)) / t, true
	case baccarat.BetPlayerPair, baccarat.BetBankerPair:
		if r.SuitedPairPaysMore() {
			return 0, false
		}
		n := o.PlayerPair
		if bet == baccarat.BetBankerPair {
			n = o.BankerPair
		}
		return (float64(r.PairPayout()+1)*float64(n) - t) / t, true
	case baccarat.BetDragon7:
		return (41*float64(o.Dragon7) - t) / t, true
	case baccarat.BetPanda8:
		return (26*float64(o.Panda8) - t) / t, true
	}
	return 0, false
}

// HouseEdge is −EV: the house's expected gain per unit staked on bet.
func (o *Odds) HouseEdge(bet baccarat.Bet, r baccarat.Rules) (edge float64, ok bool) {
	ev, ok := o.EV(bet, r)
	return -ev, ok
}

// BetEV is one bet's expectation for the player, per unit staked.
type BetEV struct {
	Bet baccarat.Bet
	EV  float64
}

// AppendAdvantages appends to dst every bet r offers whose EV for the
// player exceeds threshold (0 for "any player edge", 0.01 for "more than
// 1%"), in the order banker, player, tie, player pair, banker pair,
// Dragon 7, Panda 8, and returns the extended slice. With a dst of
// capacity 7 it does not allocate.
func (o *Odds) AppendAdvantages(dst []BetEV, r baccarat.Rules, threshold float64) []BetEV {
	for _, bet := range oddsBetOrder {
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
// instance, fewer than six cards left) or r is invalid. rc gives the ranks
// only: Perfect Pair, and the pair bets where a suited pair pays more
// (Rules.PairSuitedPays), are not valued (Fold.Advantages knows the
// suits).
func Advantages(dst []BetEV, rc *baccarat.RankCounts, r baccarat.Rules, threshold float64) ([]BetEV, error) {
	if err := r.Validate(); err != nil {
		return dst, err
	}
	var o Odds
	if err := o.Analyze(rc); err != nil {
		return dst, err
	}
	dst = o.AppendAdvantages(dst, r, threshold)
	if r.Side.Offered == 0 {
		return dst, nil
	}
	// Only ranks are known here: Perfect Pair is not valued (see
	// Fold.Advantages, which knows the suits).
	var cc baccarat.CardCounts
	for i, v := range rc {
		cc[i][0] = v
	}
	return appendSideAdvantages(dst, &cc, false, r, threshold)
}

// appendSideAdvantages values the side bets r offers on the shoe cc (see
// AnalyzeSideBets) and appends those above threshold.
func appendSideAdvantages(dst []BetEV, cc *baccarat.CardCounts, suitsKnown bool, r baccarat.Rules, threshold float64) ([]BetEV, error) {
	if r.Side.Offered == 0 {
		return dst, nil
	}
	so, err := AnalyzeSideBets(cc, suitsKnown)
	if err != nil {
		return dst, err
	}
	return so.AppendAdvantages(dst, r, threshold), nil
}

// PairOdds is the exact analysis of the pair bets on the next coup split
// by suit, for a table where a suited pair pays more (Rules.PairSuitedPays).
// The counts are in ordered six-card sequences, as in Odds; by symmetry
// the player's and the banker's are the same.
type PairOdds struct {
	Sequences uint64 // N·(N−1)·…·(N−5), as Odds.Sequences
	// SuitsKnown is false when the suits left in the shoe are unknown (a
	// rank-only read): Suited is then 0, and the pair bets are not valued
	// while a suited pair pays more (as Perfect Pair is not; see
	// SideOdds.SuitsKnown).
	SuitsKnown bool
	Pair       uint64 // a given hand's first two cards share a rank (Odds.PlayerPair)
	Suited     uint64 // … and a suit
}

// AnalyzePairs returns the pair bets' odds for the next coup dealt from cc;
// with suitsKnown false only the ranks of cc are trusted. It counts in
// closed form (pairCounts, the count Perfect Pair uses too): no
// enumeration, no allocation. Errors as AnalyzeSideBets.
func AnalyzePairs(cc *baccarat.CardCounts, suitsKnown bool) (PairOdds, error) {
	n, err := coupCards(cc)
	if err != nil {
		return PairOdds{}, err
	}
	N := uint64(n)
	po := PairOdds{Sequences: N * (N - 1) * (N - 2) * (N - 3) * (N - 4) * (N - 5), SuitsKnown: suitsKnown}
	var ranks [card.NumRanks]uint64
	for i, v := range cc.Ranks() {
		ranks[i] = uint64(v)
	}
	po.Pair, _ = pairCounts(ranks[:], N)
	if suitsKnown {
		po.Suited, _ = suitedPairCounts(cc, N)
	}
	return po, nil
}

// EV returns the player's expectation per unit staked on the player pair
// or banker pair bet under r: an unsuited pair pays PairPays:1, a suited
// one PairSuitedPays:1. ok is false if r is invalid or does not offer the
// bet, b is not a pair bet, the odds are empty, or a suited pair pays more
// and the suits left are unknown.
func (po *PairOdds) EV(b baccarat.Bet, r baccarat.Rules) (ev float64, ok bool) {
	if po.Sequences == 0 || (b != baccarat.BetPlayerPair && b != baccarat.BetBankerPair) || r.Validate() != nil || !r.Offers(b) {
		return 0, false
	}
	if r.SuitedPairPaysMore() && !po.SuitsKnown {
		return 0, false
	}
	t := float64(po.Sequences)
	pair, suited := float64(po.Pair), float64(po.Suited)
	return (float64(r.PairPayout())*(pair-suited) + float64(r.PairSuitedPayout())*suited - (t - pair)) / t, true
}

// HouseEdge is −EV.
func (po *PairOdds) HouseEdge(b baccarat.Bet, r baccarat.Rules) (float64, bool) {
	ev, ok := po.EV(b, r)
	return -ev, ok
}
