package max7219_test

import (
	"fmt"
	"log"

	"periph.io/x/conn/v3/spi/spitest"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/drivers/max7219"
)

// On a Raspberry Pi the port comes from spireg.Open("/dev/spidev0.0") after
// host.Init(); here a recording fake port shows the bytes sent.
func Example() {
	port := &spitest.Record{}
	dev, err := max7219.Open(port, &max7219.Opts{Chips: 1})
	if err != nil {
		log.Fatal(err)
	}
	s := display.TableState{Burning: true, BurnRemaining: 7}
	if err := dev.Render(display.Compose(s, display.Layout8, 8)); err != nil {
		log.Fatal(err)
	}
	for _, op := range port.Ops[5:] {
		fmt.Printf("% x\n", op.W)
	}
	// Output:
	// 01 70
	// 02 00
	// 03 00
	// 04 00
	// 05 00
	// 06 00
	// 07 05
	// 08 1f
}
