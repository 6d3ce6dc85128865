package main

import (
	"bytes"
	"context"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// TestEveryCommandHelp asks every registered subcommand for its help, as
// -h and --help, through the built binary: each exits 0, prints its usage
// on standard error (docs/cli.md: "each takes --help"), names its flags and
// prints nothing on standard output and no panic. The flag package calls a
// flag's String method on a zero value to learn its default and prints
// "panic calling String method" when that panics (floor-sim's listFlag did).
func TestEveryCommandHelp(t *testing.T) {
	bin := builtSabot(t)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 9 {
		t.Fatalf("only %d commands registered: %v", len(names), names)
	}
	for _, n := range names {
		for _, h := range []string{"-h", "--help"} {
			cmd := exec.Command(bin, n, h)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if err := cmd.Run(); err != nil {
				t.Errorf("sabot %s %s: %v (want exit 0)\n%s", n, h, err, errOut.String())
				continue
			}
			e := errOut.String()
			if strings.Contains(strings.ToLower(e), "panic") {
				t.Errorf("sabot %s %s prints a panic:\n%s", n, h, e)
			}
			if out.Len() != 0 {
				t.Errorf("sabot %s %s wrote %d bytes on standard output, want usage on standard error only", n, h, out.Len())
			}
			if !strings.Contains(e, "usage: sabot "+n) {
				t.Errorf("sabot %s %s: standard error lacks %q:\n%s", n, h, "usage: sabot "+n, e)
			}
			// Its flags, or (roads, which takes check's) where they are.
			if !strings.Contains(e, "\n  -") && !strings.Contains(e, "see sabot check -h") {
				t.Errorf("sabot %s %s: no flag listed:\n%s", n, h, e)
			}
		}
	}
	// The command list itself: help, -h and --help exit 0; no argument
	// exits 2 (a usage error), each with the list on standard error.
	for _, tc := range []struct {
		args []string
		code int
	}{{[]string{"help"}, 0}, {[]string{"-h"}, 0}, {[]string{"--help"}, 0}, {nil, 2}} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), tc.args, nil, &out, &errOut)
		if code != tc.code || out.Len() != 0 || !strings.Contains(errOut.String(), "commands:") {
			t.Errorf("sabot %v: exit %d, stdout %q, stderr %q; want exit %d and the command list on stderr", tc.args, code, out.String(), errOut.String(), tc.code)
		}
		for _, n := range names {
			if !strings.Contains(errOut.String(), "  "+n+" ") {
				t.Errorf("sabot %v: the list lacks %s", tc.args, n)
			}
		}
	}
}
