package tableau_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

func shuffledShoe(decks int, seed uint64) []tableau.Card {
	shoe := fullShoe(decks)
	rng := rand.New(rand.NewPCG(seed, seed))
	rng.Shuffle(len(shoe), func(i, j int) { shoe[i], shoe[j] = shoe[j], shoe[i] })
	return shoe
}

// BenchmarkCoupDeal measures validating one card with the coup state
// machine: Deal (the tableau decision) plus starting the next coup when
// one completes. Target: ≤ 50 ns/op, 0 allocs/op.
func BenchmarkCoupDeal(b *testing.B) {
	shoe := shuffledShoe(8, 7)
	var c baccarat.Coup
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if need, _ := c.Deal(shoe[i]); need == baccarat.NeedNone {
			c.Reset()
		}
		i++
		if i == len(shoe) {
			i = 0
		}
	}
}

// BenchmarkFoldCard measures folding one card of a real transcript (the
// clean 8-deck shoe) through the whole shoe state machine: composition,
// coup, cut rule, and building the coup event with its settlement.
func BenchmarkFoldCard(b *testing.B) {
	src, err := os.ReadFile("testdata/clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	toks, err := tableau.ParseTranscript(bytes.NewReader(src), "clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	f, err := tableau.NewFold(tableau.Options{Markers: true})
	if err != nil {
		b.Fatal(err)
	}
	out := make([]tableau.Event, 0, 8)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		out = f.Feed(toks[i], out[:0])
		i++
		if i == len(toks) {
			i = 0 // toks[0] is "shoe": a new shoe begins
		}
	}
}

// BenchmarkFoldShoe folds the whole clean 8-deck shoe (84 coups), from
// tokens to events.
func BenchmarkFoldShoe(b *testing.B) {
	src, err := os.ReadFile("testdata/clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	toks, err := tableau.ParseTranscript(bytes.NewReader(src), "clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tableau.FoldTokens(tableau.Options{Markers: true}, toks); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseTranscript parses the clean 8-deck shoe.
func BenchmarkParseTranscript(b *testing.B) {
	src, err := os.ReadFile("testdata/clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tableau.ParseTranscript(bytes.NewReader(src), "clean-8deck.shoe"); err != nil {
			b.Fatal(err)
		}
	}
}
