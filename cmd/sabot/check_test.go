package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// runCheckArgs runs `sabot check args...` through the dispatcher.
func runCheckArgs(t testing.TB, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"check"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("bad JSON line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// contractGame is the game a contract transcript is dealt in, from its
// name ("check-banque.shoe": banque), or "" for punto banco.
func contractGame(shoe string) string {
	name := strings.TrimPrefix(strings.Split(filepath.Base(shoe), ".")[0], "check-")
	for {
		if _, ok := baccarat.LookupGame(name); ok {
			return name // check-banque.shoe, check-banque-naturals.shoe
		}
		i := strings.LastIndexByte(name, '-')
		if i < 0 {
			return ""
		}
		name = name[:i]
	}
}

// TestCheckGameGoldens runs the command on the chemin de fer and banque
// samples (tableau/testdata/GAME.*.shoe, flags from the name: "free" the
// free banker table, "markers-off") and compares its output with their
// golden files byte for byte, and its exit status (1: they raise alerts).
func TestCheckGameGoldens(t *testing.T) {
	var shoes []string
	for _, g := range []string{"chemin-de-fer", "banque"} {
		m, _ := filepath.Glob("../../tableau/testdata/" + g + "*.shoe")
		if len(m) == 0 {
			t.Fatalf("no %s sample", g)
		}
		shoes = append(shoes, m...)
	}
	for _, shoe := range shoes {
		t.Run(filepath.Base(shoe), func(t *testing.T) {
			parts := strings.Split(filepath.Base(shoe), ".")
			args := []string{"--game", parts[0]}
			for _, p := range parts[1:] {
				switch p {
				case "free":
					args = append(args, "--banker-table", "free")
				case "markers-off":
					args = append(args, "--markers", "off")
				}
			}
			code, out, errs := runCheckArgs(t, "", append(args, shoe)...)
			want, err := os.ReadFile(strings.TrimSuffix(shoe, ".shoe") + ".expected.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if code != 1 || errs != "" || out != string(want) {
				t.Errorf("sabot check %v: exit %d, stderr %q, output:\n%s\nwant:\n%s", args, code, errs, out, want)
			}
		})
	}
}

// TestCheckGameFlags: the game flags' errors name the flag.
func TestCheckGameFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--game", "chemmy"}, `--game "chemmy": want punto-banco`},
		{[]string{"--game", "banque", "--punter-five", "draw"}, "--punter-five: not a parameter of banque"},
		{[]string{"--punter-five", "draw"}, "--punter-five: not a parameter of punto-banco"},
		{[]string{"--game", "chemin-de-fer", "--punter-five", "maybe"}, `punter-five "maybe" (want option, draw, stand)`},
		{[]string{"--game", "chemin-de-fer", "--rules", "ez"}, `--game "chemin-de-fer" and --rules "ez" disagree`},
		{[]string{"--game", "chemin-de-fer", "--side-bets", "all"}, "not offered in chemin-de-fer"},
		{[]string{"--game", "banque", "--commission", "5%"}, "--commission"},
		{[]string{"--game", "banque", "--advantage", "0"}, "--advantage"},
	} {
		code, _, errs := runCheckArgs(t, "", append(c.args, "/dev/null")...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	cfg, err := parseCheckFlags([]string{"--game", "banque"}, io.Discard)
	if err != nil || cfg.Opts.Decks != 3 || cfg.Opts.Rules.Game != baccarat.GameBanque {
		t.Errorf("--game banque: decks %d game %v, %v", cfg.Opts.Decks, cfg.Opts.Rules.Game, err)
	}
	cfg, err = parseCheckFlags([]string{"--game", "chemin-de-fer", "--decks", "8", "--punter-five", "stand"}, io.Discard)
	want, _ := baccarat.NewCheminDeFer(baccarat.MustStand, baccarat.ScarneTable)
	if err != nil || cfg.Opts.Decks != 8 || cfg.Opts.Rules.Game != want {
		t.Errorf("--game chemin-de-fer --decks 8 --punter-five stand: decks %d game %v, %v", cfg.Opts.Decks, cfg.Opts.Rules.Game, err)
	}
}

// TestCheckContract runs the command on the team's worked examples and
// compares each line as a JSON value: expected keys must match exactly,
// extra keys are allowed, "card" must be absent where the contract omits it.
func TestCheckContract(t *testing.T) {
	shoes, _ := filepath.Glob("../../tableau/testdata/contract/*.shoe")
	if len(shoes) < 6 {
		t.Fatalf("found %d contract transcripts", len(shoes))
	}
	for _, shoe := range shoes {
		t.Run(filepath.Base(shoe), func(t *testing.T) {
			var args []string
			if strings.Contains(shoe, ".decks1.") {
				args = append(args, "--decks", "1")
			}
			if g := contractGame(shoe); g != "" {
				args = append(args, "--game", g)
			}
			code, out, errs := runCheckArgs(t, "", append(args, shoe)...)
			b, err := os.ReadFile(strings.TrimSuffix(shoe, ".shoe") + ".expected.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			want := jsonLines(t, string(b))
			got := jsonLines(t, out)
			alerts := 0
			for _, w := range want {
				if w["type"] == "alert" {
					alerts++
				}
			}
			wantCode := 0
			if alerts > 0 {
				wantCode = 1
			}
			if code != wantCode || errs != "" {
				t.Errorf("exit %d (want %d), stderr %q", code, wantCode, errs)
			}
			if len(got) != len(want) {
				t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), out)
			}
			for i := range want {
				for k, v := range want[i] {
					if !reflect.DeepEqual(got[i][k], v) {
						t.Errorf("line %d: %s = %v, want %v", i+1, k, got[i][k], v)
					}
				}
				if _, has := got[i]["card"]; has && want[i]["card"] == nil {
					t.Errorf("line %d has a card key: %v", i+1, got[i])
				}
			}
		})
	}
}

func TestCheckCleanShoeGolden(t *testing.T) {
	code, out, errs := runCheckArgs(t, "", "../../tableau/testdata/clean-8deck.shoe")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d stderr %q", code, errs)
	}
	b, err := os.ReadFile("../../tableau/testdata/clean-8deck.expected.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonLines(t, out), jsonLines(t, string(b)); !reflect.DeepEqual(got, want) {
		t.Errorf("output differs from the golden file")
	}
	if n := strings.Count(out, "\n"); n < 75 {
		t.Errorf("%d coups", n)
	}
}

func TestCheckParseError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shoe.txt")
	// Line 3, column 14: the unknown token "1H". Valid coups come first:
	// none may be printed.
	text := "shoe 2H 3C 4D\n9S 3H KD 5C\n4H 5D 9C 3D  1H 7C\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCheckArgs(t, "", path)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if out != "" {
		t.Errorf("stdout %q, want nothing", out)
	}
	if want := path + `:3:14: unknown token "1H"` + "\n"; errs != want {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	// The same from standard input.
	code, out, errs = runCheckArgs(t, text, "-")
	if code != 2 || out != "" || errs != "<stdin>:3:14: unknown token \"1H\"\n" {
		t.Errorf("stdin: exit %d stdout %q stderr %q", code, out, errs)
	}
}

func TestCheckExitCodes(t *testing.T) {
	const clean = "shoe 2H 3C 4D 9S 3H KD 5C\n"
	if code, out, _ := runCheckArgs(t, clean); code != 0 || !strings.Contains(out, `"winner":"player"`) {
		t.Errorf("clean stdin (no FILE): exit %d out %q", code, out)
	}
	if code, out, _ := runCheckArgs(t, clean+"4H 5D", "-"); code != 1 || !strings.Contains(out, `"code":"incomplete-coup"`) {
		t.Errorf("alert: exit %d out %q", code, out)
	}
	if code, _, errs := runCheckArgs(t, "", filepath.Join(t.TempDir(), "missing.shoe")); code != 2 || !strings.Contains(errs, "missing.shoe") {
		t.Errorf("missing file: exit %d stderr %q", code, errs)
	}
	for _, bad := range [][]string{
		{"--decks", "0"}, {"--decks", "9"}, {"--rules", "chemin-de-fer"}, {"--tie-pays", "7"},
		{"--cut-rule", "never"}, {"--markers", "maybe"}, {"--bogus"}, {"a.shoe", "b.shoe"},
	} {
		code, out, errs := runCheckArgs(t, clean, bad...)
		if code != 2 || out != "" || errs == "" {
			t.Errorf("%v: exit %d stdout %q stderr %q", bad, code, out, errs)
		}
	}
	if code, _, errs := runCheckArgs(t, "", "-h"); code != 0 || !strings.Contains(errs, "--markers") && !strings.Contains(errs, "-markers") {
		t.Errorf("-h: exit %d stderr %q", code, errs)
	}
}

func TestCheckFlags(t *testing.T) {
	// Markers off: "|" is ignored and the extra card starts coup 2.
	const tr = "shoe 2H 3C 4D | 9S 3H KD 5C 7H |\n"
	_, out, _ := runCheckArgs(t, tr, "--markers", "on")
	if !strings.Contains(out, `"code":"extra-card","card":"7H"`) {
		t.Errorf("markers on: %s", out)
	}
	_, out, _ = runCheckArgs(t, tr, "--markers", "off")
	if strings.Contains(out, "extra-card") || !strings.Contains(out, `"coup":2,"code":"incomplete-coup"`) {
		t.Errorf("markers off: %s", out)
	}
	// --rules and --tie-pays change the settlement.
	const tie = "shoe 2H 3C 4D 9S 9H 9C 9D\n"
	_, out, _ = runCheckArgs(t, tie, "--tie-pays", "9")
	if !strings.Contains(out, `"tie":{"result":"win","net":9}`) {
		t.Errorf("tie pays 9: %s", out)
	}
	const dragon = "shoe 2H 3C 4D AS KH 3S 3D 2H 4C\n"
	_, out, _ = runCheckArgs(t, dragon, "--rules", "ez")
	if !strings.Contains(out, `"dragon7":{"result":"win","net":40}`) || !strings.Contains(out, `"banker":{"result":"push","net":0}`) {
		t.Errorf("ez: %s", out)
	}
	_, out, _ = runCheckArgs(t, dragon, "--rules", "punto-banco")
	if !strings.Contains(out, `"banker":{"result":"win","net":0.95}`) {
		t.Errorf("punto-banco: %s", out)
	}
	// --cut-rule one-more: the coup in progress at the cut and one more.
	const cut = "shoe 2H 3C 4D 9S cut 3H KD 5C 4H 5D 9C 3D KS KH 8S 8H\n"
	_, out, _ = runCheckArgs(t, cut)
	if !strings.Contains(out, `"coup":2,"code":"after-cut","card":"4H"`) {
		t.Errorf("last-coup: %s", out)
	}
	_, out, _ = runCheckArgs(t, cut, "--cut-rule", "one-more")
	if strings.Contains(out, `"coup":2,"code":"after-cut"`) || !strings.Contains(out, `"coup":3,"code":"after-cut","card":"KS"`) {
		t.Errorf("one-more: %s", out)
	}
	// --decks 1: a fifth ace.
	const aces = "shoe 2H 3C 4D AS AH 5C 3D 4S AD AC 7H AS\n"
	_, out, _ = runCheckArgs(t, aces, "--decks", "1")
	if !strings.Contains(out, `"code":"composition","card":"AS"`) {
		t.Errorf("decks 1: %s", out)
	}
	_, out, _ = runCheckArgs(t, aces, "--decks", "6")
	if strings.Contains(out, "composition") {
		t.Errorf("decks 6: %s", out)
	}
}

// TestCheckHelperProcess is not a test: it runs the real main when the
// parent test (TestCheckRealProgram) starts this test binary with
// SABOT_HELPER_PROCESS=1.
func TestCheckHelperProcess(t *testing.T) {
	if os.Getenv("SABOT_HELPER_PROCESS") != "1" {
		t.Skip("helper process for TestCheckRealProgram")
	}
	args := strings.Split(os.Getenv("SABOT_HELPER_ARGS"), "\x1f")
	os.Args = append([]string{"sabot"}, args...)
	main()
}

// TestCheckRealProgram boots the real program (main, os.Exit and all) and
// checks exit statuses and output.
func TestCheckRealProgram(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		stdin  string
		code   int
		outHas string
		errHas string
	}{
		{[]string{"check", "../../tableau/testdata/clean-8deck.shoe"}, "", 0, `"coup":84,`, ""},
		{[]string{"check", "../../tableau/testdata/missing-card.shoe"}, "", 1, `"code":"missing-card"`, ""},
		{[]string{"check"}, "shoe 2H 1H", 2, "", `<stdin>:1:9: unknown token "1H"`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCheckHelperProcess$")
		cmd.Env = append(os.Environ(), "SABOT_HELPER_PROCESS=1", "SABOT_HELPER_ARGS="+strings.Join(tc.args, "\x1f"))
		cmd.Stdin = strings.NewReader(tc.stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.Contains(out.String(), tc.outHas) || !strings.Contains(errb.String(), tc.errHas) {
			t.Errorf("%v: exit %d (want %d)\nstdout %.300q\nstderr %q", tc.args, code, tc.code, out.String(), errb.String())
		}
	}
}

// BenchmarkCheck8DeckShoe runs `sabot check` (read, parse, fold, encode)
// over the bundled clean 8-deck shoe of 84 coups.
func BenchmarkCheck8DeckShoe(b *testing.B) {
	const path = "../../tableau/testdata/clean-8deck.shoe"
	for b.Loop() {
		code := run(context.Background(), []string{"check", path}, nil, io.Discard, io.Discard)
		if code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

func TestCheckFlagsAfterFile(t *testing.T) {
	const path = "../../tableau/testdata/multi-shoe.decks6.shoe"
	for _, args := range [][]string{
		{"--decks", "6", path},
		{path, "--decks", "6"},
		{"--decks=6", "--", path},
	} {
		code, out, errs := runCheckArgs(t, "", args...)
		if code != 0 || errs != "" || strings.Count(out, "\n") != 2 {
			t.Errorf("%v: exit %d stderr %q out %q", args, code, errs, out)
		}
	}
	// After "--" even a name starting with "-" is a FILE.
	code, _, errs := runCheckArgs(t, "", "--", "--decks")
	if code != 2 || !strings.Contains(errs, "--decks") {
		t.Errorf("-- --decks: exit %d stderr %q", code, errs)
	}
}

// A shoe that never ends, through sabot check as through the daemon's
// table: composition once, on the first card past what the decks hold (it
// was raised on every card after it), and shoe-overrun once, on the card
// past --overrun-cards more (only the daemon raised it).
func TestCheckShoeOverrun(t *testing.T) {
	var b strings.Builder
	b.WriteString("shoe")
	ranks := "A23456789TJQK"
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, " %c%c", ranks[(i*5)%13], "SHDC"[(i/13)%4])
	}
	b.WriteString("\n")
	path := filepath.Join(t.TempDir(), "endless.shoe")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ := runCheckArgs(t, "", "--decks", "1", "--overrun-cards", "5", "--markers", "off", path)
	counts := map[string]int{}
	for _, l := range jsonLines(t, out) {
		if l["type"] == "alert" {
			counts[l["code"].(string)]++
		}
	}
	if counts["composition"] != 1 || counts["shoe-overrun"] != 1 {
		t.Errorf("alerts %v, want one composition and one shoe-overrun\n%s", counts, out)
	}
}
