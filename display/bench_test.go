package display

import (
	"testing"

	cardpkg "github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau"
)

func BenchmarkCompose(b *testing.B) {
	p := []tableau.Card{{Rank: cardpkg.Rank4}, {Rank: cardpkg.Rank5}}
	k := []tableau.Card{{Rank: cardpkg.Rank3}, {Rank: cardpkg.Rank3}}
	s := TableState{Player: p, Banker: k, Result: ResultPlayer, Natural: true, LastCoup: true}
	b.ReportAllocs()
	for b.Loop() {
		f := Compose(s, Layout8, 10)
		if len(f.Digits) != 8 {
			b.Fatal(len(f.Digits))
		}
	}
}
