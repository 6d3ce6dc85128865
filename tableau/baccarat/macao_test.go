package baccarat_test

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
)

// macaoHand builds a hand with the given total and card count (the cards
// themselves do not matter to CompareMacao).
func macaoHand(total, n int, bust bool) *baccarat.MacaoHand {
	return &baccarat.MacaoHand{Total: total, N: n, Bust: bust}
}

// TestCompareMacaoTable: every comparison cell, written by hand from the
// rules: bust first, then totals, then card counts, then the equal rule.
func TestCompareMacaoTable(t *testing.T) {
	const W, L, P = baccarat.Win, baccarat.Lose, baccarat.Push
	cases := []struct {
		st, sn   int
		sb       bool
		bt, bn   int
		bb       bool
		bank, pu baccarat.Outcome // under --equal banker, --equal push
	}{
		// higher total wins, whatever the cards
		{9, 3, false, 8, 1, false, W, W},
		{8, 1, false, 9, 3, false, L, L},
		{1, 1, false, 0, 1, false, W, W},
		{0, 1, false, 1, 1, false, L, L},
		{5, 4, false, 4, 2, false, W, W},
		// equal totals: fewer cards wins
		{7, 2, false, 7, 3, false, W, W},
		{7, 3, false, 7, 2, false, L, L},
		{0, 1, false, 0, 5, false, W, W},
		{9, 4, false, 9, 1, false, L, L},
		// equal totals and cards: banker, or push
		{7, 2, false, 7, 2, false, L, P},
		{0, 1, false, 0, 1, false, L, P},
		{9, 1, false, 9, 1, false, L, P},
		{8, 2, false, 8, 2, false, L, P},
		// bust: a busted seat always loses; a busted banker loses to the rest
		{14, 2, true, 3, 2, false, L, L},
		{12, 3, true, 11, 3, true, L, L},
		{10, 2, true, 10, 2, true, L, L},
		{2, 5, false, 13, 2, true, W, W},
		{0, 1, false, 10, 2, true, W, W},
		{9, 1, false, 15, 3, true, W, W},
	}
	for _, c := range cases {
		s, b := macaoHand(c.st, c.sn, c.sb), macaoHand(c.bt, c.bn, c.bb)
		if got := baccarat.CompareMacao(s, b, baccarat.MacaoEqualBanker); got != c.bank {
			t.Errorf("seat %d/%d bust %v vs banker %d/%d bust %v, equal banker: %v, want %v", c.st, c.sn, c.sb, c.bt, c.bn, c.bb, got, c.bank)
		}
		if got := baccarat.CompareMacao(s, b, baccarat.MacaoEqualPush); got != c.pu {
			t.Errorf("seat %d/%d bust %v vs banker %d/%d bust %v, equal push: %v, want %v", c.st, c.sn, c.sb, c.bt, c.bn, c.bb, got, c.pu)
		}
	}
}

func mustCard(s string) card.Card {
	c, err := card.ParseCard(s)
	if err != nil {
		panic(err)
	}
	return c
}

// hand builds a hand from its cards, total modulo 10, natural as given.
func hand(natural bool, cards ...string) *baccarat.MacaoHand {
	h := &baccarat.MacaoHand{Natural: natural}
	for _, s := range cards {
		h.Cards[h.N] = mustCard(s)
		h.N++
		h.Total += h.Cards[h.N-1].Value()
	}
	h.Total %= 10
	return h
}

// TestMacaoWinPaysTable: what a winning seat is paid, written by hand:
// natural 9 × banker natural 9 × pay table × Victoria pair.
func TestMacaoWinPaysTable(t *testing.T) {
	cases := []struct {
		name     string
		victoria bool
		seat     *baccarat.MacaoHand
		banker   *baccarat.MacaoHand
		p32, p21 int // under --pays 3-2, 2-1
	}{
		{"macao natural 9", false, hand(true, "9H"), hand(false, "4C", "3D"), 3, 2},
		{"macao natural 9, banker natural 8", false, hand(true, "9H"), hand(true, "8C"), 3, 2},
		{"macao natural 9, banker natural 9", false, hand(true, "9H"), hand(true, "9C"), 1, 1},
		{"macao natural 9, banker drawn 9", false, hand(true, "9H"), hand(false, "4C", "5D"), 3, 2},
		{"macao natural 8", false, hand(true, "8S"), hand(false, "2C", "5D"), 2, 1},
		{"macao natural 8, banker natural 9", false, hand(true, "8S"), hand(true, "9C"), 2, 1},
		{"macao drawn 9", false, hand(false, "4S", "5S"), hand(false, "2C", "5D"), 1, 1},
		{"macao drawn 8", false, hand(false, "TS", "8S"), hand(false, "2C"), 1, 1},
		{"victoria natural 9", true, hand(true, "4H", "5C"), hand(false, "2C", "3D"), 3, 2},
		{"victoria natural 9, banker natural 9", true, hand(true, "4H", "5C"), hand(true, "KC", "9D"), 1, 1},
		{"victoria natural 8", true, hand(true, "KH", "8C"), hand(false, "2C", "3D"), 2, 1},
		{"victoria natural 8 of a pair", true, hand(true, "4H", "4C"), hand(false, "2C", "3D"), 1, 1},
		{"victoria natural 8 of a pair 9-9", true, hand(true, "9H", "9C"), hand(false, "2C", "3D"), 1, 1},
		{"victoria natural 9 of 7-2", true, hand(true, "7H", "2C"), hand(false, "AC", "3D"), 3, 2},
		{"victoria pair not natural", true, hand(false, "3H", "3C", "2D"), hand(false, "AC", "3D"), 1, 1},
		{"macao one card is never a pair", false, hand(true, "8H"), hand(false, "AC"), 2, 1},
	}
	for _, c := range cases {
		for _, pt := range []struct {
			pays baccarat.MacaoPayTable
			want int
		}{{baccarat.MacaoPays32, c.p32}, {baccarat.MacaoPays21, c.p21}} {
			r := baccarat.MacaoRules{Victoria: c.victoria, Pays: pt.pays}
			if got := baccarat.MacaoWinPays(c.seat, c.banker, r); got != pt.want {
				t.Errorf("%s, pays %s: %d, want %d", c.name, pt.pays, got, pt.want)
			}
		}
	}
}

// play feeds a script of cards, "stand" and "refuse" to a new coup and
// returns it with the misfit of every token ("" where it fits).
func play(t *testing.T, r baccarat.MacaoRules, script string) (baccarat.MacaoCoup, []string) {
	t.Helper()
	c, err := baccarat.NewMacaoCoup(r)
	if err != nil {
		t.Fatal(err)
	}
	var mis []string
	for _, w := range strings.Fields(script) {
		var m baccarat.MacaoMisfit
		switch w {
		case "stand":
			m = c.Stand()
		case "refuse":
			m = c.Refuse()
		default:
			m = c.Card(mustCard(w))
		}
		mis = append(mis, string(m.Code()))
	}
	return c, mis
}

func cardsOf(h *baccarat.MacaoHand) string {
	var b strings.Builder
	for i, c := range h.Slice() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.String())
	}
	if h.NRefused > 0 {
		b.WriteString(" refused")
		for _, c := range h.RefusedSlice() {
			b.WriteString(" " + c.String())
		}
	}
	return b.String()
}

// seatLine summarises a seat as "cards=total natural? bust? result net".
func seatLine(c *baccarat.MacaoCoup, i int) string {
	h := c.Seat(i)
	res := c.Result(i)
	return fmt.Sprintf("%s=%d%s%s %s %+d", cardsOf(h), h.Total, ifSay(h.Natural, " natural"), ifSay(h.Bust, " bust"), res.Outcome, res.Net)
}

func bankerLine(c *baccarat.MacaoCoup) string {
	h := c.Banker()
	return fmt.Sprintf("%s=%d%s%s", cardsOf(h), h.Total, ifSay(h.Natural, " natural"), ifSay(h.Bust, " bust"))
}

func ifSay(b bool, s string) string {
	if b {
		return s
	}
	return ""
}

// TestMacaoCoups: whole coups, each worked out by hand from the rules.
func TestMacaoCoups(t *testing.T) {
	cases := []struct {
		name   string
		rules  baccarat.MacaoRules
		script string
		seats  []string
		banker string
	}{
		{
			// Deal 4H (seat 1), 8S (seat 2, natural 8), 2C (banker).
			// Seat 1 draws 5D: 9, stands. Seat 2 has no turn. The banker
			// draws KD, refuses it, draws 6H: 8 on two cards, stands.
			name:   "macao two seats, refused king",
			rules:  baccarat.MacaoRules{Seats: 2},
			script: "4H 8S 2C 5D stand KD refuse 6H stand",
			seats:  []string{"4H 5D=9 win +1", "8S=8 natural win +2"},
			banker: "2C 6H refused KD=8",
		},
		{
			name:   "macao natural 8 against a drawn 8 under 2-1",
			rules:  baccarat.MacaoRules{Seats: 2, Pays: baccarat.MacaoPays21},
			script: "4H 8S 2C 5D stand KD refuse 6H stand",
			seats:  []string{"4H 5D=9 win +1", "8S=8 natural win +1"},
			banker: "2C 6H refused KD=8",
		},
		{
			// Modulo: 7 + 6 = 13 counts 3; a kept ten adds a card.
			name:   "macao modulo, a ten kept",
			rules:  baccarat.MacaoRules{},
			script: "7H 5C 6D TS stand stand",
			seats:  []string{"7H 6D TS=3 lose -1"},
			banker: "5C=5",
		},
		{
			name:   "macao, equal totals and cards: banker",
			rules:  baccarat.MacaoRules{},
			script: "3H 2C 2D stand 3S stand",
			seats:  []string{"3H 2D=5 lose -1"},
			banker: "2C 3S=5",
		},
		{
			name:   "macao, equal totals and cards: push",
			rules:  baccarat.MacaoRules{Equal: baccarat.MacaoEqualPush},
			script: "3H 2C 2D stand 3S stand",
			seats:  []string{"3H 2D=5 push +0"},
			banker: "2C 3S=5",
		},
		{
			name:   "macao, equal totals, seat has fewer cards",
			rules:  baccarat.MacaoRules{},
			script: "5H 2C stand AD 2S stand",
			seats:  []string{"5H=5 win +1"},
			banker: "2C AD 2S=5",
		},
		{
			// Banker natural 9: the seat still draws, reaches 9 on three
			// cards, and loses to the banker's one.
			name:   "macao banker natural 9",
			rules:  baccarat.MacaoRules{},
			script: "2H 9C 3D 4S stand",
			seats:  []string{"2H 3D 4S=9 lose -1"},
			banker: "9C=9 natural",
		},
		{
			name:   "macao seat and banker natural 9",
			rules:  baccarat.MacaoRules{Equal: baccarat.MacaoEqualPush},
			script: "9H 9C",
			seats:  []string{"9H=9 natural push +0"},
			banker: "9C=9 natural",
		},
		{
			name:   "macao all naturals: complete on the deal",
			rules:  baccarat.MacaoRules{Seats: 3},
			script: "9H 8D 9S 8C",
			seats:  []string{"9H=9 natural win +3", "8D=8 natural lose -1", "9S=9 natural win +3"},
			banker: "8C=8 natural",
		},
		{
			// Bust: 7 + 6 = 13 busts at once; the turn passes to the
			// banker, who stands on 5.
			name:   "macao bust counting, seat busts",
			rules:  baccarat.MacaoRules{Count: baccarat.MacaoBust},
			script: "7H 5C 6D stand",
			seats:  []string{"7H 6D=13 bust lose -1"},
			banker: "5C=5",
		},
		{
			name:   "macao bust counting, banker busts",
			rules:  baccarat.MacaoRules{Count: baccarat.MacaoBust, Seats: 2},
			script: "7H 2S 5C 2D 6D AS stand 4D 3C",
			seats:  []string{"7H 2D 6D=15 bust lose -1", "2S AS=3 win +1"},
			banker: "5C 4D 3C=12 bust",
		},
		{
			name:   "macao bust counting, exactly 9 is no bust",
			rules:  baccarat.MacaoRules{Count: baccarat.MacaoBust},
			script: "2H 3C 3D 4S stand stand",
			seats:  []string{"2H 3D 4S=9 win +1"},
			banker: "3C=3",
		},
		{
			// Victoria deals round by round: seat, banker, seat, banker.
			// 4H 4S is a natural 8 of a pair: it pays 1.
			name:   "victoria pair natural",
			rules:  baccarat.MacaoRules{Victoria: true},
			script: "4H 3C 4S 2D 3H stand",
			seats:  []string{"4H 4S=8 natural win +1"},
			banker: "3C 2D 3H=8",
		},
		{
			name:   "victoria natural 9 against the banker's 7",
			rules:  baccarat.MacaoRules{Victoria: true},
			script: "5H 3C 4S 4D stand",
			seats:  []string{"5H 4S=9 natural win +3"},
			banker: "3C 4D=7",
		},
		{
			name:  "victoria three seats",
			rules: baccarat.MacaoRules{Victoria: true, Seats: 3},
			// seat1 AH 2H, seat2 KS 8S natural, seat3 6C 6D (2), banker 3S 3D
			script: "AH KS 6C 3S 2H 8S 6D 3D 5C stand 7H stand 2C stand",
			seats:  []string{"AH 2H 5C=8 lose -1", "KS 8S=8 natural win +2", "6C 6D 7H=9 win +1"},
			banker: "3S 3D 2C=8",
		},
		{
			// Bust counting with two cards: 9 + 9 = 18 busts on the deal.
			name:   "victoria bust on the deal",
			rules:  baccarat.MacaoRules{Victoria: true, Count: baccarat.MacaoBust},
			script: "9H 3C 9S 2D stand",
			seats:  []string{"9H 9S=18 bust lose -1"},
			banker: "3C 2D=5",
		},
		{
			name:   "victoria modulo, 9-9 is a natural 8 of a pair",
			rules:  baccarat.MacaoRules{Victoria: true},
			script: "9H 3C 9S 2D stand",
			seats:  []string{"9H 9S=8 natural win +1"},
			banker: "3C 2D=5",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			coup, mis := play(t, c.rules, c.script)
			for i, m := range mis {
				if m != "" {
					t.Errorf("token %d of %q: %s", i+1, c.script, m)
				}
			}
			if !coup.Complete() {
				t.Fatalf("coup not complete after %q", c.script)
			}
			for i, want := range c.seats {
				if got := seatLine(&coup, i); got != want {
					t.Errorf("seat %d: %s, want %s", i+1, got, want)
				}
			}
			if coup.Seat(len(c.seats)) != nil {
				t.Errorf("seat %d exists; want %d seats", len(c.seats)+1, len(c.seats))
			}
			if got := bankerLine(&coup); got != c.banker {
				t.Errorf("banker: %s, want %s", got, c.banker)
			}
		})
	}
}

// TestMacaoMisfits: tokens that do not fit, each with the alert it
// raises, and the coup left as if the token had not been there.
func TestMacaoMisfits(t *testing.T) {
	cases := []struct {
		name   string
		rules  baccarat.MacaoRules
		script string
		want   string // the alert of each token, "-" where it fits
	}{
		{"stand during the deal", baccarat.MacaoRules{}, "4H stand 5C", "- misplaced-token -"},
		{"stand before any card", baccarat.MacaoRules{}, "stand", "misplaced-token"},
		{"victoria stand during the deal", baccarat.MacaoRules{Victoria: true}, "4H 5C 2D stand", "- - - misplaced-token"},
		{"stand after the coup", baccarat.MacaoRules{}, "4H 5C stand stand stand", "- - - - misplaced-token"},
		{"refuse a non-ten", baccarat.MacaoRules{}, "4H 5C 7D refuse stand stand", "- - - misplaced-token - -"},
		{"refuse at the start of a turn", baccarat.MacaoRules{}, "4H 5C refuse", "- - misplaced-token"},
		{"refuse a dealt ten", baccarat.MacaoRules{}, "TH 5C refuse", "- - misplaced-token"},
		{"refuse twice", baccarat.MacaoRules{}, "4H 5C KD refuse refuse", "- - - - misplaced-token"},
		{"refuse after stand", baccarat.MacaoRules{}, "4H 5C QD stand refuse", "- - - - misplaced-token"},
		{"refuse with refusing off", baccarat.MacaoRules{NoRefuse: true}, "4H 5C KD refuse", "- - - misplaced-token"},
		{"refuse after the card that busted", baccarat.MacaoRules{Count: baccarat.MacaoBust}, "7H 5C 6D refuse", "- - - misplaced-token"},
		{"card after the coup", baccarat.MacaoRules{}, "9H 8C 2D", "- - extra-card"},
		{"card after a busted banker", baccarat.MacaoRules{Count: baccarat.MacaoBust}, "4H 5C stand 7D 2S", "- - - - extra-card"},
		{"refuse after the coup", baccarat.MacaoRules{}, "9H 8C refuse", "- - misplaced-token"},
	}
	for _, c := range cases {
		_, mis := play(t, c.rules, c.script)
		for i := range mis {
			if mis[i] == "" {
				mis[i] = "-"
			}
		}
		if got := strings.Join(mis, " "); got != c.want {
			t.Errorf("%s: %q gives %s, want %s", c.name, c.script, got, c.want)
		}
	}
}

// TestMacaoMisfitLeavesCoup: a misfit changes nothing: the coup with the
// misfits equals the coup without them.
func TestMacaoMisfitLeavesCoup(t *testing.T) {
	r := baccarat.MacaoRules{Seats: 2}
	a, _ := play(t, r, "stand 4H refuse 8S 2C refuse 5D 7S refuse stand KD refuse refuse 6H stand stand 3C refuse")
	b, _ := play(t, r, "4H 8S 2C 5D 7S stand KD refuse 6H stand")
	if a != b {
		t.Errorf("with misfits:\n%+v\nwithout:\n%+v", a, b)
	}
}

// TestMacaoHandLimit: the 13th card of a hand is set aside and ends its
// turn; the 13th refusal is ignored.
func TestMacaoHandLimit(t *testing.T) {
	// One seat dealt an ace, then eleven aces drawn: 12 cards, total 2.
	script := "AH 5C" + strings.Repeat(" AS", baccarat.MaxMacaoHandCards-1) + " 2D"
	c, mis := play(t, baccarat.MacaoRules{}, script)
	if got := mis[len(mis)-1]; got != "hand-limit" {
		t.Fatalf("13th card: %q, want hand-limit", got)
	}
	if n, total := c.Seat(0).N, c.Seat(0).Total; n != 12 || total != 2 {
		t.Errorf("seat: %d cards total %d, want 12 cards total 2", n, total)
	}
	if turn, ok := c.Turn(); !ok || turn != 1 || c.Aside() != 1 || c.Cards() != 14 {
		t.Errorf("after the set-aside card: turn %d %v aside %d cards %d; want the banker's turn, 1 aside, 14 cards", turn, ok, c.Aside(), c.Cards())
	}
	script = "4H 5C" + strings.Repeat(" KS refuse", baccarat.MaxMacaoRefusals) + " KD refuse stand"
	c, mis = play(t, baccarat.MacaoRules{}, script)
	if got := mis[len(mis)-2]; got != "hand-limit" {
		t.Fatalf("13th refusal: %q, want hand-limit", got)
	}
	if h := c.Seat(0); h.NRefused != 12 || h.N != 2 || h.Cards[1].String() != "KD" {
		t.Errorf("seat after 13 refusals: %s", cardsOf(h))
	}
}

// TestMacaoRulesValidate: the seat bounds and the parsers.
func TestMacaoRulesValidate(t *testing.T) {
	for _, s := range []int{-1, 10, 100} {
		if _, err := baccarat.NewMacaoCoup(baccarat.MacaoRules{Seats: s}); err == nil {
			t.Errorf("%d seats accepted", s)
		}
	}
	for s := 0; s <= 9; s++ {
		c, err := baccarat.NewMacaoCoup(baccarat.MacaoRules{Seats: s})
		want := max(s, 1)
		if err != nil || c.Rules().Seats != want {
			t.Errorf("%d seats: %v, %d seats", s, err, c.Rules().Seats)
		}
	}
	if _, err := baccarat.NewMacaoCoup(baccarat.MacaoRules{Count: 2}); err == nil {
		t.Error("count 2 accepted")
	}
	for _, s := range []string{"modulo", "bust"} {
		if v, err := baccarat.ParseMacaoCount(s); err != nil || v.String() != s {
			t.Errorf("ParseMacaoCount(%q): %v %v", s, v, err)
		}
	}
	for _, s := range []string{"banker", "push"} {
		if v, err := baccarat.ParseMacaoEqual(s); err != nil || v.String() != s {
			t.Errorf("ParseMacaoEqual(%q): %v %v", s, v, err)
		}
	}
	for _, s := range []string{"3-2", "2-1"} {
		if v, err := baccarat.ParseMacaoPayTable(s); err != nil || v.String() != s {
			t.Errorf("ParseMacaoPayTable(%q): %v %v", s, v, err)
		}
	}
	for _, bad := range []string{"", "mod", "3:2"} {
		_, e1 := baccarat.ParseMacaoCount(bad)
		_, e2 := baccarat.ParseMacaoEqual(bad)
		_, e3 := baccarat.ParseMacaoPayTable(bad)
		if e1 == nil || e2 == nil || e3 == nil {
			t.Errorf("%q accepted: %v %v %v", bad, e1, e2, e3)
		}
	}
}

// TestMacaoProperties: random rules and random token sequences never
// panic; every hand's total, natural and bust agree with its cards counted
// independently; bounds hold; a coup is complete once it has taken
// MaxMacaoCoupCards cards; the results agree with an independent
// comparison.
func TestMacaoProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := baccarat.MacaoRules{
			Victoria: rapid.Bool().Draw(t, "victoria"),
			Seats:    rapid.IntRange(1, baccarat.MaxMacaoSeats).Draw(t, "seats"),
			Count:    baccarat.MacaoCount(rapid.IntRange(0, 1).Draw(t, "count")),
			NoRefuse: rapid.Bool().Draw(t, "norefuse"),
			Equal:    baccarat.MacaoEqual(rapid.IntRange(0, 1).Draw(t, "equal")),
			Pays:     baccarat.MacaoPayTable(rapid.IntRange(0, 1).Draw(t, "pays")),
		}
		c, err := baccarat.NewMacaoCoup(r)
		if err != nil {
			t.Fatal(err)
		}
		// Mostly cards, with tens and court cards often, so that refusals
		// and long hands happen.
		n := rapid.IntRange(0, 400).Draw(t, "tokens")
		cards := 0
		for i := 0; i < n; i++ {
			before := c.Cards()
			switch k := rapid.IntRange(0, 9).Draw(t, "kind"); {
			case k == 0:
				c.Stand()
			case k <= 2:
				c.Refuse()
			default:
				rank := card.Rank(rapid.IntRange(1, 13).Draw(t, "rank"))
				m := c.Card(card.Card{Rank: rank, Suit: card.Spades})
				if m == baccarat.MacaoFits || m == baccarat.MacaoHandLimit {
					cards++
				}
				if c.Cards() != before+1 && m != baccarat.MacaoCardComplete {
					t.Fatalf("a card taken (%v) but the coup holds %d, was %d", m, c.Cards(), before)
				}
			}
			if c.Cards() != cards {
				t.Fatalf("coup holds %d cards, %d taken", c.Cards(), cards)
			}
			if cards > baccarat.MaxMacaoCoupCards {
				t.Fatalf("%d cards taken, more than the bound %d", cards, baccarat.MaxMacaoCoupCards)
			}
			if cards == baccarat.MaxMacaoCoupCards && !c.Complete() {
				t.Fatalf("%d cards and not complete", cards)
			}
			checkMacaoHands(t, &c)
		}
		// Whatever came before, cards alone complete the coup in bound.
		for k := 0; !c.Complete(); k++ {
			if k > baccarat.MaxMacaoCoupCards {
				t.Fatalf("not complete after %d more cards", k)
			}
			c.Card(card.Card{Rank: card.RankAce})
		}
		if c.Cards() > baccarat.MaxMacaoCoupCards {
			t.Fatalf("complete with %d cards, bound %d", c.Cards(), baccarat.MaxMacaoCoupCards)
		}
		checkMacaoHands(t, &c)
		checkMacaoResults(t, &c, r)
	})
}

// checkMacaoHands recounts every hand from its cards.
func checkMacaoHands(t *rapid.T, c *baccarat.MacaoCoup) {
	r := c.Rules()
	init := 1
	if r.Victoria {
		init = 2
	}
	hands := []*baccarat.MacaoHand{c.Banker()}
	for i := 0; c.Seat(i) != nil; i++ {
		hands = append(hands, c.Seat(i))
	}
	if len(hands) != r.Seats+1 {
		t.Fatalf("%d hands, want %d seats and the banker", len(hands), r.Seats)
	}
	for _, h := range hands {
		if h.N > baccarat.MaxMacaoHandCards || h.NRefused > baccarat.MaxMacaoRefusals {
			t.Fatalf("hand of %d cards and %d refusals", h.N, h.NRefused)
		}
		sum, bust := 0, false
		for _, cd := range h.Slice() {
			sum += cd.Value()
			if r.Count == baccarat.MacaoBust && sum > 9 {
				bust = true
			}
		}
		want := sum
		if r.Count == baccarat.MacaoModulo {
			want = sum % 10
		}
		if h.Total != want || h.Bust != bust {
			t.Fatalf("hand %s: total %d bust %v, want %d %v", cardsOf(h), h.Total, h.Bust, want, bust)
		}
		for _, cd := range h.RefusedSlice() {
			if cd.Value() != 0 {
				t.Fatalf("refused %s, not a ten or court card", cd)
			}
		}
		if h.NRefused > 0 && r.NoRefuse {
			t.Fatalf("refusal with refusing off")
		}
		if h.N >= init && !c.Dealing() {
			isum := 0
			for _, cd := range h.Cards[:init] {
				isum += cd.Value()
			}
			if r.Count == baccarat.MacaoModulo {
				isum %= 10
			}
			if nat := isum == 8 || isum == 9; h.Natural != nat {
				t.Fatalf("hand %s: natural %v, want %v", cardsOf(h), h.Natural, nat)
			}
			if h.Natural && (h.N != init || h.NRefused != 0) {
				t.Fatalf("natural %s drew", cardsOf(h))
			}
		}
	}
}

// checkMacaoResults settles each seat independently of the engine.
func checkMacaoResults(t *rapid.T, c *baccarat.MacaoCoup, r baccarat.MacaoRules) {
	b := c.Banker()
	for i := 0; c.Seat(i) != nil; i++ {
		s := c.Seat(i)
		var want baccarat.MacaoSeatResult
		switch {
		case s.Bust, !b.Bust && s.Total < b.Total, !b.Bust && s.Total == b.Total && s.N > b.N:
			want = baccarat.MacaoSeatResult{Outcome: baccarat.Lose, Net: -1}
		case s.Total == b.Total && s.N == b.N && !b.Bust:
			want = baccarat.MacaoSeatResult{Outcome: baccarat.Lose, Net: -1}
			if r.Equal == baccarat.MacaoEqualPush {
				want = baccarat.MacaoSeatResult{Outcome: baccarat.Push}
			}
		default:
			pays := 1
			switch {
			case s.Natural && r.Victoria && s.Cards[0].Rank == s.Cards[1].Rank:
			case s.Natural && s.Total == 9 && !(b.Natural && b.Total == 9):
				pays = 3 - int(r.Pays)
			case s.Natural && s.Total == 8:
				pays = 2 - int(r.Pays)
			}
			want = baccarat.MacaoSeatResult{Outcome: baccarat.Win, Net: pays}
		}
		if got := c.Result(i); got != want {
			t.Fatalf("seat %d %s=%d against banker %s=%d: %+v, want %+v", i+1, cardsOf(s), s.Total, cardsOf(b), b.Total, got, want)
		}
	}
}

// FuzzMacaoCoup: any rules byte and token bytes (each byte one token:
// stand, refuse, or a card) never panic, keep every hand within its bounds
// and recounting to its cards, and complete within MaxMacaoCoupCards cards.
func FuzzMacaoCoup(f *testing.F) {
	f.Add(byte(0), []byte{4, 8, 2, 5, 0, 13, 1, 6, 0})
	f.Add(byte(0xff), []byte{9, 9, 9, 9, 1, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, rb byte, toks []byte) {
		r := baccarat.MacaoRules{
			Victoria: rb&1 != 0,
			Seats:    1 + int(rb>>1&7),
			Count:    baccarat.MacaoCount(rb >> 4 & 1),
			NoRefuse: rb&0x20 != 0,
			Equal:    baccarat.MacaoEqual(rb >> 6 & 1),
			Pays:     baccarat.MacaoPayTable(rb >> 7),
		}
		c, err := baccarat.NewMacaoCoup(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range toks {
			switch k := b % 16; {
			case k == 0:
				c.Stand()
			case k == 14 || k == 15:
				c.Refuse()
			default:
				c.Card(card.Card{Rank: card.Rank(k), Suit: card.Suit(b >> 4 % 5)})
			}
			if c.Cards() > baccarat.MaxMacaoCoupCards {
				t.Fatalf("%d cards, bound %d", c.Cards(), baccarat.MaxMacaoCoupCards)
			}
		}
		for k := 0; !c.Complete(); k++ {
			if k > baccarat.MaxMacaoCoupCards {
				t.Fatalf("not complete after %d more cards", k)
			}
			c.Card(card.Card{Rank: card.Rank2})
		}
		for i := 0; c.Seat(i) != nil; i++ {
			res := c.Result(i)
			if res.Outcome == baccarat.OutcomeNone || res.Net < -1 || res.Net > 3 {
				t.Fatalf("seat %d: %+v", i+1, res)
			}
		}
	})
}
