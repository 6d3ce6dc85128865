package board

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/spi"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/tm1637/tm1637test"
	"github.com/sabot-table/sabot/tableau"
)

func hand(t *testing.T, s string) []tableau.Card {
	t.Helper()
	var out []tableau.Card
	for _, f := range strings.Fields(s) {
		c, err := tableau.ParseCard(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func noHost() (*driverreg.State, error) { return &driverreg.State{}, nil }

// seams returns Options whose pins come from a map of gpiotest pins, as if
// periph host had registered them.
func seams(pins map[string]*gpiotest.Pin) *Options {
	return &Options{
		HostInit: noHost,
		PinByName: func(n string) gpio.PinIO {
			if p, ok := pins[n]; ok {
				return p
			}
			return nil
		},
		OpenSPI: func(n string) (spi.PortCloser, error) { return nil, errors.New("no SPI here") },
		OpenI2C: func(n string) (i2c.BusCloser, error) { return nil, errors.New("no I2C here") },
	}
}

// cfg is a board configuration in one value, for the test tables.
type cfg struct {
	g GPIOConfig
	d DisplayConfig
}

func open(c cfg, o *Options) (*Board, error) { return Open(c.g, c.d, o) }

func TestOpenUnknownPinNamesKey(t *testing.T) {
	// Real gpioreg, with nothing registered under these names.
	o := &Options{HostInit: noHost}
	cases := []struct {
		cfg cfg
		key string
	}{
		{cfg{g: GPIOConfig{Lamp: "GPIO_NOPE_17"}}, `"gpio.lamp"`},
		{cfg{g: GPIOConfig{AckKey: "GPIO_NOPE_5"}}, `"gpio.ack_key"`},
		{cfg{g: GPIOConfig{BetsKey: "GPIO_NOPE_19"}}, `"gpio.bets_key"`},
		{cfg{d: DisplayConfig{Kind: "tm1637", Options: map[string]any{"clk": "GPIO_NOPE_23", "dio": "GPIO_NOPE_24"}}}, `"display.clk"`},
	}
	for _, c := range cases {
		_, err := open(c.cfg, o)
		if err == nil || !strings.Contains(err.Error(), c.key) || !strings.Contains(err.Error(), "GPIO_NOPE") {
			t.Errorf("Open(%+v): %v; want an error naming %s and the pin", c.cfg, err, c.key)
		}
	}
}

func TestOpenConfigErrors(t *testing.T) {
	pins := map[string]*gpiotest.Pin{"GPIO23": {N: "GPIO23"}, "GPIO24": {N: "GPIO24"}}
	tm := func(opts map[string]any, digits int) cfg {
		return cfg{d: DisplayConfig{Kind: "tm1637", Digits: digits, Options: opts}}
	}
	cases := []struct {
		cfg  cfg
		want string
	}{
		{cfg{g: GPIOConfig{Backend: "serial"}}, `"gpio.backend": unknown backend "serial"`},
		{cfg{d: DisplayConfig{Kind: "lcd"}}, `"display.kind": "lcd": unknown; want one of "ht16k33", "max7219", "tm1637", "terminal", "none"`},
		{tm(map[string]any{"clk": ""}, 0), `"display.clk": the tm1637 needs this pin`},
		{tm(nil, 7), `"display.digits": 7: the tm1637 drives 1 to 6 digits`},
		{tm(nil, 3), `"display.digits"`},
		{tm(map[string]any{"order": []any{int64(0), int64(1), int64(2)}}, 4), `"display.order": 3 entries for 4 digits`},
		{tm(map[string]any{"order": []int{0, 1, 1, 2}}, 4), `"display.order": [0 1 1 2]: want each grid 0..5 once`},
		{tm(map[string]any{"half_bit_us": 0}, 0), `"display.half_bit_us": 0: want 1..1000`},
		{tm(map[string]any{"half_bit_us": "slow"}, 0), `"display.half_bit_us": wrong type: a TOML string where an integer is wanted`},
		{tm(map[string]any{"spi": "/dev/spidev0.0"}, 0), `"display.spi": not an option of the tm1637 (max7219 option; display.kind selects the chip)`},
		{tm(map[string]any{"clk": "GPIO24"}, 0), `"display.dio": "GPIO24" is already display.clk`},
		{cfg{g: GPIOConfig{Lamp: "GPIO23"}, d: DisplayConfig{Kind: "tm1637"}}, `"gpio.lamp": "GPIO23" is already display.clk`},
		{cfg{g: GPIOConfig{Lamp: "GPIO5", AckKey: "GPIO5"}}, `"gpio.ack_key": "GPIO5" is already gpio.lamp`},
		{cfg{d: DisplayConfig{Kind: "max7219", Options: map[string]any{"spi": "/dev/spidev9.9"}}}, `"display.spi": open SPI port "/dev/spidev9.9": no SPI here`},
		{cfg{d: DisplayConfig{Kind: "max7219", Options: map[string]any{"spi": ""}}}, `"display.spi": the MAX7219 needs an SPI port`},
		{cfg{d: DisplayConfig{Kind: "max7219", Options: map[string]any{"chips": 9}}}, `"display.chips": 9: want 1..8`},
		{cfg{d: DisplayConfig{Kind: "max7219", Digits: 9}}, `"display.digits": 9: the max7219 drives 1 to 8 digits`},
		{cfg{d: DisplayConfig{Kind: "ht16k33", Options: map[string]any{"i2c": "/dev/i2c-7"}}}, `"display.i2c": open I²C bus "/dev/i2c-7"`},
		{cfg{d: DisplayConfig{Kind: "ht16k33", Options: map[string]any{"layout": "round"}}}, `"display.layout": "round"`},
		{cfg{d: DisplayConfig{Kind: "ht16k33", Options: map[string]any{"address": 0x80}}}, `"display.address": 0x80`},
		{cfg{d: DisplayConfig{Kind: "ht16k33", Digits: 5}}, `"display.digits": 5: the ht16k33 drives 1 to 4`},
		{cfg{d: DisplayConfig{Kind: "terminal", Brightness: 16}}, `"display.brightness"`},
		{cfg{d: DisplayConfig{Kind: "terminal", Options: map[string]any{"clk": "GPIO2"}}}, `"display.clk": display.kind "terminal" has no such option (tm1637 option`},
		{cfg{g: GPIOConfig{DebounceMS: -1}}, `"gpio.debounce_ms"`},
		{cfg{g: GPIOConfig{AlertBuzzer: "siren"}}, `"gpio.alert_buzzer": board: unknown pattern "siren"`},
	}
	for _, c := range cases {
		_, err := open(c.cfg, seams(pins))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%+v):\n got %v\nwant …%s…", c.cfg, err, c.want)
		}
		if err != nil && !errors.Is(err, ErrConfig) && !strings.Contains(c.want, "open ") {
			t.Errorf("Open(%+v): %v is not a configuration error", c.cfg, err)
		}
	}
}

// Check names every problem at once, without touching hardware.
func TestCheckAll(t *testing.T) {
	_, errs := Check(GPIOConfig{Backend: "x", Buzzer: "GPIO2", TowerRed: "GPIO2"}, DisplayConfig{Kind: "max7219", Brightness: 0, Options: map[string]any{"chips": 0}})
	var keys []string
	for _, e := range errs {
		keys = append(keys, e.Key)
	}
	if got := strings.Join(keys, " "); got != "gpio.backend display.brightness display.chips gpio.buzzer" {
		t.Errorf("Check keys %q", got)
	}
}

// The gpio backend with pins resolved by name: outputs are driven, the
// TM1637 is on the named pins.
func TestOpenGPIOBackend(t *testing.T) {
	pins := map[string]*gpiotest.Pin{}
	for _, n := range []string{"GPIO17", "GPIO27", "GPIO5"} {
		pins[n] = &gpiotest.Pin{N: n, EdgesChan: make(chan gpio.Level, 4)}
	}
	o := seams(pins)
	o.KeyPrefix = "table.board."
	b, err := Open(GPIOConfig{Lamp: "GPIO17", Buzzer: "GPIO27", OutputsActiveLow: true, AckKey: "GPIO5"}, DisplayConfig{}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Buttons) != 1 || b.Buttons[0].Name != InAckKey || b.Buttons[0].Pin != pins["GPIO5"] {
		t.Errorf("buttons %+v", b.Buttons)
	}
	if pins["GPIO17"].Read() != gpio.High || pins["GPIO27"].Read() != gpio.High {
		t.Error("active-low outputs not initialised off (High)")
	}
	if err := b.Show(display.TableState{Alert: "extra-card"}); err != nil {
		t.Fatal(err)
	}
	if pins["GPIO17"].Read() != gpio.Low || pins["GPIO27"].Read() != gpio.Low {
		t.Error("alert did not switch on the lamp and buzzer")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if pins["GPIO17"].Read() != gpio.High {
		t.Error("Close left the lamp on")
	}
	if _, err := Open(GPIOConfig{Lamp: "GPIO99"}, DisplayConfig{}, o); err == nil || !strings.Contains(err.Error(), `"table.board.gpio.lamp"`) {
		t.Errorf("prefix not used: %v", err)
	}
}

// The fake board: the whole table on fakes, asserting what the LEDs showed.
func TestFakeBoard(t *testing.T) {
	fc := clockwork.NewFakeClockAt(t0)
	b, err := Open(GPIOConfig{Backend: BackendFake}, DisplayConfig{Kind: "tm1637", Brightness: 14}, &Options{Clock: fc})
	if err != nil {
		t.Fatal(err)
	}
	f := b.Fake
	chip, _ := f.Chip.(*tm1637test.Bus)
	if f == nil || chip == nil || len(f.Pins) != len(OutputNames)+len(InputNames) {
		t.Fatalf("fake board %+v", f)
	}
	s := display.TableState{Player: hand(t, "4H 5S"), Banker: hand(t, "3D 3C"), Result: display.ResultPlayer, Natural: true, LastCoup: true}
	if err := b.Show(s); err != nil {
		t.Fatal(err)
	}
	if got := chip.Text(4); got != "9P.n6" {
		t.Errorf("TM1637 shows %q", got)
	}
	if chip.Brightness() != 7 {
		t.Errorf("brightness %d", chip.Brightness())
	}
	on := func(n string) bool { return f.Pins[n].Read() == gpio.High }
	if !on(OutTowerGreen) || !on(OutTowerAmber) || on(OutAlarmLamp) || on(OutBuzzer) {
		t.Errorf("last coup lamps: green %v amber %v alarm %v buzzer %v", on(OutTowerGreen), on(OutTowerAmber), on(OutAlarmLamp), on(OutBuzzer))
	}
	if err := b.Show(display.TableState{Alert: "missing-card"}); err != nil {
		t.Fatal(err)
	}
	if got := chip.Text(4); got != "E2  " {
		t.Errorf("alert shows %q", got)
	}
	if !on(OutAlarmLamp) || !on(OutTowerRed) || !on(OutBuzzer) || on(OutTowerGreen) {
		t.Error("alert lamps wrong")
	}
	if !b.OutputOn(OutAlarmLamp) {
		t.Error("OutputOn(alarm) false")
	}
	if p, _ := b.Scheduler.Pattern(OutBuzzer); p != Beep(3) {
		t.Errorf("buzzer %v, want beep:3", p)
	}
	// The alert flashes: after half a blink period the digits are dark.
	fc.Advance(segment.BlinkPeriod / 2)
	if _, _, err := b.Scheduler.Update(); err != nil {
		t.Fatal(err)
	}
	if got := chip.Text(4); got != "    " {
		t.Errorf("flashing alert, dark phase shows %q", got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if on(OutAlarmLamp) || chip.Text(4) != "    " {
		t.Error("Close did not blank the board")
	}
}

// Pressing a fake key while the board runs gives one event.
func TestFakeBoardRunPress(t *testing.T) {
	b, err := Open(GPIOConfig{Backend: BackendFake, DebounceMS: 1}, DisplayConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan Event, 8)
	done := make(chan error)
	go func() { done <- b.Run(ctx, events) }()
	if err := b.Fake.Press(InAckKey); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		if ev.Button != InAckKey {
			t.Errorf("event %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
	if err := b.Fake.Release(InAckKey); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if len(events) != 0 {
		t.Errorf("%d extra events", len(events))
	}
	if err := b.Fake.Press("nope"); err == nil {
		t.Error("unknown fake input accepted")
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Run: %v", err)
	}
}

func TestFakeBoardOtherChips(t *testing.T) {
	b, err := Open(GPIOConfig{Backend: BackendFake}, DisplayConfig{Kind: "max7219", Options: map[string]any{"chips": 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Layout.Width != 8 {
		t.Errorf("MAX7219 layout width %d", b.Layout.Width)
	}
	if err := b.Show(display.TableState{Offline: true}); err != nil {
		t.Fatal(err)
	}
	ops := b.Fake.SPI.Ops
	if len(ops) != 13 || string(ops[5].W) != "\x01\x01" || string(ops[12].W) != "\x08\x01" {
		t.Errorf("MAX7219 offline frame: %v", ops)
	}
	b, err = Open(GPIOConfig{Backend: BackendFake}, DisplayConfig{Kind: "ht16k33"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Show(display.TableState{Offline: true}); err != nil {
		t.Fatal(err)
	}
	if ops := b.Fake.I2C.Ops; len(ops) != 4 || ops[3].W[1] != 0x40 {
		t.Errorf("HT16K33 offline frame: %v", ops)
	}
}

func TestTerminalBoard(t *testing.T) {
	var buf bytes.Buffer
	b, err := Open(GPIOConfig{Backend: BackendFake}, DisplayConfig{Kind: KindTerminal}, &Options{Terminal: &buf})
	if err != nil {
		t.Fatal(err)
	}
	if b.Terminal == nil {
		t.Fatal("no terminal")
	}
	if err := b.Show(display.TableState{Alert: "extra-card", AlertAcknowledged: true}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "Lamps: [#] alarm [#] red [ ] amber [ ] green [ ] buzzer\x1b[K") {
		t.Errorf("lamp line missing in terminal output:\n%s", out)
	}
	if !strings.Contains(out, "E1 extra-card: a card arrived after the coup was complete\x1b[K") {
		t.Errorf("message line missing:\n%q", out)
	}
	s := display.TableState{Coup: 7, Player: hand(t, "9H"), Banker: hand(t, "8C"), Result: display.ResultPlayer, Natural: true}
	if err := b.Show(s); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := b.Show(display.TableState{Coup: 8, Player: hand(t, "2H")}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "Last coup: #7 player 9 banker 8: player wins (natural)\x1b[K") {
		t.Errorf("last coup not kept:\n%q", out)
	}
}

func TestSignals(t *testing.T) {
	cases := []struct {
		s    display.TableState
		want map[string]string
	}{
		{display.TableState{}, map[string]string{OutTowerGreen: "steady", OutAlarmLamp: "off", OutBuzzer: "off"}},
		{display.TableState{Alert: "extra-card"}, map[string]string{OutAlarmLamp: "fast-blink", OutTowerRed: "fast-blink", OutBuzzer: "beep:3", OutTowerGreen: "off"}},
		{display.TableState{Alert: "extra-card", AlertAcknowledged: true}, map[string]string{OutAlarmLamp: "steady", OutBuzzer: "off"}},
		{display.TableState{Offline: true, Alert: "extra-card"}, map[string]string{OutTowerAmber: "slow-blink", OutTowerGreen: "off", OutAlarmLamp: "off"}},
		{display.TableState{LastCoup: true}, map[string]string{OutTowerAmber: "steady", OutTowerGreen: "steady"}},
	}
	for _, c := range cases {
		got := Signals(c.s)
		for k, w := range c.want {
			if got[k].String() != w {
				t.Errorf("Signals(%+v)[%s] = %v, want %s", c.s, k, got[k], w)
			}
		}
	}
}

func TestAlertBuzzerConfigured(t *testing.T) {
	b, err := Open(GPIOConfig{Backend: BackendFake, AlertBuzzer: "slow-blink"}, DisplayConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Show(display.TableState{Alert: "extra-card"}); err != nil {
		t.Fatal(err)
	}
	if p, _ := b.Scheduler.Pattern(OutBuzzer); p != PatternSlowBlink {
		t.Errorf("buzzer %v, want slow-blink until acknowledged", p)
	}
	b.AlertBuzzer = BeepFor(5 * time.Second)
	if err := b.Show(display.TableState{Alert: "missing-card"}); err != nil {
		t.Fatal(err)
	}
	// Same alert state shape: the pattern changes to the new buzzer setting.
	if p, _ := b.Scheduler.Pattern(OutBuzzer); p != Beep(17) {
		t.Errorf("buzzer %v, want beep:17", p)
	}
}

// Without Options.HostInit (the real path, periph host.Init, is
// hostgpio's test) backend "gpio" cannot look pins up: Open and Pin say
// so, and Open still works with nothing fitted.
func TestOpenWithoutHost(t *testing.T) {
	_, err := Open(GPIOConfig{AckKey: "GPIO5"}, DisplayConfig{}, nil)
	if !errors.Is(err, ErrNoHost) || !strings.HasPrefix(err.Error(), "board: ") {
		t.Errorf("Open with a pin and no HostInit: %v, want ErrNoHost", err)
	}
	b, err := Open(GPIOConfig{}, DisplayConfig{}, nil)
	if err != nil {
		t.Fatalf("Open with nothing fitted: %v", err)
	}
	if _, err := b.Pin("shoe.rs485_de", "rs485_de", "GPIO18"); !errors.Is(err, ErrNoHost) {
		t.Errorf("Pin with no HostInit: %v, want ErrNoHost", err)
	}
	fail := errors.New("no chips")
	_, err = Open(GPIOConfig{AckKey: "GPIO5"}, DisplayConfig{}, &Options{HostInit: func() (*driverreg.State, error) { return nil, fail }})
	if !errors.Is(err, fail) || err.Error() != "board: periph host init: no chips" {
		t.Errorf("Open with a failing HostInit: %v", err)
	}
}

// The chips' own options reach them through the registry: the TM1637's
// grid order, the MAX7219's cascaded chips, the HT16K33's layout.
func TestChipOptionsReachTheChip(t *testing.T) {
	s := display.TableState{Player: hand(t, "4H 5S"), Banker: hand(t, "3D 3C"), Result: display.ResultPlayer, Natural: true}
	b, err := Open(GPIOConfig{Backend: BackendFake}, DisplayConfig{Kind: "tm1637", Options: map[string]any{"order": []any{int64(3), int64(2), int64(1), int64(0)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Show(s); err != nil {
		t.Fatal(err)
	}
	// Frame digits 9, P, n, 6 on grids 3, 2, 1, 0.
	if got := b.Fake.Chip.(*tm1637test.Bus).Text(4); got != "6nP9" {
		t.Errorf("TM1637 with order [3 2 1 0] shows %q, want \"6nP9\"", got)
	}
	b, err = Open(GPIOConfig{Backend: BackendFake}, DisplayConfig{Kind: "max7219", Options: map[string]any{"chips": int64(2)}}, nil)
	if err != nil || b.Layout.Width != 16 {
		t.Errorf("MAX7219 with 2 chips: width %d, %v", b.Layout.Width, err)
	}
	b, err = Open(GPIOConfig{Backend: BackendFake}, DisplayConfig{Kind: "ht16k33", Options: map[string]any{"layout": "linear"}}, nil)
	if err != nil || b.Layout.Width != 8 {
		t.Errorf("HT16K33 linear: width %d, %v", b.Layout.Width, err)
	}
}
