package tm1637_test

import (
	"testing"
	"time"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/tm1637"
	"github.com/sabot-table/sabot/drivers/tm1637/tm1637test"
)

// Whatever the frame, the fake chip decodes from the wire exactly the
// segments the frame shows, with every byte acknowledged and no protocol
// error.
func FuzzRenderRoundTrip(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, uint8(7))
	f.Add([]byte{0xff, 0x80, 0x11, 0x22, 0x33, 0x44}, uint8(15))
	f.Add([]byte{9}, uint8(0))
	glyphs := segment.Glyphs()
	f.Fuzz(func(t *testing.T, digits []byte, brightness uint8) {
		if len(digits) == 0 || len(digits) > tm1637.MaxGrids {
			return
		}
		fr := segment.Blank(len(digits), int(brightness))
		for i, b := range digits {
			fr.Digits[i].Char = glyphs[int(b&0x7f)%len(glyphs)]
			fr.Digits[i].DP = b&0x80 != 0
		}
		bus := tm1637test.NewBus()
		d, err := tm1637.New(bus.CLK, bus.DIO, &tm1637.Opts{Digits: len(digits), Delay: func(_ time.Duration) {}})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Render(fr); err != nil {
			t.Fatal(err)
		}
		if errs := bus.Errors(); len(errs) != 0 {
			t.Fatalf("protocol errors %v", errs)
		}
		want := fr.Segments(true)
		ram := bus.RAM()
		for i := range want {
			if segment.Segments(ram[i]) != want[i] {
				t.Fatalf("grid %d = %#02x, want %#02x", i, ram[i], uint8(want[i]))
			}
		}
		for _, tr := range bus.Transfers() {
			for i, ack := range tr.Acks {
				if !ack {
					t.Fatalf("byte %d of % x not acknowledged", i, tr.Bytes)
				}
			}
		}
		if bus.Brightness() != int(tm1637.Brightness(fr.Brightness)) || !bus.On() {
			t.Fatalf("brightness %d on %v", bus.Brightness(), bus.On())
		}
	})
}
