package tableau_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (not the contract)")

// gameOfPart is the game a file name's part names: "banque",
// "check-chemin-de-fer", or a game followed by words ("check-banque-naturals").
func gameOfPart(part string) (baccarat.Game, bool) {
	name := strings.TrimPrefix(part, "check-")
	for {
		if g, err := baccarat.ParseGame(name); err == nil {
			return g, true
		}
		i := strings.LastIndexByte(name, '-')
		if i < 0 {
			return baccarat.Game{}, false
		}
		name = name[:i]
	}
}

// optionsFromName derives fold options from a sample's file name: a
// part naming a game (chemin-de-fer, banque, or check-GAME) sets it; a
// ".decksN." part sets the decks, ".one-more." the cut rule, ".ez." /
// ".super6." the rules, ".markers-off." / ".markers-on." the marker mode
// (otherwise auto, as `sabot check`).
func optionsFromName(t *testing.T, name string, toks []tableau.Token) tableau.Options {
	t.Helper()
	opts := tableau.Options{Markers: tableau.HasMarkers(toks)}
	for _, part := range strings.Split(filepath.Base(name), ".") {
		if g, ok := gameOfPart(part); ok && part != "ez" && part != "super6" {
			opts.Rules.Game = g // check-chemin-de-fer.shoe, banque.*.shoe
		}
		if part == "free" { // chemin de fer's free banker table
			opts.Rules.Game, _ = baccarat.NewGame("chemin-de-fer", map[string]string{"banker-table": "free"})
		}
		switch {
		case strings.HasPrefix(part, "decks"):
			n := 0
			for _, ch := range part[len("decks"):] {
				n = n*10 + int(ch-'0')
			}
			opts.Decks = n
		case part == "one-more":
			opts.CutRule = tableau.CutOneMore
		case part == "ez":
			opts.Rules.Game = baccarat.GameEZ
		case part == "super6":
			opts.Rules.Game = baccarat.GameSuper6
		case part == "markers-off":
			opts.Markers = false
		case part == "markers-on":
			opts.Markers = true
		}
	}
	return opts
}

func foldFile(t *testing.T, path string) []tableau.Event {
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
	evs, err := tableau.FoldTokens(optionsFromName(t, path, toks), toks)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func readJSONLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

func eventsAsJSON(t *testing.T, evs []tableau.Event) []map[string]any {
	t.Helper()
	out := make([]map[string]any, 0, len(evs))
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("marshal %+v: %v", e, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// matchContract compares events with expected lines as JSON values: every
// expected key must be present with an equal value (extra keys allowed),
// and "card" must be absent exactly when the expectation omits it.
func matchContract(t *testing.T, got, want []map[string]any) {
	t.Helper()
	for i := 0; i < len(got) || i < len(want); i++ {
		if i >= len(got) {
			t.Errorf("line %d: missing, want %v", i+1, want[i])
			continue
		}
		if i >= len(want) {
			t.Errorf("line %d: unexpected %v", i+1, got[i])
			continue
		}
		for k, v := range want[i] {
			if !reflect.DeepEqual(got[i][k], v) {
				t.Errorf("line %d: %s = %v, want %v (line %v)", i+1, k, got[i][k], v, got[i])
			}
		}
		if _, has := got[i]["card"]; has && want[i]["card"] == nil {
			t.Errorf("line %d: has a card key, want none: %v", i+1, got[i])
		}
	}
}

// TestContract folds the shared worked examples (testdata/contract, copied
// from the team's contract) and compares with their expected lines.
func TestContract(t *testing.T) {
	shoes, _ := filepath.Glob("testdata/contract/*.shoe")
	if len(shoes) < 6 {
		t.Fatalf("found %d contract transcripts, want at least 6", len(shoes))
	}
	for _, shoe := range shoes {
		t.Run(filepath.Base(shoe), func(t *testing.T) {
			want := readJSONLines(t, strings.TrimSuffix(shoe, ".shoe")+".expected.jsonl")
			matchContract(t, eventsAsJSON(t, foldFile(t, shoe)), want)
		})
	}
}
