//go:build linux

package sim

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// PTY is a Link on a pseudo-terminal, so a host can talk to the virtual
// shoe as to a serial device. The shoe holds the master side; Path is a
// symbolic link to the current slave device (/dev/pts/N), which the host
// opens like /dev/ttyUSB0. The terminal is in raw mode (no echo, no
// CR/LF translation, no XON/XOFF, 8 bits): every byte value passes
// unchanged.
//
// A cable pull closes the master (and the shoe's slave handle) and removes
// Path, as udev removes a /dev/serial/by-id link on an unplug: the host's
// reads on the old device then fail (EIO on Linux) or return end of file,
// and writes fail; the next Open creates a new pseudo-terminal and
// atomically points Path to its device, so a host that reopens Path
// after an error reaches the shoe again. The device name usually changes;
// hosts must reopen by Path, never by the resolved device.
type PTY struct {
	// Path is the symbolic link to create. A symbolic link already there
	// is replaced (the file it points to is not touched); anything else
	// (a regular file, a device node, a directory) is refused: Open fails
	// with an error naming Path (CheckLinkPath). Remove and a cable pull
	// delete only the link this PTY made, and only while it still points
	// at the device it set.
	Path string
	// OnOpen, if set, is called with the slave device's name after each
	// Open (the command-line tool prints it).
	OnOpen func(device string)

	mu  sync.Mutex
	dev string
}

// NewPTY returns a PTY link at path. Nothing is created until Open.
func NewPTY(path string) *PTY { return &PTY{Path: path} }

// Device returns the current slave device name ("" before Open).
func (p *PTY) Device() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dev
}

type ptyConn struct {
	master, slave *os.File
	once          sync.Once
	p             *PTY
	dev           string
}

func (c *ptyConn) Read(b []byte) (int, error)  { return c.master.Read(b) }
func (c *ptyConn) Write(b []byte) (int, error) { return c.master.Write(b) }
func (c *ptyConn) Close() error {
	var err error
	c.once.Do(func() {
		// Like udev on an unplug, take the link away with the device: a
		// link left dangling names a /dev/pts/N the kernel will give to
		// the next pseudo-terminal, and a host reopening it would talk to
		// someone else's (tests running side by side).
		if c.p != nil {
			if dst, e := os.Readlink(c.p.Path); e == nil && dst == c.dev {
				os.Remove(c.p.Path)
			}
		}
		err = c.master.Close()
		c.slave.Close()
	})
	return err
}

// Open creates a new pseudo-terminal in raw mode and points Path at it.
func (p *PTY) Open(ctx context.Context) (io.ReadWriteCloser, error) {
	master, slave, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("sim: creating a pseudo-terminal: %w", err)
	}
	conn, err := p.setup(master, slave)
	if err != nil {
		master.Close()
		slave.Close()
		return nil, err
	}
	return conn, nil
}

func (p *PTY) setup(master, slave *os.File) (*ptyConn, error) {
	if err := MakeRaw(slave); err != nil {
		return nil, err
	}
	// pty.Open leaves the master in blocking mode (it called Fd), so a
	// Close would not interrupt a Read. Re-open it non-blocking, so it
	// goes through the runtime poller. F_DUPFD_CLOEXEC makes the copy
	// close-on-exec from the start: a program started meanwhile never holds
	// the master.
	nfd, err := unix.FcntlInt(master.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sim: dup pty master: %w", err)
	}
	if err := unix.SetNonblock(nfd, true); err != nil {
		unix.Close(nfd)
		return nil, fmt.Errorf("sim: pty master non-blocking: %w", err)
	}
	m := os.NewFile(uintptr(nfd), master.Name())
	master.Close()
	dev := slave.Name()
	if err := CheckLinkPath(p.Path); err != nil {
		m.Close()
		return nil, err
	}
	tmp := filepath.Join(filepath.Dir(p.Path), "."+filepath.Base(p.Path)+".tmp")
	if fi, err := os.Lstat(tmp); err == nil && fi.Mode()&os.ModeSymlink == 0 {
		m.Close()
		return nil, fmt.Errorf("sim: linking %s: %s exists and is not a symbolic link; refusing to replace it", p.Path, tmp)
	}
	os.Remove(tmp)
	if err := os.Symlink(dev, tmp); err != nil {
		m.Close()
		return nil, fmt.Errorf("sim: linking %s: %w", p.Path, err)
	}
	if err := os.Rename(tmp, p.Path); err != nil {
		os.Remove(tmp)
		m.Close()
		return nil, fmt.Errorf("sim: linking %s: %w", p.Path, err)
	}
	p.mu.Lock()
	p.dev = dev
	p.mu.Unlock()
	if p.OnOpen != nil {
		p.OnOpen(dev)
	}
	return &ptyConn{master: m, slave: slave, p: p, dev: dev}, nil
}

// CheckLinkPath reports whether path may be used as a PTY's Path: it must
// not exist or be a symbolic link. A regular file, a device node (as root,
// /dev/ttyUSB0 itself), a directory or anything else at path is an error
// naming it. (Another process can still create something at path between
// the check and the rename that replaces it; the link is made in path's own
// directory and renamed into place, so path is never left half made.)
func CheckLinkPath(path string) error {
	fi, err := os.Lstat(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sim: link %s: %w", path, err)
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		return fmt.Errorf("sim: link %s: exists and is not a symbolic link (%s); refusing to replace it", path, describeMode(fi.Mode()))
	}
	return nil
}

func describeMode(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// Remove deletes the symbolic link at Path if it still points at the
// device this PTY made.
func (p *PTY) Remove() error {
	p.mu.Lock()
	dev := p.dev
	p.mu.Unlock()
	if dst, err := os.Readlink(p.Path); err == nil && dst == dev {
		return os.Remove(p.Path)
	}
	return nil
}

// MakeRaw puts the terminal f in raw mode, 8N1: no input or output
// processing (CR/LF translation, XON/XOFF), no echo, no signals, reads
// return as soon as one byte is available. Hosts opening a pseudo-terminal
// should do the same (serial libraries do it when they open a port).
func MakeRaw(f *os.File) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("sim: raw mode on %s: %w", f.Name(), err)
	}
	var ierr error
	err = sc.Control(func(fd uintptr) {
		t, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
		if err != nil {
			ierr = err
			return
		}
		t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON | unix.IXOFF | unix.IXANY | unix.IMAXBEL | unix.IUCLC
		t.Oflag &^= unix.OPOST
		t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
		t.Cflag &^= unix.CSIZE | unix.PARENB | unix.CSTOPB | unix.CRTSCTS
		t.Cflag |= unix.CS8 | unix.CREAD | unix.CLOCAL
		t.Cc[unix.VMIN] = 1
		t.Cc[unix.VTIME] = 0
		ierr = unix.IoctlSetTermios(int(fd), unix.TCSETS, t)
	})
	if err == nil {
		err = ierr
	}
	if err != nil {
		return fmt.Errorf("sim: raw mode on %s: %w", f.Name(), err)
	}
	return nil
}
