package ht16k33_test

import (
	"fmt"
	"log"

	"periph.io/x/conn/v3/i2c/i2ctest"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/drivers/ht16k33"
)

// On a Raspberry Pi the bus comes from i2creg.Open("/dev/i2c-1") after
// host.Init(); here a recording fake bus shows the bytes sent.
func Example() {
	bus := &i2ctest.Record{}
	dev, err := ht16k33.New(bus, &ht16k33.Opts{Addr: ht16k33.DefaultAddr})
	if err != nil {
		log.Fatal(err)
	}
	s := display.TableState{Offline: true}
	if err := dev.Render(display.Compose(s, display.Layout4, 15)); err != nil {
		log.Fatal(err)
	}
	for _, op := range bus.Ops {
		fmt.Printf("%#02x: % x\n", op.Addr, op.W)
	}
	// Output:
	// 0x70: 21
	// 0x70: 81
	// 0x70: ef
	// 0x70: 00 40 00 40 00 00 00 40 00 40 00 00 00 00 00 00 00
}
