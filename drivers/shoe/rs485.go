package shoe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
	"periph.io/x/conn/v3/gpio"
)

// RS-485 direction control modes (RS485Config.Mode, [shoe] rs485).
const (
	// RS485Off: no direction control (RS-232, USB, RS-422 or 4-wire
	// RS-485, and adapters that switch direction by themselves). "" means
	// it too.
	RS485Off = "off"
	// RS485Kernel: the tty driver drives the transceiver's DE/RE from RTS
	// (struct serial_rs485 set with TIOCSRS485), on adapters whose driver
	// supports it.
	RS485Kernel = "kernel"
	// RS485GPIO: a GPIO is the transceiver's DE/RE line, asserted by the
	// writer around every write to the port.
	RS485GPIO = "gpio"
)

// MaxRS485Delay bounds the delays before and after sending: 100 ms, the
// kernel's own cap (RS485_MAX_RTS_DELAY in the serial core).
const MaxRS485Delay = 100 * time.Millisecond

// ErrRS485 is wrapped by the error of an open whose RS-485 mode the
// adapter refuses ([shoe] rs485 = "kernel" on a driver without RS-485
// support, or one that does not keep the settings asked for). Run returns
// it at once instead of retrying: only a configuration (or adapter) change
// can fix it.
var ErrRS485 = errors.New("shoe: RS-485 mode refused by the adapter")

// DriverEnable is the transceiver's driver-enable line in RS485GPIO mode:
// a gpio.PinOut (periph's gpio.PinIO and gpiotest.Pin have this method).
type DriverEnable interface {
	Out(l gpio.Level) error
}

// RS485Config is the half-duplex direction control of an RS-485 line.
// The zero value is off.
type RS485Config struct {
	// Mode is RS485Off (also ""), RS485Kernel or RS485GPIO.
	Mode string
	// DE is the DE/RE line for RS485GPIO (required then).
	DE DriverEnable
	// DEName names DE in messages and checks ("GPIO18"); Check requires it
	// (or DE) for RS485GPIO.
	DEName string
	// ActiveLow: the transceiver transmits while DE is low. In RS485GPIO
	// mode the pin is driven low to transmit; in RS485Kernel mode the
	// kernel is asked for RTS_AFTER_SEND instead of RTS_ON_SEND (RTS's
	// logical level as the kernel defines it).
	ActiveLow bool
	// DelayBefore is the wait after asserting DE before the first bit,
	// DelayAfter the wait after the last bit has left the UART before
	// releasing it: 0–MaxRS485Delay. In RS485Kernel mode they must be whole
	// milliseconds (struct serial_rs485 counts milliseconds).
	DelayBefore time.Duration
	DelayAfter  time.Duration
	// RxDuringTx keeps the UART's receiver on while sending
	// (SER_RS485_RX_DURING_TX; RS485Kernel only — in RS485GPIO mode the
	// wiring decides: /RE tied to DE does not hear the host's own bytes).
	RxDuringTx bool
	// Ioctl issues the RS-485 ioctls in RS485Kernel mode; nil is the real
	// ioctl(2) (KernelIoctl). Tests give a *FakeRS485.
	Ioctl RS485Ioctl
}

// Check returns every problem of c, each with its [shoe] key ("rs485",
// "rs485_de", "rs485_delay_before_us", "rs485_delay_after_us",
// "rs485_rx_during_tx"); sabotd's configuration and New both call it.
func (c RS485Config) Check() []*SettingError {
	var errs []*SettingError
	bad := func(key, format string, args ...any) {
		errs = append(errs, &SettingError{Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	switch c.Mode {
	case "", RS485Off, RS485Kernel, RS485GPIO:
	default:
		bad("rs485", "%q: want \"off\", \"kernel\" (the adapter's driver switches RTS) or \"gpio\" (a GPIO switches the transceiver)", c.Mode)
	}
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"rs485_delay_before_us", c.DelayBefore}, {"rs485_delay_after_us", c.DelayAfter}} {
		us := d.v.Microseconds()
		switch {
		case d.v < 0 || d.v > MaxRS485Delay:
			bad(d.key, "%d: must be 0–%d (µs)", us, MaxRS485Delay.Microseconds())
		case c.Mode == RS485Kernel && d.v%time.Millisecond != 0:
			bad(d.key, "%d: with rs485 = \"kernel\" the delay is whole milliseconds (struct serial_rs485 counts ms): use %d or %d", us, d.v.Truncate(time.Millisecond).Microseconds(), d.v.Truncate(time.Millisecond).Microseconds()+1000)
		}
	}
	if c.Mode == RS485GPIO {
		if c.DE == nil && c.DEName == "" {
			bad("rs485_de", "required with rs485 = \"gpio\": the GPIO wired to the transceiver's DE and /RE, e.g. \"GPIO18\"")
		}
		if c.RxDuringTx {
			bad("rs485_rx_during_tx", "only with rs485 = \"kernel\": in gpio mode the wiring decides (tie /RE to DE so the host does not hear its own bytes)")
		}
	} else if c.DEName != "" {
		bad("rs485_de", "%q is only used with rs485 = \"gpio\" (rs485 is %q)", c.DEName, orOff(c.Mode))
	}
	return errs
}

func orOff(m string) string {
	if m == "" {
		return RS485Off
	}
	return m
}

// check is Check as one error, for New.
func (c RS485Config) check() error {
	if c.Mode == RS485GPIO && c.DE == nil {
		return errors.New("shoe: rs485 = \"gpio\": no DE pin (Options.RS485.DE)")
	}
	var errs []error
	for _, e := range c.Check() {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// The flags of struct serial_rs485 (Linux include/uapi/linux/serial.h).
const (
	SerRS485Enabled      = 1 << 0 // RS-485 mode on
	SerRS485RTSOnSend    = 1 << 1 // RTS logical 1 while sending
	SerRS485RTSAfterSend = 1 << 2 // RTS logical 1 after sending
	SerRS485RxDuringTx   = 1 << 4 // receiver on while sending
)

// SerialRS485Size is the size of struct serial_rs485: 8 32-bit words.
const SerialRS485Size = 32

// SerialRS485 is Linux's struct serial_rs485: flags, the RTS delays before
// and after sending in milliseconds, and five words of padding (addresses
// for 9-bit mode, which Sabot does not use).
type SerialRS485 struct {
	Flags              uint32
	DelayRTSBeforeSend uint32 // ms
	DelayRTSAfterSend  uint32 // ms
	Padding            [5]uint32
}

// Bytes is the struct as the kernel reads it (native byte order).
func (r SerialRS485) Bytes() [SerialRS485Size]byte {
	var b [SerialRS485Size]byte
	w := append([]uint32{r.Flags, r.DelayRTSBeforeSend, r.DelayRTSAfterSend}, r.Padding[:]...)
	for i, v := range w {
		binary.NativeEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// ParseSerialRS485 reads the struct from the kernel's bytes.
func ParseSerialRS485(b [SerialRS485Size]byte) SerialRS485 {
	var r SerialRS485
	r.Flags = binary.NativeEndian.Uint32(b[0:])
	r.DelayRTSBeforeSend = binary.NativeEndian.Uint32(b[4:])
	r.DelayRTSAfterSend = binary.NativeEndian.Uint32(b[8:])
	for i := range r.Padding {
		r.Padding[i] = binary.NativeEndian.Uint32(b[12+4*i:])
	}
	return r
}

// FlagString names the flags Sabot sets ("enabled|rts-on-send").
func (r SerialRS485) FlagString() string {
	var f []string
	for _, n := range []struct {
		bit  uint32
		name string
	}{{SerRS485Enabled, "enabled"}, {SerRS485RTSOnSend, "rts-on-send"}, {SerRS485RTSAfterSend, "rts-after-send"}, {SerRS485RxDuringTx, "rx-during-tx"}} {
		if r.Flags&n.bit != 0 {
			f = append(f, n.name)
		}
	}
	if len(f) == 0 {
		return "none"
	}
	return strings.Join(f, "|")
}

// Kernel is the struct serial_rs485 that RS485Kernel mode sets for c:
// enabled; RTS_ON_SEND (active-high DE) or RTS_AFTER_SEND (ActiveLow);
// RX_DURING_TX if asked; the delays in milliseconds.
func (c RS485Config) Kernel() SerialRS485 {
	r := SerialRS485{
		Flags:              SerRS485Enabled,
		DelayRTSBeforeSend: uint32(c.DelayBefore / time.Millisecond),
		DelayRTSAfterSend:  uint32(c.DelayAfter / time.Millisecond),
	}
	if c.ActiveLow {
		r.Flags |= SerRS485RTSAfterSend
	} else {
		r.Flags |= SerRS485RTSOnSend
	}
	if c.RxDuringTx {
		r.Flags |= SerRS485RxDuringTx
	}
	return r
}

// RS485Ioctl is the seam of RS485Kernel mode: ioctl(fd, req, arg) with req
// unix.TIOCSRS485 or unix.TIOCGRS485 and arg the struct's bytes (in for
// TIOCSRS485, out for TIOCGRS485).
type RS485Ioctl interface {
	IoctlRS485(fd int, req uint, arg *[SerialRS485Size]byte) error
}

// KernelIoctl is the real RS485Ioctl: ioctl(2).
type KernelIoctl struct{}

// IoctlRS485 implements RS485Ioctl with ioctl(2).
func (KernelIoctl) IoctlRS485(fd int, req uint, arg *[SerialRS485Size]byte) error {
	for {
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(unsafe.Pointer(arg)))
		switch e {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return e
	}
}

// FakeRS485 is an RS485Ioctl standing in for a tty driver with RS-485
// support: TIOCSRS485 keeps the struct given (less the flags in Unsupported,
// which the driver clears, as the serial core does) in State, TIOCGRS485
// returns State. With Err set, TIOCSRS485 fails with it (unix.ENOTTY: a
// driver without RS-485 mode). Lock it to read the fields while in use.
type FakeRS485 struct {
	sync.Mutex
	Err         error
	Unsupported uint32
	// Calls is every call, in order, with the bytes passed in.
	Calls []FakeRS485Call
	State [SerialRS485Size]byte
}

// FakeRS485Call is one call to a FakeRS485.
type FakeRS485Call struct {
	FD  int
	Req uint
	Arg [SerialRS485Size]byte // as passed in
}

// IoctlRS485 implements RS485Ioctl.
func (f *FakeRS485) IoctlRS485(fd int, req uint, arg *[SerialRS485Size]byte) error {
	f.Lock()
	defer f.Unlock()
	f.Calls = append(f.Calls, FakeRS485Call{FD: fd, Req: req, Arg: *arg})
	switch req {
	case unix.TIOCSRS485:
		if f.Err != nil {
			return f.Err
		}
		r := ParseSerialRS485(*arg)
		r.Flags &^= f.Unsupported
		f.State = r.Bytes()
		*arg = f.State
		return nil
	case unix.TIOCGRS485:
		*arg = f.State
		return nil
	}
	return unix.ENOTTY
}

// setKernelRS485 puts the tty on fd in RS-485 mode and reads the settings
// back; name is the device for messages. Refusals wrap ErrRS485.
func setKernelRS485(io RS485Ioctl, fd int, name string, c RS485Config) error {
	if io == nil {
		io = KernelIoctl{}
	}
	want := c.Kernel()
	arg := want.Bytes()
	if err := io.IoctlRS485(fd, unix.TIOCSRS485, &arg); err != nil {
		if errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
			return fmt.Errorf("%w: %s: [shoe] rs485 = \"kernel\": its driver has no RS-485 mode (TIOCSRS485: %w); use rs485 = \"gpio\" with a DE pin, or \"off\" for an adapter that switches direction by itself", ErrRS485, name, err)
		}
		return fmt.Errorf("shoe: %s: [shoe] rs485 = \"kernel\": TIOCSRS485: %w", name, err)
	}
	var back [SerialRS485Size]byte
	if err := io.IoctlRS485(fd, unix.TIOCGRS485, &back); err != nil {
		return fmt.Errorf("%w: %s: [shoe] rs485 = \"kernel\": reading the RS-485 settings back (TIOCGRS485): %v", ErrRS485, name, err)
	}
	got := ParseSerialRS485(back)
	const mask = SerRS485Enabled | SerRS485RTSOnSend | SerRS485RTSAfterSend | SerRS485RxDuringTx
	if got.Flags&mask != want.Flags || got.DelayRTSBeforeSend != want.DelayRTSBeforeSend || got.DelayRTSAfterSend != want.DelayRTSAfterSend {
		return fmt.Errorf("%w: %s: [shoe] rs485 = \"kernel\": asked for %s, delays %d/%d ms; the driver kept %s, delays %d/%d ms (check rs485_de_active_low, rs485_delay_before_us, rs485_delay_after_us and rs485_rx_during_tx against what the adapter supports)",
			ErrRS485, name, want.FlagString(), want.DelayRTSBeforeSend, want.DelayRTSAfterSend, got.FlagString(), got.DelayRTSBeforeSend, got.DelayRTSAfterSend)
	}
	return nil
}

// deControl is RS485GPIO mode: it drives the DE line around each write.
type deControl struct {
	pin           DriverEnable
	name          string     // the pin, for messages
	on, off       gpio.Level // transmit, receive
	before, after time.Duration
	sleep         func(time.Duration) // time.Sleep; tests record
}

func newDEControl(c RS485Config) *deControl {
	d := &deControl{pin: c.DE, name: c.DEName, on: gpio.High, off: gpio.Low, before: c.DelayBefore, after: c.DelayAfter, sleep: time.Sleep}
	if c.ActiveLow {
		d.on, d.off = gpio.Low, gpio.High
	}
	if d.name == "" {
		d.name = "DE"
	}
	return d
}

// release puts the transceiver in receive.
func (d *deControl) release() error {
	if err := d.pin.Out(d.off); err != nil {
		return fmt.Errorf("shoe: rs485_de %s: release: %w", d.name, err)
	}
	return nil
}

// write asserts DE, waits the before-delay, writes b, waits until drain
// says the bytes have left the UART, waits the after-delay and releases
// DE. DE is released whatever fails (at once, without the after-delay,
// when the write or the drain fails).
func (d *deControl) write(b []byte, write func([]byte) (int, error), drain func() error) (n int, err error) {
	if err := d.pin.Out(d.on); err != nil {
		_ = d.pin.Out(d.off)
		return 0, fmt.Errorf("shoe: rs485_de %s: assert: %w", d.name, err)
	}
	defer func() {
		if rerr := d.release(); rerr != nil && err == nil {
			err = rerr
		}
	}()
	if d.before > 0 {
		d.sleep(d.before)
	}
	if n, err = write(b); err != nil {
		return n, err
	}
	if err = drain(); err != nil {
		return n, err
	}
	if d.after > 0 {
		d.sleep(d.after)
	}
	return n, nil
}
