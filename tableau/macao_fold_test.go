package tableau_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// macaoOptionsFromName derives Macao fold options from a transcript's
// file name: ".victoria.", ".seatsN.", ".decksN.", ".bust.", ".push.",
// ".pays21.", ".norefuse.", ".one-more."; markers as `sabot check
// --markers auto`.
func macaoOptionsFromName(t *testing.T, name string, toks []tableau.Token) tableau.MacaoOptions {
	t.Helper()
	opts := tableau.MacaoOptions{Markers: tableau.HasMarkers(toks)}
	for _, part := range strings.Split(filepath.Base(name), ".") {
		switch {
		case strings.HasPrefix(part, "seats"):
			opts.Rules.Seats, _ = strconv.Atoi(part[len("seats"):])
		case strings.HasPrefix(part, "decks"):
			opts.Decks, _ = strconv.Atoi(part[len("decks"):])
		case part == "victoria":
			opts.Rules.Victoria = true
		case part == "bust":
			opts.Rules.Count = baccarat.MacaoBust
		case part == "push":
			opts.Rules.Equal = baccarat.MacaoEqualPush
		case part == "pays21":
			opts.Rules.Pays = baccarat.MacaoPays21
		case part == "norefuse":
			opts.Rules.NoRefuse = true
		case part == "one-more":
			opts.CutRule = tableau.CutOneMore
		}
	}
	return opts
}

func foldMacaoFile(t *testing.T, path string) []tableau.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	toks, err := tableau.ParseTranscript(f, path)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := tableau.FoldMacaoTokens(macaoOptionsFromName(t, path, toks), toks)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestMacaoContract folds the shared Macao example (testdata/macao/contract,
// copied from the team's contract: extra keys allowed).
func TestMacaoContract(t *testing.T) {
	shoes, _ := filepath.Glob("testdata/macao/contract/*.shoe")
	if len(shoes) == 0 {
		t.Fatal("no Macao contract transcript")
	}
	for _, shoe := range shoes {
		want := readJSONLines(t, strings.TrimSuffix(shoe, ".shoe")+".expected.jsonl")
		matchContract(t, eventsAsJSON(t, foldMacaoFile(t, shoe)), want)
	}
}

// TestMacaoGolden folds the hand-worked transcripts of testdata/macao and
// compares every line, every key, with the expectations written beside
// them (the comments in each transcript say why).
func TestMacaoGolden(t *testing.T) {
	shoes, _ := filepath.Glob("testdata/macao/*.shoe")
	if len(shoes) < 3 {
		t.Fatalf("found %d Macao transcripts, want at least 3", len(shoes))
	}
	for _, shoe := range shoes {
		t.Run(filepath.Base(shoe), func(t *testing.T) {
			want := readJSONLines(t, strings.TrimSuffix(shoe, ".shoe")+".expected.jsonl")
			got := eventsAsJSON(t, foldMacaoFile(t, shoe))
			for i := 0; i < len(got) || i < len(want); i++ {
				switch {
				case i >= len(got):
					t.Errorf("line %d missing: %v", i+1, want[i])
				case i >= len(want):
					t.Errorf("line %d unexpected: %v", i+1, got[i])
				case !reflect.DeepEqual(got[i], want[i]):
					t.Errorf("line %d:\n got %v\nwant %v", i+1, got[i], want[i])
				}
			}
		})
	}
}

// macaoFoldInvariants checks the events of one token: coup lines carry
// every seat, coup numbers never go back within a shoe, the fold's coup
// stays within its bounds.
func macaoFoldInvariants(t interface{ Fatalf(string, ...any) }, f *tableau.MacaoFold, evs []tableau.Event, last *[2]int) {
	for _, e := range evs {
		if e.Kind == baccarat.EventCoup {
			m := e.Macao
			if m == nil {
				t.Fatalf("a coup line without its Macao coup: %v", e)
			}
			if len(m.Seats) != f.Options().Rules.Seats {
				t.Fatalf("%d seats in %v", len(m.Seats), e)
			}
			if m.Game != f.Options().Rules.Name() {
				t.Fatalf("game %q, want %q", m.Game, f.Options().Rules.Name())
			}
		}
		s, c := e.Shoe(), e.CoupNumber()
		if s < last[0] || s == last[0] && c < last[1] {
			t.Fatalf("event %v after shoe %d coup %d", e, last[0], last[1])
		}
		if _, err := e.AppendJSON(nil); err != nil {
			t.Fatalf("encoding %v: %v", e, err)
		}
		last[0], last[1] = s, c
	}
	if c := f.Coup(); c != nil && c.Cards() > baccarat.MaxMacaoCoupCards {
		t.Fatalf("coup holds %d cards", c.Cards())
	}
}

// TestMacaoFoldProperties: random tokens of every kind never panic and
// keep the fold's invariants.
func TestMacaoFoldProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := tableau.MacaoOptions{
			Rules: baccarat.MacaoRules{
				Victoria: rapid.Bool().Draw(t, "victoria"),
				Seats:    rapid.IntRange(1, baccarat.MaxMacaoSeats).Draw(t, "seats"),
				Count:    baccarat.MacaoCount(rapid.IntRange(0, 1).Draw(t, "count")),
				NoRefuse: rapid.Bool().Draw(t, "norefuse"),
			},
			Decks:   rapid.IntRange(1, 8).Draw(t, "decks"),
			Markers: rapid.Bool().Draw(t, "markers"),
			CutRule: tableau.CutRule(rapid.IntRange(0, 1).Draw(t, "cut")),
		}
		f, err := tableau.NewMacaoFold(opts)
		if err != nil {
			t.Fatal(err)
		}
		kinds := []tableau.TokenKind{tableau.TokCard, tableau.TokCard, tableau.TokCard, tableau.TokCard, tableau.TokStand, tableau.TokStand, tableau.TokRefuse, tableau.TokMarker, tableau.TokCut, tableau.TokVoid, tableau.TokShoe}
		var last [2]int
		var out []tableau.Event
		for range rapid.IntRange(0, 300).Draw(t, "n") {
			tok := tableau.Token{Kind: rapid.SampledFrom(kinds).Draw(t, "kind")}
			if tok.Kind == tableau.TokCard {
				tok.Card = tableau.Card{Rank: tableau.Rank(rapid.IntRange(0, 13).Draw(t, "rank")), Suit: tableau.Suit(rapid.IntRange(0, 4).Draw(t, "suit"))}
			}
			out = f.Feed(tok, out[:0])
			macaoFoldInvariants(t, f, out, &last)
		}
		macaoFoldInvariants(t, f, f.End(out[:0]), &last)
	})
}

// FuzzMacaoFold: any token bytes (each byte one token of any kind) under
// any rules byte never panic and keep the fold's invariants.
func FuzzMacaoFold(f *testing.F) {
	f.Add(byte(2), []byte("\x10\x33\x44\x55\x61\x07\x20\x07\x09\x01\x0b"))
	f.Fuzz(func(t *testing.T, rb byte, toks []byte) {
		opts := tableau.MacaoOptions{
			Rules: baccarat.MacaoRules{
				Victoria: rb&1 != 0,
				Seats:    1 + int(rb>>1&7),
				Count:    baccarat.MacaoCount(rb >> 4 & 1),
				NoRefuse: rb&0x20 != 0,
			},
			Decks:   1 + int(rb>>6),
			Markers: rb&0x80 != 0,
		}
		fo, err := tableau.NewMacaoFold(opts)
		if err != nil {
			t.Fatal(err)
		}
		var last [2]int
		var out []tableau.Event
		for _, b := range toks {
			var tok tableau.Token
			switch k := b & 15; k {
			case 0:
				tok.Kind = tableau.TokStand
			case 14:
				tok.Kind = tableau.TokRefuse
			case 15:
				tok.Kind = []tableau.TokenKind{tableau.TokMarker, tableau.TokMarker, tableau.TokCut, tableau.TokVoid, tableau.TokShoe, 0, 99, tableau.TokStand}[b>>4&7]
			default:
				tok = tableau.Token{Kind: tableau.TokCard, Card: tableau.Card{Rank: tableau.Rank(k), Suit: tableau.Suit(b >> 4 % 5)}}
			}
			out = fo.Feed(tok, out[:0])
			macaoFoldInvariants(t, fo, out, &last)
		}
		macaoFoldInvariants(t, fo, fo.End(out[:0]), &last)
	})
}

// TestMacaoTokens: "stand" (also "non") and "refuse" are tokens, in any
// case, with their positions.
func TestMacaoTokens(t *testing.T) {
	toks, err := tableau.ParseTranscript(strings.NewReader("7H stand\n NON Refuse refused"), "x")
	if err == nil {
		t.Fatalf("refused accepted: %v", toks)
	}
	toks, err = tableau.ParseTranscript(strings.NewReader("7H stand\n NON Refuse"), "x")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind tableau.TokenKind
		pos  string
	}{{tableau.TokCard, "1:1"}, {tableau.TokStand, "1:4"}, {tableau.TokStand, "2:2"}, {tableau.TokRefuse, "2:6"}}
	if len(toks) != len(want) {
		t.Fatalf("%v", toks)
	}
	for i, w := range want {
		if toks[i].Kind != w.kind || toks[i].Pos.String() != w.pos {
			t.Errorf("token %d: %v at %v, want %v at %s", i, toks[i].Kind, toks[i].Pos, w.kind, w.pos)
		}
	}
	if s := tableau.TokRefuse.String() + " " + tableau.TokStand.String(); s != "refuse stand" {
		t.Errorf("kinds: %s", s)
	}
}

// TestMacaoGames: Macao and Victoria are games of the registry, with
// their parameters and 2 decks; Fold (so the daemon's Table) refuses
// them: they are `sabot check` games folded by MacaoFold.
func TestMacaoGames(t *testing.T) {
	g, err := baccarat.ParseGame("Macao")
	if err != nil {
		t.Fatal(err)
	}
	m, ok := g.Macao()
	if !ok || m != (baccarat.MacaoRules{Seats: 1}) || g.DefaultDecks() != 2 || g.Name() != "macao" || g.String() != "macao" {
		t.Errorf("macao: %+v %v decks %d %q", m, ok, g.DefaultDecks(), g)
	}
	g, err = baccarat.NewGame("victoria", map[string]string{"seats": "3", "count": "bust", "refuse-tens": "off", "equal": "push", "pays": "2-1"})
	if err != nil {
		t.Fatal(err)
	}
	want := baccarat.MacaoRules{Victoria: true, Seats: 3, Count: baccarat.MacaoBust, NoRefuse: true, Equal: baccarat.MacaoEqualPush, Pays: baccarat.MacaoPays21}
	if m, ok := g.Macao(); !ok || m != want {
		t.Errorf("victoria: %+v, want %+v", m, want)
	}
	if got := strings.Join(g.Params(), " "); got != "3 bust off push 2-1" {
		t.Errorf("params %q", got)
	}
	if g.String() != "victoria seats=3 count=bust refuse-tens=off equal=push pays=2-1" {
		t.Errorf("String %q", g)
	}
	if _, ok := baccarat.GameCheminDeFer.Macao(); ok {
		t.Error("chemin de fer is Macao")
	}
	if _, err := tableau.NewFold(tableau.Options{Rules: baccarat.Rules{Game: g}}); !errors.Is(err, baccarat.ErrCheckOnly) {
		t.Errorf("NewFold(victoria): %v, want ErrCheckOnly", err)
	}
	if _, err := baccarat.NewGame("macao", map[string]string{"seats": "10"}); err == nil {
		t.Error("10 seats accepted")
	}
}

// BenchmarkMacaoFold folds the hand-worked 3-seat Macao shoe (7 coups, 50
// cards); ns/op per shoe.
func BenchmarkMacaoFold(b *testing.B) {
	f, err := os.Open("testdata/macao/rules.seats3.shoe")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	toks, err := tableau.ParseTranscript(f, "")
	if err != nil {
		b.Fatal(err)
	}
	opts := tableau.MacaoOptions{Rules: baccarat.MacaoRules{Seats: 3}, Markers: true}
	var out []tableau.Event
	b.ReportAllocs()
	for b.Loop() {
		fo, _ := tableau.NewMacaoFold(opts)
		out = out[:0]
		for _, t := range toks {
			out = fo.Feed(t, out)
		}
		out = fo.End(out)
	}
}

// TestMacaoEventJSONRoundTrip: a Macao coup line reads back into an Event
// equal to the one written (UnmarshalJSON tells it by its "seats"), and
// AppendJSON writes json.Marshal's bytes.
func TestMacaoEventJSONRoundTrip(t *testing.T) {
	for _, shoe := range []string{"testdata/macao/rules.seats3.shoe", "testdata/macao/victoria.bust.seats2.shoe", "testdata/macao/dealer.shoe"} {
		for _, e := range foldMacaoFile(t, shoe) {
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			a, err := e.AppendJSON(nil)
			if err != nil || string(a) != string(b) {
				t.Errorf("AppendJSON %s (%v), json.Marshal %s", a, err, b)
			}
			var back tableau.Event
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			if !reflect.DeepEqual(back, e) {
				t.Errorf("%s read back as %+v", b, back)
			}
		}
	}
}

// "|" in Macao and Victoria, with markers, at every point of a coup: at
// each seat's option and at the banker's, every hand whose turn is still
// to come stands and the coup line follows (no missing-card); during the
// deal, where a card is owed, it is missing-card and no coup line. Each
// hand's cards and total are those dealt (none drawn), and the results
// compare them with the banker's.
func TestMacaoMarkerClosesAtAnOption(t *testing.T) {
	for _, victoria := range []bool{false, true} {
		for seats := 2; seats <= 3; seats++ {
			initial := 1
			if victoria {
				initial = 2
			}
			hands := seats + 1
			// Initial cards: seat i holds i+1 on each card (Macao) and the
			// banker 5 (Victoria: two cards, the totals doubled, mod 10).
			var deal []string
			for k := 0; k < initial; k++ {
				for h := 0; h < hands; h++ {
					v := h + 1
					if h == seats {
						v = 5
					}
					deal = append(deal, strings.Replace(fmt.Sprintf("%dC", v), "1C", "AC", 1))
				}
			}
			total := func(h int) int {
				v := h + 1
				if h == seats {
					v = 5
				}
				return v * initial % 10
			}
			rules := baccarat.MacaoRules{Victoria: victoria, Seats: seats}
			name := fmt.Sprintf("victoria %v, %d seats", victoria, seats)
			// At each turn: after k stands, k = 0 (seat 1's option) to
			// seats (the banker's).
			for k := 0; k <= seats; k++ {
				src := "shoe 2H 3H 4H |\n" + strings.Join(deal, " ") + strings.Repeat(" stand", k) + " |\n"
				evs := foldMacao(t, rules, src)
				if len(evs) != 1 || evs[0].Kind != baccarat.EventCoup || evs[0].Macao == nil {
					t.Errorf("%s, | after %d stands: %v, want one coup line", name, k, evs)
					continue
				}
				m := evs[0].Macao
				if len(m.Seats) != seats || m.Banker.Total != total(seats) || len(m.Banker.Cards) != initial {
					t.Errorf("%s, | after %d stands: banker %+v, %d seats", name, k, m.Banker, len(m.Seats))
					continue
				}
				for i, s := range m.Seats {
					want := baccarat.Lose
					switch {
					case total(i) > total(seats):
						want = baccarat.Win
					case total(i) == total(seats):
						want = s.Result // the equal rule's own (tested elsewhere)
					}
					if s.Total != total(i) || len(s.Cards) != initial || s.Result != want {
						t.Errorf("%s, | after %d stands: seat %d %+v, want total %d %s", name, k, i+1, s, total(i), want)
					}
				}
			}
			// During the deal: a card is owed.
			for n := 1; n < len(deal); n++ {
				src := "shoe 2H 3H 4H |\n" + strings.Join(deal[:n], " ") + " |\n"
				evs := foldMacao(t, rules, src)
				if len(evs) != 1 || evs[0].Kind != baccarat.EventAlert || evs[0].Alert.Code != baccarat.AlertMissingCard {
					t.Errorf("%s, | after %d of %d initial cards: %v, want missing-card alone", name, n, len(deal), evs)
				}
			}
		}
	}
}

// foldMacao folds src with markers under rules, every event but the
// shoe's own.
func foldMacao(t *testing.T, rules baccarat.MacaoRules, src string) []tableau.Event {
	t.Helper()
	toks, err := tableau.ParseTranscript(strings.NewReader(src), "t")
	if err != nil {
		t.Fatal(err)
	}
	evs, err := tableau.FoldMacaoTokens(tableau.MacaoOptions{Rules: rules, Markers: true, Decks: 2}, toks)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}
