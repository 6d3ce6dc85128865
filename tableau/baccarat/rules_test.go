package baccarat_test

import (
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
)

// playerCells is the player's column of the tableau, by two-card total
// 0–9, written out: "D" draws, "S" stands (8 and 9 are naturals).
var playerCells = [10]string{"D", "D", "D", "D", "D", "D", "S", "S", "S", "S"}

// bankerCells is every cell of the banker's side of the tableau, written
// out by hand. Row: the banker's two-card total 0–9. Columns: "-" the
// player stood, then the value of the player's third card 0 (10/J/Q/K),
// 1 (A), 2, …, 9. "D" draws, "S" stands.
var bankerCells = [10]string{
	//   -  0 1 2 3 4 5 6 7 8 9
	0: "D DDDDDDDDDD",
	1: "D DDDDDDDDDD",
	2: "D DDDDDDDDDD",
	3: "D DDDDDDDDSD",
	4: "D SSDDDDDDSS",
	5: "D SSSSDDDDSS",
	6: "S SSSSSSDDSS",
	7: "S SSSSSSSSSS",
	8: "S SSSSSSSSSS",
	9: "S SSSSSSSSSS",
}

func TestPlayerDrawsEveryCell(t *testing.T) {
	for total, cell := range playerCells {
		if got, want := baccarat.PlayerDraws(total), cell == "D"; got != want {
			t.Errorf("PlayerDraws(%d) = %v, want %v", total, got, want)
		}
	}
	if baccarat.PlayerDraws(-1) || baccarat.PlayerDraws(10) {
		t.Error("PlayerDraws accepts an out-of-range total")
	}
}

func TestBankerDrawsEveryCell(t *testing.T) {
	n := 0
	for b, row := range bankerCells {
		want := row[0] == 'D'
		if got := baccarat.BankerDraws(b, baccarat.NoThirdCard); got != want {
			t.Errorf("banker %d, player stood: draws = %v, want %v", b, got, want)
		}
		n++
		for v := 0; v <= 9; v++ {
			want := row[2+v] == 'D'
			if got := baccarat.BankerDraws(b, v); got != want {
				t.Errorf("banker %d, player third card value %d: draws = %v, want %v", b, v, got, want)
			}
			n++
		}
	}
	if n != 110 {
		t.Fatalf("checked %d cells, want 110", n)
	}
	for _, bad := range [][2]int{{-1, 0}, {10, 0}, {0, -2}, {0, 10}} {
		if baccarat.BankerDraws(bad[0], bad[1]) {
			t.Errorf("BankerDraws(%d, %d) = true for out-of-range arguments", bad[0], bad[1])
		}
	}
}

// TestBankerCrossCheck compares the engine with the table written by the
// player's third card, for every banker total 0–9 and every rank (the 100
// value cells, with each 0-valued rank separately).
func TestBankerCrossCheck(t *testing.T) {
	for b := 0; b <= 9; b++ {
		for r := card.RankAce; r <= card.RankKing; r++ {
			want := dealtest.BankerDrawsByThirdCard(b, r)
			if got := baccarat.BankerDraws(b, r.Value()); got != want {
				t.Errorf("banker %d, player third card %s: draws = %v, cross-check table says %v", b, r, got, want)
			}
		}
	}
}

// twoCards returns two cards (suits spades and hearts) totalling t, neither
// a pair, without using the engine: t=0 is K+10, otherwise A + (t-1) or
// for t=1 10+A.
func twoCards(t int) [2]card.Card {
	c := func(r card.Rank, s card.Suit) card.Card { return card.Card{Rank: r, Suit: s} }
	switch t {
	case 0:
		return [2]card.Card{c(card.RankKing, card.Spades), c(card.Rank10, card.Hearts)}
	case 1:
		return [2]card.Card{c(card.Rank10, card.Spades), c(card.RankAce, card.Hearts)}
	case 2:
		return [2]card.Card{c(card.Rank10, card.Spades), c(card.Rank2, card.Hearts)}
	}
	return [2]card.Card{c(card.RankAce, card.Spades), c(card.Rank(t-1), card.Hearts)}
}

// TestCoupFollowsEveryCell drives the coup state machine through every
// cell of the tableau with real cards and checks what it asks for next
// against the written-out tables.
func TestCoupFollowsEveryCell(t *testing.T) {
	for pt := 0; pt <= 9; pt++ {
		for bt := 0; bt <= 9; bt++ {
			p, b := twoCards(pt), twoCards(bt)
			var c baccarat.Coup
			for i, card := range []card.Card{p[0], b[0], p[1], b[1]} {
				need, alert := c.Deal(card)
				if alert != "" {
					t.Fatalf("P%d B%d card %d: alert %s", pt, bt, i, alert)
				}
				if i < 3 {
					wantNeed := []baccarat.Need{baccarat.NeedBanker, baccarat.NeedPlayer, baccarat.NeedBanker}[i]
					if need != wantNeed {
						t.Fatalf("after card %d need %v, want %v", i+1, need, wantNeed)
					}
				}
			}
			natural := pt >= 8 || bt >= 8
			if c.Natural() != natural {
				t.Errorf("P%d B%d: natural = %v", pt, bt, c.Natural())
			}
			var want baccarat.Need
			switch {
			case natural:
				want = baccarat.NeedNone
			case playerCells[pt] == "D":
				want = baccarat.NeedPlayerThird
			case bankerCells[bt][0] == 'D':
				want = baccarat.NeedBankerThird
			default:
				want = baccarat.NeedNone
			}
			if got := c.Need(); got != want {
				t.Errorf("P%d B%d: need %v, want %v", pt, bt, got, want)
			}
			if want != baccarat.NeedPlayerThird {
				continue
			}
			for r := card.RankAce; r <= card.RankKing; r++ {
				c2 := c
				need, _ := c2.Deal(card.Card{Rank: r, Suit: card.Clubs})
				wantB := baccarat.NeedNone
				if bankerCells[bt][2+r.Value()] == 'D' {
					wantB = baccarat.NeedBankerThird
				}
				if need != wantB {
					t.Errorf("P%d B%d third %s: need %v, want %v", pt, bt, r, need, wantB)
				}
				if need == baccarat.NeedBankerThird {
					need, _ = c2.Deal(card.Card{Rank: card.Rank5, Suit: card.Diamonds})
					if need != baccarat.NeedNone || c2.Cards() != 6 {
						t.Errorf("P%d B%d third %s: after banker third need %v cards %d", pt, bt, r, need, c2.Cards())
					}
				}
			}
		}
	}
}
