package tm1637

import (
	"fmt"

	"github.com/sabot-table/sabot/display/segment"
)

// Command bytes, from the TM1637 datasheet.
const (
	// CmdData is the data command: write to display RAM with automatic
	// address increment (bit 2 = 0), normal mode.
	CmdData = 0x40
	// CmdAddress is the address command for grid 0 (C0H); grid n is
	// CmdAddress+n, n = 0..5.
	CmdAddress = 0xC0
	// CmdDisplayOn is the display control command with the display on
	// (bit 3); its low three bits are the pulse width, 0 (1/16) to 7
	// (14/16). CmdDisplayOff turns the display off.
	CmdDisplayOn  = 0x88
	CmdDisplayOff = 0x80
)

// MaxGrids is the number of digit positions (grids) the chip drives.
const MaxGrids = 6

// Brightness maps a frame brightness (0..segment.MaxBrightness) to the
// chip's eight pulse-width steps: b/2, clamped to 0..7.
func Brightness(b int) byte {
	return byte(segment.ClampBrightness(b) / 2)
}

// Encode returns the three transfers (each framed by a start and a stop
// condition on the wire) that show f: the data command {0x40}, the address
// command followed by the segment byte of every grid from grid 0, and the
// display control {0x88|brightness}. order[i] is the grid that shows frame
// digit i (nil means digit i on grid i); grids no digit maps to are written
// blank. The TM1637 takes segments in the display package's bit order
// (bit0 = a ... bit6 = g, bit7 = dp), so segment bytes pass through
// unchanged. Blinking digits are encoded lit.
//
// Errors: more than MaxGrids digits, or an order entry out of 0..5 or
// repeated.
func Encode(f segment.Frame, order []int) ([][]byte, error) {
	segs := f.Segments(true)
	if len(segs) > MaxGrids {
		return nil, fmt.Errorf("tm1637: frame has %d digits, the chip drives at most %d", len(segs), MaxGrids)
	}
	if order != nil && len(order) < len(segs) {
		return nil, fmt.Errorf("tm1637: digit order has %d entries for %d digits", len(order), len(segs))
	}
	grids := len(segs)
	var ram [MaxGrids]byte
	var used [MaxGrids]bool
	for i, s := range segs {
		g := i
		if order != nil {
			g = order[i]
		}
		if g < 0 || g >= MaxGrids {
			return nil, fmt.Errorf("tm1637: digit %d mapped to grid %d, want 0..%d", i, g, MaxGrids-1)
		}
		if used[g] {
			return nil, fmt.Errorf("tm1637: grid %d mapped twice in digit order", g)
		}
		used[g] = true
		ram[g] = byte(s)
		if g+1 > grids {
			grids = g + 1
		}
	}
	addr := make([]byte, 0, 1+grids)
	addr = append(addr, CmdAddress)
	addr = append(addr, ram[:grids]...)
	return [][]byte{{CmdData}, addr, {CmdDisplayOn | Brightness(f.Brightness)}}, nil
}
