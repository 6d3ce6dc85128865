// Package tm1637 drives TM1637 LED display controllers (the common 4- and
// 6-digit 7-segment modules) over two GPIO pins, bit-banged: CLK as a
// gpio.PinOut and DIO as a gpio.PinIO.
//
// Wire protocol (TM1637 datasheet): a transfer starts with DIO falling while
// CLK is high and stops with DIO rising while CLK is high; bytes go least
// significant bit first, DIO changing while CLK is low and sampled by the
// chip on CLK's rising edge; after each byte the chip pulls DIO low for a
// ninth clock (ACK). The driver releases DIO (input with pull-up) for the
// ninth clock and reads it while CLK is high: a high DIO means no chip
// answered, and is an error naming the chip.
//
// The pure encoder (Encode) is split from the bus I/O (Dev).
package tm1637

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"periph.io/x/conn/v3/gpio"

	"github.com/sabot-table/sabot/display/segment"
)

// DefaultHalfBit is the default time the bus is held after each level
// change: 10 µs. A bit takes three changes (CLK low, DIO, CLK high), so the
// clock runs at about 33 kHz, far under the datasheet's 250 kHz maximum and
// tolerant of the modules' RC-loaded lines.
const DefaultHalfBit = 10 * time.Microsecond

// ErrNoAck is wrapped by the error returned when the chip does not pull DIO
// low on the ninth clock of a byte (chip absent, unpowered or miswired).
var ErrNoAck = errors.New("tm1637: no ACK from the TM1637")

// Opts configures a Dev. The zero value (or nil) is a 4-digit module, digit
// i on grid i, DefaultHalfBit timing.
type Opts struct {
	// Digits is the number of digits of the module, 1..6; 0 means 4.
	Digits int
	// Order maps frame digit i (left to right) to the chip's grid
	// Order[i]. nil means grid i. Many 6-digit modules are wired
	// {2, 1, 0, 5, 4, 3}.
	Order []int
	// HalfBit is the time between two level changes on the bus; 0 means
	// DefaultHalfBit.
	HalfBit time.Duration
	// Delay waits d; nil means a busy wait on the monotonic clock
	// (time.Sleep is far coarser than microseconds). Tests pass a no-op.
	Delay func(d time.Duration)
}

// Dev is one TM1637 on a CLK/DIO pin pair. It implements segment.Renderer.
// Its methods are safe for concurrent use.
type Dev struct {
	mu    sync.Mutex
	clk   gpio.PinOut
	dio   gpio.PinIO
	opts  Opts
	delay func(time.Duration)
}

// New returns a Dev on the two pins and sets both lines high (bus idle).
// It does not talk to the chip: the first Render does, and reports a missing
// chip. Errors: invalid Opts, or a pin that cannot be set.
func New(clk gpio.PinOut, dio gpio.PinIO, opts *Opts) (*Dev, error) {
	if clk == nil || dio == nil {
		return nil, errors.New("tm1637: CLK and DIO pins are required")
	}
	var o Opts
	if opts != nil {
		o = *opts
	}
	if o.Digits == 0 {
		o.Digits = 4
	}
	if o.Digits < 1 || o.Digits > MaxGrids {
		return nil, fmt.Errorf("tm1637: %d digits, want 1..%d", o.Digits, MaxGrids)
	}
	if o.Order != nil {
		if len(o.Order) != o.Digits {
			return nil, fmt.Errorf("tm1637: digit order has %d entries for %d digits", len(o.Order), o.Digits)
		}
		if _, err := Encode(segment.Blank(o.Digits, 0), o.Order); err != nil {
			return nil, err
		}
	}
	if o.HalfBit <= 0 {
		o.HalfBit = DefaultHalfBit
	}
	d := &Dev{clk: clk, dio: dio, opts: o, delay: o.Delay}
	if d.delay == nil {
		d.delay = spin
	}
	if err := clk.Out(gpio.High); err != nil {
		return nil, fmt.Errorf("tm1637: CLK %s: %w", clk, err)
	}
	if err := dio.Out(gpio.High); err != nil {
		return nil, fmt.Errorf("tm1637: DIO %s: %w", dio, err)
	}
	return d, nil
}

// spin waits d by busy-waiting on the monotonic clock.
func spin(d time.Duration) {
	t0 := time.Now()
	for time.Since(t0) < d {
	}
}

// String names the chip and its pins, e.g. "TM1637(CLK=GPIO23, DIO=GPIO24)".
func (d *Dev) String() string {
	return fmt.Sprintf("TM1637(CLK=%s, DIO=%s)", d.clk.Name(), d.dio.Name())
}

// Digits returns the number of digits of the module.
func (d *Dev) Digits() int { return d.opts.Digits }

// Render shows f: the frame must have at most Digits digits (fewer are
// padded blank on the right). Blinking digits are shown lit. Errors: a
// frame too wide, a missing ACK (wraps ErrNoAck, names the byte), or a pin
// error.
func (d *Dev) Render(f segment.Frame) error {
	if len(f.Digits) > d.opts.Digits {
		return fmt.Errorf("tm1637: frame has %d digits, %s has %d", len(f.Digits), d, d.opts.Digits)
	}
	if len(f.Digits) < d.opts.Digits {
		g := segment.Blank(d.opts.Digits, f.Brightness)
		copy(g.Digits, f.Digits)
		f = g
	}
	transfers, err := Encode(f, d.opts.Order)
	if err != nil {
		return err
	}
	return d.send(transfers)
}

// Off turns the display off (display control 0x80); RAM is kept.
func (d *Dev) Off() error {
	return d.send([][]byte{{CmdDisplayOff}})
}

// Halt turns the display off. It implements conn.Resource.
func (d *Dev) Halt() error { return d.Off() }

func (d *Dev) send(transfers [][]byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, t := range transfers {
		if err := d.transfer(t); err != nil {
			return err
		}
	}
	return nil
}

// transfer sends one start … stop transfer. On a missing ACK the transfer
// is still closed with a stop condition, so the bus is left idle.
func (d *Dev) transfer(b []byte) error {
	if err := d.start(); err != nil {
		return err
	}
	var failed error
	for i, c := range b {
		ack, err := d.writeByte(c)
		if err != nil {
			failed = err
			break
		}
		if !ack {
			failed = fmt.Errorf("%w: %s did not acknowledge byte %d (%#02x) of transfer % x", ErrNoAck, d, i, c, b)
			break
		}
	}
	if err := d.stop(); err != nil && failed == nil {
		failed = err
	}
	return failed
}

func (d *Dev) setCLK(l gpio.Level) error {
	if err := d.clk.Out(l); err != nil {
		return fmt.Errorf("tm1637: CLK %s: %w", d.clk, err)
	}
	d.delay(d.opts.HalfBit)
	return nil
}

func (d *Dev) setDIO(l gpio.Level) error {
	if err := d.dio.Out(l); err != nil {
		return fmt.Errorf("tm1637: DIO %s: %w", d.dio, err)
	}
	d.delay(d.opts.HalfBit)
	return nil
}

// start: with CLK high, DIO falls. DIO is raised first while CLK is low (it
// may be released after an ACK).
func (d *Dev) start() error {
	if err := d.setDIO(gpio.High); err != nil {
		return err
	}
	if err := d.setCLK(gpio.High); err != nil {
		return err
	}
	return d.setDIO(gpio.Low)
}

// stop: CLK low, DIO low, CLK high, then DIO rises while CLK is high.
func (d *Dev) stop() error {
	for _, step := range []func() error{
		func() error { return d.setCLK(gpio.Low) },
		func() error { return d.setDIO(gpio.Low) },
		func() error { return d.setCLK(gpio.High) },
		func() error { return d.setDIO(gpio.High) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// writeByte clocks out c LSB first and reads the ACK on the ninth clock.
func (d *Dev) writeByte(c byte) (ack bool, err error) {
	for i := 0; i < 8; i++ {
		if err := d.setCLK(gpio.Low); err != nil {
			return false, err
		}
		if err := d.setDIO(gpio.Level(c&(1<<i) != 0)); err != nil {
			return false, err
		}
		if err := d.setCLK(gpio.High); err != nil {
			return false, err
		}
	}
	// Ninth clock: release DIO (input, pull-up) and let the chip pull it low.
	if err := d.setCLK(gpio.Low); err != nil {
		return false, err
	}
	if err := d.dio.In(gpio.PullUp, gpio.NoEdge); err != nil {
		return false, fmt.Errorf("tm1637: DIO %s: %w", d.dio, err)
	}
	d.delay(d.opts.HalfBit)
	if err := d.setCLK(gpio.High); err != nil {
		return false, err
	}
	ack = d.dio.Read() == gpio.Low
	if err := d.setCLK(gpio.Low); err != nil {
		return false, err
	}
	return ack, nil
}

var _ segment.Renderer = (*Dev)(nil)
