package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// sabotOut runs the built sabot with args and returns its stdout, stderr
// and exit status.
func sabotOut(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(builtSabot(t), args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if x, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), x.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// What a new user tripped on (issue 22, section 6), through the binary:
// --version is a command; an unknown flag is complained about once;
// floor-sim's help has no panic.
func TestNewUserFlags(t *testing.T) {
	for _, a := range [][]string{{"--version"}, {"version"}} {
		out, errs, code := sabotOut(t, a...)
		if code != 0 || !strings.HasPrefix(out, "sabot ") || len(strings.TrimSpace(out)) <= len("sabot") || errs != "" {
			t.Errorf("sabot %s: exit %d, stdout %q, stderr %q", a[0], code, out, errs)
		}
	}
	for _, c := range []string{"odds", "floor-sim", "check", "roads", "export", "recall", "doctor", "pit", "shoe-sim"} {
		_, errs, code := sabotOut(t, c, "--bogus")
		if n := strings.Count(errs, "flag provided but not defined: -bogus"); code != 2 || n != 1 {
			t.Errorf("sabot %s --bogus: exit %d, complained %d times:\n%s", c, code, n, errs)
		}
	}
	_, errs, code := sabotOut(t, "floor-sim", "--help")
	if code != 0 || strings.Contains(errs, "panic") || !strings.Contains(errs, "--broker") {
		t.Errorf("floor-sim --help: exit %d:\n%s", code, errs)
	}
}
