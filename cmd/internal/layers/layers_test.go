package layers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the module's path; the packages below it are checked.
const module = "github.com/sabot-table/sabot"

// layers are the layers of doc.go, from the bottom: a package's layer is
// the first whose prefixes match its path below the module (a prefix
// "p" matches p and p/...).
var layers = []struct {
	name     string
	prefixes []string
	// apart: the layer's rooms (its prefixes) do not import each other
	// (their tests may: the floor harness's run a pit console).
	apart bool
}{
	{"tableau and display/segment", []string{"tableau", "display/segment"}, false},
	{"display", []string{"display"}, false},
	{"firmware-proto", []string{"firmware-proto"}, false},
	{"drivers", []string{"drivers"}, false},
	{"cmd/internal, shared", []string{"cmd/internal/version", "cmd/internal/mqttclient", "cmd/internal/config",
		"cmd/internal/recall", "cmd/internal/houseflags", "cmd/internal/audit"}, false},
	{"cmd/internal, products", []string{"cmd/internal/boardweb", "cmd/internal/demo", "cmd/internal/doctor",
		"cmd/internal/oddsreport", "cmd/internal/roadsreport", "cmd/internal/shoesim", "cmd/internal/pit",
		"cmd/internal/floor", "cmd/internal/layers"}, true},
	{"cmd/internal/daemon", []string{"cmd/internal/daemon"}, false},
	{"the programs", []string{"cmd/sabot", "cmd/sabotd"}, false},
}

// fakeImporters are the packages that import test doubles outside their
// tests, and the doubles each may import: the board's backend "fake" (see
// cmd/sabotd's fakeBackendDeps).
var fakeImporters = map[string][]string{
	module + "/drivers/board": {
		module + "/drivers/tm1637/tm1637test",
		"periph.io/x/conn/v3/gpio/gpiotest",
		"periph.io/x/conn/v3/i2c/i2ctest",
		"periph.io/x/conn/v3/spi/spitest",
	},
}

// chipDrivers link neither tableau nor a test double.
var chipDrivers = []string{
	module + "/drivers/tm1637",
	module + "/drivers/max7219",
	module + "/drivers/ht16k33",
	module + "/drivers/ledchip",
}

// pure are the layers whose packages import only the standard library and
// packages of the module in these layers (their tests may use more:
// pgregory.net/rapid).
var pure = []string{"tableau", "display"}

// rel is path below the module, ok false for a package outside it.
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// roomOf is the prefix of its layer that path is under ("" for none).
func roomOf(path string) string {
	r, _ := rel(path)
	for _, l := range layers {
		for _, p := range l.prefixes {
			if under(r, p) {
				return p
			}
		}
	}
	return ""
}

// under tells whether r is prefix or below it.
func under(r, prefix string) bool { return r == prefix || strings.HasPrefix(r, prefix+"/") }

// layerOf is the index in layers of a module package, -1 for one no
// layer names.
func layerOf(path string) int {
	r, _ := rel(path)
	for i, l := range layers {
		for _, p := range l.prefixes {
			if under(r, p) {
				return i
			}
		}
	}
	return -1
}

// standard tells a standard library package: its first path element has
// no dot (as cmd/sabotd's TestDeps does).
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// isDouble tells a test double: drivers/testenv/..., or a package whose
// last path element ends in "test", "fake" or "mock" (outside the
// standard library: net/http/httptest is a test helper the programs may
// use).
func isDouble(path string) bool {
	if r, ok := rel(path); ok && under(r, "drivers/testenv") {
		return true
	}
	if standard(path) {
		return false
	}
	last := path[strings.LastIndex(path, "/")+1:]
	return strings.HasSuffix(last, "test") || strings.HasSuffix(last, "fake") || strings.HasSuffix(last, "mock")
}

// pkg is what go list tells of a package.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// listPackages runs go list -deps -json on the module's packages: those
// and every package they link.
func listPackages(t *testing.T) map[string]*pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-json", module+"/...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Logf("go list: %s", ee.Stderr)
		}
		t.Fatalf("go list -deps -json: %v", err)
	}
	pkgs := map[string]*pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list -json: %v", err)
		}
		pkgs[p.ImportPath] = &p
	}
	n := 0
	for path := range pkgs {
		if _, ok := rel(path); ok {
			n++
		}
	}
	if n < 20 {
		t.Fatalf("go list reported %d packages of %s: the check did not run", n, module)
	}
	return pkgs
}

// violation is a rule broken by one import.
type violation struct {
	importer, imported string
	test               bool // by the importer's tests
	rule               string
}

func (v violation) String() string {
	by := v.importer
	if v.test {
		by += " (its tests)"
	}
	if v.imported == "" {
		return by + ": " + v.rule
	}
	return fmt.Sprintf("%s imports %s: %s", by, v.imported, v.rule)
}

// check returns the import rules of doc.go that pkgs break.
func check(pkgs map[string]*pkg) []violation {
	var out []violation
	paths := make([]string, 0, len(pkgs))
	for path := range pkgs {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		if _, ok := rel(path); !ok {
			continue
		}
		p := pkgs[path]
		from := layerOf(path)
		if from < 0 {
			out = append(out, violation{path, "", false, "the package is in no layer: add it to cmd/internal/layers (doc.go and layers)"})
			continue
		}
		for _, imp := range p.Imports {
			out = append(out, checkImport(path, from, imp, false)...)
		}
		for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
			out = append(out, checkImport(path, from, imp, true)...)
		}
	}
	for _, chip := range chipDrivers {
		out = append(out, checkChip(pkgs, chip)...)
	}
	return out
}

// checkImport checks one import of path (in layer from).
func checkImport(path string, from int, imp string, test bool) []violation {
	var out []violation
	r, inModule := rel(imp)
	double := isDouble(imp)
	switch {
	case double && test, double && isDouble(path):
		// Tests and test doubles may use doubles of any layer.
	case double && !slices.Contains(fakeImporters[path], imp):
		out = append(out, violation{path, imp, test, "a test double, imported only by tests, other doubles and the listed importers (fakeImporters: the board's backend \"fake\")"})
	case inModule && imp != path:
		if to := layerOf(imp); to > from {
			out = append(out, violation{path, imp, test, fmt.Sprintf("layer %q imports layer %q, above it", layers[from].name, layers[to].name)})
		} else if to == from && layers[from].apart && !test && roomOf(path) != roomOf(imp) {
			out = append(out, violation{path, imp, test, fmt.Sprintf("layer %q: %s imports %s, another room of its layer", layers[from].name, roomOf(path), roomOf(imp))})
		}
	}
	fr, _ := rel(path)
	for _, l := range pure {
		if !test && !isDouble(path) && under(fr, l) && !standard(imp) && !(inModule && slices.ContainsFunc(pure, func(q string) bool { return under(r, q) })) {
			out = append(out, violation{path, imp, test, l + " imports only the standard library and tableau and display packages"})
		}
	}
	return out
}

// checkChip checks what a chip driver links (its own imports, not its
// tests'): the chain to tableau or a test double is named.
func checkChip(pkgs map[string]*pkg, chip string) []violation {
	var out []violation
	via := map[string]string{chip: ""} // breadth first: who imported it
	queue := []string{chip}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		p := pkgs[path]
		if p == nil {
			continue
		}
		for _, imp := range p.Imports {
			if _, seen := via[imp]; seen {
				continue
			}
			via[imp] = path
			queue = append(queue, imp)
			r, inModule := rel(imp)
			if !isDouble(imp) && !(inModule && under(r, "tableau")) {
				continue
			}
			chain := []string{imp}
			for at := path; at != ""; at = via[at] {
				chain = append(chain, at)
			}
			slices.Reverse(chain)
			out = append(out, violation{path, imp, false, "a chip driver links neither tableau nor a test double (" + chip + " links it: " + strings.Join(chain, " -> ") + ")"})
		}
	}
	return out
}

// TestLayers checks the module's imports against the layers of doc.go.
func TestLayers(t *testing.T) {
	for _, v := range check(listPackages(t)) {
		t.Error(v)
	}
}

// The rules catch what they are for, on a made-up module.
func TestLayerRules(t *testing.T) {
	m := func(r string) string { return module + "/" + r }
	pkgs := map[string]*pkg{
		m("tableau"):                        {ImportPath: m("tableau"), Imports: []string{"fmt", m("display")}, XTestImports: []string{"testing/iotest", m("drivers/testenv")}},
		m("display"):                        {ImportPath: m("display"), Imports: []string{m("tableau"), "github.com/x/y"}},
		m("drivers/tm1637"):                 {ImportPath: m("drivers/tm1637"), Imports: []string{m("drivers/ledchip"), m("drivers/tm1637/tm1637test")}},
		m("drivers/ledchip"):                {ImportPath: m("drivers/ledchip"), Imports: []string{m("display/segment")}},
		m("drivers/tm1637/tm1637test"):      {ImportPath: m("drivers/tm1637/tm1637test"), Imports: []string{m("drivers/tm1637"), "periph.io/x/conn/v3/gpio/gpiotest"}},
		m("drivers/board"):                  {ImportPath: m("drivers/board"), Imports: []string{m("drivers/tm1637/tm1637test"), "periph.io/x/conn/v3/gpio/gpiotest", "periph.io/x/conn/v3/conntest"}},
		m("drivers/shoe"):                   {ImportPath: m("drivers/shoe"), Imports: []string{m("cmd/internal/floor"), "net/http/httptest"}, TestImports: []string{"periph.io/x/conn/v3/gpio/gpiotest"}},
		m("display/segment"):                {ImportPath: m("display/segment")},
		m("cmd/internal/floor"):             {ImportPath: m("cmd/internal/floor"), Imports: []string{m("cmd/internal/pit"), m("cmd/internal/mqttclient")}},
		m("cmd/internal/pit"):               {ImportPath: m("cmd/internal/pit"), Imports: []string{m("cmd/internal/pit/pitweb")}},
		m("cmd/internal/pit/pitweb"):        {ImportPath: m("cmd/internal/pit/pitweb")},
		m("cmd/internal/mqttclient"):        {ImportPath: m("cmd/internal/mqttclient"), Imports: []string{m("cmd/internal/daemon")}},
		m("cmd/internal/daemon"):            {ImportPath: m("cmd/internal/daemon")},
		m("drivers/testenv"):                {ImportPath: m("drivers/testenv"), Imports: []string{"github.com/eclipse/paho.mqtt.golang"}},
		m("somewhere"):                      {ImportPath: m("somewhere")},
		"periph.io/x/conn/v3/gpio/gpiotest": {ImportPath: "periph.io/x/conn/v3/gpio/gpiotest"},
	}
	var got []string
	for _, v := range check(pkgs) {
		got = append(got, v.String())
	}
	want := []string{
		m("cmd/internal/floor") + " imports " + m("cmd/internal/pit") + `: layer "cmd/internal, products": cmd/internal/floor imports cmd/internal/pit, another room of its layer`,
		m("cmd/internal/mqttclient") + " imports " + m("cmd/internal/daemon") + `: layer "cmd/internal, shared" imports layer "cmd/internal/daemon", above it`,
		m("display") + " imports github.com/x/y: display imports only the standard library and tableau and display packages",
		m("drivers/board") + " imports periph.io/x/conn/v3/conntest: a test double, imported only by tests, other doubles and the listed importers (fakeImporters: the board's backend \"fake\")",
		m("drivers/shoe") + " imports " + m("cmd/internal/floor") + `: layer "drivers" imports layer "cmd/internal, products", above it`,
		m("drivers/tm1637") + " imports " + m("drivers/tm1637/tm1637test") + ": a test double, imported only by tests, other doubles and the listed importers (fakeImporters: the board's backend \"fake\")",
		m("somewhere") + ": the package is in no layer: add it to cmd/internal/layers (doc.go and layers)",
		m("tableau") + " imports " + m("display") + `: layer "tableau and display/segment" imports layer "display", above it`,
		m("drivers/tm1637") + " imports " + m("drivers/tm1637/tm1637test") + ": a chip driver links neither tableau nor a test double (" + m("drivers/tm1637") + " links it: " + m("drivers/tm1637") + " -> " + m("drivers/tm1637/tm1637test") + ")",
		m("drivers/tm1637/tm1637test") + " imports periph.io/x/conn/v3/gpio/gpiotest: a chip driver links neither tableau nor a test double (" + m("drivers/tm1637") + " links it: " + m("drivers/tm1637") + " -> " + m("drivers/tm1637/tm1637test") + " -> periph.io/x/conn/v3/gpio/gpiotest)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
