package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau"
)

// TestDealerCheckAndExport: `sabot check` prints "dealer" on every coup,
// alert and void dealt after a "dealer ID" token; a bad id stops it with
// exit 2 naming file:line:col; `sabot export` writes the journal's
// sign-ins back as "dealer ID" / "dealer -", so checking the export gives
// the same lines.
func TestDealerCheckAndExport(t *testing.T) {
	src := "shoe dealer D1042 2H 3C 4D |\n5S 5H AC 2D 7C |\ndealer ANNA.B-7 9S 2H KC 3D |\ndealer -\nKS 9D QS QD |\n"
	path := filepath.Join(t.TempDir(), "d.shoe")
	os.WriteFile(path, []byte(src), 0o600)
	got, code := checkLines(t, path)
	want := []string{`"coup":1,`, `"dealer":"D1042"}`, `"code":"extra-card"`, `"dealer":"D1042"}`, `"coup":2,`, `"dealer":"ANNA.B-7"}`, `"coup":3,`}
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 4 || code != 1 { // exit 1: an alert
		t.Fatalf("exit %d, %d lines:\n%s", code, len(lines), got)
	}
	for i, l := range []string{lines[0], lines[0], lines[1], lines[1], lines[2], lines[2], lines[3]} {
		if !strings.Contains(l, want[i]) {
			t.Fatalf("line %q lacks %s", l, want[i])
		}
	}
	if strings.Contains(lines[3], "dealer") {
		t.Fatalf("coup 3 after the sign-out: %s", lines[3])
	}

	bad := filepath.Join(t.TempDir(), "bad.shoe")
	os.WriteFile(bad, []byte("shoe 2H 3C 4D |\ndealer  D-1!\n"), 0o600)
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"check", bad}, nil, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), `bad.shoe:2:9: bad dealer id "D-1!": byte 4 is '!'`) {
		t.Fatalf("bad id: exit %d, stderr %q", code, errb.String())
	}

	toks, _ := tableau.ParseTranscript(strings.NewReader(src), "d")
	dir := journalFrom(t, src, tableau.Options{Decks: 8, Markers: tableau.HasMarkers(toks)})
	out.Reset()
	if code := run(context.Background(), []string{"export", "--state", dir}, nil, &out, &errb); code != 0 {
		t.Fatalf("export exit %d: %s", code, errb.String())
	}
	for _, w := range []string{"dealer D1042", "dealer ANNA.B-7", "dealer -"} {
		if !strings.Contains(out.String(), w) {
			t.Fatalf("export lacks %q:\n%s", w, out.String())
		}
	}
	exported := filepath.Join(t.TempDir(), "export.shoe")
	os.WriteFile(exported, out.Bytes(), 0o600)
	again, _ := checkLines(t, exported)
	if again != got {
		t.Fatalf("check of the export differs:\n%s\nwant\n%s", again, got)
	}
}
