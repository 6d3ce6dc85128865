// Package serialport opens a serial device with go.bug.st/serial and makes
// sure that nothing it opened is inherited by a program this process starts.
//
// go.bug.st/serial (v1.8.0) opens the device, and the pipe it uses to
// interrupt a blocked Read, without O_CLOEXEC. Every child started while a
// port is open (sabotd started by `sabot floor-sim`, a helper started by
// sabotd) would then hold the shoe's tty and both ends of that pipe for as
// long as it runs: the tty stays open, and stays in exclusive mode
// (TIOCEXCL), after its owner closed it, so the owner's own reopen after a
// cable pull can fail with EBUSY. Open closes that gap.
package serialport

import (
	"fmt"
	"os"
	"strconv"
	"syscall"

	"go.bug.st/serial"
	"golang.org/x/sys/unix"
)

// Open is serial.Open(path, mode) with every descriptor the open created
// marked close-on-exec (FD_CLOEXEC) before any other goroutine can start a
// program.
//
// It holds syscall.ForkLock for reading while it opens, which is the lock
// os/exec takes for writing around fork, and marks every descriptor that
// was not open, or was inheritable, before the open: descriptors the
// rest of Go opens are close-on-exec already, so marking one of them
// again changes nothing. Errors are serial.Open's, unchanged (so a
// *serial.PortError stays one), or, if the process's open descriptors
// cannot be listed, an error prefixed "serialport:" after the port has been
// closed again.
func Open(path string, mode *serial.Mode) (serial.Port, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	before, err := Inheritable()
	if err != nil {
		return nil, err
	}
	p, err := serial.Open(path, mode)
	if err != nil {
		return nil, err
	}
	after, err := Inheritable()
	if err != nil {
		p.Close()
		return nil, err
	}
	for fd := range after {
		if !before[fd] {
			unix.CloseOnExec(fd)
		}
	}
	return p, nil
}

// fdDirs list this process's open descriptors: /proc/self/fd on Linux,
// /dev/fd elsewhere (and on Linux without /proc, where it is a link into
// /proc and fails the same way).
var fdDirs = []string{"/proc/self/fd", "/dev/fd"}

// Inheritable returns the set of this process's open descriptors that a
// program it starts would inherit (FD_CLOEXEC clear), standard input,
// output and error included. It lists /proc/self/fd (or /dev/fd); the
// error, prefixed "serialport:", says that neither could be read.
func Inheritable() (map[int]bool, error) {
	var lastErr error
	for _, dir := range fdDirs {
		f, err := os.Open(dir)
		if err != nil {
			lastErr = err
			continue
		}
		// The listing's own descriptor is close-on-exec: it never counts.
		names, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			lastErr = err
			continue
		}
		out := make(map[int]bool)
		for _, n := range names {
			fd, err := strconv.Atoi(n)
			if err != nil {
				continue
			}
			flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
			if err != nil {
				continue // closed since the listing
			}
			if flags&unix.FD_CLOEXEC == 0 {
				out[fd] = true
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("serialport: listing this process's open descriptors: %w", lastErr)
}
