package tableau_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers are the packages of tableau from the bottom up: each may import
// the standard library and the layers before it, nothing else (no I/O
// adapters, no third-party code, no layer above it).
var layers = []string{
	"github.com/sabot-table/sabot/tableau/internal/enum",
	"github.com/sabot-table/sabot/tableau/internal/strategy",
	"github.com/sabot-table/sabot/tableau/card",
	"github.com/sabot-table/sabot/tableau/baccarat",
	"github.com/sabot-table/sabot/tableau/odds",
	"github.com/sabot-table/sabot/tableau/chemin",
	"github.com/sabot-table/sabot/tableau",
}

// TestStandardLibraryOnly fails if a package of tableau (or anything it
// imports) comes from outside the Go standard library and the layers below
// it. The rules engine must stay pure: no I/O adapters, no third-party
// code; and its layers have no cycle.
func TestStandardLibraryOnly(t *testing.T) {
	for i, pkg := range layers {
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
			if !p.Standard && p.ImportPath != pkg && !slices.Contains(layers[:i], p.ImportPath) {
				t.Errorf("%s depends on %s, which is neither in the standard library nor a lower layer of tableau", pkg, p.ImportPath)
			}
		}
		if n < 2 {
			t.Fatalf("go list returned %d packages for %s; expected the package and its standard imports", n, pkg)
		}
	}
}

// TestNoConcurrency fails if the non-test code of tableau (any of its
// layers) or display starts a goroutine or imports sync or sync/atomic.
// Both are pure and run on the caller's goroutine; .ci/test runs their tests without the race detector
// on that ground (there is nothing in them for it to find), so this test
// keeps the ground true.
func TestNoConcurrency(t *testing.T) {
	for _, dir := range []string{".", "internal/enum", "internal/strategy", "card", "baccarat", "odds", "chemin", "../display"} {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files := 0
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, im := range f.Imports {
				if v, _ := strconv.Unquote(im.Path.Value); v == "sync" || v == "sync/atomic" {
					t.Errorf("%s imports %s", p, v)
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if g, ok := n.(*ast.GoStmt); ok {
					t.Errorf("%s: a go statement at offset %d", p, g.Go)
				}
				return true
			})
		}
		if files < 1 {
			t.Fatalf("%s: only %d Go files read; the check did not run", dir, files)
		}
	}
}
