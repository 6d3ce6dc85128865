package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/cmd/internal/audit"

	"github.com/sabot-table/sabot/tableau"
)

// randomTranscript is a transcript of n tokens drawn from every kind the
// grammar has (cards of any rank and suit or none, "|", "void", "cut",
// "shoe", "dealer ID", "dealer -"), with comments and line breaks.
func randomTranscript(rng *rand.Rand, n int) string {
	var b strings.Builder
	ranks := []string{"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "T", "J", "Q", "K"}
	suits := []string{"", "S", "h", "D", "c"}
	for range n {
		switch k := rng.IntN(100); {
		case k < 74:
			b.WriteString(ranks[rng.IntN(len(ranks))] + suits[rng.IntN(len(suits))])
		case k < 77:
			b.WriteString("stand")
		case k < 78:
			b.WriteString("non")
		case k < 90:
			b.WriteString("|")
		case k < 93:
			b.WriteString("void")
		case k < 95:
			b.WriteString("cut")
		case k < 96:
			b.WriteString("shoe")
		case k < 98:
			fmt.Fprintf(&b, "dealer D-%d", rng.IntN(5))
		default:
			b.WriteString("dealer -")
		}
		switch rng.IntN(12) {
		case 0:
			b.WriteString(" # a comment\n")
		case 1:
			b.WriteString("\n")
		default:
			b.WriteString(" ")
		}
	}
	return b.String()
}

// TestCheckMatchesFold: the output of sabot check (its lexer, fold and
// writer goroutines, the batches between them and the hand-written JSON)
// is, byte for byte, encoding/json's encoding of the events
// tableau.FoldTokens gives for tableau.ParseTranscript's tokens — on the
// samples and on random transcripts of every token kind, small and large
// enough to fill many batches, with and without markers, under each rule
// profile and with side bets; folded by two folds (a segment of shoes
// each, where they apply) and by one, with the same warnings.
func TestCheckMatchesFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	inputs := map[string]string{}
	paths, _ := filepath.Glob("../../tableau/testdata/*.shoe")
	more, _ := filepath.Glob("testdata/*.shoe")
	for _, p := range append(paths, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs[p] = string(b)
	}
	for i := range 12 {
		inputs[fmt.Sprintf("random %d", i)] = randomTranscript(rng, 1+rng.IntN(3000))
	}
	inputs["random large"] = randomTranscript(rng, 20000)
	clean, err := os.ReadFile("../../tableau/testdata/clean-8deck.shoe")
	if err != nil {
		t.Fatal(err)
	}
	// Shoes of about 450 tokens, with dealers, voids and cuts between
	// them; and one shoe of 3,600 tokens (no "shoe" token but the first),
	// which spans several token batches.
	var shoes strings.Builder
	for i := range 12 {
		shoes.Write(clean)
		fmt.Fprintf(&shoes, "dealer D-%d\n", i%3)
		if i%4 == 1 {
			shoes.WriteString("void 2H cut |\n")
		}
	}
	inputs["12 shoes"] = shoes.String()
	// A "shoe" token just before, at and just after a full token batch
	// (audit.TokBatch), after a coup left unfinished or not.
	for k := audit.TokBatch - 3; k <= audit.TokBatch+3; k++ {
		for _, last := range []string{"", " 2H"} {
			toks := strings.Fields(randomTranscript(rng, 3*k))
			var cards []string
			for _, w := range toks {
				if w != "|" && w != "void" && w != "cut" && w != "shoe" && w != "dealer" && w != "-" && w != "#" && !strings.HasPrefix(w, "D-") && w != "a" && w != "comment" {
					cards = append(cards, w)
				}
			}
			src := "shoe " + strings.Join(cards[:k-1-len(strings.Fields(last))], " ") + last + " shoe " + strings.Join(cards[k:k+300], " ")
			inputs[fmt.Sprintf("shoe after %d tokens%s", k, last)] = src
		}
	}
	inputs["one long shoe"] = strings.Repeat(strings.ReplaceAll(string(clean), "\nshoe\n", "\n"), 8)
	flagSets := [][]string{
		{"--markers", "on"}, {"--markers", "off"},
		{"--markers", "on", "--rules", "ez", "--decks", "6"},
		{"--markers", "off", "--rules", "super6", "--tie-pays", "9", "--cut-rule", "one-more"},
		{"--markers", "on", "--side-bets", "all"},
		{"--markers", "on", "--game", "chemin-de-fer"},
		{"--markers", "off", "--game", "chemin-de-fer", "--banker-table", "free", "--punter-five", "draw"},
		{"--markers", "on", "--game", "banque", "--decks", "8"},
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "in.shoe")
	for name, src := range inputs {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		toks, err := tableau.ParseTranscript(strings.NewReader(src), p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sets := flagSets
		if !strings.Contains(name, ".shoe") { // made up: two of them, in turn
			k := len(name) % len(flagSets)
			sets = [][]string{flagSets[k], flagSets[(k+1+len(src)%3)%len(flagSets)]}
		}
		for _, flags := range sets {
			cfg, err := parseCheckFlags(append(append([]string{}, flags...), p), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Opts.Markers = cfg.Markers == "on" // as runCheck sets it
			evs, err := tableau.FoldTokens(cfg.Opts, toks)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			for _, e := range evs {
				line, err := json.Marshal(e)
				if err != nil {
					t.Fatal(err)
				}
				want.Write(append(line, '\n'))
			}
			var warned [2]string                          // the warnings on standard error, each way
			for si, serial := range []bool{false, true} { // two folds (where they apply) or one
				audit.SerialFold, audit.ParFoldAll = serial, !serial
				var out, errb bytes.Buffer
				code := run(context.Background(), append(append([]string{"check"}, flags...), p), nil, &out, &errb)
				audit.SerialFold, audit.ParFoldAll = false, false
				warned[si] = errb.String()
				if code == 2 || !bytes.Equal(out.Bytes(), want.Bytes()) {
					got, exp := out.String(), want.String()
					k := 0
					for k < min(len(got), len(exp)) && got[k] == exp[k] {
						k++
					}
					t.Fatalf("%s %v (one fold %v): exit %d, %d bytes out, want %d; first difference at byte %d:\n got %.300q\nwant %.300q",
						name, flags, serial, code, len(got), len(exp), k, got[max(0, k-100):], exp[max(0, k-100):])
				}
			}
			if warned[0] != warned[1] {
				t.Fatalf("%s %v: warnings with two folds:\n%.2000s\nwith one:\n%.2000s", name, flags, warned[0], warned[1])
			}
		}
	}
}
