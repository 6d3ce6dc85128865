// Package board connects the table's hardware to Sabot: the totals display
// (an LED chip registered in drivers/ledchip — the TM1637, MAX7219 and
// HT16K33 register themselves, see chips.go — or the terminal), the alarm lamp,
// the tower light and the buzzer (patterns driven by a Scheduler), and the
// coup button, supervisor acknowledge key and void key (debounced press
// events, see Watch). Pins are named in the configuration ("GPIO17") and
// resolved through periph's gpioreg after periph's host drivers are
// initialised: Options.HostInit, which the daemon sets to
// drivers/board/hostgpio's Init (host.Init), so that this package and the
// programs that only read board configurations (`sabot doctor`) do not
// link periph's host drivers.
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
// HostInit, PinByName, OpenSPI and OpenI2C in Options (hostgpio's test
// runs the real host.Init).
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

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/ledchip"
	"github.com/sabot-table/sabot/drivers/terminal"
)

// Output names; their [gpio] keys are the same but for OutAlarmLamp, whose
// key is "lamp".
const (
	OutAlarmLamp  = "alarm_lamp"
	OutTowerRed   = "tower_red"
	OutTowerAmber = "tower_amber"
	OutTowerGreen = "tower_green"
	OutBuzzer     = "buzzer"
)

// Input names (also their [gpio] keys).
const (
	InCoupButton = "coup_button"
	InAckKey     = "ack_key"
	InVoidKey    = "void_key"
	InBetsKey    = "bets_key"
	// InDealerKey is the dealer sign-in key: sabotd counts its presses
	// (a dealer's place in the [dealer] roster; see docs/configuration.md).
	InDealerKey = "dealer_key"
	// InStandKey is the dealer's stand ("non") key: the hand whose turn
	// it is declines a card (chemin de fer, banque: the transcript's
	// "stand").
	InStandKey = "stand_key"
)

// OutputNames and InputNames list the outputs and inputs in config order.
var (
	OutputNames = []string{OutAlarmLamp, OutTowerRed, OutTowerAmber, OutTowerGreen, OutBuzzer}
	InputNames  = []string{InCoupButton, InAckKey, InVoidKey, InBetsKey, InDealerKey, InStandKey}
)

// Backends.
const (
	BackendGPIO = "gpio" // real pins through periph host (Options.HostInit)
	BackendFake = "fake" // gpiotest pins and bus fakes
)

// Options are the seams of Open; the zero value (or nil) uses the real
// clock and periph's registries, but no host drivers: backend "gpio" with
// any pin or device configured needs HostInit (hostgpio.Init).
type Options struct {
	Logger *slog.Logger
	Clock  clockwork.Clock
	// KeyPrefix is put before config keys ("gpio.lamp") in errors.
	KeyPrefix string
	// Terminal is where the terminal display writes; nil means os.Stdout.
	Terminal io.Writer
	// HostInit initialises periph's host drivers, which fill gpioreg,
	// spireg and i2creg, before the first pin or device of backend "gpio"
	// is looked up: hostgpio.Init (host.Init) in the daemon. nil: Open and
	// Pin fail with ErrNoHost when they need it.
	HostInit func() (*driverreg.State, error)
	// Seams for tests; nil means periph's registries: gpioreg.ByName,
	// spireg.Open, i2creg.Open.
	PinByName func(name string) gpio.PinIO
	OpenSPI   func(name string) (spi.PortCloser, error)
	OpenI2C   func(name string) (i2c.BusCloser, error)
}

// Board is the opened hardware.
type Board struct {
	// Display shows frames; nil when no display is configured. Prefer
	// Scheduler.SetFrame, which animates blinking.
	Display segment.Renderer
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
	pins     pinSource                        // for Pin
	hostInit func() (*driverreg.State, error) // for Pin: not called yet (nil once called, or for "fake")
	prefix   string                           // Options.KeyPrefix
	showMu   sync.Mutex
	lastCoup string // the terminal's last-coup line
}

// Fake holds the fake hardware of backend "fake", for tests and the demo.
type Fake struct {
	// Pins by output or input name (OutAlarmLamp, InAckKey, ...): every
	// output and input exists on the fake board, fitted in config or not.
	// Pins asked for with Board.Pin are here under their id.
	Pins map[string]*gpiotest.Pin
	// Chip is the fake a chip driven on bare pins hands the board
	// (ledchip.Bus.SetFake): a *tm1637test.Bus for the TM1637; nil for
	// others.
	Chip any
	// SPI and I2C record the bytes sent to a chip on SPI (the MAX7219) or
	// I²C (the HT16K33).
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

// Open checks the configuration (Check: every problem, joined), resolves
// every configured pin and device and returns the board. Zero values take
// their defaults: backend "gpio", display kind "none", brightness
// segment.DefaultBrightness. Errors name the config key: a bad value, a
// pin name that gpioreg does not know (after Options.HostInit), a device that
// cannot be opened, ErrNoHost when Options.HostInit is nil and a pin or
// device is configured. On error everything opened so far is closed.
func Open(g GPIOConfig, d DisplayConfig, opts *Options) (*Board, error) {
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
	if o.Terminal == nil {
		o.Terminal = os.Stdout
	}
	if d.Brightness == 0 {
		d.Brightness = segment.DefaultBrightness
	}
	settings, cerrs := Check(g, d)
	if len(cerrs) > 0 {
		errs := make([]error, len(cerrs))
		for i, e := range cerrs {
			e.Key = o.KeyPrefix + e.Key
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	b := &Board{log: o.Logger, clock: o.Clock, Scheduler: NewScheduler(o.Clock, o.Logger), AlertBuzzer: Beep(3)}
	if g.AlertBuzzer != "" {
		b.AlertBuzzer, _ = ParsePattern(g.AlertBuzzer) // Check parsed it
	}
	b.debounce = time.Duration(g.DebounceMS) * time.Millisecond
	var pins pinSource
	switch g.Backend {
	case BackendGPIO, "":
		if o.HostInit == nil {
			o.HostInit = missingHost
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
		if needsHost(g, d) {
			if err := initHost(o.HostInit); err != nil {
				return nil, err
			}
		} else {
			b.hostInit = o.HostInit // Pin calls it if a pin is asked for
		}
		pins = realPins{o}
	case BackendFake:
		b.Fake = &Fake{Pins: map[string]*gpiotest.Pin{}, activeHigh: g.InputsActiveHigh}
		pins = fakePins{b.Fake, o.Clock}
	}
	b.pins, b.prefix = pins, o.KeyPrefix
	if err := b.open(g, d, settings, o, pins); err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

// Pin resolves one more output pin after Open, through the same backend
// as the [gpio] pins, for a driver outside the board that drives a line of
// its own (the shoe's RS-485 driver enable, [shoe] rs485_de): periph's
// gpioreg after Options.HostInit for backend "gpio", a gpiotest pin stored in
// Fake.Pins[id] for backend "fake". key is the pin's config key
// ("shoe.rs485_de", Options.KeyPrefix put before it); a name the GPIO
// chip does not have is a *ConfigError (ErrConfig: sabotd exits 2). The
// caller drives the pin; the board does not.
func (b *Board) Pin(key, id, name string) (gpio.PinIO, error) {
	if name == "" {
		return nil, configErr(b.prefix+key, "no pin named")
	}
	if b.hostInit != nil {
		if err := initHost(b.hostInit); err != nil {
			return nil, err
		}
		b.hostInit = nil
	}
	return b.pins.pin(b.prefix+key, id, name, false)
}

// ErrNoHost is returned by Open and Pin for backend "gpio" when a pin or
// device is to be looked up and Options.HostInit is nil: nothing has
// registered the machine's GPIO lines and buses in periph's registries.
var ErrNoHost = errors.New(`board: backend "gpio" needs periph's host drivers: Options.HostInit is nil (sabotd sets it to drivers/board/hostgpio's Init)`)

// missingHost is Options.HostInit when none is given.
func missingHost() (*driverreg.State, error) { return nil, ErrNoHost }

// initHost runs the host init; its errors are wrapped as "board: periph
// host init: ...", but ErrNoHost, which says it already.
func initHost(init func() (*driverreg.State, error)) error {
	_, err := init()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNoHost):
		return err
	}
	return fmt.Errorf("board: periph host init: %w", err)
}

// needsHost reports whether any pin or device is configured.
func needsHost(g GPIOConfig, d DisplayConfig) bool {
	for _, n := range append(append([]string(nil), OutputNames...), InputNames...) {
		if g.pin(n) != "" {
			return true
		}
	}
	return d.Kind != KindNone && d.Kind != KindTerminal && d.Kind != ""
}

// pinSource gives pins by config key and name.
type pinSource interface {
	// pin resolves the pin name configured under key (the full config
	// key); id names it in Fake.Pins.
	pin(key, id, name string, input bool) (gpio.PinIO, error) // nil, nil: not fitted
	spi(key, name string) (spi.PortCloser, error)
	i2c(key, name string) (i2c.BusCloser, error)
}

type realPins struct{ o Options }

func (r realPins) pin(key, _, name string, _ bool) (gpio.PinIO, error) {
	if name == "" {
		return nil, nil
	}
	p := r.o.PinByName(name)
	if p == nil {
		return nil, configErr(key, "no GPIO pin named %q (names come from the GPIO chip's line names, e.g. \"GPIO17\"; `gpioinfo` lists them)", name)
	}
	return p, nil
}

func (r realPins) spi(key, name string) (spi.PortCloser, error) {
	if name == "" {
		return nil, configErr(key, "an SPI port is needed, e.g. \"/dev/spidev0.0\"")
	}
	p, err := r.o.OpenSPI(name)
	if err != nil {
		return nil, fmt.Errorf("board: config key %q: open SPI port %q: %w", key, name, err)
	}
	return p, nil
}

func (r realPins) i2c(key, name string) (i2c.BusCloser, error) {
	bus, err := r.o.OpenI2C(name)
	if err != nil {
		return nil, fmt.Errorf("board: config key %q: open I²C bus %q: %w", key, name, err)
	}
	return bus, nil
}

type fakePins struct {
	f     *Fake
	clock clockwork.Clock
}

func (f fakePins) pin(_, id, name string, input bool) (gpio.PinIO, error) {
	if name == "" {
		name = id
	}
	p := &gpiotest.Pin{N: name, Num: -1, Clock: f.clock}
	if input {
		p.EdgesChan = make(chan gpio.Level, 64)
	}
	f.f.Pins[id] = p
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

func (b *Board) open(g GPIOConfig, d DisplayConfig, s ledchip.Settings, o Options, pins pinSource) error {
	for _, n := range OutputNames {
		key := "gpio." + outputKeys[n]
		p, err := pins.pin(o.KeyPrefix+key, n, g.pin(n), false)
		if err != nil {
			return err
		}
		if p == nil {
			continue
		}
		if err := b.Scheduler.AddOutput(Output{Name: n, Pin: p, ActiveLow: g.OutputsActiveLow}); err != nil {
			return fmt.Errorf("board: config key %q: %w", o.KeyPrefix+key, err)
		}
	}
	for _, n := range InputNames {
		p, err := pins.pin(o.KeyPrefix+"gpio."+inputKeys[n], n, g.pin(n), true)
		if err != nil {
			return err
		}
		if p != nil {
			b.Buttons = append(b.Buttons, Button{Name: n, Pin: p, ActiveHigh: g.InputsActiveHigh})
		}
	}
	return b.openDisplay(d, s, o, pins)
}

func (b *Board) openDisplay(d DisplayConfig, s ledchip.Settings, o Options, pins pinSource) error {
	b.Brightness = d.Brightness
	digits := d.Digits
	var r segment.Renderer
	switch d.Kind {
	case KindNone, "":
		return nil
	case KindTerminal:
		if digits == 0 {
			digits = terminal.MaxDigits
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
		chip, _ := ledchip.Lookup(d.Kind) // Check found it
		digits = s.Digits
		bus := &chipBus{b: b, o: o, pins: pins, s: s, chip: chip.Name}
		dev, err := chip.OpenOn(s, bus)
		if err != nil {
			return fmt.Errorf("board: config key %q: %s: %w", o.KeyPrefix+"display.kind", chip.Name, err)
		}
		r = dev
	}
	l, err := display.LayoutFor(digits)
	if err != nil {
		return fmt.Errorf("board: config key %q: %w", o.KeyPrefix+"display.digits", err)
	}
	b.Layout = l
	b.Display = r
	b.Scheduler.SetDisplay(r)
	return nil
}

// chipBus is the ledchip.Bus a chip opens its hardware through: the
// board's pin source, with the devices it opens closed by Board.Close.
type chipBus struct {
	b    *Board
	o    Options
	pins pinSource
	s    ledchip.Settings
	chip string
}

func (c *chipBus) key(k string) string { return c.o.KeyPrefix + "display." + k }

func (c *chipBus) Pin(k string) (gpio.PinIO, error) {
	p, err := c.pins.pin(c.key(k), "display."+k, c.s.String(k), false)
	if err == nil && p == nil {
		err = configErr(c.key(k), "the %s needs this pin", c.chip)
	}
	return p, err
}

func (c *chipBus) SPI(k string) (spi.Port, error) { return openBus(c, k, c.pins.spi) }

func (c *chipBus) I2C(k string) (i2c.Bus, error) { return openBus(c, k, c.pins.i2c) }

// openBus opens the bus (SPI port, I²C bus) named by the chip's setting k
// with open and keeps it for the Board's Close.
func openBus[T io.Closer](c *chipBus, k string, open func(key, name string) (T, error)) (T, error) {
	bus, err := open(c.key(k), c.s.String(k))
	if err != nil {
		var none T
		return none, err
	}
	c.b.closers = append(c.b.closers, bus)
	return bus, nil
}

func (c *chipBus) Fake() bool { return c.b.Fake != nil }

func (c *chipBus) SetFake(state any) {
	if c.b.Fake != nil {
		c.b.Fake.Chip = state
	}
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
