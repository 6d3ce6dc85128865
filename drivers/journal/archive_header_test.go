package journal

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReadArchiveLongHeaderLine: an archive whose first line is 64 MiB
// long (a damaged or foreign file that happens to gunzip) is refused naming
// the file and line, without reading the line into memory (sabot export
// reads archives: outside input).
func TestReadArchiveLongHeaderLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal-0000000000000001-0000000000000002-20260101.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	chunk := []byte(strings.Repeat("A", 1<<20))
	for range 64 {
		zw.Write(chunk)
	}
	zw.Close()
	f.Close()
	chunk = nil
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err = ReadArchive(path, func(Record) error { return nil })
	runtime.ReadMemStats(&after)
	if err == nil || err.Error() != "journal: archive "+path+":1: no header line of at most 64 bytes" {
		t.Errorf("error %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
		t.Errorf("allocated %d bytes refusing a 64 MiB header line", alloc)
	}
}
