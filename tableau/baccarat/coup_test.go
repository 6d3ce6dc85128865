package baccarat_test

import (
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
)

func TestCoupFacts(t *testing.T) {
	type facts struct {
		player, banker        string
		pt, bt                int
		winner                baccarat.Winner
		natural, ppair, bpair bool
		dragon7, panda8, b6   bool
		n                     int
	}
	cases := []struct {
		deal string // in dealing order
		want facts
	}{
		// Player 7H 3C (0) draws 4H; banker 2D KS (2) always draws: 4C makes 6.
		{"7H 2D 3C KS 4H 4C", facts{"7H 3C 4H", "2D KS 4C", 4, 6, baccarat.WinnerBanker, false, false, false, false, false, true, 6}},
		{"9S 3H KD 5C", facts{"9S KD", "3H 5C", 9, 8, baccarat.WinnerPlayer, true, false, false, false, false, false, 4}},
		{"3S 6H 2D JC 8H", facts{"3S 2D 8H", "6H JC", 3, 6, baccarat.WinnerBanker, false, false, false, false, false, true, 5}},
		{"6C 2S 3C 2C", facts{"6C 3C", "2S 2C", 9, 4, baccarat.WinnerPlayer, true, false, true, false, false, false, 4}},
		{"9S 9H 9C 9D", facts{"9S 9C", "9H 9D", 8, 8, baccarat.WinnerTie, true, true, true, false, false, false, 4}},
		// Dragon 7: banker 3 draws on player's third card 2 and makes 7 against 6.
		{"AS KH 3S 3D 2H 4C", facts{"AS 3S 2H", "KH 3D 4C", 6, 7, baccarat.WinnerBanker, false, false, false, true, false, false, 6}},
		// Panda 8: player 4+A=5 draws a 3 = 8; banker 6 stands on 3.
		{"4S 6H AH KC 3D", facts{"4S AH 3D", "6H KC", 8, 6, baccarat.WinnerPlayer, false, false, false, false, true, false, 5}},
		// Banker two-card 6 stands on the player's third card 0 and wins on 6; both hands pairs.
		{"2S 3H 2D 3C KH", facts{"2S 2D KH", "3H 3C", 4, 6, baccarat.WinnerBanker, false, true, true, false, false, true, 5}},
		// Both stand: player 7, banker 6.
		{"4S 3H 3D 3C", facts{"4S 3D", "3H 3C", 7, 6, baccarat.WinnerPlayer, false, false, true, false, false, false, 4}},
		// Player stands on 6; banker 5 draws (player stood) and busts to 4: player wins; no third for player.
		{"QS 2H 6D 3C 9C", facts{"QS 6D", "2H 3C 9C", 6, 4, baccarat.WinnerPlayer, false, false, false, false, false, false, 5}},
		// Rank-only cards: 5 5 | 3 2 → player 8 natural.
		{"5 5 3 2", facts{"5 3", "5 2", 8, 7, baccarat.WinnerPlayer, true, false, false, false, false, false, 4}},
		// A ten and a king are not a pair.
		{"TS KH KD TC", facts{"TS KD", "KH TC", 0, 0, baccarat.WinnerNone, false, false, false, false, false, false, 4}},
	}
	for _, tc := range cases {
		var c baccarat.Coup
		for _, card := range dealtest.Cards(t, tc.deal) {
			c.Deal(card)
		}
		w := tc.want
		if tc.deal == "TS KH KD TC" {
			// Not complete yet: both totals 0, the player draws.
			if c.Need() != baccarat.NeedPlayerThird || c.Winner() != baccarat.WinnerNone || c.PlayerPair() || c.BankerPair() {
				t.Errorf("%s: need %v winner %v pairs %v %v", tc.deal, c.Need(), c.Winner(), c.PlayerPair(), c.BankerPair())
			}
			continue
		}
		got := facts{c.Player.String(), c.Banker.String(), c.PlayerTotal(), c.BankerTotal(), c.Winner(),
			c.Natural(), c.PlayerPair(), c.BankerPair(), c.Dragon7(), c.Panda8(), c.BankerWinsOn6(), c.Cards()}
		if got != w {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.deal, got, w)
		}
		if !c.Complete() || c.Need() != baccarat.NeedNone {
			t.Errorf("%s: not complete (need %v)", tc.deal, c.Need())
		}
	}
}

func TestCoupNeedSequence(t *testing.T) {
	var c baccarat.Coup
	want := []struct {
		card   string
		need   baccarat.Need
		pt, bt int
	}{
		{"7H", baccarat.NeedBanker, 7, 0},
		{"2D", baccarat.NeedPlayer, 7, 2},
		{"3C", baccarat.NeedBanker, 0, 2},
		{"KS", baccarat.NeedPlayerThird, 0, 2},
		{"4H", baccarat.NeedBankerThird, 4, 2},
		{"4C", baccarat.NeedNone, 4, 6},
	}
	if c.Need() != baccarat.NeedPlayer || c.Complete() {
		t.Fatalf("empty coup needs %v", c.Need())
	}
	for _, w := range want {
		need, alert := c.Deal(dealtest.Cards(t, w.card)[0])
		if need != w.need || alert != "" || c.PlayerTotal() != w.pt || c.BankerTotal() != w.bt {
			t.Errorf("after %s: need %v alert %q totals %d-%d, want %v \"\" %d-%d",
				w.card, need, alert, c.PlayerTotal(), c.BankerTotal(), w.need, w.pt, w.bt)
		}
	}
	// A card after completion is an extra card and is not added.
	need, alert := c.Deal(dealtest.Cards(t, "9C")[0])
	if need != baccarat.NeedNone || alert != baccarat.AlertExtraCard || c.Cards() != 6 {
		t.Errorf("extra card: need %v alert %q cards %d", need, alert, c.Cards())
	}
	if a := c.Close(); a != "" {
		t.Errorf("closing a complete coup: %q", a)
	}
}

func TestCoupCloseIncomplete(t *testing.T) {
	var c baccarat.Coup
	if a := c.Close(); a != "" {
		t.Errorf("closing an empty coup: %q", a)
	}
	for i, card := range dealtest.Cards(t, "AH 2C 3S KD") {
		c.Deal(card)
		if a := c.Close(); a != baccarat.AlertMissingCard {
			t.Errorf("closing after %d cards: %q, want missing-card", i+1, a)
		}
	}
	if c.Winner() != baccarat.WinnerNone || c.Dragon7() || c.Panda8() || c.BankerWinsOn6() {
		t.Error("an incomplete coup has a result")
	}
	c.Reset()
	if c.Cards() != 0 || c.Need() != baccarat.NeedPlayer {
		t.Error("Reset did not empty the coup")
	}
}

func TestCoupUnreadableCard(t *testing.T) {
	var c baccarat.Coup
	need, alert := c.Deal(card.Card{})
	if need != baccarat.NeedPlayer || alert != baccarat.AlertUnreadableCard || c.Cards() != 0 {
		t.Errorf("invalid card: need %v alert %q cards %d", need, alert, c.Cards())
	}
	need, alert = c.Deal(card.Card{Rank: 14, Suit: card.Hearts})
	if alert != baccarat.AlertUnreadableCard || need != baccarat.NeedPlayer {
		t.Errorf("rank 14: need %v alert %q", need, alert)
	}
}

func TestAlertCodes(t *testing.T) {
	want := "extra-card missing-card burn-count composition after-cut incomplete-coup advantage shoe-offline shoe-online shoe-alarm unreadable-card duplicate-card card-mismatch early-draw outbox-backlog shoe-overrun journal-failed archive-pruned shoe-sequence clock-jump session-takeover misplaced-token hand-limit result-mismatch misplaced-declare no-declaration"
	var got []string
	for _, a := range baccarat.AlertCodes {
		got = append(got, string(a))
		if !a.Known() {
			t.Errorf("%s not known", a)
		}
	}
	if strings.Join(got, " ") != want {
		t.Errorf("codes %v", got)
	}
	if baccarat.AlertCode("nope").Known() {
		t.Error("unknown code known")
	}
}
