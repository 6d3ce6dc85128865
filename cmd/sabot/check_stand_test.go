package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/cmd/internal/audit"
)

// TestCheckStandWithNoCoup: a "stand" with no coup in progress raises
// misplaced-token in chemin de fer, banque and punto banco, and standard
// error says where (file, line, column), with one fold and with two.
func TestCheckStandWithNoCoup(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.shoe")
	src := "shoe 2C 8D 4S |\n7H 2C KD 4S |\n  stand 7H 2C KD 4S |\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, game := range []string{"chemin-de-fer", "banque", "punto-banco"} {
		for _, serial := range []bool{false, true} {
			audit.SerialFold, audit.ParFoldAll = serial, !serial
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"check", "--game", game, p}, nil, &out, &errb)
			audit.SerialFold, audit.ParFoldAll = false, false
			want := p + ":3:3: misplaced-token: stand with no coup in progress (during the burn or between coups)\n"
			if code != 1 || errb.String() != want {
				t.Errorf("%s (one fold %v): exit %d, stderr %q, want 1 and %q", game, serial, code, errb.String(), want)
			}
			if n := strings.Count(out.String(), `"code":"misplaced-token"`); n != 1 {
				t.Errorf("%s: %d misplaced-token alerts:\n%s", game, n, out.String())
			}
		}
	}
}
