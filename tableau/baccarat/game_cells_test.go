package baccarat_test

import (
	"fmt"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
)

// The drawing rules of each game written out by hand, cell by cell, as
// the rule books print them (D draw, S stand, O option), independently of
// tableau's DrawTable code. Punter: totals 0–7. Banker: one row per
// two-card total 0–7; columns: the punter stood, then the punter's third
// card of value 0 (ten or court), 1 (ace), 2, …, 9.
type handTable struct {
	punter string    // 8 letters, totals 0–7
	banker [8]string // 11 letters each
}

var (
	puntoBancoByHand = handTable{
		punter: "DDDDDDSS",
		banker: [8]string{
			//  s0123456789
			"DDDDDDDDDDD", // 0
			"DDDDDDDDDDD", // 1
			"DDDDDDDDDDD", // 2
			"DDDDDDDDDSD", // 3: stands against an 8
			"DSSDDDDDDSS", // 4: draws against 2–7
			"DSSSSDDDDSS", // 5: draws against 4–7
			"SSSSSSSDDSS", // 6: stood → stands; draws against 6–7
			"SSSSSSSSSSS", // 7
		},
	}
	// Chemin de fer, Scarne's banker table: as punto banco but an option
	// on 3 against a 9 and on 5 against a 4; the punter's 5 an option.
	cheminScarneByHand = handTable{
		punter: "DDDDDOSS",
		banker: [8]string{
			//  s0123456789
			"DDDDDDDDDDD", // 0
			"DDDDDDDDDDD", // 1
			"DDDDDDDDDDD", // 2
			"DDDDDDDDDSO", // 3
			"DSSDDDDDDSS", // 4
			"DSSSSODDDSS", // 5
			"SSSSSSSDDSS", // 6
			"SSSSSSSSSSS", // 7
		},
	}
	cheminFreeByHand = handTable{
		punter: "DDDDDOSS",
		banker: [8]string{"OOOOOOOOOOO", "OOOOOOOOOOO", "OOOOOOOOOOO", "OOOOOOOOOOO",
			"OOOOOOOOOOO", "OOOOOOOOOOO", "OOOOOOOOOOO", "OOOOOOOOOOO"},
	}
)

// withPunterFive returns t with the punter's 5 replaced.
func withPunterFive(t handTable, r byte) handTable {
	t.punter = t.punter[:5] + string(r) + t.punter[6:]
	return t
}

func ruleOf(c byte) baccarat.Rule {
	switch c {
	case 'D':
		return baccarat.MustDraw
	case 'O':
		return baccarat.Option
	}
	return baccarat.MustStand
}

// cardOfValue is a card of point value v (0: a king), of suit s.
func cardOfValue(v int, s string) string {
	switch v {
	case 0:
		return "K" + s
	case 1:
		return "A" + s
	}
	return fmt.Sprintf("%d%s", v, s)
}

// twoCardsOf returns two cards totalling t (0–9), neither a natural's
// accident: t itself is the total.
func twoCardsOf(t int, s string) []string {
	return []string{"T" + s, cardOfValue(t, s)}
}

// checkDecision checks a coup at a decision of rule want for hand: its
// Decision, its Need, and what a card and a stand do there.
func checkDecision(t *testing.T, name string, c baccarat.Coup, hand baccarat.Position, third baccarat.Need, want baccarat.Rule, total, punterThird int) {
	t.Helper()
	d, ok := c.Decision()
	if !ok || d.Hand != hand || d.Rule != want || d.Total != total || d.PunterThird != punterThird {
		t.Errorf("%s: Decision = %+v, %v; want %s's %s on %d (punter's third %d)", name, d, ok, hand, want, total, punterThird)
		return
	}
	if want == baccarat.MustStand {
		// The hand's forced stand is its turn, but a card goes to the next
		// hand that may draw (TestDecisionOrder): its Need is not this
		// hand's third card.
		if n := c.Need(); n == third {
			t.Errorf("%s: Need = %s at a forced stand", name, n)
		}
	} else if n := c.Need(); n != third {
		t.Errorf("%s: Need = %s, want %s", name, n, third)
	}
	// A card there is the hand's draw.
	if want != baccarat.MustStand {
		drew := c
		card, _ := card.ParseCard("2C")
		if _, a := drew.Deal(card); a != "" {
			t.Errorf("%s: a card raises %s", name, a)
		}
		opts := drew.Options()
		if want == baccarat.Option {
			if len(opts) != 1 || opts[0].Choice != baccarat.MustDraw || opts[0].Hand.Position() != hand || int(opts[0].Total) != total || int(opts[0].PunterThird) != punterThird {
				t.Errorf("%s: a card at the option records %+v", name, opts)
			}
		} else if len(opts) != 0 {
			t.Errorf("%s: a card at a forced draw records %+v", name, opts)
		}
	}
	// A stand.
	stood := c
	_, a := stood.Stand()
	switch want {
	case baccarat.MustDraw:
		if a != baccarat.AlertMissingCard || !stood.Dead() || stood.Complete() || stood.Winner() != baccarat.WinnerNone {
			t.Errorf("%s: stand at a forced draw: alert %q dead %v", name, a, stood.Dead())
		}
	case baccarat.Option:
		opts := stood.Options()
		if a != "" || len(opts) != 1 || opts[0].Choice != baccarat.MustStand || opts[0].Hand.Position() != hand {
			t.Errorf("%s: stand at an option: alert %q options %+v", name, a, opts)
		}
	case baccarat.MustStand:
		if a != "" || stood.Dead() || stood.Cards() != c.Cards() || len(stood.Options()) != 0 {
			t.Errorf("%s: stand at a forced stand: alert %q", name, a)
		}
	}
}

// checkBankerStands checks a coup where the banker must stand: complete
// (no decision pending), a card is extra, a stand changes nothing.
func checkBankerStands(t *testing.T, name string, c baccarat.Coup) {
	t.Helper()
	if d, ok := c.Decision(); ok || !c.Complete() || c.Need() != baccarat.NeedNone {
		t.Errorf("%s: banker must stand, but Decision = %+v, %v, Need %s", name, d, ok, c.Need())
		return
	}
	card, _ := card.ParseCard("2C")
	extra := c
	if _, a := extra.Deal(card); a != baccarat.AlertExtraCard || extra.Cards() != c.Cards() {
		t.Errorf("%s: a card where the banker must stand: %q", name, a)
	}
	stood := c
	if n, a := stood.Stand(); a != "" || n != baccarat.NeedNone || !stood.Complete() || stood.Winner() != c.Winner() {
		t.Errorf("%s: stand where the banker must stand: %q %s", name, a, n)
	}
}

func testTwoHandCells(t *testing.T, g baccarat.Game, want handTable) {
	// The punter's cells: totals 0–7 against a banker's 3 (drawing after
	// a punter who stood, in every table here but the free one, where it
	// is an option).
	for p := 0; p <= 7; p++ {
		c := dealtest.DealCoup(t, g, []string{twoCardsOf(p, "S")[0], "TH", twoCardsOf(p, "S")[1], "3H"})
		name := fmt.Sprintf("%s punter %d", g, p)
		checkDecision(t, name, c, baccarat.PositionPlayer, baccarat.NeedPlayerThird, ruleOf(want.punter[p]), p, baccarat.NoThirdCard)
	}
	// The banker's cells.
	for b := 0; b <= 7; b++ {
		for col := 0; col <= 10; col++ {
			var cards []string
			third := col - 1
			if third == baccarat.NoThirdCard {
				// The punter stands on 6 (stood by rule: a stand passes his turn).
				cards = []string{"3S", "TH", "3D", cardOfValue(b, "H")}
			} else {
				// The punter draws on 4 (always forced), his third of value v.
				cards = []string{"AS", "TH", "3D", cardOfValue(b, "H"), cardOfValue(third, "C")}
			}
			c := dealtest.DealCoup(t, g, cards)
			if third == baccarat.NoThirdCard {
				if d, ok := c.Decision(); ok && d.Hand == baccarat.PositionPlayer {
					if _, a := c.Stand(); a != "" {
						t.Fatalf("stand on 6: %s", a)
					}
				}
			}
			name := fmt.Sprintf("%s banker %d/%d", g, b, third)
			r := ruleOf(want.banker[b][col])
			if r == baccarat.MustStand {
				checkBankerStands(t, name, c)
				continue
			}
			checkDecision(t, name, c, baccarat.PositionBanker, baccarat.NeedBankerThird, r, b, third)
		}
	}
	// Naturals end the coup, either side.
	for _, cards := range [][]string{{"8S", "2H", "KD", "3C"}, {"2S", "9H", "KD", "QC"}, {"4S", "4H", "5D", "4C"}} {
		c := dealtest.DealCoup(t, g, cards)
		if !c.Natural() || !c.Complete() {
			t.Errorf("%s %v: natural %v complete %v", g, cards, c.Natural(), c.Complete())
		}
		checkBankerStands(t, fmt.Sprintf("%s natural %v", g, cards), c)
	}
}

func TestCellsPuntoBanco(t *testing.T) {
	for _, g := range baccarat.Games {
		testTwoHandCells(t, g, puntoBancoByHand)
	}
}

func TestCellsCheminDeFer(t *testing.T) {
	for _, c := range []struct {
		five, banker string
		want         handTable
	}{
		{"option", "scarne", cheminScarneByHand},
		{"draw", "scarne", withPunterFive(cheminScarneByHand, 'D')},
		{"stand", "scarne", withPunterFive(cheminScarneByHand, 'S')},
		{"option", "free", cheminFreeByHand},
		{"draw", "free", withPunterFive(cheminFreeByHand, 'D')},
		{"stand", "free", withPunterFive(cheminFreeByHand, 'S')},
	} {
		g, err := baccarat.NewGame("chemin-de-fer", map[string]string{"punter-five": c.five, "banker-table": c.banker})
		if err != nil {
			t.Fatal(err)
		}
		testTwoHandCells(t, g, c.want)
	}
}

// Banque by hand: each tableau's rule on its two-card total 0–9 (8 and 9
// are naturals: no card), the banker's on his (an option on 0–7; a
// natural ends the coup).
const (
	banqueTableauByHand = "DDDDDOSSSS"
	banqueBankerByHand  = "OOOOOOOO"
)

func TestCellsBanque(t *testing.T) {
	g := baccarat.GameBanque
	deal := func(r, l, b int) baccarat.Coup {
		rc, lc, bc := twoCardsOf(r, "S"), twoCardsOf(l, "D"), twoCardsOf(b, "H")
		return dealtest.DealCoup(t, g, []string{rc[0], lc[0], bc[0], rc[1], lc[1], bc[1]})
	}
	card := func(s string) card.Card { c, _ := card.ParseCard(s); return c }
	// The right tableau's turn, on every total but a natural.
	for r := 0; r <= 7; r++ {
		c := deal(r, 6, 3) // left stands on 6, banker on 3 (his option)
		name := fmt.Sprintf("banque right %d", r)
		want := ruleOf(banqueTableauByHand[r])
		checkDecision(t, name, c, baccarat.PositionRight, baccarat.NeedPlayerThird, want, r, baccarat.NoThirdCard)
		if want == baccarat.MustStand {
			// A card goes past the right tableau, standing, to the left
			// one (which stands) and to the banker (his option): a draw.
			drew := c
			drew.Deal(card("2C"))
			if drew.Player.N != 2 || drew.Left.N != 2 || drew.Banker.N != 3 {
				t.Errorf("%s: a card went to right %d left %d banker %d", name, drew.Player.N, drew.Left.N, drew.Banker.N)
			}
		}
	}
	// The left tableau's turn, after the right's forced stand on 7.
	for l := 0; l <= 7; l++ {
		c := deal(7, l, 3)
		if _, a := c.Stand(); a != "" { // the right's 7: a forced stand passed
			t.Fatal(a)
		}
		name := fmt.Sprintf("banque left %d", l)
		checkDecision(t, name, c, baccarat.PositionLeft, baccarat.NeedLeftThird, ruleOf(banqueTableauByHand[l]), l, baccarat.NoThirdCard)
	}
	for b := 0; b <= 7; b++ {
		c := deal(6, 7, b)
		c.Stand() // right's 6
		c.Stand() // left's 7
		name := fmt.Sprintf("banque banker %d", b)
		checkDecision(t, name, c, baccarat.PositionBanker, baccarat.NeedBankerThird, ruleOf(banqueBankerByHand[b]), b, baccarat.NoThirdCard)
	}

	// A tableau with a natural has no turn: it is turned over at once, and
	// the first decision is the next hand's.
	for r := 8; r <= 9; r++ {
		// Right natural, each left total that is not one: the left
		// tableau decides first, as if it were first.
		for l := 0; l <= 7; l++ {
			c := deal(r, l, 3)
			name := fmt.Sprintf("banque right natural %d, left %d", r, l)
			checkDecision(t, name, c, baccarat.PositionLeft, baccarat.NeedLeftThird, ruleOf(banqueTableauByHand[l]), l, baccarat.NoThirdCard)
			// A stand there is the left's, and the next is the banker's.
			st := c
			if _, a := st.Stand(); a != "" && ruleOf(banqueTableauByHand[l]) != baccarat.MustDraw {
				t.Errorf("%s: stand raises %s", name, a)
			}
			if ruleOf(banqueTableauByHand[l]) != baccarat.MustDraw {
				bankerNext(t, name+", after the left's stand", st, 3)
			}
		}
		// Left natural, each right total that is not one: the right
		// decides, then the banker (the left is passed).
		for rr := 0; rr <= 7; rr++ {
			c := deal(rr, r, 4)
			name := fmt.Sprintf("banque left natural %d, right %d", r, rr)
			checkDecision(t, name, c, baccarat.PositionRight, baccarat.NeedPlayerThird, ruleOf(banqueTableauByHand[rr]), rr, baccarat.NoThirdCard)
			if ruleOf(banqueTableauByHand[rr]) != baccarat.MustDraw {
				st := c
				st.Stand()
				bankerNext(t, name+", after the right's stand", st, 4)
			} else {
				// The right's forced draw, then the banker's option.
				dr := c
				dr.Deal(card("2C"))
				bankerNext(t, name+", after the right's draw", dr, 4)
			}
		}
		// Both tableaux natural, the banker none: the coup is complete
		// after the deal, with no option, and a card is surplus.
		for l := 8; l <= 9; l++ {
			for b := 0; b <= 7; b++ {
				c := deal(r, l, b)
				name := fmt.Sprintf("banque both natural %d %d, banker %d", r, l, b)
				if _, ok := c.Decision(); ok || !c.Complete() || c.Need() != baccarat.NeedNone || len(c.Options()) != 0 {
					t.Errorf("%s: complete %v, need %s, options %v", name, c.Complete(), c.Need(), c.Options())
				}
				ex := c
				if _, a := ex.Deal(card("4C")); a != baccarat.AlertExtraCard {
					t.Errorf("%s: a card after the deal raises %q, want extra-card", name, a)
				}
				st := c
				if _, a := st.Stand(); a != "" || !st.Complete() {
					t.Errorf("%s: a stand raises %q", name, a)
				}
				rw, lw := c.SideWinners()
				if rw != baccarat.WinnerPlayer || lw != baccarat.WinnerPlayer {
					t.Errorf("%s: side winners %v %v, want both tableaux", name, rw, lw)
				}
			}
		}
	}
	// The banker's natural ends the coup, with each tableau state.
	for b := 8; b <= 9; b++ {
		for r := 0; r <= 9; r++ {
			for l := 0; l <= 9; l++ {
				c := deal(r, l, b)
				name := fmt.Sprintf("banque banker natural %d, right %d, left %d", b, r, l)
				if !c.Complete() || !c.Natural() || len(c.Options()) != 0 {
					t.Errorf("%s: complete %v", name, c.Complete())
				}
				checkBankerStands(t, name, c)
			}
		}
	}
	if n := deal(9, 8, 4).Naturals(); n != [3]bool{true, true, false} {
		t.Errorf("Naturals = %v", n)
	}
}

// bankerNext checks that the banker's option on total b is the banque
// coup's turn, and that a card there is his draw.
func bankerNext(t *testing.T, name string, c baccarat.Coup, b int) {
	t.Helper()
	if d, ok := c.Decision(); !ok || d.Hand != baccarat.PositionBanker || d.Rule != baccarat.Option || d.Total != b {
		t.Errorf("%s: Decision %+v %v, want the banker's option on %d", name, d, ok, b)
	}
	if n := c.Need(); n != baccarat.NeedBankerThird {
		t.Errorf("%s: Need %s, want banker-third", name, n)
	}
	card, _ := card.ParseCard("2C")
	n := c.Banker.N
	if _, a := c.Deal(card); a != "" || c.Banker.N != n+1 {
		t.Errorf("%s: a card went elsewhere (%q)", name, a)
	}
}

// TestDecisionOrder: the punter decides before the banker; his forced
// stand is his turn until a stand passes it or a card goes to the banker.
func TestDecisionOrder(t *testing.T) {
	c := dealtest.DealCoup(t, baccarat.GamePuntoBanco, []string{"3S", "TH", "3D", "3H"}) // P 6, B 3
	d, _ := c.Decision()
	if d.Hand != baccarat.PositionPlayer || d.Rule != baccarat.MustStand || c.Need() != baccarat.NeedBankerThird {
		t.Fatalf("P6 B3: %+v, need %s", d, c.Need())
	}
	if _, a := c.Stand(); a != "" {
		t.Fatalf("stand at the player's 6: %s", a)
	}
	if d, _ := c.Decision(); d.Hand != baccarat.PositionBanker || d.Rule != baccarat.MustDraw {
		t.Fatalf("after the player's stand: %+v", d)
	}
	if _, a := c.Stand(); a != baccarat.AlertMissingCard {
		t.Fatalf("a second stand (the banker's, who must draw): %q", a)
	}
	// Without the first stand, a card is the banker's.
	c = dealtest.DealCoup(t, baccarat.GamePuntoBanco, []string{"3S", "TH", "3D", "3H", "4C"})
	if c.Banker.N != 3 || !c.Complete() {
		t.Fatalf("the card after P6 B3 went to player %d / banker %d", c.Player.N, c.Banker.N)
	}
	// The first cards are never optional: a stand there is a missing card.
	c = dealtest.DealCoup(t, baccarat.GameCheminDeFer, []string{"3S", "TH", "3D"})
	if _, a := c.Stand(); a != baccarat.AlertMissingCard || !c.Dead() {
		t.Fatalf("stand during the first cards: %q", a)
	}
	if _, a := c.Deal(card.Card{Rank: card.Rank2, Suit: card.Hearts}); a != baccarat.AlertExtraCard {
		t.Fatalf("a card after a dead coup: %q", a)
	}
}
