// Package testenv helps tests that need programs outside Go (mosquitto,
// socat, gcc): they skip on a developer machine without the program, but
// fail when CI=true, so CI never skips a required test silently.
package testenv

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// CI reports whether the tests run under CI (the environment variable CI is
// "true" or "1").
func CI() bool {
	v := os.Getenv("CI")
	return v == "true" || v == "1"
}

// NeedProgram returns the absolute path of the program name, looked up in
// PATH. If it is missing the test is skipped, or failed under CI.
func NeedProgram(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if CI() {
			t.Fatalf("testenv: %s is required under CI=true but not found: %v (the README's test command installs it)", name, err)
		}
		t.Skipf("testenv: %s not found; install it or run the README's test command", name)
	}
	return p
}

// Deadline returns d scaled by the environment variable
// SABOT_TEST_DEADLINE_SCALE, a number ≥ 1 (default 1; an unparseable or
// smaller value counts as 1). Tests wait for the event they need, never
// for a fixed time, under a deadline with margin for a loaded machine; on
// a machine slower than that margin allows (an emulator, a Pi), the scale
// stretches every such deadline at once (docs/operations.md, "Tests").
func Deadline(d time.Duration) time.Duration {
	f, err := strconv.ParseFloat(os.Getenv("SABOT_TEST_DEADLINE_SCALE"), 64)
	if err != nil || !(f > 1) || f > 1000 {
		return d
	}
	return time.Duration(float64(d) * f)
}
