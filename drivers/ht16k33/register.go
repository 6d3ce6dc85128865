package ht16k33

import (
	"fmt"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/ledchip"
)

// layouts are the layout option's values.
var layouts = map[string]Layout{"backpack4": LayoutBackpack4, "linear": LayoutLinear}

// The chip's registration: display.kind = "ht16k33" and its [display] keys.
func init() {
	ledchip.Register(ledchip.Chip{
		Name:    "ht16k33",
		Summary: "HT16K33 backpack on I²C",
		Options: []ledchip.Option{
			{Key: "i2c", Kind: ledchip.String, Default: "", Doc: "I²C bus (\"/dev/i2c-1\" or \"1\"; \"\" = the first bus)"},
			{Key: "address", Kind: ledchip.Int, Default: DefaultAddr, Doc: "7-bit I²C address (0x70-0x77 with the jumpers)"},
			{Key: "layout", Kind: ledchip.String, Default: "backpack4", Doc: "\"backpack4\" (4 digits and a colon) or \"linear\" (digit i at RAM 2i, 8 digits)"},
		},
		Digits: func(s ledchip.Settings) int { return layouts[s.String("layout")].Digits() },
		Check: func(s ledchip.Settings) []*ledchip.OptionError {
			var errs []*ledchip.OptionError
			if _, ok := layouts[s.String("layout")]; !ok {
				errs = append(errs, &ledchip.OptionError{Key: "layout", Msg: fmt.Sprintf("%q: want \"backpack4\" or \"linear\"", s.String("layout"))})
			}
			if a := s.Int("address"); a < 0x08 || a > 0x77 {
				errs = append(errs, &ledchip.OptionError{Key: "address", Msg: fmt.Sprintf("%#x: not a 7-bit I²C device address (0x08-0x77)", a)})
			}
			return errs
		},
		Open: func(s ledchip.Settings, bus ledchip.Bus) (segment.Renderer, error) {
			b, err := bus.I2C("i2c")
			if err != nil {
				return nil, err
			}
			return New(b, &Opts{Addr: uint16(s.Int("address")), Layout: layouts[s.String("layout")]})
		},
	})
}
