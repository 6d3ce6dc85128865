//go:build linux

package sim_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sabot-table/sabot/firmware-proto/sim"
)

// Closing the connection (a cable pull) removes the link, as udev removes
// a /dev/serial/by-id link when the adapter goes: a dangling link would
// name a /dev/pts/N the kernel hands to the next pseudo-terminal.
func TestPTYCloseRemovesLink(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shoe")
	link := sim.NewPTY(path)
	conn, err := link.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if dst, err := os.Readlink(path); err != nil || dst != link.Device() {
		t.Fatalf("link %q, %v; device %q", dst, err, link.Device())
	}
	conn.Close()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("link still there after close: %v", err)
	}
	// A link re-pointed by someone else is left alone.
	conn, err = link.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	os.Symlink("/dev/null", path)
	conn.Close()
	if dst, _ := os.Readlink(path); dst != "/dev/null" {
		t.Fatalf("someone else's link removed")
	}
}
