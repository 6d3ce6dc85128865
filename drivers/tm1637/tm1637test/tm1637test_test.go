package tm1637test

import (
	"reflect"
	"testing"

	"periph.io/x/conn/v3/gpio"
)

// Drive the bus by hand: one byte 0xA5 with an ACK, then a byte cut short.
func TestDecoderByHand(t *testing.T) {
	b := NewBus()
	clk, dio := b.CLK, b.DIO
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(dio.Out(gpio.Low)) // start
	for i := 0; i < 8; i++ {
		must(clk.Out(gpio.Low))
		must(dio.Out(gpio.Level(0xA5&(1<<i) != 0)))
		must(clk.Out(gpio.High))
	}
	must(clk.Out(gpio.Low))
	must(dio.In(gpio.PullUp, gpio.NoEdge))
	if dio.Read() != gpio.Low {
		t.Error("chip does not pull DIO low after the eighth bit")
	}
	must(clk.Out(gpio.High))
	must(clk.Out(gpio.Low))
	if dio.Read() != gpio.High {
		t.Error("chip does not release DIO after the ninth clock")
	}
	must(dio.Out(gpio.Low))
	must(clk.Out(gpio.High))
	must(dio.Out(gpio.High)) // stop
	want := []Transfer{{Bytes: []byte{0xA5}, Acks: []bool{true}}}
	if got := b.Transfers(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if len(b.Errors()) != 0 {
		t.Errorf("errors: %v", b.Errors())
	}
	// A byte cut short after three bits.
	must(dio.Out(gpio.Low))
	for i := 0; i < 3; i++ {
		must(clk.Out(gpio.Low))
		must(clk.Out(gpio.High))
	}
	must(dio.Out(gpio.High))
	if errs := b.Errors(); len(errs) != 1 || errs[0] != "stop after 3 bits of a byte" {
		t.Errorf("errors %q, want one for the short byte", errs)
	}
	// 0xA5 is a display control command (10xx xxxx) with bit 3 clear: off.
	if b.On() || b.Brightness() != 5 {
		t.Errorf("after 0xA5: on=%v brightness=%d, want off, 5", b.On(), b.Brightness())
	}
}

func TestContention(t *testing.T) {
	b := NewBus()
	_ = b.DIO.Out(gpio.Low)
	for i := 0; i < 8; i++ {
		_ = b.CLK.Out(gpio.Low)
		_ = b.CLK.Out(gpio.High)
	}
	_ = b.CLK.Out(gpio.Low)
	_ = b.DIO.Out(gpio.High) // master drives high while the chip ACKs
	if len(b.Errors()) == 0 {
		t.Error("contention not reported")
	}
}
