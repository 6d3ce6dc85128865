package tm1637_test

import (
	"fmt"
	"log"
	"time"

	"github.com/sabot-table/sabot/tableau/card"

	"periph.io/x/conn/v3/gpio/gpioreg"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/tm1637"
	"github.com/sabot-table/sabot/drivers/tm1637/tm1637test"
	"github.com/sabot-table/sabot/tableau"
)

// Wiring a TM1637 module to two named pins: CLK on GPIO23, DIO on GPIO24.
// On a Raspberry Pi the pins come from periph's registry after host.Init();
// here two fake pins are registered under the same names, so the example
// runs anywhere and shows what the module would display.
func Example() {
	bus := tm1637test.NewBusNamed("GPIO23", "GPIO24")
	if err := gpioreg.Register(bus.CLK); err != nil {
		log.Fatal(err)
	}
	if err := gpioreg.Register(bus.DIO); err != nil {
		log.Fatal(err)
	}

	// On the Pi: if _, err := host.Init(); err != nil { ... }
	clk := gpioreg.ByName("GPIO23")
	dio := gpioreg.ByName("GPIO24")
	if clk == nil || dio == nil {
		log.Fatal("no such pin")
	}
	dev, err := tm1637.New(clk, dio, &tm1637.Opts{
		Digits: 4,
		Delay:  func(time.Duration) {}, // fake pins need no bit timing
	})
	if err != nil {
		log.Fatal(err)
	}

	player := []tableau.Card{{Rank: card.Rank4}, {Rank: card.Rank5}}
	banker := []tableau.Card{{Rank: card.Rank3}, {Rank: card.Rank3}}
	s := display.TableState{Player: player, Banker: banker, Result: display.ResultPlayer, Natural: true}
	if err := dev.Render(display.Compose(s, display.Layout4, segment.MaxBrightness)); err != nil {
		log.Fatal(err)
	}
	fmt.Println(dev)
	fmt.Printf("shown %q, brightness %d/7\n", bus.Text(4), bus.Brightness())
	fmt.Printf("RAM % x\n", bus.RAM())
	// Output:
	// TM1637(CLK=GPIO23, DIO=GPIO24)
	// shown "9Pn6", brightness 7/7
	// RAM 6f 73 54 7d 00 00
}
