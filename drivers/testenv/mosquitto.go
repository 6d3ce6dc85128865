package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Mosquitto is a Mosquitto broker started by a test on a free loopback
// port, without persistence; it is killed when the test ends.
type Mosquitto struct {
	URL  string // tcp://127.0.0.1:PORT
	Port int
	Cmd  *exec.Cmd
	Log  string // the broker's log file
}

// PID returns the broker's process id.
func (m *Mosquitto) PID() int { return m.Cmd.Process.Pid }

// StartMosquitto starts a broker (skipped, or failed under CI, when
// mosquitto is not installed) with the settings Sabot's tests use: no
// limit on in-flight or queued QoS 1 messages a test would hit, and
// set_tcp_nodelay (without it the broker holds small packets such as
// PUBACKs for Nagle's algorithm; see drivers/mqtt/README.md). It waits
// until the port accepts connections (at most 10 s).
func StartMosquitto(t testing.TB) *Mosquitto {
	t.Helper()
	bin := NeedProgram(t, "mosquitto")
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	m := &Mosquitto{URL: fmt.Sprintf("tcp://127.0.0.1:%d", port), Port: port, Log: filepath.Join(dir, "mosquitto.log")}
	conf := filepath.Join(dir, "mosquitto.conf")
	body := fmt.Sprintf("listener %d 127.0.0.1\nallow_anonymous true\nmax_inflight_messages 0\nmax_queued_messages 1000000\n"+
		"set_tcp_nodelay true\npersistence false\n", port)
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(m.Log)
	if err != nil {
		t.Fatal(err)
	}
	m.Cmd = exec.Command(bin, "-c", conf)
	m.Cmd.Stdout, m.Cmd.Stderr = logf, logf
	m.Cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := m.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.Cmd.Process.Kill()
		m.Cmd.Wait()
		logf.Close()
	})
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return m
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(m.Log)
			t.Fatalf("testenv: mosquitto did not start on port %d: %v\n%s", port, err, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
