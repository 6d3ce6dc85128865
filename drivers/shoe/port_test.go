package shoe

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func ptyConfig(path string) PortConfig {
	return PortConfig{Path: path, Baud: 115200, ReadTimeout: 50 * time.Millisecond, WriteTimeout: time.Second}
}

func TestPortConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  PortConfig
		want string
	}{
		{PortConfig{Baud: 9600, ReadTimeout: time.Second}, "no serial device"},
		{PortConfig{Path: "/dev/x", ReadTimeout: time.Second}, "baud = 0"},
		{PortConfig{Path: "/dev/x", Baud: 9600, DataBits: 9, ReadTimeout: time.Second}, "data_bits = 9"},
		{PortConfig{Path: "/dev/x", Baud: 9600, Parity: "strange", ReadTimeout: time.Second}, `parity = "strange"`},
		{PortConfig{Path: "/dev/x", Baud: 9600, StopBits: "3", ReadTimeout: time.Second}, `stop_bits = "3"`},
		{PortConfig{Path: "/dev/x", Baud: 9600}, "read timeout"},
	} {
		_, err := OpenSerial(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "shoe: ") {
			t.Errorf("%+v: error %v, want one mentioning %q", tc.cfg, err, tc.want)
		}
	}
	m, err := (&PortConfig{Path: "/dev/x", Baud: 9600, DataBits: 7, Parity: "even", StopBits: "2", ReadTimeout: time.Second}).mode()
	if err != nil || m.DataBits != 7 || m.Parity != 2 || m.StopBits != 2 || m.BaudRate != 9600 {
		t.Errorf("mode %+v, %v", m, err)
	}
}

func TestOpenSerialMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-shoe")
	_, err := OpenSerial(ptyConfig(path))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v, want not-exist naming %s", err, path)
	}
}

func TestOpenSerialPTYReadWrite(t *testing.T) {
	p := newPTY(t)
	name := symlinkPath(t)
	p.link(t, name)
	port, err := OpenSerial(ptyConfig(name))
	if err != nil {
		t.Fatal(err)
	}
	defer port.Close()
	if _, err := p.master.Write([]byte("hello\r\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	var got []byte
	for len(got) < 7 {
		n, err := port.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != "hello\r\n" { // raw mode: no CR/LF translation
		t.Fatalf("read %q", got)
	}
	if _, err := port.Write([]byte{0, 1, 2, '\n', 0xff}); err != nil {
		t.Fatal(err)
	}
	back := make([]byte, 5)
	if _, err := readFull(p.master, back); err != nil || string(back) != "\x00\x01\x02\n\xff" {
		t.Fatalf("master read %q, %v", back, err)
	}
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	f.SetReadDeadline(time.Now().Add(5 * time.Second))
	defer f.SetReadDeadline(time.Time{})
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// A read timeout gives (0, nil): that is what the link counts as idle.
func TestOpenSerialReadTimeout(t *testing.T) {
	p := newPTY(t)
	port, err := OpenSerial(ptyConfig(p.dev))
	if err != nil {
		t.Fatal(err)
	}
	defer port.Close()
	start := time.Now()
	n, err := port.Read(make([]byte, 16))
	if n != 0 || err != nil {
		t.Fatalf("idle read = %d, %v; want 0, nil", n, err)
	}
	if el := time.Since(start); el < 40*time.Millisecond {
		t.Fatalf("idle read returned after %v, before the 50 ms timeout", el)
	}
}

func TestOpenSerialLockSameProcess(t *testing.T) {
	p := newPTY(t)
	a := symlinkPath(t)
	b := filepath.Join(t.TempDir(), "shoe") // a second name for the same device
	p.link(t, a)
	p.link(t, b)
	first, err := OpenSerial(ptyConfig(a))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{a, b, p.dev} {
		_, err := OpenSerial(ptyConfig(name))
		if !errors.Is(err, ErrBusy) {
			t.Fatalf("second open of %s: %v, want ErrBusy", name, err)
		}
		if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "flock") {
			t.Errorf("error %q does not name the device and the lock", err)
		}
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := OpenSerial(ptyConfig(b))
	if err != nil {
		t.Fatalf("open after the holder closed: %v", err)
	}
	again.Close()
}

// The lock holds against another process (flock conflicts between
// processes; TIOCEXCL alone does not stop root).
func TestOpenSerialLockOtherProcess(t *testing.T) {
	p := newPTY(t)
	name := symlinkPath(t)
	p.link(t, name)
	holder, err := OpenSerial(ptyConfig(name))
	if err != nil {
		t.Fatal(err)
	}
	out, err := helperOpen(name).CombinedOutput()
	if err == nil {
		t.Fatalf("second process opened the locked device:\n%s", out)
	}
	if !strings.Contains(string(out), "device is in use") || !strings.Contains(string(out), name) {
		t.Fatalf("second process error does not say the device is in use:\n%s", out)
	}
	holder.Close()
	out, err = helperOpen(name).CombinedOutput()
	if err != nil {
		t.Fatalf("second process after release: %v\n%s", err, out)
	}
}

// helperOpen runs this test binary as a second process opening name.
func helperOpen(name string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SHOE_HELPER_OPEN="+name)
	return cmd
}

// TestMain doubles as the second process of TestOpenSerialLockOtherProcess:
// with SHOE_HELPER_OPEN set it only tries to open that device.
func TestMain(m *testing.M) {
	if name := os.Getenv("SHOE_HELPER_OPEN"); name != "" {
		port, err := OpenSerial(ptyConfig(name))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		port.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Output that cannot drain (nobody reads the pty master) makes Write fail
// after the write timeout instead of blocking forever.
func TestOpenSerialWriteTimeout(t *testing.T) {
	p := newPTY(t)
	cfg := ptyConfig(p.dev)
	cfg.WriteTimeout = 100 * time.Millisecond
	port, err := OpenSerial(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer port.Close()
	n, err := port.Write(make([]byte, 1<<20))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Write = %d, %v; want a deadline error", n, err)
	}
	if n <= 0 || n >= 1<<20 {
		t.Errorf("wrote %d bytes; want the pty buffer's worth", n)
	}
}

// Close wakes a Write stuck on undrainable output and a blocked Read, and
// returns promptly.
func TestOpenSerialCloseUnblocks(t *testing.T) {
	p := newPTY(t)
	cfg := ptyConfig(p.dev)
	cfg.ReadTimeout = time.Hour
	cfg.WriteTimeout = time.Hour
	port, err := OpenSerial(cfg)
	if err != nil {
		t.Fatal(err)
	}
	werr := make(chan error, 1)
	go func() {
		_, err := port.Write(make([]byte, 1<<20))
		werr <- err
	}()
	rerr := make(chan error, 1)
	go func() {
		_, err := port.Read(make([]byte, 16))
		rerr <- err
	}()
	time.Sleep(100 * time.Millisecond) // let both block
	closed := make(chan error, 1)
	go func() { closed <- port.Close() }()
	for what, ch := range map[string]chan error{"Close": closed, "Write": werr, "Read": rerr} {
		select {
		case err := <-ch:
			if what != "Close" && err == nil {
				t.Errorf("%s returned nil error after Close", what)
			}
			if what == "Write" && !errors.Is(err, ErrClosed) {
				t.Errorf("Write: %v, want ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s still blocked 5 s after Close", what)
		}
	}
}

// Unplugging (the pty master goes away) surfaces as a read error, not as an
// endless stream of empty reads.
func TestOpenSerialUnplugIsError(t *testing.T) {
	p := newPTY(t)
	port, err := OpenSerial(ptyConfig(p.dev))
	if err != nil {
		t.Fatal(err)
	}
	defer port.Close()
	p.unplug()
	buf := make([]byte, 16)
	for i := 0; i < 3; i++ {
		n, err := port.Read(buf)
		if err != nil {
			return
		}
		if n != 0 {
			t.Fatalf("read %d bytes from an unplugged port", n)
		}
	}
	t.Fatal("no error from reads after unplug")
}

// A path that is not a serial device is refused with an error naming it.
func TestOpenSerialNotATTY(t *testing.T) {
	path := filepath.Join(t.TempDir(), "not-a-tty")
	os.WriteFile(path, []byte("x"), 0o600)
	_, err := OpenSerial(ptyConfig(path))
	if err == nil || !strings.Contains(err.Error(), path) || !strings.HasPrefix(err.Error(), "shoe: ") {
		t.Fatalf("error %v, want one naming %s", err, path)
	}
	// The lock was released: nothing holds the file.
	fd, _ := os.Open(path)
	defer fd.Close()
	if err := flockNB(fd); err != nil {
		t.Errorf("lock still held after the failed open: %v", err)
	}
}
