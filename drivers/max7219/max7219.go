// Package max7219 drives MAX7219 (and MAX7221) LED display drivers over SPI:
// 8 digits per chip, chips cascaded DOUT → DIN, in no-decode mode so every
// segment comes from the display package's glyphs.
//
// Wire format (MAX7219 datasheet): each write is 16 bits, MSB first, the
// register address byte then the data byte, latched on the rising edge of
// LOAD/CS. With n cascaded chips a write is n×16 bits in one CS-low
// transfer; the first 16 bits shifted in end up in the chip farthest from
// the host, so the bytes for chip k (0 = the chip wired to the host) are at
// offset 2×(n−1−k). A chip that must not change is sent the no-op register.
//
// Digit layout: on the common 8-digit modules DIG0 is the rightmost digit,
// so frame digit i (left to right) goes to chip i/8, register
// DIGIT(7 − i%8). Chip 0 shows the leftmost eight digits.
//
// The pure encoder (Encode) is split from the SPI I/O (Dev).
package max7219

import (
	"errors"
	"fmt"

	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/ledchip"
)

// Registers, from the MAX7219 datasheet (table 2).
const (
	RegNoop        = 0x00
	RegDigit0      = 0x01 // DIGIT0..DIGIT7 are 0x01..0x08
	RegDecodeMode  = 0x09 // 0x00: no decode for any digit
	RegIntensity   = 0x0A // 0x00..0x0F: 1/32 .. 31/32 duty
	RegScanLimit   = 0x0B // 0..7: digits 0..n scanned
	RegShutdown    = 0x0C // 0: shutdown, 1: normal operation
	RegDisplayTest = 0x0F // 0: normal, 1: all segments lit
)

// DigitsPerChip is the number of digits one chip drives.
const DigitsPerChip = 8

// DefaultSpeed is the SPI clock Open uses: 1 MHz, a tenth of the chip's
// 10 MHz maximum, for cabled modules.
const DefaultSpeed = 1 * physic.MegaHertz

// SegmentByte converts display segments (bit0 = a ... bit6 = g, bit7 = dp)
// to the MAX7219's no-decode bit order: dp,a,b,c,d,e,f,g from bit7 to bit0.
func SegmentByte(s segment.Segments) byte {
	var b byte
	if s&segment.SegDP != 0 {
		b |= 0x80
	}
	for i, seg := range []segment.Segments{segment.SegA, segment.SegB, segment.SegC, segment.SegD, segment.SegE, segment.SegF, segment.SegG} {
		if s&seg != 0 {
			b |= 0x40 >> i
		}
	}
	return b
}

// Brightness maps a frame brightness (0..segment.MaxBrightness) to the
// intensity register, 0x00..0x0F (one to one, clamped).
func Brightness(b int) byte {
	return byte(segment.ClampBrightness(b))
}

// Encode returns the SPI transfers (one per CS-low period, each 2×chips
// bytes) that show f on a cascade of chips: display test off, no-decode
// mode, scan limit 7, the intensity, normal operation, then DIGIT0..DIGIT7.
// Every transfer writes the same register of every chip, so the sequence
// also recovers chips that lost their configuration through a supply
// glitch. Digits past the frame's end are blank; blinking digits are shown
// lit. Errors: chips < 1, or a frame wider than 8×chips.
func Encode(f segment.Frame, chips int) ([][]byte, error) {
	if chips < 1 {
		return nil, fmt.Errorf("max7219: %d chips, want at least 1", chips)
	}
	if len(f.Digits) > chips*DigitsPerChip {
		return nil, fmt.Errorf("max7219: frame has %d digits, %d chips drive %d", len(f.Digits), chips, chips*DigitsPerChip)
	}
	segs := f.Segments(true)
	all := func(reg, val byte) []byte {
		b := make([]byte, 2*chips)
		for i := 0; i < chips; i++ {
			b[2*i], b[2*i+1] = reg, val
		}
		return b
	}
	out := [][]byte{
		all(RegDisplayTest, 0),
		all(RegDecodeMode, 0),
		all(RegScanLimit, DigitsPerChip-1),
		all(RegIntensity, Brightness(f.Brightness)),
		all(RegShutdown, 1),
	}
	for reg := 0; reg < DigitsPerChip; reg++ {
		b := make([]byte, 2*chips)
		for k := 0; k < chips; k++ {
			i := k*DigitsPerChip + (DigitsPerChip - 1 - reg) // frame digit shown by chip k's DIGIT(reg)
			var v byte
			if i < len(segs) {
				v = SegmentByte(segs[i])
			}
			off := 2 * (chips - 1 - k)
			b[off], b[off+1] = byte(RegDigit0+reg), v
		}
		out = append(out, b)
	}
	return out, nil
}

// Opts configures a Dev. nil means one chip.
type Opts struct {
	// Chips is the number of cascaded chips; 0 means 1.
	Chips int
}

// Dev is a cascade of MAX7219 chips on one SPI chip select. It implements
// segment.Renderer; its methods are safe for concurrent use.
type Dev struct {
	c     conn.Conn
	chips int
	tx    *ledchip.Sender
}

// New returns a Dev on a connection already set up for the chip: an
// spi.Conn in mode 0, 8 bits, at most 10 MHz (see Open), or any conn.Conn
// whose Tx is one CS-low transfer. It sends nothing.
func New(c conn.Conn, opts *Opts) (*Dev, error) {
	if c == nil {
		return nil, errors.New("max7219: SPI connection is required")
	}
	chips := 1
	if opts != nil && opts.Chips != 0 {
		chips = opts.Chips
	}
	if chips < 1 {
		return nil, fmt.Errorf("max7219: %d chips, want at least 1", chips)
	}
	tx := ledchip.NewSender(c, func(b []byte, err error) error {
		return fmt.Errorf("max7219: %s: write register %#02x: %w", c, b[0], err)
	})
	return &Dev{c: c, chips: chips, tx: tx}, nil
}

// Open connects to the SPI port at DefaultSpeed, mode 0, 8 bits, and
// returns a Dev on it.
func Open(p spi.Port, opts *Opts) (*Dev, error) {
	c, err := p.Connect(DefaultSpeed, spi.Mode0, 8)
	if err != nil {
		return nil, fmt.Errorf("max7219: connect to %s: %w", p, err)
	}
	return New(c, opts)
}

// String names the chip cascade and its SPI connection.
func (d *Dev) String() string {
	return fmt.Sprintf("MAX7219(×%d on %s)", d.chips, d.c)
}

// Digits returns the number of digits of the cascade (8 per chip).
func (d *Dev) Digits() int { return d.chips * DigitsPerChip }

// Render shows f (see Encode for the transfers). Errors: a frame too wide,
// or the SPI transfer's error naming the register.
func (d *Dev) Render(f segment.Frame) error {
	tx, err := Encode(f, d.chips)
	if err != nil {
		return err
	}
	return d.tx.Send(tx...)
}

// Halt puts every chip in shutdown (display dark, registers kept). It
// implements conn.Resource.
func (d *Dev) Halt() error {
	b := make([]byte, 2*d.chips)
	for i := 0; i < d.chips; i++ {
		b[2*i] = RegShutdown
	}
	return d.tx.Send(b)
}

var _ segment.Renderer = (*Dev)(nil)
