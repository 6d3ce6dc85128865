package testenv

import (
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// The ports FreePort hands out: [portLow, portHigh), below Linux's default
// ephemeral range (net.ipv4.ip_local_port_range, 32768–60999). A port the
// kernel chooses (a listener on port 0, the local end of every outgoing
// connection) comes from that range, so it never takes a port FreePort gave
// to a test before the test's program binds it. Asking the kernel for a
// port 0 listener and closing it, as FreePort did, let two calls get the
// same port (TestPitBrowserEmbedded: two daemons given one HTTP port, the
// second failing with "address already in use").
const (
	portLow  = 20000
	portHigh = 32768
)

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
	// portLocks hold the ports given, across processes: one locked file
	// per port in portLockDir, held until the process exits.
	portLocks []*os.File
)

// portLockDir holds a file per port some test process has taken
// (flock(2), exclusive): two test binaries running at once (go test -p
// runs packages side by side) that chose the same free port both found
// it free, and the second to bind it failed (TestFloorSimNATS: a
// nats-server's route port "address already in use"). At most one file
// per port of the range, so the directory is bounded (12,768 empty files).
var portLockDir = filepath.Join(os.TempDir(), "sabot-test-ports")

// lockPort takes port p for this process unless another test process has
// it; the lock is released when the process exits.
func lockPort(p int) bool {
	if err := os.MkdirAll(portLockDir, 0o777); err != nil {
		return true // no lock directory: the in-process check alone
	}
	f, err := os.OpenFile(filepath.Join(portLockDir, strconv.Itoa(p)), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return true
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return false // another test process holds it
	}
	portLocks = append(portLocks, f)
	return true
}

// FreePort returns a TCP port on the loopback address that is free just
// now and that no other FreePort call in this process has returned. It is
// chosen at random in [20000, 32768), outside the kernel's ephemeral
// range; test binaries of other packages running at the same time choose
// at random too, and a port another test process took (lockPort) or
// found in use is passed over. It fails the test
// when no port is free after 1,000 tries.
func FreePort(t testing.TB) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		p := portLow + rand.IntN(portHigh-portLow)
		if portsGiven[p] || !lockPort(p) {
			continue
		}
		l, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p})
		if err != nil {
			continue // in use (by another process) or otherwise not ours
		}
		l.Close()
		portsGiven[p] = true
		return p
	}
	t.Fatal("testenv: no free loopback port in [20000, 32768) after 1,000 tries")
	return 0
}
