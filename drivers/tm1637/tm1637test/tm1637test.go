// Package tm1637test is a fake TM1637 on a fake pin pair, for tests: the
// two pins (built on periph.io/x/conn/v3/gpio/gpiotest) record every level
// change, and a decoder follows the bus as the chip would — start and stop
// conditions, LSB-first bytes, the ACK the chip drives on the ninth clock —
// and keeps the chip's display RAM, brightness and on/off state, so a test
// asserts exactly which segments are lit.
package tm1637test

import (
	"fmt"
	"sync"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"

	"github.com/sabot-table/sabot/display/segment"
)

// Change is one level change on the bus, as the master made it.
type Change struct {
	Pin   string     // "CLK" or "DIO"
	Level gpio.Level // the level the bus line shows after the change
	Input bool       // DIO was released (switched to input) rather than driven
}

// String is e.g. "CLK=High", "DIO=Low", "DIO=in".
func (c Change) String() string {
	if c.Input {
		return c.Pin + "=in"
	}
	return c.Pin + "=" + c.Level.String()
}

// Transfer is what happened between one start and the following stop.
type Transfer struct {
	Bytes []byte
	Acks  []bool // Acks[i]: the ninth clock after Bytes[i] saw DIO low
}

// Bus is a fake TM1637 on two fake pins. Create it with NewBus; hand CLK and
// DIO to tm1637.New. All fields after mu are guarded by the bus: read them
// through the methods while the driver may run.
type Bus struct {
	CLK *Pin
	DIO *Pin

	mu sync.Mutex
	// noAck makes the chip never acknowledge (chip absent).
	noAck bool

	changes   []Change
	transfers []Transfer
	errs      []string

	clk, dioDriven gpio.Level
	dioInput       bool
	inTransfer     bool
	bits, nbits    int
	cur            Transfer
	acking         bool // chip pulls DIO low (between 8th and 9th falling CLK)
	ackClock       bool // the next rising CLK is the ninth

	ram        [6]byte
	on         bool
	brightness int
	addr       int
	autoInc    bool
}

// Pin is one of the bus's two pins: a gpiotest.Pin whose levels go through
// the bus decoder.
type Pin struct {
	gpiotest.Pin
	bus  *Bus
	role string // "CLK" or "DIO"
}

// NewBus returns an idle bus (both lines high) with a chip that
// acknowledges; its pins are named "CLK" and "DIO".
func NewBus() *Bus { return NewBusNamed("CLK", "DIO") }

// NewBusNamed is NewBus with pins named clk and dio (e.g. "GPIO23",
// "GPIO24"), for registering them with gpioreg.
func NewBusNamed(clk, dio string) *Bus {
	b := &Bus{clk: gpio.High, dioDriven: gpio.High, dioInput: true, autoInc: true}
	b.CLK = &Pin{Pin: gpiotest.Pin{N: clk, Num: -1, L: gpio.High}, bus: b, role: "CLK"}
	b.DIO = &Pin{Pin: gpiotest.Pin{N: dio, Num: -1, L: gpio.High}, bus: b, role: "DIO"}
	return b
}

// SetNoAck makes the fake chip stop (true) or resume (false) acknowledging.
func (b *Bus) SetNoAck(v bool) {
	b.mu.Lock()
	b.noAck = v
	b.mu.Unlock()
}

// Out implements gpio.PinOut.
func (p *Pin) Out(l gpio.Level) error {
	if err := p.Pin.Out(l); err != nil {
		return err
	}
	p.bus.out(p.role, l)
	return nil
}

// In implements gpio.PinIn: on DIO it releases the line.
func (p *Pin) In(pull gpio.Pull, edge gpio.Edge) error {
	if edge != gpio.NoEdge {
		return fmt.Errorf("tm1637test: %s: edge detection not supported", p.N)
	}
	p.Pin.Lock()
	p.Pin.P = pull
	p.Pin.Unlock()
	p.bus.release(p.role)
	return nil
}

// Read implements gpio.PinIn: the level on the line, the chip's ACK
// included.
func (p *Pin) Read() gpio.Level {
	return p.bus.read(p.role)
}

// WaitForEdge implements gpio.PinIn; the fake has no edge detection.
func (p *Pin) WaitForEdge(time.Duration) bool { return false }

// dioLevel is the level on DIO: driven by the master, or when released,
// low while the chip acknowledges, else pulled up.
func (b *Bus) dioLevel() gpio.Level {
	if !b.dioInput {
		return b.dioDriven
	}
	if b.acking && !b.noAck {
		return gpio.Low
	}
	return gpio.High
}

func (b *Bus) read(pin string) gpio.Level {
	b.mu.Lock()
	defer b.mu.Unlock()
	if pin == "CLK" {
		return b.clk
	}
	return b.dioLevel()
}

func (b *Bus) release(pin string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if pin != "DIO" {
		b.errs = append(b.errs, "CLK switched to input")
		return
	}
	before := b.dioLevel()
	b.dioInput = true
	b.changes = append(b.changes, Change{Pin: "DIO", Level: b.dioLevel(), Input: true})
	b.dioChanged(before)
}

func (b *Bus) out(pin string, l gpio.Level) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch pin {
	case "CLK":
		if l == b.clk {
			return
		}
		b.clk = l
		b.changes = append(b.changes, Change{Pin: "CLK", Level: l})
		if l {
			b.clkRise()
		} else {
			b.clkFall()
		}
	case "DIO":
		before := b.dioLevel()
		wasInput := b.dioInput
		b.dioInput = false
		b.dioDriven = l
		if b.acking && !b.noAck && l == gpio.High {
			b.errs = append(b.errs, "DIO driven high while the chip pulls it low (ACK): bus contention")
		}
		if before == l && !wasInput {
			return
		}
		b.changes = append(b.changes, Change{Pin: "DIO", Level: l})
		b.dioChanged(before)
	}
}

// dioChanged detects start and stop conditions: DIO changing while CLK is
// high.
func (b *Bus) dioChanged(before gpio.Level) {
	now := b.dioLevel()
	if now == before || b.clk == gpio.Low {
		return
	}
	if now == gpio.Low { // start
		if b.inTransfer {
			b.errs = append(b.errs, "start condition inside a transfer")
		}
		b.inTransfer = true
		b.cur = Transfer{}
		b.bits, b.nbits = 0, 0
		b.ackClock = false
		return
	}
	// stop
	if !b.inTransfer {
		b.errs = append(b.errs, "stop condition outside a transfer")
		return
	}
	// The stop condition's own clock (CLK rises before DIO does) samples
	// one bit; anything more is a byte cut short.
	if b.nbits > 1 {
		b.errs = append(b.errs, fmt.Sprintf("stop after %d bits of a byte", b.nbits))
	}
	b.inTransfer = false
	b.transfers = append(b.transfers, b.cur)
	b.execute(b.cur)
}

func (b *Bus) clkRise() {
	if !b.inTransfer {
		return
	}
	if b.ackClock {
		b.cur.Acks = append(b.cur.Acks, b.dioLevel() == gpio.Low)
		return
	}
	if b.dioLevel() {
		b.bits |= 1 << b.nbits
	}
	b.nbits++
	if b.nbits == 8 {
		b.cur.Bytes = append(b.cur.Bytes, byte(b.bits))
		b.bits, b.nbits = 0, 0
	}
}

func (b *Bus) clkFall() {
	if !b.inTransfer {
		return
	}
	switch {
	case b.ackClock:
		// End of the ninth clock: the chip releases DIO.
		b.ackClock = false
		b.acking = false
	case b.nbits == 0 && len(b.cur.Bytes) > len(b.cur.Acks):
		// End of the eighth bit: the chip pulls DIO low for the ACK.
		b.acking = true
		b.ackClock = true
	}
}

// execute applies a finished transfer to the chip state, as the TM1637
// does: 0x40/0x44 data command, 0xC0+n address then data, 0x80/0x88|b
// display control. Transfers with no ACK are ignored (the chip was absent).
func (b *Bus) execute(t Transfer) {
	if len(t.Bytes) == 0 || b.noAck {
		return
	}
	cmd := t.Bytes[0]
	switch cmd & 0xC0 {
	case 0x40:
		b.autoInc = cmd&0x04 == 0
	case 0xC0:
		b.addr = int(cmd & 0x07)
		for _, v := range t.Bytes[1:] {
			if b.addr < len(b.ram) {
				b.ram[b.addr] = v
			}
			if b.autoInc {
				b.addr++
			}
		}
	case 0x80:
		b.on = cmd&0x08 != 0
		b.brightness = int(cmd & 0x07)
	default:
		b.errs = append(b.errs, fmt.Sprintf("unknown command %#02x", cmd))
	}
}

// Changes returns every level change so far.
func (b *Bus) Changes() []Change {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Change(nil), b.changes...)
}

// Transfers returns the transfers decoded so far, each with its ACKs.
func (b *Bus) Transfers() []Transfer {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Transfer, len(b.transfers))
	for i, t := range b.transfers {
		out[i] = Transfer{Bytes: append([]byte(nil), t.Bytes...), Acks: append([]bool(nil), t.Acks...)}
	}
	return out
}

// Errors returns protocol violations seen on the bus (start inside a
// transfer, a stop mid-byte, bus contention during an ACK, ...).
func (b *Bus) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

// Reset forgets the recorded changes, transfers and errors (the chip state
// is kept).
func (b *Bus) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.changes, b.transfers, b.errs = nil, nil, nil
}

// RAM returns the chip's display RAM: the segment byte of grids 0..5.
func (b *Bus) RAM() [6]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ram
}

// Shown returns the segments of the first n grids as the dealer sees them:
// all blank while the display is off.
func (b *Bus) Shown(n int) []segment.Segments {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]segment.Segments, n)
	if !b.on {
		return out
	}
	for i := 0; i < n && i < len(b.ram); i++ {
		out[i] = segment.Segments(b.ram[i])
	}
	return out
}

// Text returns the first n grids as glyph characters ('?' for a pattern not
// in the glyph table, '.' after a lit decimal point), "" parts blank while
// the display is off: e.g. "9P.n7".
func (b *Bus) Text(n int) string {
	var s []rune
	for _, seg := range b.Shown(n) {
		s = append(s, seg.Char())
		if seg&segment.SegDP != 0 {
			s = append(s, '.')
		}
	}
	return string(s)
}

// On reports whether the display is on, and Brightness its pulse-width
// setting 0..7.
func (b *Bus) On() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.on
}

// Brightness returns the pulse-width setting 0..7 of the last display
// control command.
func (b *Bus) Brightness() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.brightness
}

var _ gpio.PinIO = (*Pin)(nil)
