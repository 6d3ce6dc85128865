package testenv

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// DefaultMosquittoSettings are the broker settings Sabot's tests use
// unless MosquittoOptions.Settings says otherwise: no limit on in-flight
// QoS 1 messages, a bound on queued ones a test would not hit, and
// set_tcp_nodelay (without it the broker holds small packets such as
// PUBACKs for Nagle's algorithm, tens of milliseconds each; see
// drivers/mqtt/README.md).
const DefaultMosquittoSettings = "max_inflight_messages 0\nmax_queued_messages 1000000\nset_tcp_nodelay true\n"

// DefaultMosquittoListener is the listener of MosquittoOptions.Listener's
// default: anonymous MQTT on the loopback address.
const DefaultMosquittoListener = "listener %PORT% 127.0.0.1\nallow_anonymous true\n"

// mosquittoWait bounds a start: the port must accept connections within
// it (generous: the tests share a loaded machine).
const mosquittoWait = 10 * time.Second

// mosquittoStopWait bounds a stop: a broker that has not exited this long
// after the signal is killed.
const mosquittoStopWait = 10 * time.Second

// MosquittoOptions configure a broker (the zero value: DefaultMosquittoListener,
// DefaultMosquittoSettings, no persistence).
type MosquittoOptions struct {
	// Listener holds the listener lines (ports, TLS, authentication),
	// "%PORT%" standing for the broker's port; "" is
	// DefaultMosquittoListener.
	Listener string
	// Settings replace DefaultMosquittoSettings ("" keeps them).
	Settings string
	// Persist turns persistence on: the broker keeps its sessions and
	// retained messages in Dir/mosquitto.db, saved when it stops with
	// SIGTERM (Stop) and read back when it starts. It runs as "user
	// root": started as root, Mosquitto otherwise switches to the user
	// "mosquitto", which cannot write the test's root-owned 0700
	// directory, logs "Error saving in-memory database ... Permission
	// denied" at every stop and comes back with no sessions.
	Persist bool
	// Extra lines are added at the end of the configuration file.
	Extra string
}

// Mosquitto is a Mosquitto broker started by a test on a free loopback
// port, kept across restarts; it is killed when the test ends, and the
// tail of its log is logged if the test failed. Its methods are for the
// test's goroutine (Output also for others).
type Mosquitto struct {
	URL     string // tcp://127.0.0.1:PORT
	Port    int
	Dir     string // the broker's directory: config, log, persistence database
	Conf    string // the configuration file
	Log     string // the log file: the broker's output, every run appended
	Persist bool   // MosquittoOptions.Persist
	Cmd     *exec.Cmd

	t    testing.TB
	bin  string
	exit chan struct{} // closed when Cmd has exited

	mu    sync.Mutex
	runAt int64 // the log's size when the current (or last) run started
}

// PID returns the broker's process id.
func (m *Mosquitto) PID() int { return m.Cmd.Process.Pid }

// StartMosquitto starts a broker with MosquittoOptions' zero value
// (skipped, or failed under CI, when mosquitto is not installed) and waits
// until its port accepts connections.
func StartMosquitto(t testing.TB) *Mosquitto {
	t.Helper()
	return StartMosquittoWith(t, MosquittoOptions{})
}

// StartMosquittoWith is StartMosquitto with options.
func StartMosquittoWith(t testing.TB, o MosquittoOptions) *Mosquitto {
	t.Helper()
	m := NewMosquitto(t, o)
	m.Start()
	return m
}

// NewMosquitto writes a broker's configuration, on a free port in a new
// temporary directory, without starting it (Start does).
func NewMosquitto(t testing.TB, o MosquittoOptions) *Mosquitto {
	t.Helper()
	bin := NeedProgram(t, "mosquitto")
	dir := t.TempDir()
	port := FreePort(t)
	m := &Mosquitto{URL: fmt.Sprintf("tcp://127.0.0.1:%d", port), Port: port, Dir: dir,
		Conf: filepath.Join(dir, "mosquitto.conf"), Log: filepath.Join(dir, "mosquitto.log"), Persist: o.Persist, t: t, bin: bin}
	if o.Listener == "" {
		o.Listener = DefaultMosquittoListener
	}
	if o.Settings == "" {
		o.Settings = DefaultMosquittoSettings
	}
	conf := strings.ReplaceAll(o.Listener, "%PORT%", fmt.Sprint(port)) + o.Settings
	if o.Persist {
		conf += "persistence true\npersistence_location " + dir + "/\nuser root\n"
	} else {
		conf += "persistence false\n"
	}
	conf += o.Extra
	if err := os.WriteFile(m.Conf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.Kill()
		if t.Failed() {
			if b, err := os.ReadFile(m.Log); err == nil {
				var keep []string
				for _, l := range strings.Split(string(b), "\n") {
					if !strings.Contains(l, "Saving in-memory database") {
						keep = append(keep, l)
					}
				}
				b = []byte(strings.Join(keep, "\n"))
				if len(b) > 6000 {
					b = b[len(b)-6000:]
				}
				t.Logf("mosquitto log (its tail):\n%s", b)
			}
		}
	})
	return m
}

// Start runs the broker (again, after a stop: same port, configuration
// and persistence) and waits until its port accepts connections, at most
// mosquittoWait; a broker that exits or does not listen fails the test.
func (m *Mosquitto) Start() {
	m.t.Helper()
	logf, err := os.OpenFile(m.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		m.t.Fatal(err)
	}
	defer logf.Close() // the child has its own descriptor
	st, err := logf.Stat()
	if err != nil {
		m.t.Fatal(err)
	}
	m.mu.Lock()
	m.runAt = st.Size()
	m.mu.Unlock()
	m.Cmd = exec.Command(m.bin, "-c", m.Conf)
	m.Cmd.Stdout, m.Cmd.Stderr = logf, logf
	m.Cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := m.Cmd.Start(); err != nil {
		m.t.Fatal(err)
	}
	m.exit = make(chan struct{})
	go func(c *exec.Cmd, exit chan struct{}) { c.Wait(); close(exit) }(m.Cmd, m.exit)
	for deadline := time.Now().Add(mosquittoWait); ; {
		select {
		case <-m.exit:
			m.t.Fatalf("testenv: mosquitto exited at start:\n%s", m.Output())
		default:
		}
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", m.Port), 100*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("testenv: mosquitto did not listen on port %d: %v\n%s", m.Port, err, m.Output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Output returns what the broker has written since its current (or last)
// run started: its log of that run.
func (m *Mosquitto) Output() string {
	m.mu.Lock()
	at := m.runAt
	m.mu.Unlock()
	f, err := os.Open(m.Log)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(at, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

// Stop ends the broker with SIGTERM, as a service stop does, and waits for
// it (killing it after mosquittoStopWait). A persistent broker must have
// saved its database: the test fails here, naming the broker's error,
// rather than later with messages missing. (Mosquitto sends PUBACK before
// it saves, between passes of its event loop, so only this clean stop
// keeps everything it acknowledged; after Kill even autosave_on_changes
// can miss some.)
func (m *Mosquitto) Stop() {
	m.t.Helper()
	if !m.signal(syscall.SIGTERM) || !m.Persist {
		return
	}
	out := m.Output()
	if i := strings.Index(out, "Error saving"); i >= 0 {
		m.t.Fatalf("testenv: mosquitto did not save its persistence database: %s", bytes.SplitN([]byte(out[i:]), []byte("\n"), 3)[:2])
	}
	if _, err := os.Stat(filepath.Join(m.Dir, "mosquitto.db")); err != nil {
		m.t.Fatalf("testenv: mosquitto stopped without a persistence database: %v", err)
	}
}

// Kill ends the broker with SIGKILL (a crash: nothing is saved) and waits
// for it.
func (m *Mosquitto) Kill() { m.signal(syscall.SIGKILL) }

// Freeze stops the broker's process (SIGSTOP) without ending it: it takes
// no packets and acknowledges nothing until killed.
func (m *Mosquitto) Freeze() {
	if m.Cmd != nil && m.Cmd.Process != nil {
		m.Cmd.Process.Signal(syscall.SIGSTOP)
	}
}

// Reload makes the broker re-read its password and ACL files (SIGHUP).
func (m *Mosquitto) Reload() {
	if m.Cmd != nil && m.Cmd.Process != nil {
		m.Cmd.Process.Signal(syscall.SIGHUP)
	}
}

// signal sends sig and waits for the broker to exit (killing it after
// mosquittoStopWait); it reports whether a running broker was stopped.
func (m *Mosquitto) signal(sig syscall.Signal) bool {
	if m.Cmd == nil || m.Cmd.Process == nil {
		return false
	}
	defer func() { m.Cmd = nil }()
	select {
	case <-m.exit:
		return false
	default:
	}
	m.Cmd.Process.Signal(sig)
	select {
	case <-m.exit:
	case <-time.After(mosquittoStopWait):
		m.Cmd.Process.Kill()
		<-m.exit
	}
	return true
}
