package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

func runRoadsArgs(t testing.TB, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"roads"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// The contract's worked example through --results: every key it gives has
// its value (compared as JSON values); extra keys are allowed.
func TestRoadsCommandWorkedExample(t *testing.T) {
	in, err := os.ReadFile("../../display/testdata/roads-example.results")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../display/testdata/roads-example.expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runRoadsArgs(t, "", "--results", strings.TrimSpace(string(in)))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := jsonLines(t, out)
	if len(lines) != 1 {
		t.Fatalf("%d lines, want 1:\n%s", len(lines), out)
	}
	for k, v := range want {
		if !reflect.DeepEqual(lines[0][k], v) {
			t.Errorf("%s = %v, want %v", k, lines[0][k], v)
		}
	}
	if _, ok := lines[0]["grids"].(map[string]any)["big_road"]; !ok {
		t.Error("no drawn big road")
	}
}

// Two shoes, one line each; the voided coup is on no road; marks, cards
// left and the coups-left estimate as worked by hand.
func TestRoadsCommandTranscript(t *testing.T) {
	const tr = `shoe 2H 3C 4D | 5S 5H AC 2D 7C void | 9S 9H 9C 9D |
shoe 2H 3C 4D | 9S 3H KD 5C |`
	code, out, errs := runRoadsArgs(t, tr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := jsonLines(t, out)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), out)
	}
	// Shoe 1: coup 1 voided; coup 2 a natural tie 8–8 with both pairs.
	s1 := lines[0]
	if s1["shoe"] != 1.0 || s1["bead_plate"] != "T" || len(s1["big_road"].([]any)) != 0 {
		t.Errorf("shoe 1: %v", s1)
	}
	if c := s1["grids"].(map[string]any)["bead_plate"].([]any)[0].([]any)[0]; c != "Tpbn" {
		t.Errorf("shoe 1 bead cell %v, want Tpbn", c)
	}
	// 12 cards drawn of 416: 404 left, 404 / 4.94 = 81.8 coups.
	st := s1["stats"].(map[string]any)
	if st["tie"] != 1.0 || st["coups"] != 1.0 || st["cards_left"] != 404.0 || st["coups_left"] != 81.0 || st["naturals"] != 1.0 {
		t.Errorf("shoe 1 stats %v", st)
	}
	// Shoe 2: player natural 9 against 8; 7 cards drawn.
	s2 := lines[1]
	if s2["shoe"] != 2.0 || s2["bead_plate"] != "P" || !reflect.DeepEqual(s2["big_road"], []any{[]any{"P"}}) {
		t.Errorf("shoe 2: %v", s2)
	}
	if st := s2["stats"].(map[string]any); st["cards_left"] != 409.0 || st["coups_left"] != 82.0 {
		t.Errorf("shoe 2 stats %v", st)
	}
}

// The bead plate of each shoe is the winners of `sabot check`'s coup lines
// less the voided coups: the roads and the audit fold the same way.
func TestRoadsCommandAgreesWithCheck(t *testing.T) {
	for _, c := range []struct {
		file  string
		flags []string
	}{
		{"../../tableau/testdata/clean-8deck.shoe", nil},
		{"../../tableau/testdata/multi-shoe.decks6.shoe", []string{"--decks", "6"}},
		{"../../tableau/testdata/void.shoe", nil},
	} {
		_, chk, _ := runCheckArgs(t, "", append(c.flags, c.file)...)
		beads := map[float64][]string{}
		coups := map[float64][]float64{}
		for _, l := range jsonLines(t, chk) {
			shoe := l["shoe"].(float64)
			switch l["type"] {
			case "coup":
				beads[shoe] = append(beads[shoe], strings.ToUpper(l["winner"].(string)[:1]))
				coups[shoe] = append(coups[shoe], l["coup"].(float64))
			case "void":
				for i := len(coups[shoe]) - 1; i >= 0; i-- {
					if coups[shoe][i] == l["coup"].(float64) {
						coups[shoe] = append(coups[shoe][:i], coups[shoe][i+1:]...)
						beads[shoe] = append(beads[shoe][:i], beads[shoe][i+1:]...)
						break
					}
				}
			}
		}
		code, out, errs := runRoadsArgs(t, "", append(c.flags, c.file)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.file, code, errs)
		}
		lines := jsonLines(t, out)
		if len(lines) != len(beads) || len(lines) == 0 {
			t.Fatalf("%s: %d shoes, check has %d", c.file, len(lines), len(beads))
		}
		for _, l := range lines {
			if want := strings.Join(beads[l["shoe"].(float64)], ""); l["bead_plate"] != want {
				t.Errorf("%s shoe %v: bead plate %v, check gives %q", c.file, l["shoe"], l["bead_plate"], want)
			}
		}
	}
}

func TestRoadsCommandErrors(t *testing.T) {
	for _, c := range []struct {
		args   []string
		stdin  string
		code   int
		stderr string
	}{
		{[]string{"--results", "BPX"}, "", 2, `'X' at byte 3`},
		{[]string{"--results", "BP", "file.shoe"}, "", 2, "takes no other flag or FILE"},
		{[]string{"--results"}, "", 2, "missing value"},
		{[]string{"--decks", "9"}, "", 2, "--decks 9"},
		{nil, "2H 3C 4D ZZ", 2, "1:10"},
		{nil, "", 1, "no cards"},
		{[]string{"-h"}, "", 0, "sabot roads --results"},
	} {
		code, out, errs := runRoadsArgs(t, c.stdin, c.args...)
		if code != c.code || !strings.Contains(errs, c.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.stderr)
		}
		if code != 0 && out != "" {
			t.Errorf("%v: output on error: %q", c.args, out)
		}
	}
	// Lower case and white space are accepted.
	if code, out, _ := runRoadsArgs(t, "", "--results=b p\tt"); code != 0 || !strings.Contains(out, `"bead_plate":"BPT"`) {
		t.Errorf("--results=b p t: exit %d: %s", code, out)
	}
}

// A shoe that never ends (1,000 coups, no "shoe") is drawn in constant
// memory (a bounded window and a display.Tally) exactly as
// display.BuildRoads draws the whole list of its results; a void of a
// complete coup is undone in the statistics too.
func TestRoadsCommandNeverEndingShoe(t *testing.T) {
	coups := map[byte]struct {
		cards string
		r     tableau.CoupResult
	}{
		'P': {"9S 3H KD 5C", tableau.CoupResult{Winner: baccarat.WinnerPlayer, Natural: true}}, // 9 against 8
		'B': {"3H 9S 5C KD", tableau.CoupResult{Winner: baccarat.WinnerBanker, Natural: true}}, // 8 against 9
		'T': {"9S 9H 9C 9D", tableau.CoupResult{Winner: baccarat.WinnerTie, Natural: true, PlayerPair: true, BankerPair: true}},
	}
	const pattern = "PPBPBBBTPBBBBBBBPTT"
	var tr strings.Builder
	tr.WriteString("2H 3C 4D |\n")
	var rs []tableau.CoupResult
	for i := range 1000 {
		c := coups[pattern[i%len(pattern)]]
		tr.WriteString(c.cards)
		if i%97 == 96 {
			tr.WriteString(" void") // the complete coup is current until its "|"
		} else {
			r := c.r
			r.Coup = i + 1
			rs = append(rs, r)
		}
		tr.WriteString(" |\n")
	}
	code, out, errs := runRoadsArgs(t, tr.String())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want, err := json.Marshal(display.BuildRoads(display.RoadsInput{Shoe: 1, Results: rs, CardsLeft: 0, Coup: 1000}))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out); got != string(want) {
		t.Errorf("sabot roads:\n%s\nBuildRoads of all %d results:\n%s", got, len(rs), want)
	}
	var rd display.Roads
	if err := json.Unmarshal([]byte(out), &rd); err != nil {
		t.Fatal(err)
	}
	if rd.Stats.Coups != 1000-10 || rd.DroppedCoups != 1000-10-display.MaxRoadCoups {
		t.Errorf("%d coups, %d dropped", rd.Stats.Coups, rd.DroppedCoups)
	}
}
