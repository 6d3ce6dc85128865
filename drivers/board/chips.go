package board

// The LED chips a board can drive: each package registers itself with
// drivers/ledchip (name, options, defaults, checks). A new chip is its
// package plus one line here.
//
// The fake backend's emulations of the chips driven on bare pins (the
// TM1637): no chip answers on fake pins, so its test fake registers an
// emulated one (ledchip.RegisterEmulator). The fake backend is the one
// product feature that needs a fake (sabotd on a laptop, --demo); the chip
// drivers themselves link none.
import (
	_ "github.com/sabot-table/sabot/drivers/ht16k33"
	_ "github.com/sabot-table/sabot/drivers/max7219"
	_ "github.com/sabot-table/sabot/drivers/tm1637"
	_ "github.com/sabot-table/sabot/drivers/tm1637/tm1637test"
)
