package shoe

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// testPTY is a pseudo-terminal pair standing in for a USB serial adapter:
// the test plays the shoe on the master side, the code under test opens the
// slave device (through a symlink, like /dev/serial/by-id).
type testPTY struct {
	master *os.File
	slave  *os.File // kept open so the tty keeps its raw settings
	dev    string   // /dev/pts/N

	mu    sync.Mutex
	links []string // symlinks made by link, removed by unplug
}

func newPTY(t testing.TB) *testPTY {
	t.Helper()
	m, s, err := openPTY()
	if err != nil {
		t.Fatalf("pty: %v", err)
	}
	makeRaw(t, int(s.Fd()))
	p := &testPTY{master: m, slave: s, dev: s.Name()}
	t.Cleanup(p.unplug)
	return p
}

// unplug closes both sides: the device node disappears, as when a USB
// adapter is pulled. The symlinks link made to it go first, as udev
// removes a by-id link with its device: once the pty is closed the kernel
// may give its number to a pty of another test process, which a shoe
// still reopening the link would take (and lock) from that test.
func (p *testPTY) unplug() {
	p.mu.Lock()
	for _, l := range p.links {
		if to, err := os.Readlink(l); err == nil && to == p.dev {
			os.Remove(l)
		}
	}
	p.links = nil
	p.mu.Unlock()
	p.master.Close()
	p.slave.Close()
}

// link points the stable name at the pty's device (replacing any old
// link), until unplug.
func (p *testPTY) link(t testing.TB, name string) {
	t.Helper()
	symlinkTo(t, name, p.dev)
	p.mu.Lock()
	p.links = append(p.links, name)
	p.mu.Unlock()
}

// openPTY is pty.Open with the master made non-blocking, so that it is
// served by Go's poller: creack/pty leaves it in blocking mode (it calls
// Fd), and then Close cannot take effect while another goroutine is blocked
// reading it — a "pulled cable" the other side would never notice.
func openPTY() (master, slave *os.File, err error) {
	m, s, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	m.Close()
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		s.Close()
		return nil, nil, err
	}
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "/dev/ptmx"), s, nil
}

func makeRaw(t testing.TB, fd int) {
	t.Helper()
	if err := rawMode(fd); err != nil {
		t.Fatal(err)
	}
}

// rawMode puts the tty in raw mode (like cfmakeraw), so bytes pass
// unchanged and nothing is echoed.
func rawMode(fd int) error {
	tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	tio.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	tio.Oflag &^= unix.OPOST
	tio.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	tio.Cflag &^= unix.CSIZE | unix.PARENB
	tio.Cflag |= unix.CS8
	tio.Cc[unix.VMIN] = 1
	tio.Cc[unix.VTIME] = 0
	return unix.IoctlSetTermios(fd, unix.TCSETS, tio)
}

// symlinkTo points the stable name at the pty's device (replacing any old link).
func symlinkTo(t testing.TB, name, dev string) {
	t.Helper()
	tmp := name + ".new"
	os.Remove(tmp)
	if err := os.Symlink(dev, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, name); err != nil {
		t.Fatal(err)
	}
}

func symlinkPath(t testing.TB) string {
	return filepath.Join(t.TempDir(), "usb-Sabot_Shoe_0001-if00-port0")
}

// countingOpen wraps an OpenFunc and counts opens and reads.
type countingOpen struct {
	open  OpenFunc
	mu    sync.Mutex
	opens int
	fails int
	reads int
}

func (c *countingOpen) Open(cfg PortConfig) (Port, error) {
	p, err := c.open(cfg)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opens++
	if err != nil {
		c.fails++
		return nil, err
	}
	return &countingPort{Port: p, c: c}, nil
}

func (c *countingOpen) counts() (opens, fails, reads int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opens, c.fails, c.reads
}

type countingPort struct {
	Port
	c *countingOpen
}

func (p *countingPort) Read(b []byte) (int, error) {
	p.c.mu.Lock()
	p.c.reads++
	p.c.mu.Unlock()
	return p.Port.Read(b)
}

// recorder is a Handler that keeps events and signals each one.
type recorder struct {
	mu  sync.Mutex
	evs []Event
	ch  chan Event
}

func newRecorder() *recorder { return &recorder{ch: make(chan Event, 100000)} }

func (r *recorder) handle(ev Event) error {
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
	r.ch <- ev
	return nil
}

func (r *recorder) events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.evs...)
}

// next waits for the next event (failing the test after limit).
func (r *recorder) next(t testing.TB, limit time.Duration) Event {
	t.Helper()
	select {
	case ev := <-r.ch:
		return ev
	case <-time.After(limit):
		t.Fatalf("no event within %v", limit)
	}
	return Event{}
}

// expect waits for the next event and checks its String form.
func (r *recorder) expect(t testing.TB, want string, limit time.Duration) Event {
	t.Helper()
	ev := r.next(t, limit)
	if got := ev.String(); got != want {
		t.Fatalf("event %q, want %q", got, want)
	}
	return ev
}

// expectSkippingLink is expect, but skips online and offline events: pty
// numbers are recycled, and another process on the machine that opens a
// recycled /dev/pts/N as its controlling terminal hangs it up when it exits
// — a spurious unplug the link recovers from, but which adds link events.
func (r *recorder) expectSkippingLink(t testing.TB, want string, limit time.Duration) Event {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ev := r.next(t, time.Until(deadline))
		if ev.Kind == KindOnline || ev.Kind == KindOffline {
			continue
		}
		if got := ev.String(); got != want {
			t.Fatalf("event %q, want %q", got, want)
		}
		return ev
	}
}

func flockNB(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}
