package tm1637test

import (
	"time"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/ledchip"
	"github.com/sabot-table/sabot/drivers/tm1637"
)

// The TM1637's emulation on the fake backend: no chip answers on fake
// pins, so an emulated one decodes the bus instead, and a test reads its
// display RAM (Board.Fake.Chip is the *Bus). drivers/board imports this
// package for its fake backend; the tm1637 driver does not.
func init() {
	ledchip.RegisterEmulator("tm1637", func(s ledchip.Settings, bus ledchip.Bus) (segment.Renderer, error) {
		fake := NewBusNamed(s.String("clk"), s.String("dio"))
		bus.SetFake(fake)
		opts := tm1637.OptsFrom(s)
		opts.Delay = func(time.Duration) {}
		return tm1637.New(fake.CLK, fake.DIO, opts)
	})
}
