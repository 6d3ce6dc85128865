package board

// The LED chips a board can drive: each package registers itself with
// drivers/ledchip (name, options, defaults, checks). A new chip is its
// package plus one line here.
import (
	_ "github.com/sabot-table/sabot/drivers/ht16k33"
	_ "github.com/sabot-table/sabot/drivers/max7219"
	_ "github.com/sabot-table/sabot/drivers/tm1637"
)
