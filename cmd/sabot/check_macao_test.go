package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// macaoArgs derives `sabot check` flags from a Macao sample's file name
// (as tableau's macaoOptionsFromName does).
func macaoArgs(name string) []string {
	args := []string{"--game", "macao"}
	for _, part := range strings.Split(filepath.Base(name), ".") {
		switch {
		case part == "victoria":
			args[1] = "victoria"
		case strings.HasPrefix(part, "seats"):
			args = append(args, "--seats", part[len("seats"):])
		case strings.HasPrefix(part, "decks"):
			args = append(args, "--decks", part[len("decks"):])
		case part == "bust":
			args = append(args, "--count", "bust")
		case part == "push":
			args = append(args, "--equal", "push")
		case part == "pays21":
			args = append(args, "--pays", "2-1")
		case part == "norefuse":
			args = append(args, "--refuse-tens", "off")
		}
	}
	return args
}

// TestCheckMacaoContract: the team's Macao example through the command
// (expected keys exact, extra keys allowed).
func TestCheckMacaoContract(t *testing.T) {
	shoes, _ := filepath.Glob("../../tableau/testdata/macao/contract/*.shoe")
	if len(shoes) < 2 {
		t.Fatalf("%d Macao contract transcripts", len(shoes))
	}
	for _, shoe := range shoes {
		t.Run(filepath.Base(shoe), func(t *testing.T) { checkMacaoContract(t, shoe) })
	}
}

// checkMacaoContract: one Macao contract transcript (2 seats) through the
// command against its expected lines.
func checkMacaoContract(t *testing.T, shoe string) {
	code, out, errs := runCheckArgs(t, "", "--game", "macao", "--seats", "2", shoe)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	b, err := os.ReadFile(strings.TrimSuffix(shoe, ".shoe") + ".expected.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got, want := jsonLines(t, out), jsonLines(t, string(b))
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		for k, v := range want[i] {
			if !reflect.DeepEqual(got[i][k], v) {
				t.Errorf("line %d: %s = %v, want %v", i+1, k, got[i][k], v)
			}
		}
	}
}

// TestCheckMacaoGolden: every hand-worked Macao and Victoria transcript
// through the command, each line and key exactly as expected, and the exit
// status (1 when there is an alert).
func TestCheckMacaoGolden(t *testing.T) {
	shoes, _ := filepath.Glob("../../tableau/testdata/macao/*.shoe")
	if len(shoes) < 3 {
		t.Fatalf("found %d Macao transcripts", len(shoes))
	}
	for _, shoe := range shoes {
		t.Run(filepath.Base(shoe), func(t *testing.T) {
			code, out, _ := runCheckArgs(t, "", append(macaoArgs(shoe), shoe)...)
			b, err := os.ReadFile(strings.TrimSuffix(shoe, ".shoe") + ".expected.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			got, want := jsonLines(t, out), jsonLines(t, string(b))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got\n%s\nwant\n%s", out, b)
			}
			alerts := strings.Contains(string(b), `"alert"`)
			if (code == 1) != alerts || code > 1 {
				t.Errorf("exit %d with alerts %v", code, alerts)
			}
		})
	}
}

// TestCheckMacaoMisfitPositions: each token that does not fit is named on
// standard error with its line and column and why (positions counted by
// hand in rules.seats3.shoe).
func TestCheckMacaoMisfitPositions(t *testing.T) {
	shoe := "../../tableau/testdata/macao/rules.seats3.shoe"
	code, _, errs := runCheckArgs(t, "", "--game", "macao", "--seats", "3", shoe)
	want := shoe + ":10:4: misplaced-token: stand while the initial cards are being dealt: no hand has a turn yet\n" +
		shoe + ":10:19: misplaced-token: refuse with no card just drawn by the hand whose turn it is\n" +
		shoe + ":10:29: misplaced-token: refuse after a card that is not a ten or a court card\n" +
		shoe + ":10:57: misplaced-token: stand after the coup is complete: every hand has had its turn\n" +
		shoe + ":15:22: extra-card: card after the coup is complete: it belongs to no hand (QC)\n"
	if code != 1 || errs != want {
		t.Errorf("exit %d, stderr\n%s\nwant\n%s", code, errs, want)
	}
	code, _, errs = runCheckArgs(t, "shoe 2H 5C 6D 4S 9C 3D 4H 8C 2S stand 3H refuse", "--game", "victoria", "--seats", "2", "--refuse-tens", "off")
	want = "<stdin>:1:42: misplaced-token: refuse: refusing tens is off (--refuse-tens off)\n"
	if code != 1 || errs != want {
		t.Errorf("refusing off: exit %d, stderr %q, want %q", code, errs, want)
	}
}

// TestCheckMacaoFlags: bad values and flags of other games are refused
// (exit 2), each named.
func TestCheckMacaoFlags(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--game", "macao", "--seats", "0"}, []string{`--game macao: macao seats "0" (want 1, 2, 3, 4, 5, 6, 7, 8, 9)`}},
		{[]string{"--game", "victoria", "--count", "mod"}, []string{`victoria count "mod" (want modulo, bust)`}},
		{[]string{"--game", "victoria", "--equal", "player"}, []string{`victoria equal "player" (want banker, push)`}},
		{[]string{"--game", "macao", "--pays", "3:2"}, []string{`macao pays "3:2" (want 3-2, 2-1)`}},
		{[]string{"--game", "macao", "--refuse-tens", "yes"}, []string{`macao refuse-tens "yes" (want on, off)`}},
		{[]string{"--game", "macao", "--advantage", "0", "--side-bets", "all", "--tie-pays", "9"},
			[]string{"--advantage does not apply to --game macao", "--side-bets does not apply", "--tie-pays does not apply"}},
		{[]string{"--game", "macao", "--punter-five", "draw"}, []string{"--punter-five: not a parameter of macao"}},
		{[]string{"--seats", "2"}, []string{"--seats: not a parameter of punto-banco"}},
		{[]string{"--game", "ez", "--count", "bust"}, []string{"--count: not a parameter of ez"}},
		{[]string{"--game", "macao", "--decks", "9"}, []string{"--decks 9"}},
	}
	for _, c := range cases {
		code, out, errs := runCheckArgs(t, "AS", c.args...)
		if code != 2 || out != "" {
			t.Errorf("%v: exit %d, stdout %q", c.args, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, errs, w)
			}
		}
	}
	// --game names the punto banco profiles as --rules does.
	shoe := "../../tableau/testdata/contract/check-clean.shoe"
	_, a, _ := runCheckArgs(t, "", "--game", "super6", shoe)
	_, b, _ := runCheckArgs(t, "", "--rules", "super6", shoe)
	if a != b || a == "" {
		t.Errorf("--game super6 and --rules super6 differ")
	}
	// A Macao shoe defaults to 2 decks: a third ace of spades is a composition alert.
	_, out, _ := runCheckArgs(t, "shoe AS | AS AS 2C stand stand |", "--game", "macao")
	if !strings.Contains(out, `"code":"composition","card":"AS"`) {
		t.Errorf("2 decks by default: %s", out)
	}
}

// TestCheckRefuseOutsideMacao: "refuse" in a punto banco or chemin de fer
// transcript is a misplaced-token alert named with its position; the coup
// goes on.
func TestCheckRefuseOutsideMacao(t *testing.T) {
	for _, game := range []string{"punto-banco", "chemin-de-fer"} {
		code, out, errs := runCheckArgs(t, "shoe 4D 7C 8C QS 2H |\n9S 3H KD refuse 5C |\n", "--game", game)
		lines := jsonLines(t, out)
		if code != 1 || len(lines) != 2 || lines[0]["code"] != "misplaced-token" || lines[0]["coup"] != 1.0 || lines[1]["type"] != "coup" {
			t.Errorf("%s: exit %d, %s", game, code, out)
		}
		if want := "<stdin>:2:10: misplaced-token: refuse: only in --game macao and victoria\n"; errs != want {
			t.Errorf("%s: stderr %q, want %q", game, errs, want)
		}
	}
}
