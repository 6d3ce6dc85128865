package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// fakeBackendDeps are the fakes sabotd links on purpose: the fake board
// backend ([gpio] backend = "fake", which --demo uses) builds its pins,
// buses and TM1637 from them, and --demo deals from the virtual shoe.
var fakeBackendDeps = []string{
	"github.com/sabot-table/sabot/drivers/tm1637/tm1637test",
	"github.com/sabot-table/sabot/firmware-proto/sim",
	"periph.io/x/conn/v3/conntest",
	"periph.io/x/conn/v3/gpio/gpiotest",
	"periph.io/x/conn/v3/i2c/i2ctest",
	"periph.io/x/conn/v3/spi/spitest",
}

// TestDeps pins what the sabotd program links: of the test doubles, only
// those its fake backend and demo need (fakeBackendDeps), and none of the
// test environments (drivers/testenv: brokers, clusters, network
// namespaces started for tests).
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list reported %d packages: the check did not run", len(deps))
	}
	linked := map[string]bool{}
	for _, d := range deps {
		linked[d] = true
		if slices.Contains(fakeBackendDeps, d) || !strings.Contains(d, ".") {
			continue // listed, or the standard library (internal/testlog...)
		}
		last := d[strings.LastIndex(d, "/")+1:]
		switch {
		case strings.HasPrefix(d, "github.com/sabot-table/sabot/drivers/testenv"):
			t.Errorf("sabotd links %s, a test environment", d)
		case strings.HasSuffix(last, "test"), strings.HasSuffix(last, "fake"), strings.HasSuffix(last, "mock"):
			t.Errorf("sabotd links %s, a test double its fake backend does not need (or add it to fakeBackendDeps)", d)
		}
	}
	for _, d := range fakeBackendDeps {
		if !linked[d] {
			t.Errorf("fakeBackendDeps lists %s, which sabotd no longer links: drop it from the list", d)
		}
	}
}
