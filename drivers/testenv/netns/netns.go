// Package netns makes test hosts in Linux network namespaces: each host a
// namespace with one veth link to a bridge in the test's own namespace,
// an address in a /24 of its own, and iptables rules (iptables-legacy) to
// cut it off from other hosts or lose a share of its packets. The test
// process reaches every host through the bridge.
//
//	n := netns.New(t)              // root, ip, iptables-legacy; fails under CI=true without them
//	a, b := n.Host("a"), n.Host("b")
//	cmd := a.Command("nats-server", "-c", conf) // runs in a's namespace
//	a.Cut(b.IP)                    // a and b no longer hear each other (silently)
//	a.Heal()                       // every rule of a removed
//	a.Loss(0.05)                   // 5% of a's packets, each way, dropped
//	addr := netns.Relay(t, n.BridgeIP(), target, 200*time.Millisecond)
//
// The kernel of the test machine has no netem queueing discipline (tc
// qdisc netem: "Specified qdisc kind is unknown"), so delay is made by
// Relay, a TCP relay in the test process that holds every chunk of data
// for the delay in each direction; loss is real packet loss (iptables'
// statistic match), so TCP retransmits as on a bad link.
//
// Everything is removed when the test ends (namespaces, and with them
// their links and rules; the bridge).
package netns

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// Net is a bridge and the hosts attached to it.
type Net struct {
	t      testing.TB
	id     string // short random tag in every name
	subnet string // "10.A.B"
	bridge string
	hosts  []*Host
}

// Host is a network namespace attached to the Net's bridge.
type Host struct {
	n *Net
	// NS is the namespace's name, IP its address on the bridge.
	NS, IP string
	veth   string // the link inside the namespace
}

func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if testenv.CI() {
		t.Fatalf("netns: network namespaces are required under CI=true but cannot be made: %s (run the tests as root on Linux with iproute2 and iptables installed: the README's test command does)", msg)
	}
	t.Skipf("netns: cannot make network namespaces: %s", msg)
}

func run(argv ...string) error {
	var out bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

// New makes the bridge, with an address in a random 10.x.y.0/24 for the
// test process. Without root, ip or iptables-legacy, or when the kernel
// refuses, the test is skipped (failed under CI=true) with the reason.
func New(t testing.TB) *Net {
	t.Helper()
	testenv.NeedProgram(t, "ip")
	testenv.NeedProgram(t, "iptables-legacy")
	if os.Geteuid() != 0 {
		unavailable(t, "not root (uid %d)", os.Geteuid())
	}
	r := rand.Uint32()
	n := &Net{t: t, id: fmt.Sprintf("%04x", r&0xffff), subnet: fmt.Sprintf("10.%d.%d", 100+(r>>16)%100, (r>>24)%250+1)}
	n.bridge = "sbr" + n.id
	if err := run("ip", "link", "add", n.bridge, "type", "bridge"); err != nil {
		unavailable(t, "%v", err)
	}
	t.Cleanup(func() {
		for _, h := range n.hosts {
			run("ip", "netns", "del", h.NS)
		}
		run("ip", "link", "del", n.bridge)
	})
	for _, argv := range [][]string{
		{"ip", "addr", "add", n.subnet + ".254/24", "dev", n.bridge},
		{"ip", "link", "set", n.bridge, "up"},
	} {
		if err := run(argv...); err != nil {
			unavailable(t, "%v", err)
		}
	}
	return n
}

// BridgeIP is the test process's address on the bridge.
func (n *Net) BridgeIP() string { return n.subnet + ".254" }

// Host makes a namespace (name: a short label, letters and digits) with
// the next address of the subnet (.1, .2, ...), its loopback up and a veth
// link to the bridge.
func (n *Net) Host(name string) *Host {
	t := n.t
	t.Helper()
	i := len(n.hosts) + 1
	h := &Host{n: n, NS: "sb" + n.id + name, IP: fmt.Sprintf("%s.%d", n.subnet, i), veth: fmt.Sprintf("sb%sv%d", n.id, i)}
	peer := h.veth + "p"
	if err := run("ip", "netns", "add", h.NS); err != nil {
		unavailable(t, "%v", err)
	}
	n.hosts = append(n.hosts, h)
	for _, argv := range [][]string{
		{"ip", "link", "add", h.veth, "type", "veth", "peer", "name", peer},
		{"ip", "link", "set", h.veth, "netns", h.NS},
		{"ip", "link", "set", peer, "master", n.bridge, "up"},
		{"ip", "-n", h.NS, "addr", "add", h.IP + "/24", "dev", h.veth},
		{"ip", "-n", h.NS, "link", "set", h.veth, "up"},
		{"ip", "-n", h.NS, "link", "set", "lo", "up"},
	} {
		if err := run(argv...); err != nil {
			unavailable(t, "%v", err)
		}
	}
	return h
}

// Wrap returns argv prefixed to run in the host's namespace (ip netns
// exec, which execs argv: the process started is argv[0] itself).
func (h *Host) Wrap(argv ...string) []string {
	return append([]string{"ip", "netns", "exec", h.NS}, argv...)
}

// Command is exec.Command for argv in the host's namespace.
func (h *Host) Command(argv ...string) *exec.Cmd {
	w := h.Wrap(argv...)
	return exec.Command(w[0], w[1:]...)
}

func (h *Host) iptables(args ...string) {
	h.n.t.Helper()
	if err := run(h.Wrap(append([]string{"iptables-legacy"}, args...)...)...); err != nil {
		h.n.t.Fatalf("netns: %v", err)
	}
}

// Cut drops, silently, every packet between the host and the addresses
// ips (both ways, in the host's namespace): a partition, as a pulled
// cable or a dead switch port looks to both ends.
func (h *Host) Cut(ips ...string) {
	h.n.t.Helper()
	for _, ip := range ips {
		h.iptables("-A", "OUTPUT", "-d", ip, "-j", "DROP")
		h.iptables("-A", "INPUT", "-s", ip, "-j", "DROP")
	}
}

// Loss drops the fraction p (0–1) of the host's packets at random, each
// way, on its veth link.
func (h *Host) Loss(p float64) {
	h.n.t.Helper()
	prob := fmt.Sprintf("%.4f", p)
	h.iptables("-A", "OUTPUT", "-o", h.veth, "-m", "statistic", "--mode", "random", "--probability", prob, "-j", "DROP")
	h.iptables("-A", "INPUT", "-i", h.veth, "-m", "statistic", "--mode", "random", "--probability", prob, "-j", "DROP")
}

// Heal removes every rule of the host (Cut, Loss).
func (h *Host) Heal() {
	h.n.t.Helper()
	h.iptables("-F", "OUTPUT")
	h.iptables("-F", "INPUT")
}

// relayChunk bounds the data a relay reads at once; relayQueue the chunks
// held per direction (at most relayQueue × relayChunk bytes, 4 MiB, per
// connection and direction; past it the reader waits).
const (
	relayChunk = 32 << 10
	relayQueue = 128
)

// Relay listens on host (an address the far ends reach, e.g. BridgeIP)
// and forwards every connection to target, holding each chunk of data for
// delay in each direction (order kept). It returns the address listened
// on; it stops at the test's end.
func Relay(t testing.TB, host, target string, delay time.Duration) string {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatalf("netns: relay: %v", err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.DialTimeout("tcp", target, 5*time.Second)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, u)
			mu.Unlock()
			go pump(c, u, delay)
			go pump(u, c, delay)
		}
	}()
	return l.Addr().String()
}

type chunk struct {
	at time.Time
	b  []byte
}

// pump copies src to dst, each chunk written delay after it was read.
func pump(src, dst net.Conn, delay time.Duration) {
	q := make(chan chunk, relayQueue)
	go func() {
		defer close(q)
		for {
			b := make([]byte, relayChunk)
			n, err := src.Read(b)
			if n > 0 {
				q <- chunk{time.Now().Add(delay), b[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		time.Sleep(time.Until(c.at))
		if _, err := dst.Write(c.b); err != nil {
			break
		}
	}
	src.Close()
	dst.Close()
	for range q { // drain, so the reader ends
	}
}
