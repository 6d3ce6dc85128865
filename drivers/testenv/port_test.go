package testenv

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLockPortAcrossProcesses: a port whose lock file another open file
// description holds (as another test process's would: flock(2) locks
// belong to the open file, so a second open conflicts even in one
// process) is refused; once that lock is gone, the port is taken and its
// lock kept.
func TestLockPortAcrossProcesses(t *testing.T) {
	if err := os.MkdirAll(portLockDir, 0o777); err != nil {
		t.Fatal(err)
	}
	// The "other process": a lock on the first port from the top of
	// FreePort's range that no test process holds just now.
	var other *os.File
	p := portHigh - 1
	for ; p > portHigh-100; p-- {
		f, err := os.OpenFile(filepath.Join(portLockDir, strconv.Itoa(p)), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			t.Fatal(err)
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			other = f
			break
		}
		f.Close()
	}
	if other == nil {
		t.Fatalf("the 99 ports under %d are all held by test processes", portHigh)
	}
	if lockPort(p) {
		t.Fatalf("lockPort(%d) took a port another process holds", p)
	}
	other.Close() // releases the other "process"'s lock
	if !lockPort(p) {
		t.Fatalf("lockPort(%d) refused a free port", p)
	}
	again, err := os.OpenFile(filepath.Join(portLockDir, strconv.Itoa(p)), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := unix.Flock(int(again.Fd()), unix.LOCK_EX|unix.LOCK_NB); err == nil {
		t.Fatalf("port %d: lockPort did not keep its lock", p)
	}
}
