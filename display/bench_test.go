package display

import (
	"testing"

	"github.com/sabot-table/sabot/tableau"
)

func BenchmarkCompose(b *testing.B) {
	p := []tableau.Card{{Rank: tableau.Rank4}, {Rank: tableau.Rank5}}
	k := []tableau.Card{{Rank: tableau.Rank3}, {Rank: tableau.Rank3}}
	s := TableState{Player: p, Banker: k, Result: ResultPlayer, Natural: true, LastCoup: true}
	b.ReportAllocs()
	for b.Loop() {
		f := Compose(s, Layout8, 10)
		if len(f.Digits) != 8 {
			b.Fatal(len(f.Digits))
		}
	}
}
