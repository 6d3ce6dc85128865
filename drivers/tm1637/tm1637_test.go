package tm1637_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/tm1637"
	"github.com/sabot-table/sabot/drivers/tm1637/tm1637test"
	"github.com/sabot-table/sabot/tableau"
)

func noDelay(time.Duration) {}

func newDev(t *testing.T, o tm1637.Opts) (*tm1637.Dev, *tm1637test.Bus) {
	t.Helper()
	bus := tm1637test.NewBus()
	o.Delay = noDelay
	d, err := tm1637.New(bus.CLK, bus.DIO, &o)
	if err != nil {
		t.Fatal(err)
	}
	return d, bus
}

func TestEncode(t *testing.T) {
	f := segment.TextFrame("9Pn7", 15)
	f.Digits[1].DP = true
	got, err := tm1637.Encode(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]byte{{0x40}, {0xC0, 0x6F, 0xF3, 0x54, 0x07}, {0x8F}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Encode = % x, want % x", got, want)
	}
	// 6-digit module wired 2,1,0,5,4,3.
	got, err = tm1637.Encode(segment.TextFrame("123456", 0), []int{2, 1, 0, 5, 4, 3})
	if err != nil {
		t.Fatal(err)
	}
	want = [][]byte{{0x40}, {0xC0, 0x4F, 0x5B, 0x06, 0x7D, 0x6D, 0x66}, {0x88}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Encode 6-digit = % x, want % x", got, want)
	}
	if _, err := tm1637.Encode(segment.TextFrame("1234567", 0), nil); err == nil {
		t.Error("7 digits accepted")
	}
	if _, err := tm1637.Encode(segment.TextFrame("12", 0), []int{1, 1}); err == nil {
		t.Error("repeated grid accepted")
	}
	if _, err := tm1637.Encode(segment.TextFrame("12", 0), []int{0, 6}); err == nil {
		t.Error("grid 6 accepted")
	}
}

func TestBrightness(t *testing.T) {
	for b, want := range map[int]byte{-1: 0, 0: 0, 1: 0, 2: 1, 10: 5, 14: 7, 15: 7, 99: 7} {
		if got := tm1637.Brightness(b); got != want {
			t.Errorf("Brightness(%d) = %d, want %d", b, got, want)
		}
	}
}

func TestRenderOnTheWire(t *testing.T) {
	d, bus := newDev(t, tm1637.Opts{})
	p, _ := tableau.ParseCard("4H")
	p2, _ := tableau.ParseCard("5S")
	bk, _ := tableau.ParseCard("3D")
	s := display.TableState{Player: []tableau.Card{p, p2}, Banker: []tableau.Card{bk, bk}, Result: display.ResultPlayer, Natural: true, LastCoup: true}
	if err := d.Render(display.Compose(s, display.Layout4, 10)); err != nil {
		t.Fatal(err)
	}
	if errs := bus.Errors(); len(errs) > 0 {
		t.Fatalf("protocol errors: %v", errs)
	}
	want := []tm1637test.Transfer{
		{Bytes: []byte{0x40}, Acks: []bool{true}},
		{Bytes: []byte{0xC0, 0x6F, 0xF3, 0x54, 0x7D}, Acks: []bool{true, true, true, true, true}},
		{Bytes: []byte{0x8D}, Acks: []bool{true}},
	}
	if got := bus.Transfers(); !reflect.DeepEqual(got, want) {
		t.Errorf("transfers:\n got %+v\nwant %+v", got, want)
	}
	if got := bus.Text(4); got != "9P.n6" {
		t.Errorf("shown %q, want 9P.n6", got)
	}
	segs := bus.Shown(4)
	wantSegs := []segment.Segments{0x6F, 0xF3, 0x54, 0x7D}
	if !reflect.DeepEqual(segs, wantSegs) {
		t.Errorf("segments % x, want % x", segs, wantSegs)
	}
	if !bus.On() || bus.Brightness() != 5 {
		t.Errorf("on=%v brightness=%d, want on, 5", bus.On(), bus.Brightness())
	}
	if err := d.Off(); err != nil {
		t.Fatal(err)
	}
	if bus.On() || bus.Text(4) != "    " {
		t.Errorf("after Off: on=%v text=%q", bus.On(), bus.Text(4))
	}
}

// The first transfer's level changes, exactly: start, 0x40 LSB first with
// DIO changing only while CLK is low, the released ninth clock, stop.
func TestWaveform(t *testing.T) {
	d, bus := newDev(t, tm1637.Opts{})
	bus.Reset()
	if err := d.Render(segment.TextFrame("8888", 15)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range bus.Changes() {
		got = append(got, c.String())
	}
	// 0x40 = 0b01000000: bits 0..5 low, bit 6 high, bit 7 low.
	want := strings.Fields(`
		DIO=Low
		CLK=Low CLK=High CLK=Low CLK=High CLK=Low CLK=High CLK=Low CLK=High
		CLK=Low CLK=High CLK=Low CLK=High
		CLK=Low DIO=High CLK=High
		CLK=Low DIO=Low CLK=High
		CLK=Low DIO=in CLK=High CLK=Low
		DIO=Low CLK=High DIO=High`)
	if len(got) < len(want) || !reflect.DeepEqual(got[:len(want)], want) {
		t.Errorf("first transfer:\n got %v\nwant %v", got[:min(len(got), len(want))], want)
	}
}

func TestMissingAck(t *testing.T) {
	d, bus := newDev(t, tm1637.Opts{})
	bus.SetNoAck(true)
	err := d.Render(segment.TextFrame("1234", 7))
	if !errors.Is(err, tm1637.ErrNoAck) {
		t.Fatalf("Render without chip: %v, want ErrNoAck", err)
	}
	if !strings.Contains(err.Error(), "TM1637(CLK=CLK, DIO=DIO)") || !strings.Contains(err.Error(), "byte 0 (0x40)") {
		t.Errorf("error does not name the chip and byte: %v", err)
	}
	tr := bus.Transfers()
	if len(tr) != 1 || !reflect.DeepEqual(tr[0].Acks, []bool{false}) {
		t.Errorf("transfers after missing ACK: %+v (want one closed transfer)", tr)
	}
	if errs := bus.Errors(); len(errs) > 0 {
		t.Errorf("protocol errors: %v", errs)
	}
	bus.SetNoAck(false)
	if err := d.Render(segment.TextFrame("1234", 7)); err != nil {
		t.Fatalf("after chip came back: %v", err)
	}
	if got := bus.Text(4); got != "1234" {
		t.Errorf("shown %q", got)
	}
}

func TestShortFramePaddedAndWideRejected(t *testing.T) {
	d, bus := newDev(t, tm1637.Opts{Digits: 6, Order: []int{2, 1, 0, 5, 4, 3}})
	if err := d.Render(segment.TextFrame("12", 0)); err != nil {
		t.Fatal(err)
	}
	if got := bus.Text(6); got != " 21   " {
		t.Errorf("grids %q, want \" 21   \" (digit 0 on grid 2, digit 1 on grid 1)", got)
	}
	if err := d.Render(segment.TextFrame("1234567", 0)); err == nil {
		t.Error("7-digit frame accepted on 6 digits")
	}
}

func TestNewErrors(t *testing.T) {
	bus := tm1637test.NewBus()
	for _, o := range []tm1637.Opts{{Digits: 7}, {Digits: 4, Order: []int{0, 1}}, {Digits: 2, Order: []int{0, 0}}} {
		if _, err := tm1637.New(bus.CLK, bus.DIO, &o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	if _, err := tm1637.New(nil, bus.DIO, nil); err == nil {
		t.Error("nil CLK accepted")
	}
}

func TestDelayUsed(t *testing.T) {
	bus := tm1637test.NewBus()
	var total time.Duration
	n := 0
	d, err := tm1637.New(bus.CLK, bus.DIO, &tm1637.Opts{HalfBit: 3 * time.Microsecond, Delay: func(d time.Duration) { total += d; n++ }})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Render(segment.TextFrame("1234", 7)); err != nil {
		t.Fatal(err)
	}
	if n == 0 || total != time.Duration(n)*3*time.Microsecond {
		t.Errorf("delay called %d times for %v", n, total)
	}
}

func BenchmarkRender(b *testing.B) {
	bus := tm1637test.NewBus()
	d, _ := tm1637.New(bus.CLK, bus.DIO, &tm1637.Opts{Delay: noDelay})
	f := segment.TextFrame("9Pn7", 15)
	b.ReportAllocs()
	for b.Loop() {
		bus.Reset()
		if err := d.Render(f); err != nil {
			b.Fatal(err)
		}
	}
}
