package tableau_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly fails if package tableau (or anything it imports)
// comes from outside the Go standard library. The rules engine must stay
// pure: no I/O adapters, no third-party code.
func TestStandardLibraryOnly(t *testing.T) {
	for _, pkg := range []string{"github.com/sabot-table/sabot/tableau"} {
		out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		dec := json.NewDecoder(strings.NewReader(string(out)))
		n := 0
		for dec.More() {
			var p struct {
				ImportPath string
				Standard   bool
			}
			if err := dec.Decode(&p); err != nil {
				t.Fatal(err)
			}
			n++
			if !p.Standard && p.ImportPath != pkg {
				t.Errorf("%s depends on %s, which is not in the standard library", pkg, p.ImportPath)
			}
		}
		if n < 2 {
			t.Fatalf("go list returned %d packages for %s; expected the package and its standard imports", n, pkg)
		}
	}
}
