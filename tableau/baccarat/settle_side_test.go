package baccarat

import (
	"errors"
	"testing"

	"github.com/sabot-table/sabot/tableau/card"
)

func mustCoup(t *testing.T, cards ...string) Coup {
	t.Helper()
	var c Coup
	for _, s := range cards {
		card, err := card.ParseCard(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, a := c.Deal(card); a != "" {
			t.Fatalf("%v: %s", cards, a)
		}
	}
	if !c.Complete() {
		t.Fatalf("%v: incomplete", cards)
	}
	return c
}

// TestSettleSideBets settles hand-worked coups (cards in dealing order
// P1 B1 P2 B2 [P3] [B3]).
func TestSettleSideBets(t *testing.T) {
	r := allSides(SidePays{})
	for _, c := range []struct {
		cards []string
		want  map[Bet]Payout
	}{
		{ // player 9 (natural: 5H 4C) vs banker 8 (natural: 4D 4S): natural win
			[]string{"5H", "4D", "4C", "4S"},
			map[Bet]Payout{BetDragonPlayer: win(1), BetDragonBanker: lose, BetEitherPair: win(5),
				BetPerfectPair: lose, BetSmall: win(1.5), BetBig: lose, BetLucky6: lose},
		},
		{ // 4H 4H vs 4S 4S: two perfect pairs, natural tie 8–8
			[]string{"4H", "4S", "4H", "4S"},
			map[Bet]Payout{BetDragonPlayer: push, BetDragonBanker: push, BetPerfectPair: win(200),
				BetEitherPair: win(5), BetLucky6: lose},
		},
		{ // player KH 2C = 2 draws 7D → 9; banker QS 3D = 3, third card 7: draws, KC → 3. Win by 6, not natural.
			[]string{"KH", "QS", "2C", "3D", "7D", "KC"},
			map[Bet]Payout{BetDragonPlayer: win(4), BetDragonBanker: lose, BetBig: win(0.54), BetSmall: lose,
				BetPerfectPair: lose, BetEitherPair: lose},
		},
		{ // player 7 stands (3H 4H); banker 6 stands (2C 4D): banker loses; player by 1 — loses the Dragon
			[]string{"3H", "2C", "4H", "4D"},
			map[Bet]Payout{BetDragonPlayer: lose, BetDragonBanker: lose, BetSmall: win(1.5)},
		},
		{ // player 6 (KH 6C) stands; banker 3 (AS 2S) draws 3D → 6: tie, non-natural: Dragon loses
			[]string{"KH", "AS", "6C", "2S", "3D"},
			map[Bet]Payout{BetDragonPlayer: lose, BetDragonBanker: lose, BetLucky6: lose, BetBig: win(0.54)},
		},
		{ // player 5 (2H 3H) draws KD → 5; banker 6 (QS 6S) stands on a 0 third card: banker 6 on two cards
			[]string{"2H", "QS", "3H", "6S", "KD"},
			map[Bet]Payout{BetLucky6: win(12), BetDragonBanker: lose},
		},
		{ // player 0 (KH QH) draws KC → 0; banker 2 (AS AD) draws 4C → 6: banker three-card 6, by 6
			[]string{"KH", "AS", "QH", "AD", "KC", "4C"},
			map[Bet]Payout{BetLucky6: win(20), BetDragonBanker: win(4), BetEitherPair: win(5), BetPerfectPair: lose},
		},
		{ // rank-only pair: 4 4 is a pair, its suits unknown: perfect pair unsettled
			[]string{"4", "4S", "4", "4D"},
			map[Bet]Payout{BetPerfectPair: {}, BetEitherPair: win(5)},
		},
	} {
		coup := mustCoup(t, c.cards...)
		all, err := r.SettleAll(coup)
		if err != nil {
			t.Fatal(err)
		}
		var e CoupEvent
		coup.SettledEvent(&e, r, 1, 1)
		if e.Settlement != all {
			t.Errorf("%v: coup line settlement %+v, SettleAll %+v", c.cards, e.Settlement, all)
		}
		for b, want := range c.want {
			got, err := r.Settle(coup, b)
			if err != nil || got != want || all.Of(b) != want {
				t.Errorf("%v: %s = %+v (SettleAll %+v, err %v), want %+v", c.cards, b, got, all.Of(b), err, want)
			}
		}
	}
	// Not offered: an error, and absent from the settlement.
	coup := mustCoup(t, "5H", "4D", "4C", "4S")
	if _, err := (Rules{}).Settle(coup, BetLucky6); !errors.Is(err, ErrBetNotOffered) {
		t.Errorf("lucky6 not offered: %v", err)
	}
	if s, _ := (Rules{}).SettleAll(coup); s.Lucky6 != (Payout{}) || s.DragonPlayer != (Payout{}) {
		t.Errorf("side bets settled when not offered: %+v", s)
	}
}

func TestPairSuitedSettle(t *testing.T) {
	// Dealt P1 B1 P2 B2: player 5H 2C, banker 4S 4S (suited), then player
	// 9D 9D (suited) against banker 4S 4H (unsuited).
	suitedBanker := mustCoup(t, "5H", "4S", "2C", "4S")
	both := mustCoup(t, "9D", "4S", "9D", "4H")
	for _, c := range []struct {
		name string
		r    Rules
		coup Coup
		bet  Bet
		want Payout
	}{
		{"suited banker pair", suited25, suitedBanker, BetBankerPair, win(25)},
		{"no player pair", suited25, suitedBanker, BetPlayerPair, lose},
		{"suited player pair", suited25, both, BetPlayerPair, win(25)},
		{"unsuited banker pair", suited25, both, BetBankerPair, win(11)},
		{"unsuited at 12", Rules{PairPays: 12, PairSuitedPays: 25}, both, BetBankerPair, win(12)},
		{"suited, rule off", Rules{}, both, BetPlayerPair, win(11)},
		{"suited, pays the same", Rules{PairPays: 12, PairSuitedPays: 12}, both, BetPlayerPair, win(12)},
	} {
		if p, err := c.r.Settle(c.coup, c.bet); err != nil || p != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.name, p, err, c.want)
		}
		if s, err := c.r.SettleAll(c.coup); err != nil || s.Of(c.bet) != c.want {
			t.Errorf("%s: SettleAll %+v, %v", c.name, s.Of(c.bet), err)
		}
	}
}

// suited25 and allSides are as in the odds tests: a suited pair at 25:1,
// and every side bet offered at pays.
var suited25 = Rules{PairSuitedPays: 25}

func allSides(pays SidePays) Rules {
	return Rules{Side: SideRules{Offered: 1<<len(SideBets) - 1, Pays: pays}}
}
