// Package ht16k33 drives HT16K33 LED controllers on I²C, as used on the
// 7-segment "backpacks" (Adafruit-style 0.56" 4-digit displays and 8-digit
// boards).
//
// Commands (HT16K33 datasheet): 0x21 system setup, oscillator on; 0x80|D
// display setup, D = 1 display on, plus blink rate <<1 (0 off, 1 = 2 Hz,
// 2 = 1 Hz, 3 = 0.5 Hz); 0xE0|n dimming, n = 0..15 (1/16 .. 16/16 duty);
// a write starting with the address 0x00 fills display RAM, 16 bytes, two
// per row (COM0..COM7): the low byte holds ROW0..ROW7, the high byte
// ROW8..ROW15.
//
// Digit layout. On the 4-digit backpack each digit is one COM row, its
// segments on ROW0..ROW7 in the display package's order (bit0 = a ... bit6
// = g, bit7 = dp), and the colon is COM2:
//
//	RAM address  0x00     0x02     0x04          0x06     0x08
//	shows        digit 0  digit 1  colon (bit 1)  digit 2  digit 3
//
// LayoutBackpack4 maps frame digits that way (the colon is lit when frame
// digit 1's decimal point is, the last-coup marker, as on clock-style
// TM1637 modules); LayoutLinear puts digit i at address 2i, for the 8-digit
// boards. The pure encoder (Encode) is split from the I²C I/O (Dev).
package ht16k33

import (
	"errors"
	"fmt"

	"periph.io/x/conn/v3/i2c"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/ledchip"
)

// Commands, from the HT16K33 datasheet.
const (
	CmdOscillatorOn = 0x21
	CmdDisplayOff   = 0x80
	CmdDisplayOn    = 0x81 // | blink<<1
	CmdDimming      = 0xE0 // | 0..15
	AddrRAM         = 0x00
)

// DefaultAddr is the I²C address with no address jumper bridged (0x70;
// jumpers give 0x71..0x77).
const DefaultAddr = 0x70

// Layout is a mapping of frame digits to display RAM.
type Layout uint8

const (
	// LayoutBackpack4 is the Adafruit-style 4-digit backpack: digits at
	// RAM 0x00, 0x02, 0x06, 0x08, colon at 0x04.
	LayoutBackpack4 Layout = iota
	// LayoutLinear puts frame digit i at RAM address 2i, up to 8 digits.
	LayoutLinear
)

// Digits returns how many digits the layout holds.
func (l Layout) Digits() int {
	if l == LayoutLinear {
		return 8
	}
	return 4
}

// Brightness maps a frame brightness (0..segment.MaxBrightness) to the
// dimming command's 0..15 (one to one, clamped).
func Brightness(b int) byte {
	return byte(segment.ClampBrightness(b))
}

// EncodeRAM returns the RAM write that shows f: the address byte 0x00 and
// the 16 RAM bytes. Blinking digits are encoded lit; digits past the
// frame's end are blank. Error: a frame wider than the layout.
func EncodeRAM(f segment.Frame, l Layout) ([]byte, error) {
	if len(f.Digits) > l.Digits() {
		return nil, fmt.Errorf("ht16k33: frame has %d digits, the layout holds %d", len(f.Digits), l.Digits())
	}
	b := make([]byte, 17)
	b[0] = AddrRAM
	segs := f.Segments(true)
	for i, s := range segs {
		row := i
		if l == LayoutBackpack4 && i >= 2 {
			row = i + 1 // skip the colon row
		}
		b[1+2*row] = byte(s)
	}
	if l == LayoutBackpack4 && len(segs) > 1 && segs[1]&segment.SegDP != 0 {
		b[1+2*2] = 0x02 // colon
	}
	return b, nil
}

// Encode returns every I²C write that shows f, in order: oscillator on,
// display on (no blink), dimming, then the RAM write. Sending the setup
// each time recovers a backpack that was power-cycled.
func Encode(f segment.Frame, l Layout) ([][]byte, error) {
	ram, err := EncodeRAM(f, l)
	if err != nil {
		return nil, err
	}
	return [][]byte{{CmdOscillatorOn}, {CmdDisplayOn}, {CmdDimming | Brightness(f.Brightness)}, ram}, nil
}

// Opts configures a Dev; nil means DefaultAddr and LayoutBackpack4.
type Opts struct {
	Addr   uint16 // 0 means DefaultAddr
	Layout Layout
}

// Dev is one HT16K33 backpack. It implements segment.Renderer; its methods
// are safe for concurrent use.
type Dev struct {
	dev    i2c.Dev
	layout Layout
	tx     *ledchip.Sender
}

// New returns a Dev on the I²C bus. It sends nothing.
func New(bus i2c.Bus, opts *Opts) (*Dev, error) {
	if bus == nil {
		return nil, errors.New("ht16k33: I²C bus is required")
	}
	var o Opts
	if opts != nil {
		o = *opts
	}
	if o.Addr == 0 {
		o.Addr = DefaultAddr
	}
	if o.Layout > LayoutLinear {
		return nil, fmt.Errorf("ht16k33: unknown layout %d", o.Layout)
	}
	d := &Dev{dev: i2c.Dev{Bus: bus, Addr: o.Addr}, layout: o.Layout}
	d.tx = ledchip.NewSender(&d.dev, func(w []byte, err error) error {
		return fmt.Errorf("ht16k33: %s: write %#02x: %w", d, w[0], err)
	})
	return d, nil
}

// String names the chip, bus and address, e.g. "HT16K33(I2C1@0x70)".
func (d *Dev) String() string {
	return fmt.Sprintf("HT16K33(%s@%#02x)", d.dev.Bus, d.dev.Addr)
}

// Digits returns the number of digits of the layout.
func (d *Dev) Digits() int { return d.layout.Digits() }

// Render shows f. Errors: a frame too wide, or the bus error (a missing
// backpack shows as the bus's no-ACK error), naming the chip.
func (d *Dev) Render(f segment.Frame) error {
	writes, err := Encode(f, d.layout)
	if err != nil {
		return err
	}
	return d.tx.Send(writes...)
}

// Halt turns the display off (RAM kept). It implements conn.Resource.
func (d *Dev) Halt() error {
	return d.tx.Send([]byte{CmdDisplayOff})
}

var _ segment.Renderer = (*Dev)(nil)
