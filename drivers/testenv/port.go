package testenv

import (
	"math/rand/v2"
	"net"
	"sync"
	"testing"
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
)

// FreePort returns a TCP port on the loopback address that is free just
// now and that no other FreePort call in this process has returned. It is
// chosen at random in [20000, 32768), outside the kernel's ephemeral
// range; test binaries of other packages running at the same time choose
// at random too, and a port found in use is passed over. It fails the test
// when no port is free after 1,000 tries.
func FreePort(t testing.TB) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		p := portLow + rand.IntN(portHigh-portLow)
		if portsGiven[p] {
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
