package main

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/cmd/internal/daemon"
	"github.com/sabot-table/sabot/cmd/internal/demo"
)

// TestParseFlags: sabotd's flags map onto daemon.Options; -h is
// flag.ErrHelp; a bad flag and an argument are errUsage with the usage
// printed (the argument named first). What the options mean (a --demo
// combination, the file) is daemon.Main.Setup's: cmd/internal/daemon's
// TestBadOptions.
func TestParseFlags(t *testing.T) {
	var stderr strings.Builder
	o, err := parseFlags([]string{"--config", "/etc/x.toml", "--print-config", "--demo", "--demo-errors", "--demo-coups", "7",
		"--demo-rate", "fast", "--demo-seed", "42"}, &stderr)
	want := daemon.Options{ConfigPath: "/etc/x.toml", PrintConfig: true, Demo: demo.Options{Enabled: true, Errors: true, Coups: 7, Rate: "fast", Seed: 42}}
	if err != nil || o != want {
		t.Errorf("parseFlags = %+v, %v; want %+v", o, err, want)
	}
	if o, err := parseFlags(nil, &stderr); err != nil || o != (daemon.Options{Demo: demo.Options{Rate: "watchable"}}) {
		t.Errorf("no flags: %+v, %v", o, err)
	}
	if o, _ := parseFlags([]string{"--version"}, &stderr); !o.Version {
		t.Error("--version not set")
	}
	if _, err := parseFlags([]string{"-h"}, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
	for _, args := range [][]string{{"extra"}, {"--no-such-flag"}, {"--demo-coups", "x"}} {
		stderr.Reset()
		if _, err := parseFlags(args, &stderr); !errors.Is(err, errUsage) || !strings.Contains(stderr.String(), "usage: sabotd [--config FILE]") {
			t.Errorf("%q: %v, want errUsage and the usage on stderr:\n%s", args, err, stderr.String())
		}
	}
	stderr.Reset()
	parseFlags([]string{"extra"}, &stderr)
	if !strings.HasPrefix(stderr.String(), "sabotd: unexpected argument \"extra\"\n") {
		t.Errorf("an argument: stderr %q", stderr.String())
	}
}
