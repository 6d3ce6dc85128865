package main

import (
	"os"
	"path/filepath"
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
