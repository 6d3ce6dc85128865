package max7219

import (
	"fmt"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/ledchip"
)

// MaxChips is the most cascaded chips the registration accepts (64
// digits): a longer chain is a typing error.
const MaxChips = 8

// The chip's registration: display.kind = "max7219" and its [display] keys.
func init() {
	ledchip.Register(ledchip.Chip{
		Name:    "max7219",
		Summary: "MAX7219 8 digits per chip on SPI, chips cascaded",
		Options: []ledchip.Option{
			{Key: "spi", Kind: ledchip.String, Default: "/dev/spidev0.0", Doc: "SPI port (\"/dev/spidev0.0\" or \"SPI0.0\")"},
			{Key: "chips", Kind: ledchip.Int, Default: 1, Doc: "cascaded chips, 8 digits each"},
		},
		Digits:    func(s ledchip.Settings) int { return max(s.Int("chips"), 1) * DigitsPerChip },
		MaxDigits: func(s ledchip.Settings) int { return max(s.Int("chips"), 1) * DigitsPerChip },
		Check: func(s ledchip.Settings) []*ledchip.OptionError {
			var errs []*ledchip.OptionError
			if c := s.Int("chips"); c < 1 || c > MaxChips {
				errs = append(errs, &ledchip.OptionError{Key: "chips", Msg: fmt.Sprintf("%d: want 1..%d", c, MaxChips)})
			}
			if s.String("spi") == "" {
				errs = append(errs, &ledchip.OptionError{Key: "spi", Msg: "the MAX7219 needs an SPI port, e.g. \"/dev/spidev0.0\""})
			}
			return errs
		},
		Open: func(s ledchip.Settings, bus ledchip.Bus) (segment.Renderer, error) {
			port, err := bus.SPI("spi")
			if err != nil {
				return nil, err
			}
			return Open(port, &Opts{Chips: s.Int("chips")})
		},
	})
}
