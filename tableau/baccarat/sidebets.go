package baccarat

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

// IsSideBet reports whether b is one of the side bets (SideBets: Perfect
// Pair through Lucky 6) rather than a main bet.
func IsSideBet(b Bet) bool { return b >= BetPerfectPair && b <= BetLucky6 }

// SideSet is a set of side bets (bit b−BetPerfectPair for each). The zero
// value offers none.
type SideSet uint8

// Has reports whether b is in the set.
func (s SideSet) Has(b Bet) bool { return IsSideBet(b) && s&(1<<(b-BetPerfectPair)) != 0 }

// With returns the set with b added (b must be a side bet).
func (s SideSet) With(b Bet) SideSet {
	if !IsSideBet(b) {
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
