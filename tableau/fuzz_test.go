package tableau_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// fuzzGames are the games the transcript fuzzer folds in (its flags'
// top three bits pick one): the punto banco deal three times over, as
// before the other games came, then chemin de fer (both banker tables)
// and banque.
var fuzzGames = func() []baccarat.Game {
	free, _ := baccarat.NewGame("chemin-de-fer", map[string]string{"banker-table": "free"})
	return []baccarat.Game{baccarat.GamePuntoBanco, baccarat.GameSuper6, baccarat.GameEZ, baccarat.GameCheminDeFer, free, baccarat.GameBanque}
}()

// FuzzTranscript feeds arbitrary bytes to the transcript parser (and to
// QuickScan, which may accept only what the parser accepts, with the same
// counts) and, when they parse, folds them under options chosen by the
// fuzzer. Nothing may
// panic; a parse error must be a *ParseError with a position; a parsed
// transcript must survive FormatTranscript and re-parsing unchanged; every
// event must encode (AppendJSON giving json.Marshal's bytes) and every coup
// must have 4–6 cards.
func FuzzTranscript(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.shoe")
	more, _ := filepath.Glob("testdata/contract/*.shoe")
	for _, p := range append(seeds, more...) {
		if strings.Contains(p, "clean-8deck") {
			continue // large; small seeds mutate and minimize faster
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
		f.Add(b, uint8(0xff))
	}
	f.Add([]byte("shoe 2H 3C 4D | 9S 3H void KD 5C | cut 1H"), uint8(3))
	f.Add([]byte("# only a comment"), uint8(1))
	f.Add([]byte("10h td 7 \xff\xfe q\u00e9 |||"), uint8(2))
	f.Add([]byte("shoe dealer D1042 2H 3C 4D | 9S 3H KD 5C | dealer 7 6C dealer -\ndealer"), uint8(3))
	f.Add([]byte("shoe 2C 8D 4S | 4D 2C AS KH stand 5S | 2S 3H 2D KH 9C non | stand"), uint8(0x68)) // chemin de fer
	f.Add([]byte("2C 8D 4S 5S 2H 9D KC AC 8H stand 4D 6H NON Stand"), uint8(0xa0))                  // banque
	f.Add([]byte("stand non standx nonn st"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, flags uint8) {
		toks, err := tableau.ParseTranscript(bytes.NewReader(data), "fuzz")
		sum, quickOK, qerr := tableau.QuickScan(bytes.NewReader(data))
		if quickOK || qerr != nil {
			cards, markers := 0, 0
			for _, tk := range toks {
				switch tk.Kind {
				case tableau.TokCard:
					cards++
				case tableau.TokMarker:
					markers++
				}
			}
			if qerr != nil || err != nil || sum != (tableau.Summary{Bytes: len(data), Cards: cards, Markers: markers}) {
				t.Fatalf("QuickScan accepts %+v (%v); ParseTranscript: %v, %d cards, %d markers", sum, qerr, err, cards, markers)
			}
		}
		if err != nil {
			var pe *tableau.ParseError
			if !errors.As(err, &pe) || pe.Pos.Line < 1 || pe.Pos.Col < 1 || pe.Pos.Offset < 0 || pe.Pos.Offset > len(data) {
				t.Fatalf("error %v (%T) without a valid position", err, err)
			}
			if !strings.HasPrefix(pe.Located(), "fuzz:") || !errors.Is(err, tableau.ErrSyntax) && pe.Err == nil {
				t.Fatalf("bad error %q", pe.Located())
			}
			return
		}
		var buf bytes.Buffer
		if err := tableau.FormatTranscript(&buf, toks); err != nil {
			t.Fatal(err)
		}
		again, err := tableau.ParseTranscript(&buf, "formatted")
		if err != nil {
			t.Fatalf("formatted transcript does not parse: %v\n%s", err, buf.String())
		}
		if len(again) != len(toks) {
			t.Fatalf("%d tokens after formatting, %d before", len(again), len(toks))
		}
		for i := range toks {
			if again[i].Kind != toks[i].Kind || again[i].Card != toks[i].Card || again[i].Dealer != toks[i].Dealer {
				t.Fatalf("token %d: %v after formatting, %v before", i, again[i], toks[i])
			}
		}
		opts := tableau.Options{
			Decks:   1 + int(flags%8),
			Markers: flags&0x08 != 0,
			CutRule: tableau.CutRule(flags >> 4 & 1),
			Rules:   baccarat.Rules{Game: fuzzGames[int(flags>>5)%len(fuzzGames)], TiePays: 8 + int(flags>>7)},
		}
		if !opts.Rules.Offers(baccarat.BetTie) {
			opts.Rules.TiePays = 0 // no tie bet in that game: its pay is refused (Rules.Problems)
		}
		evs, err := tableau.FoldTokens(opts, toks)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatalf("event %+v: %v", e, err)
			}
			if fast, err := e.AppendJSON(nil); err != nil || !bytes.Equal(fast, b) {
				t.Fatalf("AppendJSON %s (%v), json.Marshal %s", fast, err, b)
			}
			lo, hi := 4, 6
			if opts.Rules.Game == baccarat.GameBanque {
				lo, hi = 6, 9
			}
			if e.Kind == baccarat.EventCoup && (e.Coup.Cards < lo || e.Coup.Cards > hi) {
				t.Fatalf("coup with %d cards: %s", e.Coup.Cards, b)
			}
		}
	})
}
