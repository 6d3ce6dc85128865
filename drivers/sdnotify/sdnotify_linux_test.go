//go:build linux

package sdnotify

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// fakeSystemd listens on a unixgram socket and points NOTIFY_SOCKET at it.
func fakeSystemd(t *testing.T) *net.UnixConn {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify.sock")
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	t.Setenv("NOTIFY_SOCKET", path)
	return c
}

func recv(t *testing.T, c *net.UnixConn) string {
	t.Helper()
	buf := make([]byte, 4096)
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, err := c.Read(buf)
	if err != nil {
		t.Fatalf("no notification: %v", err)
	}
	return string(buf[:n])
}

func TestReadyStoppingStatus(t *testing.T) {
	c := fakeSystemd(t)
	if err := Ready("table T1, 0 coups"); err != nil {
		t.Fatal(err)
	}
	if got, want := recv(t, c), "READY=1\nSTATUS=table T1, 0 coups"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if err := Status("shoe 2 coup 14"); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, c); got != "STATUS=shoe 2 coup 14" {
		t.Fatalf("got %q", got)
	}
	if err := Stopping(); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, c); got != "STOPPING=1" {
		t.Fatalf("got %q", got)
	}
}

func TestNoSocketIsNoop(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	os.Unsetenv("NOTIFY_SOCKET")
	if err := Ready(""); err != nil {
		t.Fatalf("Ready without systemd = %v", err)
	}
	if WatchdogInterval() != 0 {
		t.Fatal("watchdog on without WATCHDOG_USEC")
	}
}

func TestWatchdog(t *testing.T) {
	c := fakeSystemd(t)
	t.Setenv("WATCHDOG_USEC", "200000") // 200 ms: pings every 100 ms
	t.Setenv("WATCHDOG_PID", strconv.Itoa(os.Getpid()))
	if got := WatchdogInterval(); got != 200*time.Millisecond {
		t.Fatalf("WatchdogInterval = %v, want 200ms", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { RunWatchdog(ctx, func() bool { return true }); close(done) }()
	for i := 0; i < 3; i++ {
		if got := recv(t, c); got != "WATCHDOG=1" {
			t.Fatalf("ping %d: got %q", i, got)
		}
	}
	cancel()
	<-done
}

func TestWatchdogUnhealthySkips(t *testing.T) {
	c := fakeSystemd(t)
	t.Setenv("WATCHDOG_USEC", "100000")
	t.Setenv("WATCHDOG_PID", strconv.Itoa(os.Getpid()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go RunWatchdog(ctx, func() bool { return false })
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	buf := make([]byte, 64)
	if n, err := c.Read(buf); err == nil {
		t.Fatalf("unhealthy daemon pinged the watchdog: %q", buf[:n])
	}
}

func TestWatchdogOtherPID(t *testing.T) {
	fakeSystemd(t)
	t.Setenv("WATCHDOG_USEC", "100000")
	t.Setenv("WATCHDOG_PID", "1")
	if WatchdogInterval() != 0 {
		t.Fatal("watchdog meant for another process is on")
	}
}

func TestExtendTimeout(t *testing.T) {
	c := fakeSystemd(t)
	if err := ExtendTimeout(120*time.Second, "waiting for the clock"); err != nil {
		t.Fatal(err)
	}
	if got, want := recv(t, c), "EXTEND_TIMEOUT_USEC=120000000\nSTATUS=waiting for the clock"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
