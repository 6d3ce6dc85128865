package tableau

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file holds the side bets casinos offer today beside punto banco:
// Perfect Pair, Either Pair, Big and Small, Dragon Bonus on player and on
// banker, and Lucky 6. Their pay tables are configuration (SidePays), they
// are settled per coup (Rules.settle) and valued exactly with card removal
// (AnalyzeSideBets), in the odds engine's unit: ordered six-card sequences.
//
// Pay tables and their sources (every figure is "to one"):
//   - Perfect Pair: either hand's first two cards are the same rank and
//     suit; 25 for one perfect pair, 200 if both hands have one (the
//     table in issue 14 and the common live-casino "either perfect pair"
//     bet; Wizard of Odds, "Perfect Pairs (Version 2)", analyses the
//     Evolution table 25/250, and "Version 1", Playtech, 25 for any).
//   - Either Pair: either hand's first two cards share a rank; 5.
//   - Big: the coup uses five or six cards; 0.54. Small: four cards; 1.5
//     (Playtech and Ezugi "Big and Small"; the same events as the Atlantic
//     City "4-5-6" bet; house edges 4.35% and 5.27% quoted by
//     playbaccarat.com and vegasfreedom.com).
//   - Dragon Bonus, on player or on banker: natural win 1, natural tie
//     push, non-natural win by 9 pays 30, by 8 10, by 7 6, by 6 4, by 5 2,
//     by 4 1, anything else (a non-natural tie included) loses (Wizard of
//     Odds, "Baccarat Side Bets", Dragon Bonus: 8-deck house edges 2.65%
//     player, 9.37% banker).
//   - Lucky 6: the banker wins with a total of 6; 12 on two cards, 20 on
//     three (Wizard of Odds, "Lucky 6", the Macau table, 16.68% for 8
//     decks; Las Vegas pays 23 on three cards, 11.70%).

// Side bets, as Bet values after the main bets (see Bets).
const (
	BetPerfectPair  Bet = iota + BetPanda8 + 1 // either hand's first two cards a suited pair
	BetEitherPair                              // either hand's first two cards share a rank
	BetBig                                     // the coup uses five or six cards
	BetSmall                                   // the coup uses four cards
	BetDragonPlayer                            // Dragon Bonus on the player
	BetDragonBanker                            // Dragon Bonus on the banker
	BetLucky6                                  // the banker wins with a 6
)

// SideBets lists the side bets in the order they are reported.
var SideBets = []Bet{BetPerfectPair, BetEitherPair, BetBig, BetSmall, BetDragonPlayer, BetDragonBanker, BetLucky6}

// sideBetNames are the names of the side bets in flags (--side-bets) and,
// with '-' as '_', in JSON.
var sideBetNames = [...]string{"perfect-pair", "either-pair", "big", "small", "dragon-player", "dragon-banker", "lucky6"}

func isSideBet(b Bet) bool { return b >= BetPerfectPair && b <= BetLucky6 }

// SideSet is a set of side bets (bit b−BetPerfectPair for each). The zero
// value offers none.
type SideSet uint8

// Has reports whether b is in the set.
func (s SideSet) Has(b Bet) bool { return isSideBet(b) && s&(1<<(b-BetPerfectPair)) != 0 }

// With returns the set with b added (b must be a side bet).
func (s SideSet) With(b Bet) SideSet {
	if !isSideBet(b) {
		return s
	}
	return s | 1<<(b-BetPerfectPair)
}

// ParseSideSet parses a comma-separated list of side-bet names:
// perfect-pair, either-pair, big, small, dragon-player, dragon-banker,
// lucky6, plus "dragon" (both Dragon Bonus bets), "all" and "" or "none"
// (no side bet). Errors wrap ErrRules and name the unknown entry.
func ParseSideSet(s string) (SideSet, error) {
	var set SideSet
	if s == "" || strings.EqualFold(s, "none") {
		return 0, nil
	}
	for i, w := range strings.Split(s, ",") {
		w = strings.ToLower(strings.TrimSpace(w))
		switch w {
		case "all":
			set = 1<<len(SideBets) - 1
			continue
		case "dragon":
			set = set.With(BetDragonPlayer).With(BetDragonBanker)
			continue
		}
		found := false
		for j, n := range sideBetNames {
			if w == n {
				set = set.With(SideBets[j])
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("%w: side bet %d %q unknown (want %s, dragon, all or none)", ErrRules, i+1, w, strings.Join(sideBetNames[:], ", "))
		}
	}
	return set, nil
}

// String lists the set's names separated by commas ("none" if empty).
func (s SideSet) String() string {
	var names []string
	for i, b := range SideBets {
		if s.Has(b) {
			names = append(names, sideBetNames[i])
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// SidePays is the pay table of every side bet, each figure "to one" (net
// per unit staked on a win). A zero field means the default shown.
type SidePays struct {
	PerfectPair     float64    // one perfect pair: 25
	PerfectPairBoth float64    // both hands: 200
	EitherPair      float64    // 5
	Big             float64    // 0.54
	Small           float64    // 1.5
	Dragon          [6]float64 // non-natural win by 9, 8, 7, 6, 5, 4: 30, 10, 6, 4, 2, 1
	DragonNatural   float64    // natural win: 1
	Lucky6Two       float64    // banker wins with a two-card 6: 12
	Lucky6Three     float64    // … three-card 6: 20
}

// DefaultSidePays is the pay table a zero SidePays stands for.
var DefaultSidePays = SidePays{
	PerfectPair: 25, PerfectPairBoth: 200, EitherPair: 5, Big: 0.54, Small: 1.5,
	Dragon: [6]float64{30, 10, 6, 4, 2, 1}, DragonNatural: 1, Lucky6Two: 12, Lucky6Three: 20,
}

// MaxSidePay bounds every pay-table figure (a 1000-to-1 pay is far beyond
// any table dealt; a larger figure is a typing error).
const MaxSidePay = 1000

// effective returns p with each zero field replaced by its default.
func (p SidePays) effective() SidePays {
	d := DefaultSidePays
	set := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	set(&p.PerfectPair, d.PerfectPair)
	set(&p.PerfectPairBoth, d.PerfectPairBoth)
	set(&p.EitherPair, d.EitherPair)
	set(&p.Big, d.Big)
	set(&p.Small, d.Small)
	if p.Dragon == ([6]float64{}) {
		p.Dragon = d.Dragon
	}
	set(&p.DragonNatural, d.DragonNatural)
	set(&p.Lucky6Two, d.Lucky6Two)
	set(&p.Lucky6Three, d.Lucky6Three)
	return p
}

// Validate checks every figure: finite, positive (after defaults) and at
// most MaxSidePay. Errors wrap ErrRules and name the figure.
func (p SidePays) Validate() error {
	if ps := p.problems(false); len(ps) > 0 {
		return ps[0]
	}
	return nil
}

// ParsePayList parses n comma-separated pay figures ("30,10,6,4,2,1"),
// each a positive number at most MaxSidePay. Errors name the position of
// the bad entry.
func ParsePayList(s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%w: %q has %d figures, want %d", ErrRules, s, len(parts), n)
	}
	out := make([]float64, n)
	for i, w := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
		if err != nil || !(v > 0 && v <= MaxSidePay) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: figure %d %q: want a number more than 0, at most %d", ErrRules, i+1, w, MaxSidePay)
		}
		out[i] = v
	}
	return out, nil
}

// sideFacts are what the side bets need of a complete coup.
type sideFacts struct {
	perfectPlayer, perfectBanker bool // suited pair of the first two cards
	suitUnknown                  bool // a rank pair whose suit is unknown (a rank-only read)
	cards                        int
	playerNatural, bankerNatural bool
	bankerCards                  int
}

func (c *Coup) sideFacts() sideFacts {
	ps, bs := pairSuitOf(&c.Player), pairSuitOf(&c.Banker)
	var s sideFacts
	s.perfectPlayer, s.perfectBanker = ps == pairSuited, bs == pairSuited
	s.suitUnknown = ps == pairSuitUnknown || bs == pairSuitUnknown
	s.cards = c.Cards()
	pn := (c.Player.Cards[0].Value() + c.Player.Cards[1].Value()) % 10
	bn := (c.Banker.Cards[0].Value() + c.Banker.Cards[1].Value()) % 10
	s.playerNatural = pn >= 8
	s.bankerNatural = bn >= 8
	s.bankerCards = c.Banker.N
	return s
}

// settleSide settles side bet b on the complete coup (f, s) under pays p
// (effective). A Perfect Pair whose outcome hangs on the suit of a
// rank-only read is not settled (the zero Payout).
func settleSide(f *coupFacts, s *sideFacts, b Bet, p *SidePays) Payout {
	switch b {
	case BetPerfectPair:
		if s.suitUnknown {
			return Payout{}
		}
		switch {
		case s.perfectPlayer && s.perfectBanker:
			return win(p.PerfectPairBoth)
		case s.perfectPlayer || s.perfectBanker:
			return win(p.PerfectPair)
		}
		return lose
	case BetEitherPair:
		if f.playerPair || f.bankerPair {
			return win(p.EitherPair)
		}
		return lose
	case BetBig:
		if s.cards >= 5 {
			return win(p.Big)
		}
		return lose
	case BetSmall:
		if s.cards == 4 {
			return win(p.Small)
		}
		return lose
	case BetDragonPlayer:
		return dragonPayout(f.winner == WinnerPlayer, f.winner == WinnerTie, s.playerNatural, s.playerNatural || s.bankerNatural, f.playerTotal-f.bankerTotal, p)
	case BetDragonBanker:
		return dragonPayout(f.winner == WinnerBanker, f.winner == WinnerTie, s.bankerNatural, s.playerNatural || s.bankerNatural, f.bankerTotal-f.playerTotal, p)
	case BetLucky6:
		if f.bankerWinsOn6 {
			if s.bankerCards == 2 {
				return win(p.Lucky6Two)
			}
			return win(p.Lucky6Three)
		}
		return lose
	}
	return Payout{}
}

// dragonPayout is the Dragon Bonus on one side: won/tie the coup's result
// for that side, natural whether that side has a natural, anyNatural
// whether the coup ended on a natural, margin the side's total minus the
// other's.
func dragonPayout(won, tie, natural, anyNatural bool, margin int, p *SidePays) Payout {
	switch {
	case tie && anyNatural:
		return push
	case won && natural:
		return win(p.DragonNatural)
	case won && margin >= 4:
		return win(p.Dragon[9-margin])
	}
	return lose
}

// CardCounts is the remaining shoe per rank and suit: CardCounts[r-1][s-1]
// cards of Rank r and Suit s (Spades … Clubs) are left.
type CardCounts [NumRanks][NumSuits]int

// FullCardShoe returns a fresh shoe of decks decks by rank and suit.
func FullCardShoe(decks int) CardCounts {
	var cc CardCounts
	for r := range cc {
		for s := range cc[r] {
			cc[r][s] = decks
		}
	}
	return cc
}

// Ranks sums the counts over suits.
func (cc *CardCounts) Ranks() RankCounts {
	var rc RankCounts
	for r, row := range cc {
		for _, v := range row {
			rc[r] += v
		}
	}
	return rc
}

// RemainingCards returns what is left of the shoe per rank and suit, and
// whether that is known: false when a rank-only card was drawn (its suit,
// and so the suits left, are unknown) or a card was drawn more often than
// the shoe holds. Counts never go below 0.
func (c *Composition) RemainingCards() (CardCounts, bool) {
	var cc CardCounts
	known := true
	for r := range NumRanks {
		sum := 0
		for s := range NumSuits {
			v := c.RemainingCard(Rank(r+1), Suit(s+1))
			if v < 0 {
				known = false
				v = 0
			}
			cc[r][s] = v
			sum += int(c.suited[r+1][s+1])
		}
		if sum != int(c.rank[r+1]) {
			known = false
		}
	}
	return cc, known
}

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
func AnalyzeSideBets(cc *CardCounts, suitsKnown bool) (SideOdds, error) {
	var so SideOdds
	rc := cc.Ranks()
	n, err := cc.coupCards()
	if err != nil {
		return SideOdds{}, err
	}
	N := uint64(n)
	so.Sequences = N * (N - 1) * (N - 2) * (N - 3) * (N - 4) * (N - 5)
	var ranks [NumRanks]uint64
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
		cv[Rank(i+1).Value()] += uint64(v)
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
func suitedPairCounts(cc *CardCounts, N uint64) (one, both uint64) {
	var cards [NumRanks * NumSuits]uint64
	for r, row := range cc {
		for s, v := range row {
			cards[r*NumSuits+s] = uint64(v)
		}
	}
	return pairCounts(cards[:], N)
}

// analyzeValues enumerates the deal by value class: the player's and the
// banker's two-card hands as unordered pairs of classes with their ordered
// weights, then the third cards, each weight counting the cards left.
func (so *SideOdds) analyzeValues(cv *[10]uint64, N uint64) {
	c := *cv
	tab := &PuntoBanco // the side bets are offered beside punto banco
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
					case tab.Punter[pt] == MustDraw:
						for p3 := uint64(0); p3 < 10; p3++ {
							w5 := w4 * c[p3]
							if w5 == 0 {
								continue
							}
							fp := mod10[pt+p3]
							if tab.Banker[bt][p3+1] != MustDraw {
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
					case tab.Banker[bt][0] == MustDraw:
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
func (so *SideOdds) EV(b Bet, r Rules) (ev float64, ok bool) {
	if so.Sequences == 0 || r.Validate() != nil || !r.Offers(b) || !isSideBet(b) {
		return 0, false
	}
	return so.ev(b, r.Side.Pays.effective())
}

// ev is EV for valid effective pays p.
func (so *SideOdds) ev(b Bet, p SidePays) (float64, bool) {
	t := float64(so.Sequences)
	winLose := func(count uint64, pays float64) float64 {
		w := float64(count)
		return (pays*w - (t - w)) / t
	}
	switch b {
	case BetPerfectPair:
		if !so.SuitsKnown {
			return 0, false
		}
		one, both := float64(so.PerfectOne), float64(so.PerfectBoth)
		return (p.PerfectPair*one + p.PerfectPairBoth*both - (t - one - both)) / t, true
	case BetEitherPair:
		return winLose(so.EitherPair, p.EitherPair), true
	case BetBig:
		return winLose(so.Cards56, p.Big), true
	case BetSmall:
		return winLose(so.Cards4, p.Small), true
	case BetDragonPlayer, BetDragonBanker:
		side := 0
		if b == BetDragonBanker {
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
	case BetLucky6:
		two, three := float64(so.Lucky6Two), float64(so.Lucky6Three)
		return (p.Lucky6Two*two + p.Lucky6Three*three - (t - two - three)) / t, true
	}
	return 0, false
}

// HouseEdge is −EV.
func (so *SideOdds) HouseEdge(b Bet, r Rules) (float64, bool) {
	ev, ok := so.EV(b, r)
	return -ev, ok
}

// AppendAdvantages appends the offered side bets whose EV exceeds
// threshold, in SideBets order.
func (so *SideOdds) AppendAdvantages(dst []BetEV, r Rules, threshold float64) []BetEV {
	for _, b := range SideBets {
		if ev, ok := so.EV(b, r); ok && ev > threshold {
			dst = append(dst, BetEV{Bet: b, EV: ev})
		}
	}
	return dst
}

// coupCards is the number of cards cc holds, or an ErrOddsShoe error when
// a count is negative, the total is over MaxOddsCards, or it is under the
// six a coup may need: the shoe check of AnalyzeSideBets and AnalyzePairs.
func (cc *CardCounts) coupCards() (int, error) {
	n := 0
	for r, row := range cc {
		for _, v := range row {
			if v < 0 {
				return 0, fmt.Errorf("%w: negative count %d of rank %s", ErrOddsShoe, v, Rank(r+1))
			}
			n += v
		}
	}
	if n > MaxOddsCards {
		return 0, fmt.Errorf("%w: %d cards exceed the maximum %d", ErrOddsShoe, n, MaxOddsCards)
	}
	if n < 6 {
		return 0, fmt.Errorf("%w: %d cards left, a coup may need 6", ErrOddsShoe, n)
	}
	return n, nil
}
