package tableau_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
)

// summary formats an event compactly: "S/N coup PLAYER / BANKER PT-BT
// WINNER", "S/N CODE [CARD]" or "S/N void".
func summary(e tableau.Event) string {
	switch e.Kind {
	case baccarat.EventCoup:
		c := e.Coup
		return fmt.Sprintf("%d/%d coup %s / %s %d-%d %s", c.Shoe, c.Coup, c.Player, c.Banker, c.PlayerTotal, c.BankerTotal, c.Winner)
	case baccarat.EventAlert:
		a := e.Alert
		s := fmt.Sprintf("%d/%d %s", a.Shoe, a.Coup, a.Code)
		if !a.Card.IsZero() {
			s += " " + a.Card.String()
		}
		return s
	case baccarat.EventVoid:
		return fmt.Sprintf("%d/%d void", e.Void.Shoe, e.Void.Coup)
	}
	return "?"
}

func foldString(t *testing.T, opts tableau.Options, transcript string) []string {
	t.Helper()
	toks, err := tableau.ParseTranscript(strings.NewReader(transcript), "test")
	if err != nil {
		t.Fatal(err)
	}
	evs, err := tableau.FoldTokens(opts, toks)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, summary(e))
	}
	return out
}

type foldCase struct {
	name       string
	opts       tableau.Options
	transcript string
	want       []string
}

func runFoldCases(t *testing.T, cases []foldCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := foldString(t, tc.opts, tc.transcript)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("transcript %q\n got:\n  %s\nwant:\n  %s", tc.transcript, strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

var (
	noMarkers = tableau.Options{}
	markers   = tableau.Options{Markers: true}
	oneMore   = tableau.Options{CutRule: tableau.CutOneMore}
	deck1     = tableau.Options{Decks: 1}
)

// Burn 5H + 5 cards; coup 1 player natural; coup 2 with the cut card
// after its second card; coups 3 and 4.
const cutInCoup = "shoe 5H 2C 3C 4C 6C 7C  9S 3H KD 5C  3S 6H cut 2D JC 8H  4H 5D 9C 3D  KS KH 8S 8H"

func TestFoldCutRules(t *testing.T) {
	runFoldCases(t, []foldCase{
		{"last-coup, cut in a coup: that coup is the last", noMarkers, cutInCoup, []string{
			"1/1 coup 9S KD / 3H 5C 9-8 player",
			"1/2 coup 3S 2D 8H / 6H JC 3-6 banker",
			"1/3 after-cut 4H",
			"1/3 coup 4H 9C / 5D 3D 3-8 banker",
			"1/4 after-cut KS",
			"1/4 coup KS 8S / KH 8H 8-8 tie",
		}},
		{"one-more, cut in a coup: one more coup", oneMore, cutInCoup, []string{
			"1/1 coup 9S KD / 3H 5C 9-8 player",
			"1/2 coup 3S 2D 8H / 6H JC 3-6 banker",
			"1/3 coup 4H 9C / 5D 3D 3-8 banker",
			"1/4 after-cut KS",
			"1/4 coup KS 8S / KH 8H 8-8 tie",
		}},
		{"last-coup, cut between coups: the next coup is the last", noMarkers,
			"shoe 5H 2C 3C 4C 6C 7C  9S 3H KD 5C cut 4H 5D 9C 3D  KS KH 8S 8H", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
				"1/2 coup 4H 9C / 5D 3D 3-8 banker",
				"1/3 after-cut KS",
				"1/3 coup KS 8S / KH 8H 8-8 tie",
			}},
		{"one-more, cut between coups: the next coup is the last", oneMore,
			"shoe 5H 2C 3C 4C 6C 7C  9S 3H KD 5C cut 4H 5D 9C 3D  KS KH 8S 8H", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
				"1/2 coup 4H 9C / 5D 3D 3-8 banker",
				"1/3 after-cut KS",
				"1/3 coup KS 8S / KH 8H 8-8 tie",
			}},
		{"markers, one-more, cut in a coup", tableau.Options{Markers: true, CutRule: tableau.CutOneMore},
			"shoe 2H 3C 4D | 9S cut 3H KD 5C | 4H 5D 9C 3D | KS KH 8S 8H |", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
				"1/2 coup 4H 9C / 5D 3D 3-8 banker",
				"1/3 after-cut KS",
				"1/3 coup KS 8S / KH 8H 8-8 tie",
			}},
		{"markers, last-coup, cut after a complete coup before its |", markers,
			"shoe 2H 3C 4D | 9S 3H KD 5C cut | 4H 5D 9C 3D | KS KH 8S 8H |", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
				"1/2 coup 4H 9C / 5D 3D 3-8 banker",
				"1/3 after-cut KS",
				"1/3 coup KS 8S / KH 8H 8-8 tie",
			}},
		{"cut during the burn: coup 1 is the last; a second cut is ignored", noMarkers,
			"shoe 2H cut 3C 4D 9S 3H KD 5C cut 4H 5D 9C 3D", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
				"1/2 after-cut 4H",
				"1/2 coup 4H 9C / 5D 3D 3-8 banker",
			}},
		{"a new shoe clears the cut card", noMarkers,
			"shoe 2H 3C 4D cut 9S 3H KD 5C shoe 2H 3C 4D 9S 3H KD 5C 4H 5D 9C 3D", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
				"2/1 coup 9S KD / 3H 5C 9-8 player",
				"2/2 coup 4H 9C / 5D 3D 3-8 banker",
			}},
	})
}

func TestFoldBurn(t *testing.T) {
	runFoldCases(t, []foldCase{
		{"a ten burns ten more", noMarkers, "shoe TH A 2 3 4 5 6 7 8 9 K  9S 3H KD 5C", []string{
			"1/1 coup 9S KD / 3H 5C 9-8 player",
		}},
		{"a queen burns ten more, implicit shoe", noMarkers, "QH A 2 3 4 5 6 7 8 9 K  9S 3H KD 5C", []string{
			"1/1 coup 9S KD / 3H 5C 9-8 player",
		}},
		{"end of input in the burn", noMarkers, "shoe KH 2C 3C", []string{"1/0 burn-count"}},
		{"new shoe in the burn", noMarkers, "shoe 4D 7C shoe 2H 3C 4D 9S 3H KD 5C", []string{
			"1/0 burn-count",
			"2/1 coup 9S KD / 3H 5C 9-8 player",
		}},
		{"markers: burn too short", markers, "shoe 3H 4C 5D | 9S 3H KD 5C |", []string{
			"1/0 burn-count",
			"1/1 coup 9S KD / 3H 5C 9-8 player",
		}},
		{"markers: burn too long", markers, "shoe 2H 3C 4D 5S | 9S 3H KD 5C |", []string{
			"1/0 burn-count",
			"1/1 coup 9S KD / 3H 5C 9-8 player",
		}},
		{"markers: the burn runs until the first |", markers, "shoe 2H 3C 4D 9S 3H KD 5C |", []string{
			"1/0 burn-count",
		}},
		{"markers: empty burn", markers, "| 9S 3H KD 5C |", []string{
			"1/0 burn-count",
			"1/1 coup 9S KD / 3H 5C 9-8 player",
		}},
		{"markers: end of input in the burn", markers, "shoe 2H 3C 4D", []string{"1/0 burn-count"}},
		{"markers: exact burn", markers, "shoe 2H 3C 4D | 9S 3H KD 5C |", []string{
			"1/1 coup 9S KD / 3H 5C 9-8 player",
		}},
	})
}

// Whatever the first token, it opens the implicit shoe 1: "shoe" is
// implicit before the first token if absent, so a following "shoe" starts
// shoe 2.
func TestFoldImplicitShoe(t *testing.T) {
	const rest = " shoe 2H 3C 4D 9S 9H 9C 9D"
	runFoldCases(t, []foldCase{
		{"card first", noMarkers, "2H 3C 4D 9S 9H 9C 9D", []string{"1/1 coup 9S 9C / 9H 9D 8-8 tie"}},
		{"shoe first", noMarkers, "shoe 2H 3C 4D 9S 9H 9C 9D", []string{"1/1 coup 9S 9C / 9H 9D 8-8 tie"}},
		{"cut first", noMarkers, "cut" + rest, []string{"2/1 coup 9S 9C / 9H 9D 8-8 tie"}},
		{"void first", noMarkers, "void" + rest, []string{"2/1 coup 9S 9C / 9H 9D 8-8 tie"}},
		{"| first, markers off", noMarkers, "|" + rest, []string{"2/1 coup 9S 9C / 9H 9D 8-8 tie"}},
		{"| first, markers on: an empty burn", markers, "| shoe 2H 3C 4D | 9S 9H 9C 9D |", []string{
			"1/0 burn-count",
			"2/1 coup 9S 9C / 9H 9D 8-8 tie",
		}},
	})
}

func TestFoldMarkers(t *testing.T) {
	const tr = "shoe 2H 3C 4D | 9S 3H KD 5C 7H 8H | | 3S 6H |  AH 2C 3S KD 4S 4C |"
	runFoldCases(t, []foldCase{
		{"extra cards, empty |, missing card", markers, tr, []string{
			"1/1 coup 9S KD / 3H 5C 9-8 player",
			"1/1 extra-card 7H",
			"1/1 extra-card 8H",
			"1/2 missing-card",
			"1/3 coup AH 3S 4S / 2C KD 4C 8-6 player",
		}},
		{"markers off: | ignored, extra cards start coups", noMarkers, tr, []string{
			"1/1 coup 9S KD / 3H 5C 9-8 player",
			"1/2 coup 7H 3S AH / 8H 6H 1-4 banker",
			"1/3 coup 2C KD 4C / 3S 4S 6-7 banker",
		}},
		{"markers: end of input after a complete coup without |", markers, "shoe 2H 3C 4D | 9S 3H KD 5C", []string{
			"1/1 coup 9S KD / 3H 5C 9-8 player",
		}},
		{"markers: | closes a coup with one card", markers, "shoe 2H 3C 4D | 9S | 9S 3H KD 5C |", []string{
			"1/1 missing-card",
			"1/2 coup 9S KD / 3H 5C 9-8 player",
		}},
	})
}

func TestFoldIncompleteCoup(t *testing.T) {
	runFoldCases(t, []foldCase{
		{"end of input", noMarkers, "shoe 2H 3C 4D 9S 3H", []string{"1/1 incomplete-coup"}},
		{"new shoe", noMarkers, "shoe 2H 3C 4D 9S 3H shoe 2H 3C 4D 9S 3H KD 5C", []string{
			"1/1 incomplete-coup",
			"2/1 coup 9S KD / 3H 5C 9-8 player",
		}},
		{"markers: new shoe", markers, "shoe 2H 3C 4D | 9S 3H shoe 2H 3C 4D | 9S 3H KD 5C |", []string{
			"1/1 incomplete-coup",
			"2/1 coup 9S KD / 3H 5C 9-8 player",
		}},
		{"waiting for the banker's third card", noMarkers, "shoe 2H 3C 4D 7H 2D 3C KS 4H", []string{"1/1 incomplete-coup"}},
	})
}

func TestFoldVoid(t *testing.T) {
	runFoldCases(t, []foldCase{
		{"no markers: void in progress, next card starts a coup", noMarkers,
			"shoe 2H 3C 4D 9S 3H void KD 5C 9S 3C", []string{
				"1/1 void",
				"1/2 coup KD 9S / 5C 3C 9-8 player",
			}},
		{"no markers: void a complete coup before the next card", noMarkers,
			"shoe 2H 3C 4D 9S 3H KD 5C void 4H 5D 9C 3D void void", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
				"1/1 void",
				"1/2 coup 4H 9C / 5D 3D 3-8 banker",
				"1/2 void",
			}},
		{"no markers: void after the next card voids the new coup", noMarkers,
			"shoe 2H 3C 4D 9S 3H KD 5C 4H void", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
				"1/2 void",
			}},
		{"markers: void in progress; its cards until | are unchecked", markers,
			"shoe 2H 3C 4D | 9S 3H void KD 5C 7D 8D | 4H 5D 9C 3D |", []string{
				"1/1 void",
				"1/2 coup 4H 9C / 5D 3D 3-8 banker",
			}},
		{"markers: void between coups and in the burn is ignored", markers,
			"shoe 2H void 3C 4D | void 9S 3H KD 5C | void |", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
			}},
		{"markers: a coup voided before complete gets no missing-card", markers,
			"shoe 2H 3C 4D | 9S void | 9S 3H KD 5C |", []string{
				"1/1 void",
				"1/2 coup 9S KD / 3H 5C 9-8 player",
			}},
		{"voided coup at end of input is not incomplete", noMarkers,
			"shoe 2H 3C 4D 9S void", []string{"1/1 void"}},
	})
}

func TestFoldComposition(t *testing.T) {
	runFoldCases(t, []foldCase{
		{"rank-only: a fifth ace from one deck", deck1, "shoe 2 9 K  A A A A A 5", []string{
			"1/1 composition A",
			"1/1 coup A A A / A A 5 3-7 banker",
		}},
		{"a burn card twice from one deck", deck1, "shoe 2S 2S 3C  9S 3H KD 5C", []string{
			"1/0 composition 2S",
			"1/1 coup 9S KD / 3H 5C 9-8 player",
		}},
		{"composition comes before extra-card", tableau.Options{Decks: 1, Markers: true},
			"shoe 2H 3C 4D | 9S 3H KD 5C 9S |", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
				"1/1 composition 9S",
				"1/1 extra-card 9S",
			}},
		{"composition comes before after-cut, on the new coup's number", deck1,
			"shoe 2H 3C 4D 9S cut 3H KD 5C 9S 5D 9C 3D", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
				"1/2 composition 9S",
				"1/2 after-cut 9S",
				"1/2 coup 9S 9C / 5D 3D 8-8 tie",
			}},
		{"a rank-only read does not count against a suit", deck1, "shoe 2S 3 3S  9S 3H KD 5C", []string{
			"1/1 coup 9S KD / 3H 5C 9-8 player",
		}},
	})
}

// TestFoldCompositionDecks checks the exact card at which the composition
// alert fires for 1, 6 and 8 decks: the (4×decks+1)-th card of a rank, and
// the (decks+1)-th card of a rank and suit.
func TestFoldCompositionDecks(t *testing.T) {
	for _, decks := range []int{1, 6, 8} {
		for _, suited := range []bool{false, true} {
			f, err := tableau.NewFold(tableau.Options{Decks: decks})
			if err != nil {
				t.Fatal(err)
			}
			var out []tableau.Event
			// Burn: a king and ten more cards, none of them sevens.
			out = f.Card(tableau.Card{Rank: card.RankKing, Suit: card.Spades}, out)
			for i := 0; i < 10; i++ {
				out = f.Card(tableau.Card{Rank: card.RankQueen, Suit: tableau.Suit(1 + i%4)}, out)
			}
			if f.Phase() != tableau.PhaseBetween {
				t.Fatalf("after the burn: phase %v", f.Phase())
			}
			limit := 4 * decks
			if suited {
				limit = decks
			}
			for i := 1; i <= limit+1; i++ {
				c := tableau.Card{Rank: card.Rank7, Suit: tableau.Suit(1 + i%4)}
				if suited {
					c.Suit = card.Hearts
				}
				n := len(out)
				out = f.Card(c, out)
				alerted := false
				for _, e := range out[n:] {
					if e.Kind == baccarat.EventAlert && e.Alert.Code == baccarat.AlertComposition {
						alerted = true
					}
				}
				if alerted != (i == limit+1) {
					t.Errorf("%d decks, suited %v: card %d of %s: composition alert %v", decks, suited, i, c, alerted)
				}
			}
			comp := f.Composition()
			if suited {
				if got := comp.RemainingCard(card.Rank7, card.Hearts); got != -1 {
					t.Errorf("%d decks: remaining 7H %d, want -1", decks, got)
				}
			} else if got := comp.RemainingRank(card.Rank7); got != -1 {
				t.Errorf("%d decks: remaining sevens %d, want -1", decks, got)
			}
			if got, want := comp.Remaining(), 52*decks-11-(limit+1); got != want {
				t.Errorf("%d decks: remaining %d, want %d", decks, got, want)
			}
		}
	}
}

func TestFoldMultiShoe(t *testing.T) {
	runFoldCases(t, []foldCase{
		{"four shoes, implicit first, the third empty", markers,
			"2H 3C 4D | 9S 3H KD 5C | 4H 5D 9C 3D |\nshoe 2H 3C 4D | 9S 3H KD 5C 6C |\nshoe\nshoe 2H 3C 4D | 4H 5D 9C 3D |", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
				"1/2 coup 4H 9C / 5D 3D 3-8 banker",
				"2/1 coup 9S KD / 3H 5C 9-8 player",
				"2/1 extra-card 6C",
				"4/1 coup 4H 9C / 5D 3D 3-8 banker",
			}},
		{"composition is per shoe", deck1,
			"2H 3C 4D 9S 3H KD 5C shoe 2H 3C 4D 9S 3H KD 5C", []string{
				"1/1 coup 9S KD / 3H 5C 9-8 player",
				"2/1 coup 9S KD / 3H 5C 9-8 player",
			}},
	})
}

func TestFoldState(t *testing.T) {
	f, err := tableau.NewFold(tableau.Options{Markers: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.Options().Decks != 8 || f.Phase() != tableau.PhaseNoShoe || f.Shoe() != 0 {
		t.Fatalf("new fold: decks %d phase %v shoe %d", f.Options().Decks, f.Phase(), f.Shoe())
	}
	var out []tableau.Event
	out = f.Card(dealtest.Cards(t, "3H")[0], out)
	if n, want := f.Burn(); n != 1 || want != 4 || f.Phase() != tableau.PhaseBurn || f.Shoe() != 1 {
		t.Fatalf("burn %d/%d phase %v", n, want, f.Phase())
	}
	for _, c := range dealtest.Cards(t, "4C 5D 6S") {
		out = f.Card(c, out)
	}
	out = f.Marker(out)
	for _, c := range dealtest.Cards(t, "7H 2D 3C") {
		out = f.Card(c, out)
	}
	c := f.Coup()
	if f.Phase() != tableau.PhaseCoup || f.CoupNumber() != 1 || c.Need() != baccarat.NeedBanker || c.PlayerTotal() != 0 || c.BankerTotal() != 2 {
		t.Fatalf("in coup: phase %v coup %d need %v totals %d-%d", f.Phase(), f.CoupNumber(), c.Need(), c.PlayerTotal(), c.BankerTotal())
	}
	out = f.Cut(out)
	if !f.CutCard() || f.LastCoup() != 1 {
		t.Errorf("cut: %v last %d", f.CutCard(), f.LastCoup())
	}
	out = f.Void(out)
	if !f.Voided() {
		t.Error("not voided")
	}
	out = f.Marker(out)
	if f.Phase() != tableau.PhaseBetween || f.Voided() || f.Coup().Cards() != 0 {
		t.Errorf("after |: phase %v voided %v", f.Phase(), f.Voided())
	}
	if got := f.Composition().Drawn(); got != 7 {
		t.Errorf("drawn %d, want 7", got)
	}
	if len(out) != 1 || summary(out[0]) != "1/1 void" {
		t.Errorf("events %v", out)
	}
	// An unreadable card is reported and not used.
	out = f.Card(tableau.Card{}, out[:0])
	if len(out) != 1 || out[0].Alert.Code != baccarat.AlertUnreadableCard || f.Composition().Drawn() != 7 {
		t.Errorf("unreadable card: %v", out)
	}
}

func TestNewFoldErrors(t *testing.T) {
	for _, o := range []tableau.Options{{Decks: -1}, {Decks: 9}, {Rules: baccarat.Rules{TiePays: 10}}, {CutRule: 7}} {
		if _, err := tableau.NewFold(o); err == nil {
			t.Errorf("NewFold(%+v) accepted", o)
		}
	}
}

// With markers, burn-count is raised on the first card past the count the
// burn card gives (a shoe that marks coups itself may send no "|" for
// hundreds of cards: it was raised only at the "|"), once: not again at
// the "|", nor at the end of the input or the next shoe. A short burn is
// known only at its "|".
func TestFoldBurnCountAtTheFirstCardPast(t *testing.T) {
	for _, tail := range []string{" |", "", " shoe 2C 3C 4C |"} {
		toks, err := tableau.ParseTranscript(strings.NewReader("shoe 5H 2C 3C 4C 5C 6C 7C 8C 9C"+tail), "t")
		if err != nil {
			t.Fatal(err)
		}
		f, err := tableau.NewFold(tableau.Options{Markers: true})
		if err != nil {
			t.Fatal(err)
		}
		var at []int // the card numbers after which burn-count came
		cards := 0
		for _, tok := range toks {
			if tok.Kind == tableau.TokCard {
				cards++
			}
			for _, e := range f.Feed(tok, nil) {
				if e.Kind == baccarat.EventAlert && e.Alert.Code == baccarat.AlertBurnCount {
					at = append(at, cards)
				}
			}
		}
		for _, e := range f.End(nil) {
			if e.Kind == baccarat.EventAlert && e.Alert.Code == baccarat.AlertBurnCount {
				at = append(at, -1)
			}
		}
		// The 5 face up asks for 5 more: 6 cards; the 7th is past it.
		if len(at) != 1 || at[0] != 7 {
			t.Errorf("tail %q: burn-count after cards %v, want once, after the 7th", tail, at)
		}
	}
	// Short: known at the "|".
	toks, _ := tableau.ParseTranscript(strings.NewReader("shoe 5H 2C 3C |"), "t")
	evs, err := tableau.FoldTokens(tableau.Options{Markers: true}, toks)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Alert.Code != baccarat.AlertBurnCount {
		t.Errorf("short burn: %v", evs)
	}
}
