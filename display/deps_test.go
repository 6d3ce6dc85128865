package display_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestImportsOnlyStdlibAndTableau fails if package display (or anything it
// imports) comes from outside the standard library, tableau (with its lower
// layers, tableau/...) and its own display/segment: what is
// shown is decided by pure code; drivers do the I/O.
func TestImportsOnlyStdlibAndTableau(t *testing.T) {
	const pkg = "github.com/sabot-table/sabot/display"
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	sawTableau := false
	for dec.More() {
		var p struct {
			ImportPath string
			Standard   bool
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		switch {
		case p.Standard || p.ImportPath == pkg || p.ImportPath == pkg+"/segment":
		case p.ImportPath == "github.com/sabot-table/sabot/tableau":
			sawTableau = true
		case strings.HasPrefix(p.ImportPath, "github.com/sabot-table/sabot/tableau/"):
		default:
			t.Errorf("display depends on %s: only the standard library and tableau are allowed", p.ImportPath)
		}
	}
	if !sawTableau {
		t.Error("go list did not report tableau: the check did not run")
	}
}
