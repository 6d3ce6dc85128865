// Package board connects the table's hardware to Sabot: the totals display
// (a TM1637, MAX7219 or HT16K33 chip, or the terminal), the alarm lamp,
// the tower light and the buzzer (patterns driven by a Scheduler), and the
// coup button, supervisor acknowledge key and void key (debounced press
// events, see Watch). Pins are named in the configuration ("GPIO17") and
// resolved through periph's gpioreg after host.Init().
//
// Backend "fake" builds the same board from periph's gpiotest pins, a fake
// TM1637 that decodes its bus, and recording SPI/I²C fakes, so the whole
// daemon runs on a laptop and tests can read what the LEDs showed (see
// Fake).
//
// Device paths. periph host v3 finds GPIO lines itself: its gpioioctl
// driver globs /dev/gpiochip*, puts chips labelled "pinctrl-*" first (the
// Raspberry Pi's header GPIOs) and registers every named line in gpioreg
// under its line name ("GPIO17"); on kernels without the character device
// its sysfs driver uses /sys/class/gpio. Those paths are compiled into
// periph and cannot be overridden; a Sabot config names pins, never paths.
// The SPI and I²C devices are config: display.spi ("/dev/spidev0.0" or
// "SPI0.0") and display.i2c ("/dev/i2c-1" or "1"), opened through spireg
// and i2creg. Tests never touch /dev: they use backend "fake" or replace
// HostInit, PinByName, OpenSPI and OpenI2C in Options.
package board

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/i2c/i2creg"
	"periph.io/x/conn/v3/i2c/i2ctest"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spireg"
	"periph.io/x/conn/v3/spi/spitest"
	"periph.io/x/host/v3"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/drivers/ht16k33"
	"github.com/sabot-table/sabot/drivers/max7219"
	"github.com/sabot-table/sabot/drivers/terminal"
	"github.com/sabot-table/sabot/drivers/tm1637"
	"github.com/sabot-table/sabot/drivers/tm1637/tm1637test"
)

// Output names (also their config keys).
const (
	OutAlarmLamp  = "alarm_lamp"
	OutTowerRed   = "tower_red"
	OutTowerAmber = "tower_amber"
	OutTowerGreen = "tower_green"
	OutBuzzer     = "buzzer"
)

// Input names (also their config keys).
const (
	InCoupButton = "coup_button"
	InAckKey     = "ack_key"
	InVoidKey    = "void_key"
)

// OutputNames and InputNames list the outputs and inputs in config order.
var (
	OutputNames = []string{OutAlarmLamp, OutTowerRed, OutTowerAmber, OutTowerGreen, OutBuzzer}
	InputNames  = []string{InCoupButton, InAckKey, InVoidKey}
)

// Backends.
const (
	BackendGPIO = "gpio" // real pins through periph host
	BackendFake = "fake" // gpiotest pins and bus fakes
)

// Display chips.
const (
	ChipNone     = ""
	ChipTM1637   = "tm1637"
	ChipMAX7219  = "max7219"
	ChipHT16K33  = "ht16k33"
	ChipTerminal = "terminal"
)

// Config is the [board] section of the daemon's configuration. Pin fields
// hold gpioreg names ("GPIO17"); an empty pin field means "not fitted".
type Config struct {
	Backend string `toml:"backend"` // "gpio" (default) or "fake"

	AlarmLamp  string `toml:"alarm_lamp"`
	TowerRed   string `toml:"tower_red"`
	TowerAmber string `toml:"tower_amber"`
	TowerGreen string `toml:"tower_green"`
	Buzzer     string `toml:"buzzer"`
	// OutputsActiveLow: outputs are on at gpio.Low (most relay boards).
	OutputsActiveLow bool `toml:"outputs_active_low"`

	CoupButton string `toml:"coup_button"`
	AckKey     string `toml:"ack_key"`
	VoidKey    string `toml:"void_key"`
	// InputsActiveHigh: keys pull the pin high (pull-down enabled). The
	// default is keys to ground with the pull-up enabled.
	InputsActiveHigh bool `toml:"inputs_active_high"`
	DebounceMS       int  `toml:"debounce_ms"` // 0: 30 ms
	// AlertBuzzer is the buzzer pattern for an unacknowledged alert (see
	// ParsePattern): "" means "beep:3"; "slow-blink" beeps until the
	// acknowledgement. BeepFor gives one from a duration.
	AlertBuzzer string `toml:"alert_buzzer"`

	Display DisplayConfig `toml:"display"`
}

// DisplayConfig is the [board.display] section.
type DisplayConfig struct {
	// Chip is "tm1637", "max7219", "ht16k33", "terminal" or "" (none).
	Chip string `toml:"chip"`
	// Digits is the number of digits; 0 means the chip's usual module
	// (TM1637 and HT16K33: 4; MAX7219: 8 per chip; terminal: 4).
	Digits     int `toml:"digits"`
	Brightness int `toml:"brightness"` // 0..15; 0 in config means display.DefaultBrightness; use 1 for dimmest
	// TM1637: CLK and DIO pins, optional grid order, bit half-period.
	CLK       string `toml:"clk"`
	DIO       string `toml:"dio"`
	Order     []int  `toml:"order"`
	HalfBitUS int    `toml:"half_bit_us"`
	// MAX7219: SPI port and cascaded chips.
	SPI   string `toml:"spi"`
	Chips int    `toml:"chips"`
	// HT16K33: I²C bus, address (0: 0x70) and layout ("backpack4" or
	// "linear").
	I2C    string `toml:"i2c"`
	Addr   int    `toml:"addr"`
	Layout string `toml:"layout"`
}

// Options are the seams of Open; the zero value (or nil) uses periph host
// and the real clock.
type Options struct {
	Logger *slog.Logger
	Clock  clockwork.Clock
	// KeyPrefix is put before config keys in errors; "" means "board.".
	KeyPrefix string
	// Terminal is where the terminal display writes; nil means os.Stdout.
	Terminal io.Writer
	// Seams for tests; nil means periph: host.Init, gpioreg.ByName,
	// spireg.Open, i2creg.Open.
	HostInit  func() (*driverreg.State, error)
	PinByName func(name string) gpio.PinIO
	OpenSPI   func(name string) (spi.PortCloser, error)
	OpenI2C   func(name string) (i2c.BusCloser, error)
}

// Board is the opened hardware.
type Board struct {
	// Display shows frames; nil when no display is configured. Prefer
	// Scheduler.SetFrame, which animates blinking.
	Display display.Renderer
	// Layout is the display.Layout for the display's width.
	Layout display.Layout
	// Brightness is the configured display brightness.
	Brightness int
	// Terminal is set when the display is the terminal (for its status
	// lines).
	Terminal *terminal.Screen
	// Scheduler drives the outputs and the display.
	Scheduler *Scheduler
	// Buttons are the fitted inputs.
	Buttons []Button
	// Fake is set for backend "fake".
	Fake *Fake
	// AlertBuzzer is the buzzer pattern Show uses for an unacknowledged
	// alert (from Config.AlertBuzzer; may be changed before Run).
	AlertBuzzer Pattern

	log      *slog.Logger
	clock    clockwork.Clock
	debounce time.Duration
	closers  []io.Closer
	showMu   sync.Mutex
	lastCoup string // the terminal's last-coup line
}

// Fake holds the fake hardware of backend "fake", for tests and the demo.
type Fake struct {
	// Pins by output or input name (OutAlarmLamp, InAckKey, ...): every
	// output and input exists on the fake board, fitted in config or not.
	Pins map[string]*gpiotest.Pin
	// TM1637 is the fake TM1637 bus when display.chip is "tm1637".
	TM1637 *tm1637test.Bus
	// SPI and I2C record the bytes sent to a MAX7219 or HT16K33.
	SPI *spitest.Record
	I2C *i2ctest.Record

	activeHigh bool
}

// Press simulates a press of the named input: a bouncing edge to the
// pressed level (low, high, low for the default active-low keys). The
// watcher (Board.Run) debounces it into one Event. Press first waits, up to
// two seconds, for the watcher to configure the pin, since configuring an
// input discards pending edges. Errors: no such input, or no watcher.
func (f *Fake) Press(name string) error {
	down, up := gpio.Low, gpio.High
	if f.activeHigh {
		down, up = up, down
	}
	return f.edges(name, down, up, down)
}

// Release simulates the release after Press: one edge back to the idle
// level.
func (f *Fake) Release(name string) error {
	up := gpio.High
	if f.activeHigh {
		up = gpio.Low
	}
	return f.edges(name, up)
}

func (f *Fake) edges(name string, levels ...gpio.Level) error {
	p, ok := f.Pins[name]
	if !ok || p.EdgesChan == nil {
		return fmt.Errorf("board: fake has no input %q", name)
	}
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(time.Millisecond) {
		p.Lock()
		ready := p.P != gpio.PullNoChange
		p.Unlock()
		if ready {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("board: fake input %q is not being watched (is Board.Run running?)", name)
		}
	}
	for _, l := range levels {
		select {
		case p.EdgesChan <- l:
		default:
			return fmt.Errorf("board: fake input %q: too many pending edges", name)
		}
	}
	return nil
}

// OutputOn reports whether the named output is on now (as the scheduler
// last wrote it, active-low taken into account); false for an output not
// fitted.
func (b *Board) OutputOn(name string) bool {
	for _, l := range b.Scheduler.Lamps() {
		if l.Name == name {
			return l.On
		}
	}
	return false
}

// Open resolves every configured pin and device and returns the board.
// Errors name the config key: an unknown backend or chip, a pin name that
// gpioreg does not know (after host.Init), a device that cannot be opened.
// On error everything opened so far is closed.
func Open(cfg Config, opts *Options) (*Board, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Clock == nil {
		o.Clock = clockwork.NewRealClock()
	}
	if o.KeyPrefix == "" {
		o.KeyPrefix = "board."
	}
	if o.Terminal == nil {
		o.Terminal = os.Stdout
	}
	b := &Board{log: o.Logger, clock: o.Clock, Scheduler: NewScheduler(o.Clock, o.Logger), AlertBuzzer: Beep(3)}
	if cfg.AlertBuzzer != "" {
		p, err := ParsePattern(cfg.AlertBuzzer)
		if err != nil {
			return nil, fmt.Errorf("board: config key %q: %w", o.KeyPrefix+"alert_buzzer", err)
		}
		b.AlertBuzzer = p
	}
	b.debounce = time.Duration(cfg.DebounceMS) * time.Millisecond
	if cfg.DebounceMS < 0 {
		return nil, configErr(o.KeyPrefix+"debounce_ms", "%d ms is negative", cfg.DebounceMS)
	}
	var pins pinSource
	switch cfg.Backend {
	case BackendGPIO, "":
		if o.HostInit == nil {
			o.HostInit = host.Init
		}
		if o.PinByName == nil {
			o.PinByName = gpioreg.ByName
		}
		if o.OpenSPI == nil {
			o.OpenSPI = spireg.Open
		}
		if o.OpenI2C == nil {
			o.OpenI2C = i2creg.Open
		}
		if needsHost(cfg) {
			if _, err := o.HostInit(); err != nil {
				return nil, fmt.Errorf("board: periph host init: %w", err)
			}
		}
		pins = realPins{o}
	case BackendFake:
		b.Fake = &Fake{Pins: map[string]*gpiotest.Pin{}, activeHigh: cfg.InputsActiveHigh}
		pins = fakePins{b.Fake, o.Clock}
	default:
		return nil, configErr(o.KeyPrefix+"backend", "unknown backend %q (want %q or %q)", cfg.Backend, BackendGPIO, BackendFake)
	}
	if err := b.open(cfg, o, pins); err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

// needsHost reports whether any pin or device is configured.
func needsHost(cfg Config) bool {
	for _, s := range []string{cfg.AlarmLamp, cfg.TowerRed, cfg.TowerAmber, cfg.TowerGreen, cfg.Buzzer, cfg.CoupButton, cfg.AckKey, cfg.VoidKey} {
		if s != "" {
			return true
		}
	}
	switch cfg.Display.Chip {
	case ChipTM1637, ChipMAX7219, ChipHT16K33:
		return true
	}
	return false
}

// pinSource gives pins by config key and name.
type pinSource interface {
	pin(key, name string, input bool) (gpio.PinIO, error) // nil, nil: not fitted
	spi(key, name string) (spi.PortCloser, error)
	i2c(key, name string) (i2c.BusCloser, error)
}

type realPins struct{ o Options }

func (r realPins) pin(key, name string, _ bool) (gpio.PinIO, error) {
	if name == "" {
		return nil, nil
	}
	p := r.o.PinByName(name)
	if p == nil {
		return nil, configErr(r.o.KeyPrefix+key, "no GPIO pin named %q (names come from the GPIO chip's line names, e.g. \"GPIO17\"; `gpioinfo` lists them)", name)
	}
	return p, nil
}

func (r realPins) spi(key, name string) (spi.PortCloser, error) {
	if name == "" {
		return nil, configErr(r.o.KeyPrefix+key, "the MAX7219 needs an SPI port, e.g. \"/dev/spidev0.0\"")
	}
	p, err := r.o.OpenSPI(name)
	if err != nil {
		return nil, fmt.Errorf("board: config key %q: open SPI port %q: %w", r.o.KeyPrefix+key, name, err)
	}
	return p, nil
}

func (r realPins) i2c(key, name string) (i2c.BusCloser, error) {
	bus, err := r.o.OpenI2C(name)
	if err != nil {
		return nil, fmt.Errorf("board: config key %q: open I²C bus %q: %w", r.o.KeyPrefix+key, name, err)
	}
	return bus, nil
}

type fakePins struct {
	f     *Fake
	clock clockwork.Clock
}

func (f fakePins) pin(key, name string, input bool) (gpio.PinIO, error) {
	if name == "" {
		name = key
	}
	p := &gpiotest.Pin{N: name, Num: -1, Clock: f.clock}
	if input {
		p.EdgesChan = make(chan gpio.Level, 64)
	}
	f.f.Pins[key] = p
	return p, nil
}

func (f fakePins) spi(string, string) (spi.PortCloser, error) {
	f.f.SPI = &spitest.Record{}
	return f.f.SPI, nil
}

type fakeI2C struct{ *i2ctest.Record }

func (fakeI2C) Close() error { return nil }

func (f fakePins) i2c(string, string) (i2c.BusCloser, error) {
	f.f.I2C = &i2ctest.Record{}
	return fakeI2C{f.f.I2C}, nil
}

func (b *Board) open(cfg Config, o Options, pins pinSource) error {
	outs := map[string]string{OutAlarmLamp: cfg.AlarmLamp, OutTowerRed: cfg.TowerRed, OutTowerAmber: cfg.TowerAmber, OutTowerGreen: cfg.TowerGreen, OutBuzzer: cfg.Buzzer}
	for _, n := range OutputNames {
		p, err := pins.pin(n, outs[n], false)
		if err != nil {
			return err
		}
		if p == nil {
			continue
		}
		if err := b.Scheduler.AddOutput(Output{Name: n, Pin: p, ActiveLow: cfg.OutputsActiveLow}); err != nil {
			return fmt.Errorf("board: config key %q: %w", o.KeyPrefix+n, err)
		}
	}
	ins := map[string]string{InCoupButton: cfg.CoupButton, InAckKey: cfg.AckKey, InVoidKey: cfg.VoidKey}
	for _, n := range InputNames {
		p, err := pins.pin(n, ins[n], true)
		if err != nil {
			return err
		}
		if p != nil {
			b.Buttons = append(b.Buttons, Button{Name: n, Pin: p, ActiveHigh: cfg.InputsActiveHigh})
		}
	}
	return b.openDisplay(cfg.Display, o, pins)
}

func (b *Board) openDisplay(dc DisplayConfig, o Options, pins pinSource) error {
	key := func(k string) string { return o.KeyPrefix + "display." + k }
	b.Brightness = dc.Brightness
	if b.Brightness == 0 {
		b.Brightness = display.DefaultBrightness
	}
	if b.Brightness < 0 || b.Brightness > display.MaxBrightness {
		return configErr(key("brightness"), "brightness %d, want 1..%d", dc.Brightness, display.MaxBrightness)
	}
	digits := dc.Digits
	var r display.Renderer
	switch dc.Chip {
	case ChipNone:
		return nil
	case ChipTM1637:
		if digits == 0 {
			digits = 4
		}
		var clk, dio gpio.PinIO
		if b.Fake != nil {
			bus := tm1637test.NewBusNamed(orDefault(dc.CLK, "CLK"), orDefault(dc.DIO, "DIO"))
			b.Fake.TM1637 = bus
			clk, dio = bus.CLK, bus.DIO
		} else {
			var err error
			if clk, err = pins.pin("display.clk", dc.CLK, false); err != nil {
				return err
			}
			if dio, err = pins.pin("display.dio", dc.DIO, false); err != nil {
				return err
			}
			if clk == nil || dio == nil {
				return configErr(key("clk"), "the TM1637 needs both pins, %q and %q", key("clk"), key("dio"))
			}
		}
		opts := &tm1637.Opts{Digits: digits, Order: dc.Order, HalfBit: time.Duration(dc.HalfBitUS) * time.Microsecond}
		if b.Fake != nil {
			opts.Delay = func(time.Duration) {}
		}
		d, err := tm1637.New(clk, dio, opts)
		if err != nil {
			return fmt.Errorf("board: config key %q: %w", key("chip"), err)
		}
		r = d
	case ChipMAX7219:
		chips := max(dc.Chips, 1)
		if digits == 0 {
			digits = chips * max7219.DigitsPerChip
		}
		if digits > chips*max7219.DigitsPerChip {
			return configErr(key("digits"), "%d digits on %d chips", digits, chips)
		}
		port, err := pins.spi("display.spi", dc.SPI)
		if err != nil {
			return err
		}
		b.closers = append(b.closers, port)
		d, err := max7219.Open(port, &max7219.Opts{Chips: chips})
		if err != nil {
			return fmt.Errorf("board: config key %q: %w", key("spi"), err)
		}
		r = d
	case ChipHT16K33:
		layout := ht16k33.LayoutBackpack4
		switch dc.Layout {
		case "", "backpack4":
		case "linear":
			layout = ht16k33.LayoutLinear
		default:
			return configErr(key("layout"), "unknown layout %q (want backpack4 or linear)", dc.Layout)
		}
		if digits == 0 {
			digits = layout.Digits()
		}
		if digits > layout.Digits() {
			return configErr(key("digits"), "%d digits, the %s layout holds %d", digits, orDefault(dc.Layout, "backpack4"), layout.Digits())
		}
		if dc.Addr < 0 || dc.Addr > 0x7F {
			return configErr(key("addr"), "I²C address %#x out of range", dc.Addr)
		}
		bus, err := pins.i2c("display.i2c", dc.I2C)
		if err != nil {
			return err
		}
		b.closers = append(b.closers, bus)
		d, err := ht16k33.New(bus, &ht16k33.Opts{Addr: uint16(dc.Addr), Layout: layout})
		if err != nil {
			return fmt.Errorf("board: config key %q: %w", key("chip"), err)
		}
		r = d
	case ChipTerminal:
		if digits == 0 {
			digits = 4
		}
		if digits > terminal.MaxDigits {
			return configErr(key("digits"), "the terminal shows at most %d digits", terminal.MaxDigits)
		}
		t := terminal.New(o.Terminal)
		b.Terminal = t
		b.Scheduler.SetObserver(func(ls []LampState) {
			lamps := make([]terminal.Lamp, len(ls))
			for i, l := range ls {
				lamps[i] = terminal.Lamp{Name: shortName(l.Name), On: l.On, Pattern: l.Pattern.String()}
			}
			if err := t.SetLamps(lamps); err != nil {
				o.Logger.Error("board: terminal", "err", err)
			}
		})
		r = t
	default:
		return configErr(key("chip"), "unknown display chip %q (want tm1637, max7219, ht16k33, terminal or empty)", dc.Chip)
	}
	l, err := display.LayoutFor(digits)
	if err != nil {
		return fmt.Errorf("board: config key %q: %w", key("digits"), err)
	}
	b.Layout = l
	b.Display = r
	b.Scheduler.SetDisplay(r)
	return nil
}

// shortName is the terminal's label for an output: "alarm", "red",
// "amber", "green", "buzzer".
func shortName(n string) string {
	n = strings.TrimPrefix(n, "tower_")
	return strings.TrimSuffix(n, "_lamp")
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Show composes the frame for s on the board's display and hands it to the
// scheduler (which animates blinking), and sets the lamps and buzzer to
// Signals(s). On the terminal display it also updates the last-coup and
// message lines. Errors are the devices'.
func (b *Board) Show(s display.TableState) error {
	b.showMu.Lock()
	defer b.showMu.Unlock()
	var errs []error
	if b.Terminal != nil {
		if l, ok := terminal.CoupLine(s); ok {
			b.lastCoup = l
		}
		errs = append(errs, b.Terminal.SetLastCoup(b.lastCoup, terminal.MessageLine(s)))
	}
	if b.Display != nil {
		errs = append(errs, b.Scheduler.SetFrame(display.Compose(s, b.Layout, b.Brightness)))
	}
	fitted := map[string]bool{}
	for _, l := range b.Scheduler.Lamps() {
		fitted[l.Name] = true
	}
	for name, p := range SignalsWith(s, b.AlertBuzzer) {
		if fitted[name] {
			errs = append(errs, b.Scheduler.Set(name, p))
		}
	}
	return errors.Join(errs...)
}

// Run drives the outputs and watches every button, sending presses on
// events, until ctx is done; it returns the first input error, or
// ctx.Err().
func (b *Board) Run(ctx context.Context, events chan<- Event) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errc := make(chan error, len(b.Buttons)+1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		errc <- b.Scheduler.Run(ctx)
	}()
	for _, btn := range b.Buttons {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := Watch(ctx, btn, events, InputOpts{Debounce: b.debounce, Clock: b.clock})
			if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				cancel()
			}
			errc <- err
		}()
	}
	wg.Wait()
	close(errc)
	var first error
	for err := range errc {
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	return ctx.Err()
}

// Close switches the outputs off, blanks the display and closes the SPI and
// I²C devices. Call it after Run has returned.
func (b *Board) Close() error {
	errs := []error{b.Scheduler.Halt()}
	for _, c := range b.closers {
		errs = append(errs, c.Close())
	}
	b.closers = nil
	return errors.Join(errs...)
}

// Signals returns the lamp and buzzer patterns for a table state, with
// three beeps for an alert: SignalsWith(s, Beep(3)).
func Signals(s display.TableState) map[string]Pattern { return SignalsWith(s, Beep(3)) }

// SignalsWith returns the lamp and buzzer patterns for a table state:
//
//   - unacknowledged alert: alarm lamp and tower red fast blink, buzzer
//     alertBuzzer, green off;
//   - acknowledged alert: alarm lamp and tower red steady, buzzer off;
//   - shoe offline: tower amber slow blink, alarm lamp off, green off;
//   - last coup (cut card out): tower amber steady, green steady;
//   - otherwise: tower green steady, everything else off.
func SignalsWith(s display.TableState, alertBuzzer Pattern) map[string]Pattern {
	p := map[string]Pattern{
		OutAlarmLamp: PatternOff, OutTowerRed: PatternOff, OutTowerAmber: PatternOff,
		OutTowerGreen: PatternSteady, OutBuzzer: PatternOff,
	}
	switch {
	case s.Offline:
		p[OutTowerAmber] = PatternSlowBlink
		p[OutTowerGreen] = PatternOff
	case s.Alert != "" && s.Alert != "shoe-online" && !s.AlertAcknowledged:
		p[OutAlarmLamp] = PatternFastBlink
		p[OutTowerRed] = PatternFastBlink
		p[OutBuzzer] = alertBuzzer
		p[OutTowerGreen] = PatternOff
	case s.Alert != "" && s.Alert != "shoe-online":
		p[OutAlarmLamp] = PatternSteady
		p[OutTowerRed] = PatternSteady
		p[OutTowerGreen] = PatternOff
	case s.LastCoup:
		p[OutTowerAmber] = PatternSteady
	}
	return p
}

// ErrConfig is matched (errors.Is) by every *ConfigError: a board setting
// that cannot work whatever the hardware does, such as a pin name the GPIO
// chip does not have. Restarting does not help; fix the configuration.
var ErrConfig = errors.New("board: bad configuration")

// ConfigError is a bad board setting, naming its config key.
type ConfigError struct {
	Key string // the config key, with Options.KeyPrefix
	Msg string // what is wrong with its value
}

// Error formats the error as `board: config key "KEY": MSG`.
func (e *ConfigError) Error() string { return fmt.Sprintf("board: config key %q: %s", e.Key, e.Msg) }

// Is makes errors.Is(err, ErrConfig) true.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

func configErr(key, format string, args ...any) error {
	return &ConfigError{Key: key, Msg: fmt.Sprintf(format, args...)}
}
