package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestMain removes the sabotd binary the tests built (builtSabotd).
func TestMain(m *testing.M) {
	code := m.Run()
	if sabotdBin != "" {
		os.RemoveAll(filepath.Dir(sabotdBin))
	}
	os.Exit(code)
}

var (
	sabotdOnce sync.Once
	sabotdBin  string
	sabotdErr  error
)

// builtSabotd builds ../sabotd once for the tests; TestMain removes it.
func builtSabotd(t *testing.T) string {
	t.Helper()
	sabotdOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sabot-doctor-test-")
		if err != nil {
			sabotdErr = err
			return
		}
		sabotdBin = filepath.Join(dir, "sabotd")
		// -trimpath as .ci/test's go vet and .ci/package build: the
		// packages compiled once serve all three.
		out, err := exec.Command("go", "build", "-trimpath", "-o", sabotdBin, "../sabotd").CombinedOutput()
		if err != nil {
			sabotdErr = fmt.Errorf("go build ../sabotd: %v\n%s", err, out)
		}
	})
	if sabotdErr != nil {
		t.Fatal(sabotdErr)
	}
	return sabotdBin
}
