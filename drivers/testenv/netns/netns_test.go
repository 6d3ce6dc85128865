package netns

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// echoIn runs a line echo server in h's namespace (socat) on port.
func echoIn(t *testing.T, h *Host, port int) {
	cmd := h.Command("socat", fmt.Sprintf("TCP-LISTEN:%d,bind=%s,fork,reuseaddr", port, h.IP), "EXEC:cat")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("%s:%d", h.IP, port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("echo server in %s: %v", h.NS, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dialFrom connects from h's namespace to addr and exchanges a line
// (socat in h's namespace); it returns the round trip or an error.
func dialFrom(h *Host, addr string) (time.Duration, error) {
	start := time.Now()
	cmd := h.Command("socat", "-T2", "-", "TCP:"+addr+",connect-timeout=2")
	cmd.Stdin = strings.NewReader("ping\n")
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "ping" {
		return 0, fmt.Errorf("from %s to %s: %q %v", h.NS, addr, out, err)
	}
	return time.Since(start), nil
}

// Two hosts reach each other and the test process reaches both; Cut
// parts one pair only, Heal joins them again; a Relay holds data for its
// delay each way.
func TestHostsCutHealRelay(t *testing.T) {
	n := New(t)
	a, b, c := n.Host("a"), n.Host("b"), n.Host("c")
	echoIn(t, b, 7000)
	echoIn(t, c, 7000)
	if _, err := dialFrom(a, b.IP+":7000"); err != nil {
		t.Fatal(err)
	}
	a.Cut(b.IP)
	if _, err := dialFrom(a, b.IP+":7000"); err == nil {
		t.Fatal("a reaches b through the cut")
	}
	if _, err := dialFrom(a, c.IP+":7000"); err != nil {
		t.Fatalf("a no longer reaches c: %v", err)
	}
	a.Heal()
	if _, err := dialFrom(a, b.IP+":7000"); err != nil {
		t.Fatalf("after Heal: %v", err)
	}
	relay := Relay(t, n.BridgeIP(), b.IP+":7000", 300*time.Millisecond)
	conn, err := net.Dial("tcp", relay)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintln(conn, "hello")
	line, err := bufio.NewReader(conn).ReadString('\n')
	rtt := time.Since(start)
	if err != nil || line != "hello\n" || rtt < 600*time.Millisecond || rtt > 3*time.Second {
		t.Fatalf("through the relay: %q %v after %v, want the echo after 2 × 300 ms", line, err, rtt)
	}
}
