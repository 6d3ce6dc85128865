package odds

import (
	"fmt"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
)

// SideOdds is the exact analysis of the side bets on the next coup. Every
// count is in ordered six-card sequences, as in Odds; Sequences is the
// same N·(N−1)·…·(N−5).
type SideOdds struct {
	Sequences uint64
	// SuitsKnown is false when the suits left in the shoe are unknown (a
	// rank-only read): the Perfect Pair counts are then zero and the bet
	// is not valued.
	SuitsKnown bool

	PerfectOne, PerfectBoth uint64 // exactly one hand / both hands a suited pair
	EitherPair              uint64 // at least one hand's first two cards share a rank
	Cards4, Cards56         uint64 // Small / Big

	// Dragon Bonus, index 0 player, 1 banker: DragonBy[side][m] the
	// non-natural wins by m points (1–9), DragonNatural the natural wins;
	// NaturalTie the ties on naturals (a push for both).
	DragonBy      [2][10]uint64
	DragonNatural [2]uint64
	NaturalTie    uint64

	Lucky6Two, Lucky6Three uint64 // banker wins with a two-card / three-card 6
}

// AnalyzeSideBets returns the exact side-bet odds of the next coup dealt
// from cc; with suitsKnown false only the ranks of cc are trusted (Perfect
// Pair is left unvalued). It enumerates the deal by value class (55 × 55
// two-card hands × third cards, about a millisecond) and the pairs in
// closed form by exchangeability (see odds.go). Errors as AnalyzeOdds.
func AnalyzeSideBets(cc *baccarat.CardCounts, suitsKnown bool) (SideOdds, error) {
	var so SideOdds
	rc := cc.Ranks()
	n, err := coupCards(cc)
	if err != nil {
		return SideOdds{}, err
	}
	N := uint64(n)
	so.Sequences = N * (N - 1) * (N - 2) * (N - 3) * (N - 4) * (N - 5)
	var ranks [card.NumRanks]uint64
	for i, v := range rc {
		ranks[i] = uint64(v)
	}
	one, both := pairCounts(ranks[:], N)
	so.EitherPair = 2*one - both
	if suitsKnown {
		one, both := suitedPairCounts(cc, N)
		so.SuitsKnown = true
		so.PerfectBoth = both
		so.PerfectOne = 2*one - 2*both
	}

	var cv [10]uint64
	for i, v := range rc {
		cv[card.Rank(i+1).Value()] += uint64(v)
	}
	so.analyzeValues(&cv, N)
	return so, nil
}

// pairCounts counts, in ordered six-card sequences of a shoe of N cards
// holding counts[i] cards of class i (a rank, or a rank and suit), the
// deals where one given hand's first two cards are of one class (one: the
// player's, and by symmetry the banker's) and where both hands' are
// (both). By exchangeability (see odds.go) the four pair positions may be
// taken first: one hand holds a pair in S2 = Σ n(n−1) ways; both hands in
// Σ n(n−1)(n−2)(n−3) + S2² − Σ (n(n−1))² ways (the same class twice, or
// two different classes); the other positions take what is left. It is
// the one count of pairs of the pair bets (AnalyzePairs) and of the side
// bets (AnalyzeSideBets). N must be at least 6 and Σ counts.
func pairCounts(counts []uint64, N uint64) (one, both uint64) {
	k4 := (N - 4) * (N - 5)
	k2 := (N - 2) * (N - 3) * k4
	var s2, s4, q uint64
	for _, u := range counts {
		if u < 2 {
			continue
		}
		f := u * (u - 1)
		s2 += f
		q += f * f
		if u >= 4 {
			s4 += f * (u - 2) * (u - 3)
		}
	}
	return s2 * k2, (s4 + s2*s2 - q) * k4
}

// suitedPairCounts is pairCounts over the 52 cards (rank and suit) of cc:
// suited pairs.
func suitedPairCounts(cc *baccarat.CardCounts, N uint64) (one, both uint64) {
	var cards [card.NumRanks * card.NumSuits]uint64
	for r, row := range cc {
		for s, v := range row {
			cards[r*card.NumSuits+s] = uint64(v)
		}
	}
	return pairCounts(cards[:], N)
}

// analyzeValues enumerates the deal by value class: the player's and the
// banker's two-card hands as unordered pairs of classes with their ordered
// weights, then the third cards, each weight counting the cards left.
func (so *SideOdds) analyzeValues(cv *[10]uint64, N uint64) {
	c := *cv
	tab := &baccarat.PuntoBanco // the side bets are offered beside punto banco
	k4, k5 := (N-4)*(N-5), N-5
	record := func(w uint64, pt, bt uint64, pNat, bNat bool, bCards int) {
		switch {
		case pt > bt:
			if pNat {
				so.DragonNatural[0] += w
			} else {
				so.DragonBy[0][pt-bt] += w
			}
		case bt > pt:
			if bNat {
				so.DragonNatural[1] += w
			} else {
				so.DragonBy[1][bt-pt] += w
			}
			if bt == 6 {
				if bCards == 2 {
					so.Lucky6Two += w
				} else {
					so.Lucky6Three += w
				}
			}
		default:
			if pNat || bNat {
				so.NaturalTie += w
			}
		}
	}
	weight := func(a, b uint64) uint64 {
		if a == b {
			return c[a] * (c[a] - 1)
		}
		return 2 * c[a] * c[b]
	}
	for a := uint64(0); a < 10; a++ {
		for b := a; b < 10; b++ {
			if (a == b && c[a] < 2) || c[a] == 0 || c[b] == 0 {
				continue
			}
			wP := weight(a, b)
			c[a]--
			c[b]--
			pt := mod10[a+b]
			for d := uint64(0); d < 10; d++ {
				for e := d; e < 10; e++ {
					if (d == e && c[d] < 2) || c[d] == 0 || c[e] == 0 {
						continue
					}
					w4 := wP * weight(d, e)
					c[d]--
					c[e]--
					bt := mod10[d+e]
					switch {
					case pt >= 8 || bt >= 8:
						record(w4*k4, pt, bt, pt >= 8, bt >= 8, 2)
						so.Cards4 += w4 * k4
					case tab.Punter[pt] == baccarat.MustDraw:
						for p3 := uint64(0); p3 < 10; p3++ {
							w5 := w4 * c[p3]
							if w5 == 0 {
								continue
							}
							fp := mod10[pt+p3]
							if tab.Banker[bt][p3+1] != baccarat.MustDraw {
								record(w5*k5, fp, bt, false, false, 2)
								so.Cards56 += w5 * k5
								continue
							}
							c[p3]--
							for b3 := uint64(0); b3 < 10; b3++ {
								if w6 := w5 * c[b3]; w6 != 0 {
									record(w6, fp, mod10[bt+b3], false, false, 3)
									so.Cards56 += w6
								}
							}
							c[p3]++
						}
					case tab.Banker[bt][0] == baccarat.MustDraw:
						for b3 := uint64(0); b3 < 10; b3++ {
							if w5 := w4 * c[b3]; w5 != 0 {
								record(w5*k5, pt, mod10[bt+b3], false, false, 3)
								so.Cards56 += w5 * k5
							}
						}
					default:
						record(w4*k4, pt, bt, false, false, 2)
						so.Cards4 += w4 * k4
					}
					c[d]++
					c[e]++
				}
			}
			c[a]++
			c[b]++
		}
	}
}

// Prob returns count / Sequences.
func (so *SideOdds) Prob(count uint64) float64 {
	if so.Sequences == 0 {
		return 0
	}
	return float64(count) / float64(so.Sequences)
}

// EV returns the player's expectation per unit staked on side bet b under
// r's pay table, for the next coup. ok is false if r is invalid, does not
// offer b, the odds are empty, or b is Perfect Pair and the suits left are
// unknown.
func (so *SideOdds) EV(b baccarat.Bet, r baccarat.Rules) (ev float64, ok bool) {
	if so.Sequences == 0 || r.Validate() != nil || !r.Offers(b) || !baccarat.IsSideBet(b) {
		return 0, false
	}
	return so.ev(b, r.Side.Pays.Effective())
}

// ev is EV for valid effective pays p.
func (so *SideOdds) ev(b baccarat.Bet, p baccarat.SidePays) (float64, bool) {
	t := float64(so.Sequences)
	winLose := func(count uint64, pays float64) float64 {
		w := float64(count)
		return (pays*w - (t - w)) / t
	}
	switch b {
	case baccarat.BetPerfectPair:
		if !so.SuitsKnown {
			return 0, false
		}
		one, both := float64(so.PerfectOne), float64(so.PerfectBoth)
		return (p.PerfectPair*one + p.PerfectPairBoth*both - (t - one - both)) / t, true
	case baccarat.BetEitherPair:
		return winLose(so.EitherPair, p.EitherPair), true
	case baccarat.BetBig:
		return winLose(so.Cards56, p.Big), true
	case baccarat.BetSmall:
		return winLose(so.Cards4, p.Small), true
	case baccarat.BetDragonPlayer, baccarat.BetDragonBanker:
		side := 0
		if b == baccarat.BetDragonBanker {
			side = 1
		}
		won := float64(so.DragonNatural[side]) * p.DragonNatural
		lost := t - float64(so.NaturalTie) - float64(so.DragonNatural[side])
		for m := 4; m <= 9; m++ {
			w := float64(so.DragonBy[side][m])
			won += w * p.Dragon[9-m]
			lost -= w
		}
		return (won - lost) / t, true
	case baccarat.BetLucky6:
		two, three := float64(so.Lucky6Two), float64(so.Lucky6Three)
		return (p.Lucky6Two*two + p.Lucky6Three*three - (t - two - three)) / t, true
	}
	return 0, false
}

// HouseEdge is −EV.
func (so *SideOdds) HouseEdge(b baccarat.Bet, r baccarat.Rules) (float64, bool) {
	ev, ok := so.EV(b, r)
	return -ev, ok
}

// AppendAdvantages appends the offered side bets whose EV exceeds
// threshold, in SideBets order.
func (so *SideOdds) AppendAdvantages(dst []BetEV, r baccarat.Rules, threshold float64) []BetEV {
	for _, b := range baccarat.SideBets {
		if ev, ok := so.EV(b, r); ok && ev > threshold {
			dst = append(dst, BetEV{Bet: b, EV: ev})
		}
	}
	return dst
}

// coupCards is the number of cards cc holds, or an ErrOddsShoe error when
// a count is negative, the total is over MaxOddsCards, or it is under the
// six a coup may need: the shoe check of AnalyzeSideBets and AnalyzePairs.
func coupCards(cc *baccarat.CardCounts) (int, error) {
	n := 0
	for r, row := range cc {
		for _, v := range row {
			if v < 0 {
				return 0, fmt.Errorf("%w: negative count %d of rank %s", baccarat.ErrOddsShoe, v, card.Rank(r+1))
			}
			n += v
		}
	}
	if n > baccarat.MaxOddsCards {
		return 0, fmt.Errorf("%w: %d cards exceed the maximum %d", baccarat.ErrOddsShoe, n, baccarat.MaxOddsCards)
	}
	if n < 6 {
		return 0, fmt.Errorf("%w: %d cards left, a coup may need 6", baccarat.ErrOddsShoe, n)
	}
	return n, nil
}
