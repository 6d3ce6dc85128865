package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/cmd/internal/houseflags"
	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// journalFrom writes a transcript's tokens into a new journal as sabotd
// would (one input per record), with some daemon-only inputs in between,
// and the table options as meta.
func journalFrom(t *testing.T, transcript string, opts tableau.Options) string {
	t.Helper()
	dir := t.TempDir()
	toks, err := tableau.ParseTranscript(strings.NewReader(transcript), "x")
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	raw, _ := json.Marshal(opts)
	if err := j.SetMeta(journal.MetaTableOptions, raw); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC)
	put := func(in tableau.Input) {
		b, _ := json.Marshal(in)
		if _, err := j.Append(at, b); err != nil {
			t.Fatal(err)
		}
		at = at.Add(time.Second)
	}
	for i, tok := range toks {
		put(tableau.TokenInput(tok))
		if i == 5 {
			put(tableau.Input{Kind: tableau.InputAlarm, Code: "E3", Text: "Card Not Read"})
			put(tableau.Input{Kind: tableau.InputAck, Operator: "sup"})
		}
	}
	return dir
}

func checkLines(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"check"}, args...), nil, &out, &errb)
	if code == 2 {
		t.Fatalf("check %v: %s", args, errb.String())
	}
	return out.String(), code
}

// TestExportRoundTrip journals each contract transcript, exports it and
// checks that `sabot check` on the export prints exactly the contract's
// expected lines.
func TestExportRoundTrip(t *testing.T) {
	shoes, _ := filepath.Glob("../../tableau/testdata/contract/*.shoe")
	if len(shoes) < 6 {
		t.Fatalf("found %d contract transcripts", len(shoes))
	}
	for _, shoe := range shoes {
		t.Run(filepath.Base(shoe), func(t *testing.T) {
			src, _ := os.ReadFile(shoe)
			toks, _ := tableau.ParseTranscript(bytes.NewReader(src), shoe)
			opts := tableau.Options{Decks: 8, Markers: tableau.HasMarkers(toks)}
			if strings.Contains(shoe, "decks1") {
				opts.Decks = 1
			}
			if g := contractGame(shoe); g != "" {
				opts.Rules.Game, _ = baccarat.ParseGame(g)
				opts.Decks = opts.Rules.Game.DefaultDecks()
			}
			dir := journalFrom(t, string(src), opts)
			var out, errb bytes.Buffer
			if code := run(context.Background(), []string{"export", "--state", dir}, nil, &out, &errb); code != 0 {
				t.Fatalf("export exit %d: %s", code, errb.String())
			}
			exported := filepath.Join(t.TempDir(), "export.shoe")
			os.WriteFile(exported, out.Bytes(), 0o600)
			if !strings.Contains(out.String(), "# check with: sabot check "+houseflags.CheckArgs(opts)) ||
				!strings.Contains(out.String(), `alarm "E3" "Card Not Read"`) {
				t.Fatalf("export lacks its header or comments:\n%s", out.String())
			}
			got, _ := checkLines(t, append(strings.Fields(houseflags.CheckArgs(opts)), exported)...)
			want, _ := os.ReadFile(strings.TrimSuffix(shoe, ".shoe") + ".expected.jsonl")
			gl, wl := strings.Split(strings.TrimSpace(got), "\n"), strings.Split(strings.TrimSpace(string(want)), "\n")
			if len(gl) != len(wl) {
				t.Fatalf("%d lines, want %d:\n%s\nexport:\n%s", len(gl), len(wl), got, out.String())
			}
			for i := range wl {
				var g, w map[string]any
				json.Unmarshal([]byte(gl[i]), &g)
				json.Unmarshal([]byte(wl[i]), &w)
				for k, v := range w {
					if gb, _ := json.Marshal(g[k]); string(gb) != mustJSON(v) {
						t.Errorf("line %d: %s = %s, want %s", i+1, k, gb, mustJSON(v))
					}
				}
			}
		})
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestExportErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"export"}, nil, &out, &errb); code != 2 {
		t.Fatalf("no --state: exit %d", code)
	}
	errb.Reset()
	missing := filepath.Join(t.TempDir(), "none")
	if code := run(context.Background(), []string{"export", "--state", missing}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), missing) {
		t.Fatalf("missing journal: exit %d, %q", code, errb.String())
	}
}

// A journal that stops mid-coup is exported with a comment saying so: the
// daemon raised nothing there (it resumes the coup), while sabot check, at
// the file's end, reports incomplete-coup. A journal that stops between
// coups has no such comment.
func TestExportEndsMidCoup(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"shoe 2C 8D 4S |\n9S 3H KD 5C 7H |\n4H 5D", true},
		{"shoe 2C 8D 4S |\n9S 3H KD 5C 7H |\n", false},
	} {
		dir := journalFrom(t, tc.src, tableau.Options{Decks: 8, Markers: true})
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"export", "--state", dir}, nil, &out, &errb); code != 0 {
			t.Fatalf("export exit %d: %s", code, errb.String())
		}
		said := strings.Contains(out.String(), "# the journal ends while coup 2 of shoe 1 is still being dealt: sabotd resumes it where it stopped")
		if said != tc.want {
			t.Errorf("%q: comment %v, want %v:\n%s", tc.src, said, tc.want, out.String())
		}
	}
}
