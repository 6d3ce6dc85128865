package tm1637test_test

import (
	"fmt"
	"log"
	"time"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/tm1637"
	"github.com/sabot-table/sabot/drivers/tm1637/tm1637test"
)

// A test hands the fake pins to the driver and reads back the bytes on the
// wire, the ACKs and the segments the chip would light.
func Example() {
	bus := tm1637test.NewBus()
	dev, err := tm1637.New(bus.CLK, bus.DIO, &tm1637.Opts{Delay: func(time.Duration) {}})
	if err != nil {
		log.Fatal(err)
	}
	if err := dev.Render(display.Compose(display.TableState{Burning: true, BurnRemaining: 7}, display.Layout4, 4)); err != nil {
		log.Fatal(err)
	}
	for _, t := range bus.Transfers() {
		fmt.Printf("% x acks %v\n", t.Bytes, t.Acks)
	}
	fmt.Printf("shown %q\n", bus.Text(4))

	bus.SetNoAck(true) // unplug the module
	fmt.Println(dev.Render(segment.Blank(4, 4)))
	// Output:
	// 40 acks [true]
	// c0 7c 50 00 07 acks [true true true true true]
	// 8a acks [true]
	// shown "br 7"
	// tm1637: no ACK from the TM1637: TM1637(CLK=CLK, DIO=DIO) did not acknowledge byte 0 (0x40) of transfer 40
}
