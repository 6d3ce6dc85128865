package serialport

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/creack/pty"
	"go.bug.st/serial"
	"golang.org/x/sys/unix"
)

// childEnv makes the test binary, started again, print what each of its
// descriptors points at and exit.
const childEnv = "SERIALPORT_TEST_LIST_FDS"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		names, _ := os.ReadDir("/proc/self/fd")
		for _, n := range names {
			target, err := os.Readlink(filepath.Join("/proc/self/fd", n.Name()))
			if err == nil {
				fmt.Printf("%s %s\n", n.Name(), target)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childFDs starts this test binary again and returns what its descriptors
// point at, by number, as the child saw them right after it started.
func childFDs(t *testing.T) map[int]string {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "fds")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v", err)
	}
	data, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	fds := make(map[int]string)
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		num, target, ok := strings.Cut(sc.Text(), " ")
		if n, err := strconv.Atoi(num); ok && err == nil {
			fds[n] = target
		}
	}
	return fds
}

func openPTY(t *testing.T) (slaveName string) {
	t.Helper()
	m, s, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return s.Name()
}

// The control: a descriptor opened without O_CLOEXEC is seen by the child
// and reported by Inheritable, so the checks below can fail.
func TestChildSeesAnInheritableDescriptor(t *testing.T) {
	name := openPTY(t)
	fd, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	inh, err := Inheritable()
	if err != nil {
		t.Fatal(err)
	}
	if !inh[fd] {
		t.Errorf("Inheritable() = %v, want it to hold %d (opened without O_CLOEXEC)", inh, fd)
	}
	if got := childFDs(t)[fd]; got != name {
		t.Errorf("the child's descriptor %d points at %q, want %s", fd, got, name)
	}
}

func TestOpenLeavesNothingToAChild(t *testing.T) {
	name := openPTY(t)
	// What this process inherited itself (a test runner's pipe, say) is
	// passed on to the child with or without Open.
	baseline := childFDs(t)
	before, err := Inheritable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Open(name, &serial.Mode{BaudRate: 9600, DataBits: 8, Parity: serial.NoParity, StopBits: serial.OneStopBit})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	after, err := Inheritable()
	if err != nil {
		t.Fatal(err)
	}
	for fd := range after {
		if !before[fd] {
			t.Errorf("descriptor %d is inheritable after Open", fd)
		}
	}
	for fd, target := range childFDs(t) {
		if baseline[fd] == target {
			continue
		}
		if target == name || strings.HasPrefix(target, "pipe:") {
			t.Errorf("the child inherited descriptor %d → %s", fd, target)
		}
	}
	// The port works: what is written to it is what the pty's other end
	// could read; here, at least, the write goes through.
	if n, err := p.Write([]byte{0x55}); err != nil || n != 1 {
		t.Errorf("Write = %d, %v; want 1, nil", n, err)
	}
}

func TestOpenMissingDeviceKeepsTheLibrarysError(t *testing.T) {
	before, err := Inheritable()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(filepath.Join(t.TempDir(), "no-shoe"), &serial.Mode{BaudRate: 9600})
	if err == nil {
		t.Fatal("Open of a missing device succeeded")
	}
	if !os.IsNotExist(err) && !strings.Contains(err.Error(), "no such file") {
		t.Errorf("Open of a missing device: %v, want the not-exist error", err)
	}
	after, _ := Inheritable()
	if len(after) != len(before) {
		t.Errorf("inheritable descriptors %v before, %v after a failed Open", before, after)
	}
}
