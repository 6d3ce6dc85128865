package shoe

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.bug.st/serial"
	"golang.org/x/sys/unix"

	"github.com/sabot-table/sabot/drivers/serialport"
)

// PortConfig is the serial line to the shoe. Only the configured device is
// ever opened: ports are never enumerated, and no other port is touched.
type PortConfig struct {
	// Path is the device, normally a stable symlink such as
	// /dev/serial/by-id/usb-FTDI_..-if00-port0, /dev/serial/by-path/..., or
	// a udev rule's SYMLINK (e.g. /dev/shoe). Pseudo-terminals work.
	Path string
	// Baud is the line speed in bits per second (e.g. 9600, 115200).
	Baud int
	// DataBits is 5, 6, 7 or 8 (0: 8).
	DataBits int
	// Parity is "none" (also ""), "odd", "even", "mark" or "space".
	Parity string
	// StopBits is "1" (also ""), "1.5" or "2".
	StopBits string
	// ReadTimeout bounds each Read: a Read that sees no byte for this long
	// returns 0 bytes and a nil error. Must be > 0.
	ReadTimeout time.Duration
	// WriteTimeout bounds each Write: output the line does not take within
	// it is an error (0: 1 s).
	WriteTimeout time.Duration
	// RS485 is the half-duplex direction control (zero: off). OpenSerial
	// applies it: RS485Kernel sets the tty's RS-485 mode after opening,
	// RS485GPIO drives DE around every Write.
	RS485 RS485Config
}

// Port is an open serial line. Read follows go.bug.st/serial: after
// ReadTimeout without data it returns (0, nil); an unplugged device gives an
// error. Close must wake a blocked Read.
type Port interface {
	Read(p []byte) (int, error)
	Write(p []byte) (int, error)
	Close() error
}

// OpenFunc opens the configured port. OpenSerial is the real one; tests swap
// in fakes or wrappers (Options.Open).
type OpenFunc func(cfg PortConfig) (Port, error)

func (c *PortConfig) mode() (*serial.Mode, error) {
	m := &serial.Mode{BaudRate: c.Baud, DataBits: c.DataBits}
	if c.Path == "" {
		return nil, errors.New("shoe: device: no serial device configured")
	}
	if c.Baud <= 0 {
		return nil, fmt.Errorf("shoe: baud = %d: must be a positive line speed such as 9600 or 115200", c.Baud)
	}
	switch c.DataBits {
	case 0:
		m.DataBits = 8
	case 5, 6, 7, 8:
	default:
		return nil, fmt.Errorf("shoe: data_bits = %d: want 5, 6, 7 or 8", c.DataBits)
	}
	switch strings.ToLower(c.Parity) {
	case "", "none", "n":
		m.Parity = serial.NoParity
	case "odd", "o":
		m.Parity = serial.OddParity
	case "even", "e":
		m.Parity = serial.EvenParity
	case "mark", "m":
		m.Parity = serial.MarkParity
	case "space", "s":
		m.Parity = serial.SpaceParity
	default:
		return nil, fmt.Errorf("shoe: parity = %q: want none, odd, even, mark or space", c.Parity)
	}
	switch c.StopBits {
	case "", "1":
		m.StopBits = serial.OneStopBit
	case "1.5":
		m.StopBits = serial.OnePointFiveStopBits
	case "2":
		m.StopBits = serial.TwoStopBits
	default:
		return nil, fmt.Errorf("shoe: stop_bits = %q: want 1, 1.5 or 2", c.StopBits)
	}
	if c.ReadTimeout <= 0 {
		return nil, fmt.Errorf("shoe: read timeout %v: must be positive", c.ReadTimeout)
	}
	if err := c.RS485.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// serialPort is a go.bug.st/serial port plus the flock that keeps other
// processes off the device.
type serialPort struct {
	serial.Port
	name         string
	writeTimeout time.Duration
	// lockFD holds the flock. It is a second, non-blocking descriptor of the
	// same tty (termios settings belong to the tty, not the descriptor), and
	// writes go through it so that a line that cannot drain makes Write
	// time out instead of blocking a goroutine forever: go.bug.st/serial's
	// own descriptor is blocking and its Close does not wake a writer.
	lockFD int
	fdMu   sync.RWMutex // held (R) by Write while it uses lockFD
	// de is set in RS485GPIO mode; charTime is one character's time on
	// the wire (start, data, parity and stop bits), for draining.
	de        *deControl
	charTime  time.Duration
	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// OpenSerial opens cfg.Path with go.bug.st/serial in raw mode, after taking
// an exclusive flock(2) on the device: a second opener (another process, or
// another OpenSerial in this one) gets an error wrapping ErrBusy that names
// the device. The lock is on the device node the symlink points to, so two
// different symlinks to one adapter still conflict. No modem-status ioctl is
// used, so pseudo-terminals work. A missing device gives an error wrapping
// fs.ErrNotExist. With cfg.RS485 in RS485Kernel mode the tty is put in
// RS-485 mode (TIOCSRS485) and the settings read back (TIOCGRS485); a
// driver that refuses or changes them gives an error wrapping ErrRS485.
// In RS485GPIO mode DE is released at open and asserted around each
// Write.
func OpenSerial(cfg PortConfig) (Port, error) {
	mode, err := cfg.mode()
	if err != nil {
		return nil, err
	}
	name := describePath(cfg.Path)
	// The lock descriptor: O_NONBLOCK so the open never waits for carrier,
	// O_NOCTTY so the device never becomes our controlling terminal.
	fd, err := unix.Open(cfg.Path, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("shoe: open %s: %w", name, err)
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is locked by another process or opener (flock): is another sabotd running?", ErrBusy, name)
		}
		return nil, fmt.Errorf("shoe: flock %s: %w", name, err)
	}
	sp, err := serialport.Open(cfg.Path, mode)
	if err != nil {
		unix.Close(fd)
		var pe *serial.PortError
		if errors.As(err, &pe) && pe.Code() == serial.PortBusy {
			return nil, fmt.Errorf("%w: %s: %v", ErrBusy, name, err)
		}
		return nil, fmt.Errorf("shoe: open %s: %w", name, err)
	}
	// The symlink could have been re-pointed between the two opens (an
	// adapter unplugged and another plugged in): make sure the lock and the
	// port are the same device.
	var locked unix.Stat_t
	if err := unix.Fstat(fd, &locked); err == nil {
		var now unix.Stat_t
		if err := unix.Stat(cfg.Path, &now); err != nil || now.Rdev != locked.Rdev || now.Ino != locked.Ino {
			sp.Close()
			unix.Close(fd)
			return nil, fmt.Errorf("shoe: open %s: the device changed while opening it: %w", name, fs.ErrNotExist)
		}
	}
	if err := sp.SetReadTimeout(cfg.ReadTimeout); err != nil {
		sp.Close()
		unix.Close(fd)
		return nil, fmt.Errorf("shoe: set read timeout on %s: %w", name, err)
	}
	wt := cfg.WriteTimeout
	if wt <= 0 {
		wt = time.Second
	}
	p := &serialPort{Port: sp, name: name, writeTimeout: wt, lockFD: fd, charTime: charTime(cfg.Baud, mode)}
	switch cfg.RS485.Mode {
	case RS485Kernel:
		if err := setKernelRS485(cfg.RS485.Ioctl, fd, name, cfg.RS485); err != nil {
			sp.Close()
			unix.Close(fd)
			return nil, err
		}
	case RS485GPIO:
		p.de = newDEControl(cfg.RS485)
		if err := p.de.release(); err != nil {
			sp.Close()
			unix.Close(fd)
			return nil, fmt.Errorf("%w (device %s)", err, name)
		}
	}
	return p, nil
}

// charTime is the time one character takes on the wire at baud.
func charTime(baud int, m *serial.Mode) time.Duration {
	bits := 1 + m.DataBits + 1 // start, data, one stop bit
	if m.Parity != serial.NoParity {
		bits++
	}
	if m.StopBits != serial.OneStopBit {
		bits++
	}
	return time.Duration(bits) * time.Second / time.Duration(baud)
}

// writePoll is how long Write waits for room in one go before it looks at
// the deadline and at Close again.
const writePoll = 20 * time.Millisecond

// Write writes all of b, or fails: with an error wrapping os.ErrDeadlineExceeded if the
// line has not taken it within the write timeout (nothing drains the output:
// flow control held, or a pseudo-terminal nobody reads), or with ErrClosed
// once Close has been called. It never blocks longer than the write timeout
// plus one poll interval (20 ms).
//
// In RS485GPIO mode DE is asserted before and released after, once the
// bytes have left the UART (see drain), with the configured delays.
func (p *serialPort) Write(b []byte) (int, error) {
	p.fdMu.RLock()
	defer p.fdMu.RUnlock()
	deadline := time.Now().Add(p.writeTimeout)
	if p.de == nil {
		return p.write(b, deadline)
	}
	return p.de.write(b, func(b []byte) (int, error) { return p.write(b, deadline) }, func() error { return p.drain(deadline) })
}

// write is Write without direction control; fdMu is held.
func (p *serialPort) write(b []byte, deadline time.Time) (int, error) {
	n := 0
	for n < len(b) {
		if p.closed.Load() {
			return n, fmt.Errorf("shoe: write %s: %w", p.name, ErrClosed)
		}
		m, err := unix.Write(p.lockFD, b[n:])
		if m > 0 {
			n += m
		}
		switch {
		case err == nil || err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			left := time.Until(deadline)
			if left <= 0 {
				return n, fmt.Errorf("shoe: write %s: %d of %d bytes not taken within %v: %w", p.name, len(b)-n, len(b), p.writeTimeout, os.ErrDeadlineExceeded)
			}
			if left > writePoll {
				left = writePoll
			}
			fds := []unix.PollFd{{Fd: int32(p.lockFD), Events: unix.POLLOUT}}
			if _, err := unix.Poll(fds, int(left/time.Millisecond)+1); err != nil && err != unix.EINTR {
				return n, fmt.Errorf("shoe: write %s: poll: %w", p.name, err)
			}
		default:
			return n, fmt.Errorf("shoe: write %s: %w", p.name, err)
		}
	}
	return n, nil
}

// drain waits until the bytes written have left the UART: the tty's
// output queue (TIOCOUTQ, polled until deadline, so a line held by flow
// control fails instead of hanging), then tcdrain (TCSBRK with a non-zero
// argument) for the driver's FIFO and shift register, which the UART
// driver bounds by the FIFO's own drain time. On a pseudo-terminal both
// return at once. fdMu is held.
func (p *serialPort) drain(deadline time.Time) error {
	for {
		if p.closed.Load() {
			return fmt.Errorf("shoe: drain %s: %w", p.name, ErrClosed)
		}
		q, err := unix.IoctlGetInt(p.lockFD, unix.TIOCOUTQ)
		if err != nil {
			return fmt.Errorf("shoe: drain %s: TIOCOUTQ: %w", p.name, err)
		}
		if q <= 0 {
			break
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("shoe: drain %s: %d bytes still queued after %v: %w", p.name, q, p.writeTimeout, os.ErrDeadlineExceeded)
		}
		time.Sleep(min(max(time.Duration(q)*p.charTime, 100*time.Microsecond), writePoll, left))
	}
	for {
		err := unix.IoctlSetInt(p.lockFD, unix.TCSBRK, 1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("shoe: drain %s: tcdrain: %w", p.name, err)
		}
		return nil
	}
}

// Close discards output the shoe has not taken (so a stuck line cannot make
// the kernel wait for it to drain), closes the port, which wakes a blocked
// Read, and releases the lock. It is idempotent.
func (p *serialPort) Close() error {
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		_ = p.Port.ResetOutputBuffer()
		p.closeErr = p.Port.Close()
		p.fdMu.Lock() // a Write in progress notices closed within writePoll
		unix.Close(p.lockFD)
		if p.de != nil {
			_ = p.de.release() // Write released it; make sure
		}
		p.fdMu.Unlock()
	})
	return p.closeErr
}

// describePath gives "path" or "path (-> target)" for messages.
func describePath(path string) string {
	if t, err := filepath.EvalSymlinks(path); err == nil && t != path {
		return path + " (-> " + t + ")"
	}
	return path
}
