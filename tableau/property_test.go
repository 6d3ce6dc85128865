package tableau_test

import (
	"reflect"
	"testing"

	"github.com/sabot-table/sabot/tableau/card"

	"pgregory.net/rapid"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
)

func fullShoe(decks int) []tableau.Card {
	var shoe []tableau.Card
	for d := 0; d < decks; d++ {
		for s := card.Spades; s <= card.Clubs; s++ {
			for r := card.RankAce; r <= card.RankKing; r++ {
				shoe = append(shoe, tableau.Card{Rank: r, Suit: s})
			}
		}
	}
	return shoe
}

// checkCoupEvent checks a coup event against the rules, independently of
// the engine: 4–6 cards, totals 0–9 equal to the hands' totals, a natural
// has no third card, third cards exactly where the tableau (written by the
// player's third card) calls for them, and the winner.
func checkCoupEvent(t *rapid.T, c baccarat.CoupEvent) {
	p, b := c.Player.Slice(), c.Banker.Slice()
	if n := len(p) + len(b); n < 4 || n > 6 || n != c.Cards {
		t.Fatalf("coup %d/%d has %d cards (Cards %d)", c.Shoe, c.Coup, n, c.Cards)
	}
	if len(p) < 2 || len(b) < 2 {
		t.Fatalf("coup %d/%d: hands of %d and %d cards", c.Shoe, c.Coup, len(p), len(b))
	}
	pt, bt := dealtest.Total(p), dealtest.Total(b)
	if c.PlayerTotal != pt || c.BankerTotal != bt || pt < 0 || pt > 9 || bt < 0 || bt > 9 {
		t.Fatalf("coup %d/%d: totals %d-%d, hands total %d-%d", c.Shoe, c.Coup, c.PlayerTotal, c.BankerTotal, pt, bt)
	}
	p2, b2 := dealtest.Total(p[:2]), dealtest.Total(b[:2])
	natural := p2 >= 8 || b2 >= 8
	if c.Natural != natural {
		t.Fatalf("coup %d/%d: natural %v with two-card totals %d-%d", c.Shoe, c.Coup, c.Natural, p2, b2)
	}
	if natural && (len(p) != 2 || len(b) != 2) {
		t.Fatalf("coup %d/%d: a natural with a third card", c.Shoe, c.Coup)
	}
	if !natural {
		if wantP := p2 <= 5; (len(p) == 3) != wantP {
			t.Fatalf("coup %d/%d: player %d has %d cards", c.Shoe, c.Coup, p2, len(p))
		}
		var wantB bool
		if len(p) == 3 {
			wantB = dealtest.BankerDrawsByThirdCard(b2, p[2].Rank)
		} else {
			wantB = b2 <= 5
		}
		if (len(b) == 3) != wantB {
			t.Fatalf("coup %d/%d: banker %d has %d cards (player %v)", c.Shoe, c.Coup, b2, len(b), p)
		}
	}
	want := baccarat.WinnerTie
	if pt > bt {
		want = baccarat.WinnerPlayer
	} else if bt > pt {
		want = baccarat.WinnerBanker
	}
	if c.Winner != want {
		t.Fatalf("coup %d/%d: winner %v at %d-%d", c.Shoe, c.Coup, c.Winner, pt, bt)
	}
}

// TestPropertyRandomShoes deals random shoes of 1–8 decks with random
// dealer and reader trouble mixed in (extra, missing and foreign cards,
// stray markers, voids, cut cards, new shoes) and checks the invariants:
// every coup follows the tableau (4–6 cards, totals 0–9, no third card on
// a natural); composition alerts come exactly for the cards the shoe
// cannot contain; the composition never goes negative without one.
func TestPropertyRandomShoes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		decks := rapid.IntRange(1, 8).Draw(t, "decks")
		opts := tableau.Options{
			Decks:   decks,
			Markers: rapid.Bool().Draw(t, "markers"),
			CutRule: tableau.CutRule(rapid.IntRange(0, 1).Draw(t, "cutRule")),
			Rules:   baccarat.Rules{Game: baccarat.Games[rapid.IntRange(0, 2).Draw(t, "game")]},
		}
		f, err := tableau.NewFold(opts)
		if err != nil {
			t.Fatal(err)
		}
		shoe := rapid.Permutation(fullShoe(decks)).Draw(t, "shoe")
		pos := 0
		var out []tableau.Event
		// The test's own composition bookkeeping, per shoe.
		var rankN [14]int
		var suitN [14][5]int
		var wantComp []tableau.Card
		alertedRank := map[tableau.Rank]bool{}
		// pastAlerts counts the composition alerts raised once the shoe
		// had given more cards than it holds: one, on the first such card
		// (every card after it is impossible too, and is not raised).
		pastAlerts := 0
		drawn := 0 // valid cards drawn in the shoe
		feed := func(tok tableau.Token) {
			prev := f.Shoe()
			if tok.Kind == tableau.TokShoe || (prev == 0 && tok.Kind == tableau.TokCard) {
				rankN, suitN, alertedRank, pastAlerts, drawn = [14]int{}, [14][5]int{}, map[tableau.Rank]bool{}, 0, 0
			}
			if tok.Kind == tableau.TokCard && tok.Card.Valid() {
				c := tok.Card
				rankN[c.Rank]++
				drawn++
				bad := rankN[c.Rank] > 4*decks
				if c.Suit != card.SuitUnknown {
					suitN[c.Rank][c.Suit]++
					bad = bad || suitN[c.Rank][c.Suit] > decks
				}
				// Past what the shoe holds, only the first card is raised.
				if holds := 52 * decks; drawn == holds+1 || (bad && drawn <= holds) {
					wantComp = append(wantComp, c)
				}
			}
			n := len(out)
			out = f.Feed(tok, out)
			for _, e := range out[n:] {
				if e.Shoe() != prev && e.Shoe() != f.Shoe() {
					t.Fatalf("event %s fed in shoe %d", e, prev)
				}
				if e.Kind == baccarat.EventAlert && e.Alert.Code == baccarat.AlertComposition {
					alertedRank[e.Alert.Card.Rank] = true
					if f.Composition().Remaining() < 0 {
						pastAlerts++
					}
				}
			}
			comp := f.Composition()
			if pastAlerts > 1 {
				t.Fatalf("%d composition alerts past what the shoe holds, want 1", pastAlerts)
			}
			for r := card.RankAce; r <= card.RankKing; r++ {
				if comp.RemainingRank(r) < 0 && !alertedRank[r] && pastAlerts == 0 {
					t.Fatalf("remaining %s is %d without a composition alert", r, comp.RemainingRank(r))
				}
			}
			if comp.Remaining() < 0 && len(wantComp) == 0 {
				t.Fatalf("remaining %d without a composition alert", comp.Remaining())
			}
		}
		feedCard := func(c tableau.Card) { feed(tableau.Token{Kind: tableau.TokCard, Card: c}) }
		next := func() tableau.Card {
			c := shoe[pos%len(shoe)] // wraps round: then composition alerts are due
			pos++
			if rapid.IntRange(0, 30).Draw(t, "rankOnly") == 0 {
				c.Suit = card.SuitUnknown
			}
			feedCard(c)
			return c
		}
		steps := rapid.IntRange(1, 120).Draw(t, "steps")
		for i := 0; i < steps; i++ {
			switch rapid.IntRange(0, 19).Draw(t, "action") {
			case 0:
				next() // an extra or stray card
			case 1:
				feed(tableau.Token{Kind: tableau.TokMarker})
			case 2:
				feed(tableau.Token{Kind: tableau.TokVoid})
			case 3:
				feed(tableau.Token{Kind: tableau.TokCut})
			case 4:
				feedCard(tableau.Card{ // a foreign card
					Rank: tableau.Rank(rapid.IntRange(1, 13).Draw(t, "rank")),
					Suit: tableau.Suit(rapid.IntRange(0, 4).Draw(t, "suit")),
				})
			case 5:
				if rapid.IntRange(0, 4).Draw(t, "newShoe") == 0 {
					feed(tableau.Token{Kind: tableau.TokShoe})
				}
			default: // a proper coup
				dealIndependently(next)
				if opts.Markers {
					feed(tableau.Token{Kind: tableau.TokMarker})
				}
			}
		}
		out = f.End(out)
		var gotComp []tableau.Card
		for _, e := range out {
			switch e.Kind {
			case baccarat.EventCoup:
				checkCoupEvent(t, e.Coup)
			case baccarat.EventAlert:
				if !e.Alert.Code.Known() {
					t.Fatalf("unknown alert %q", e.Alert.Code)
				}
				if e.Alert.Code == baccarat.AlertComposition {
					gotComp = append(gotComp, e.Alert.Card)
				}
			}
			if _, err := e.MarshalJSON(); err != nil {
				t.Fatalf("event %+v does not encode: %v", e, err)
			}
		}
		if !reflect.DeepEqual(gotComp, wantComp) {
			t.Fatalf("composition alerts for %v, want %v", gotComp, wantComp)
		}
	})
}

// TestPropertyCleanShoes deals whole random shoes properly (burn, coups,
// cut card, markers or not, either cut rule) and checks that the fold
// raises no alert and reports exactly the coups dealt.
func TestPropertyCleanShoes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		decks := rapid.IntRange(1, 8).Draw(t, "decks")
		markers := rapid.Bool().Draw(t, "markers")
		rule := tableau.CutRule(rapid.IntRange(0, 1).Draw(t, "cutRule"))
		f, err := tableau.NewFold(tableau.Options{Decks: decks, Markers: markers, CutRule: rule})
		if err != nil {
			t.Fatal(err)
		}
		shoe := rapid.Permutation(fullShoe(decks)).Draw(t, "shoe")
		// The cut card goes in front of the 16th-last card, enough for the
		// coup in progress and one more.
		cutAt := len(shoe) - 16
		var out []tableau.Event
		pos := 0
		cutOut, cutCoup := false, 0
		coup := 0
		next := func() tableau.Card {
			if pos == cutAt {
				out = f.Cut(out)
				cutOut = true
				cutCoup = coup
			}
			c := shoe[pos]
			pos++
			out = f.Card(c, out)
			return c
		}
		out = f.NewShoe(out)
		burn := next()
		n := burn.Rank.Value()
		if n == 0 {
			n = 10
		}
		for i := 0; i < n; i++ {
			next()
		}
		if markers {
			out = f.Marker(out)
		}
		var dealt []dealtCoup
		for {
			coup++
			before := cutOut
			if pos == cutAt {
				before = true
			}
			dealt = append(dealt, dealIndependently(next))
			if markers {
				out = f.Marker(out)
			}
			last := before || (cutOut && (rule == tableau.CutLastCoup || coup > cutCoup))
			if last {
				break
			}
		}
		out = f.End(out)
		if len(out) != len(dealt) {
			for _, e := range out {
				t.Logf("%s", e)
			}
			t.Fatalf("%d events for %d coups", len(out), len(dealt))
		}
		for i, e := range out {
			if e.Kind != baccarat.EventCoup {
				t.Fatalf("event %d: %s", i, e)
			}
			checkCoupEvent(t, e.Coup)
			d := dealt[i]
			if e.Coup.Coup != i+1 || !reflect.DeepEqual(e.Coup.Player.Slice(), d.player) || !reflect.DeepEqual(e.Coup.Banker.Slice(), d.banker) {
				t.Fatalf("coup %d: %s, dealt %v / %v", i+1, e, d.player, d.banker)
			}
		}
		if f.LastCoup() != len(dealt) {
			t.Fatalf("last coup %d, dealt %d", f.LastCoup(), len(dealt))
		}
	})
}
