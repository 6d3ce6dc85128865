package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps pins what the sabot program links that it must not: an MQTT
// broker server (it is a client of the table's broker: the embedded broker
// is sabotd's, in drivers/mqtt/embedded), and periph's host drivers (the
// daemon's, through drivers/board/hostgpio: doctor reads the GPIO chips'
// line names itself, drivers/hostcheck). (It still links drivers/board,
// for doctor's device lists, and with it the fake backend's TM1637
// emulation.)
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list reported %d packages: the check did not run", len(deps))
	}
	for _, d := range deps {
		switch {
		case strings.HasPrefix(d, "github.com/mochi-mqtt/"), d == "github.com/sabot-table/sabot/drivers/mqtt/embedded":
			t.Errorf("sabot links %s, an MQTT broker server", d)
		case strings.HasPrefix(d, "periph.io/x/host/"), d == "github.com/sabot-table/sabot/drivers/board/hostgpio":
			t.Errorf("sabot links %s, periph's host drivers", d)
		}
	}
}
