package tm1637

import (
	"fmt"
	"time"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/ledchip"
)

// The chip's registration: display.kind = "tm1637" and its [display] keys.
func init() {
	ledchip.Register(ledchip.Chip{
		Name:    "tm1637",
		Summary: "TM1637 4-6 digit module on two GPIO pins",
		Options: []ledchip.Option{
			{Key: "clk", Kind: ledchip.Pin, Default: "GPIO23", Doc: "clock pin"},
			{Key: "dio", Kind: ledchip.Pin, Default: "GPIO24", Doc: "data pin"},
			{Key: "order", Kind: ledchip.Ints, Doc: "grid of each digit, left to right; [] means grid i (many 6-digit modules: [2, 1, 0, 5, 4, 3])"},
			{Key: "half_bit_us", Kind: ledchip.Int, Default: int(DefaultHalfBit / time.Microsecond), Doc: "bus half-period in µs (longer for long or loaded wires)"},
		},
		MaxDigits: func(ledchip.Settings) int { return MaxGrids },
		Check: func(s ledchip.Settings) []*ledchip.OptionError {
			var errs []*ledchip.OptionError
			if o := s.Ints("order"); len(o) > 0 {
				if len(o) != s.Digits {
					errs = append(errs, &ledchip.OptionError{Key: "order", Msg: fmt.Sprintf("%d entries for %d digits", len(o), s.Digits)})
				} else if _, err := Encode(segment.Blank(s.Digits, 0), o); err != nil {
					errs = append(errs, &ledchip.OptionError{Key: "order", Msg: fmt.Sprintf("%v: want each grid 0..%d once", o, MaxGrids-1)})
				}
			}
			if h := s.Int("half_bit_us"); h < 1 || h > 1000 {
				errs = append(errs, &ledchip.OptionError{Key: "half_bit_us", Msg: fmt.Sprintf("%d: want 1..1000 µs", h)})
			}
			return errs
		},
		// On the fake backend no chip answers on the pins: package
		// tm1637test registers an emulated one (ledchip.RegisterEmulator).
		Open: func(s ledchip.Settings, bus ledchip.Bus) (segment.Renderer, error) {
			opts := OptsFrom(s)
			clk, err := bus.Pin("clk")
			if err != nil {
				return nil, err
			}
			dio, err := bus.Pin("dio")
			if err != nil {
				return nil, err
			}
			return New(clk, dio, opts)
		},
	})
}

// OptsFrom is the driver's options from the chip's [display] settings
// (digits, order, half_bit_us).
func OptsFrom(s ledchip.Settings) *Opts {
	return &Opts{Digits: s.Digits, Order: s.Ints("order"), HalfBit: time.Duration(s.Int("half_bit_us")) * time.Microsecond}
}
