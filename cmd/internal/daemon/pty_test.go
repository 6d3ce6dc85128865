package daemon

import (
	"errors"
	"os"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal for a test shoe. Other test processes on
// the machine (the shoe driver's own reconnect tests) may still be
// reopening a /dev/pts/N path that the kernel has just handed to us; a
// device somebody else holds locked is kept open (so the number is not
// handed out again) and another one is taken.
func openPTY(t *testing.T) (ptmx, tty *os.File, err error) {
	t.Helper()
	var held []*os.File
	defer func() {
		for _, f := range held {
			f.Close()
		}
	}()
	for range 8 {
		ptmx, tty, err = pty.Open()
		if err != nil {
			return nil, nil, err
		}
		probe, err := os.OpenFile(tty.Name(), os.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
		if err != nil {
			return nil, nil, err
		}
		ferr := unix.Flock(int(probe.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		probe.Close() // releases the probe's lock
		if ferr == nil {
			// A descriptor of the slave kept until the test's cleanups
			// have run (registered now, it runs after those of the
			// daemons the test starts later: they are killed first). The
			// test's own defer closes its pty before those cleanups run,
			// while its daemon still reopens /dev/pts/N every 250 ms; as
			// long as the slave is held the kernel does not hand N to
			// another test's pty, which that daemon would open and lock
			// (three tests failed so under load: "locked by another
			// process").
			if keep, err := os.OpenFile(tty.Name(), os.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK, 0); err == nil {
				t.Cleanup(func() { keep.Close() })
			}
			return ptmx, tty, nil
		}
		if !errors.Is(ferr, unix.EWOULDBLOCK) {
			return nil, nil, ferr
		}
		t.Logf("%s is locked by another process; taking another pty", tty.Name())
		held = append(held, ptmx, tty)
	}
	return nil, nil, errors.New("no unlocked pseudo-terminal after 8 tries")
}
