package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau"
)

// runSabot runs the CLI in-process and returns stdout, stderr and the exit
// status.
func runSabot(t testing.TB, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

type oddsJSON struct {
	Banker, Player, Tie, Natural float64
	PlayerPair                   float64 `json:"player_pair"`
	BankerPair                   float64 `json:"banker_pair"`
	Dragon7, Panda8, Super6      float64
	Cards4, Cards5, Cards6       float64
	HouseEdge                    map[string]float64 `json:"house_edge"`
	CardsLeft                    int                `json:"cards_left"`
	Counts                       map[string]uint64
	Rules                        string
	TiePays                      int `json:"tie_pays"`
	Decks                        int
}

func decodeOdds(t testing.TB, line string) oddsJSON {
	t.Helper()
	var o oddsJSON
	dec := json.NewDecoder(strings.NewReader(line))
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("decoding %q: %v", line, err)
	}
	return o
}

func round(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(x*p) / p
}

// TestOddsCommandPublished: a fresh 8-deck shoe gives the published
// probabilities and house edges (Wizard of Odds; see tableau/odds/odds_test.go).
func TestOddsCommandPublished(t *testing.T) {
	out, stderr, code := runSabot(t, "", "odds")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"banker", "player", "tie", "natural", "player_pair", "banker_pair", "dragon7", "panda8",
		"super6", "cards4", "cards5", "cards6", "house_edge"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("key %q missing from %s", k, out)
		}
	}
	o := decodeOdds(t, out)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"banker", o.Banker, 0.458597}, {"player", o.Player, 0.446247}, {"tie", o.Tie, 0.095156},
		{"cards4", o.Cards4, 0.378868}, {"cards5", o.Cards5, 0.303444}, {"cards6", o.Cards6, 0.317687},
		{"dragon7", o.Dragon7, 0.022534}, {"panda8", o.Panda8, 0.034543},
		{"edge banker", o.HouseEdge["banker"], 0.0106}, {"edge player", o.HouseEdge["player"], 0.0124},
		{"edge tie", o.HouseEdge["tie"], 0.1436}, {"edge player_pair", o.HouseEdge["player_pair"], 0.1036},
		{"edge banker_pair", o.HouseEdge["banker_pair"], 0.1036},
	} {
		d := 6
		if strings.HasPrefix(c.name, "edge") {
			d = 4
		}
		if round(c.got, d) != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if len(o.HouseEdge) != 5 {
		t.Errorf("punto-banco house_edge has %d bets: %v", len(o.HouseEdge), o.HouseEdge)
	}
	if o.Counts["banker"] != 2_292_252_566_437_888 || o.CardsLeft != 416 {
		t.Errorf("counts %v, cards_left %d", o.Counts, o.CardsLeft)
	}
}

func TestOddsCommandProfiles(t *testing.T) {
	for _, c := range []struct {
		args  []string
		edges map[string]float64 // rounded to 4 places
	}{
		{[]string{"--rules", "super6"}, map[string]float64{"banker": 0.0146, "player": 0.0124, "tie": 0.1436}},
		{[]string{"--rules", "ez"}, map[string]float64{"banker": 0.0102, "dragon7": 0.0761, "panda8": 0.1019}},
		{[]string{"--tie-pays", "9"}, map[string]float64{"tie": 0.0484}},
		{[]string{"--decks", "6"}, map[string]float64{"tie": 0.1444}},
		{[]string{"--decks", "1"}, map[string]float64{"banker": 0.0101, "player": 0.0129, "tie": 0.1575}},
	} {
		out, stderr, code := runSabot(t, "", append([]string{"odds"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		o := decodeOdds(t, out)
		for bet, want := range c.edges {
			if got := round(o.HouseEdge[bet], 4); got != want {
				t.Errorf("%v: house edge %s = %v, want %v", c.args, bet, o.HouseEdge[bet], want)
			}
		}
		_, ez := o.HouseEdge["dragon7"]
		if ez != (c.args[1] == "ez") {
			t.Errorf("%v: dragon7 in house_edge = %v", c.args, ez)
		}
	}
}

func TestOddsCommandRemoved(t *testing.T) {
	// One deck less three 8s and three 9s: Dragon 7 favours the player
	// (the same shoe as tableau's ExampleAdvantages).
	out, stderr, code := runSabot(t, "", "odds", "--decks", "1", "--rules", "ez", "--removed", "8S 8h 8D 9S 9 9d")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	o := decodeOdds(t, out)
	if o.CardsLeft != 46 || round(o.HouseEdge["dragon7"], 4) != -0.2311 {
		t.Errorf("cards_left %d, dragon7 edge %v; want 46, -0.2311", o.CardsLeft, o.HouseEdge["dragon7"])
	}
	// 10 and T are the same rank.
	a, _, _ := runSabot(t, "", "odds", "--removed", "10H 10")
	b, _, _ := runSabot(t, "", "odds", "--removed", "TH t")
	if a != b || a == "" {
		t.Errorf("10H 10 and TH t differ:\n%s\n%s", a, b)
	}
}

func TestOddsCommandErrors(t *testing.T) {
	for _, c := range []struct {
		stdin string
		args  []string
		want  string // in stderr
	}{
		{"", []string{"--decks", "1", "--removed", "5H 5 5 5 5C"}, `column 10: card 5 "5C": removes more than a 1-deck shoe holds`},
		{"", []string{"--decks", "1", "--removed", "5H 5H"}, `card 2 "5H": removes more than a 1-deck shoe holds (1 of 5H, 4 of rank 5)`},
		{"", []string{"--removed", "AS 1H"}, `column 4: card 2 "1H": not a card`},
		{"", []string{"--decks", "9"}, "--decks 9: want 1–8"},
		{"", []string{"--rules", "chemin-de-fer"}, `--rules "chemin-de-fer"`},
		{"", []string{"--tie-pays", "7"}, "--tie-pays 7: a tie pays 8 or 9 to 1"},
		{"", []string{"--batch", "--removed", "AS"}, "exclude each other"},
		{"", []string{"extra"}, `unexpected argument "extra"`},
		{"AS\nAS AS AS AS AS\n", []string{"--batch", "--decks", "1"}, `<stdin>:2: column 4: card 2 "AS": removes more than a 1-deck shoe holds (1 of AS, 4 of rank A)`},
	} {
		_, stderr, code := runSabot(t, c.stdin, append([]string{"odds"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	// Leaving fewer than six cards.
	deck := strings.Fields(strings.Repeat("A 2 3 4 5 6 7 8 9 T J Q K ", 4))
	_, stderr, code := runSabot(t, "", "odds", "--decks", "1", "--removed", strings.Join(deck[:46], " "))
	if code != 0 {
		t.Errorf("leaving 6 cards: exit %d, %q", code, stderr)
	}
	_, stderr, code = runSabot(t, "", "odds", "--decks", "1", "--removed", strings.Join(deck[:47], " "))
	if code != 2 || !strings.Contains(stderr, "47 cards removed leave 5 in a 1-deck shoe; a coup may need 6") {
		t.Errorf("leaving few cards: exit %d, %q", code, stderr)
	}
	// A bad batch line keeps the good lines before it.
	out, _, code := runSabot(t, "AS\n2S\nZZ\n3S\n", "odds", "--batch")
	if code != 2 || strings.Count(out, "\n") != 2 {
		t.Errorf("bad third line: exit %d, %d lines out", code, strings.Count(out, "\n"))
	}
}

// shoePrefixes reads a transcript with one coup per line (the burn first)
// and returns, for each coup, the cards drawn before it in that shoe —
// burn and earlier coups included — as a --removed list.
func shoePrefixes(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var prefixes []string
	var drawn []string
	sc := bufio.NewScanner(f)
	burnDone := false
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		var cards []string
		for _, w := range strings.Fields(line) {
			if _, err := tableau.ParseCard(w); err == nil {
				cards = append(cards, w)
			}
		}
		if len(cards) == 0 {
			continue
		}
		if burnDone {
			prefixes = append(prefixes, strings.Join(drawn, " "))
		}
		burnDone = true
		drawn = append(drawn, cards...)
	}
	return prefixes
}

// TestOddsCommandBatchShoe analyses every coup of a real 8-deck EZ shoe in
// one process and checks each line against a single run, and that the
// late-shoe Dragon 7 advantage shows.
func TestOddsCommandBatchShoe(t *testing.T) {
	prefixes := shoePrefixes(t, "testdata/ez-late-dragon7.shoe")
	if len(prefixes) != 81 {
		t.Fatalf("%d coups in the sample shoe, want 81", len(prefixes))
	}
	out, stderr, code := runSabot(t, strings.Join(prefixes, "\n")+"\n", "odds", "--batch", "--rules", "ez")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(prefixes) {
		t.Fatalf("%d lines out for %d in", len(lines), len(prefixes))
	}
	for _, k := range []int{0, 40, 80} {
		single, _, _ := runSabot(t, "", "odds", "--rules", "ez", "--removed", prefixes[k])
		if single != lines[k]+"\n" {
			t.Errorf("coup %d: batch line differs from single run", k+1)
		}
	}
	first, last := decodeOdds(t, lines[0]), decodeOdds(t, lines[80])
	if first.CardsLeft != 416-5 || first.HouseEdge["dragon7"] <= 0 {
		t.Errorf("coup 1: cards_left %d, dragon7 edge %v", first.CardsLeft, first.HouseEdge["dragon7"])
	}
	// Before the last coup 20 cards are left and Dragon 7 pays the player
	// about 56% of the stake.
	if last.CardsLeft != 20 || round(last.HouseEdge["dragon7"], 4) != -0.5645 {
		t.Errorf("coup 81: cards_left %d, dragon7 edge %v; want 20, -0.5645", last.CardsLeft, last.HouseEdge["dragon7"])
	}
}

// BenchmarkOddsBatchShoe is `sabot odds --batch` over every coup prefix of
// the sample 8-deck shoe (81 analyses, JSON out), in one process.
func BenchmarkOddsBatchShoe(b *testing.B) {
	in := strings.Join(shoePrefixes(b, "testdata/ez-late-dragon7.shoe"), "\n") + "\n"
	b.ReportAllocs()
	for b.Loop() {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"odds", "--batch", "--rules", "ez"}, strings.NewReader(in), &out, &errb); code != 0 {
			b.Fatal(errb.String())
		}
	}
}
