package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLoadRegistryLongLine: a 64 MiB line in the UID registry is refused
// with the file, line and column where the limit is passed, in constant
// memory; a line of exactly MaxRegistryLine bytes is read.
func TestLoadRegistryLongLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cards.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("04A1 AS\n04A2 KD\n04A3 ")
	chunk := []byte(strings.Repeat("x", 1<<20))
	for range 64 {
		f.Write(chunk)
	}
	f.WriteString("\n")
	f.Close()
	chunk = nil
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = LoadRegistry(path)
	runtime.ReadMemStats(&after)
	want := "shoe.uid_registry: " + path + ":3:1025: line longer than 1024 bytes"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("allocated %d bytes refusing a 64 MiB line", alloc)
	}
	// At the limit: a 1024-byte line (UID, card and a comment) is fine.
	line := "04A1 AS #" + strings.Repeat("c", MaxRegistryLine-len("04A1 AS #"))
	os.WriteFile(path, []byte(line+"\n04A2 KD"), 0o600)
	if reg, err := LoadRegistry(path); err != nil || len(reg) != 2 {
		t.Errorf("%d-byte line: %v, %v", len(line), reg, err)
	}
}
