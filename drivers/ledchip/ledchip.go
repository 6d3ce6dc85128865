// Package ledchip is the registry of LED display chips: the one place that
// knows which chips exist, their config options (name, type, default),
// their usual width and how their settings are checked. A chip package
// (drivers/tm1637, drivers/max7219, drivers/ht16k33) registers itself from
// its init function; drivers/board opens the configured chip through the
// registry and sabotd's configuration reads its options from it, so a new
// chip is one package plus its registration (and a blank import in
// drivers/board/chips.go).
//
// A chip's options are keys of sabotd's [display] table next to the common
// kind, digits and brightness, e.g.
//
//	[display]
//	kind = "tm1637"
//	clk = "GPIO23"
//	order = [2, 1, 0, 5, 4, 3]
package ledchip

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/spi"

	"github.com/sabot-table/sabot/display/segment"
)

// Kind is the type of an option's value.
type Kind int

const (
	// Int is a TOML integer (Go int).
	Int Kind = iota
	// String is a TOML string.
	String
	// Pin is a GPIO pin name as gpioreg knows it ("GPIO23"), a TOML
	// string; the board refuses a pin that another key also names.
	Pin
	// Ints is a TOML array of integers (Go []int).
	Ints
)

// String names the kind in the config file's terms ("an integer").
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ledchip.Kind(%d)", int(k))
}

var kindNames = [...]string{
	Int:    "an integer",
	String: "a string",
	Pin:    "a pin name (a string)",
	Ints:   "an array of integers",
}

// Option is one chip-specific config key.
type Option struct {
	// Key is the config key within [display], lower case ("half_bit_us").
	Key string
	// Kind is its type.
	Kind Kind
	// Default is its value when the key is not set: an int (Int), a
	// string (String, Pin) or an []int (Ints; nil for none).
	Default any
	// Doc is a short description for --print-config readers and errors.
	Doc string
}

// Settings are a chip's resolved settings: the common [display] keys and
// every option, defaults filled in.
type Settings struct {
	// Chip is the chip's registered name.
	Chip string
	// Digits is the display width: the configured one, or the chip's
	// default for these options.
	Digits int
	// Brightness is 1–15 (segment.MaxBrightness).
	Brightness int
	// Values holds every option of the chip by key: int, string or []int.
	Values map[string]any
}

// Int returns the value of an Int option (0 if the chip has none of that
// key).
func (s Settings) Int(key string) int { v, _ := s.Values[key].(int); return v }

// String returns the value of a String or Pin option.
func (s Settings) String(key string) string { v, _ := s.Values[key].(string); return v }

// Ints returns the value of an Ints option.
func (s Settings) Ints(key string) []int { v, _ := s.Values[key].([]int); return v }

// Bus opens the hardware a chip's options name; drivers/board implements it
// for real pins and buses and for its fake backend. Keys are option keys,
// and errors name them.
type Bus interface {
	// Pin is the GPIO pin named by the option key.
	Pin(key string) (gpio.PinIO, error)
	// SPI is the SPI port named by the option key (closed by the board).
	SPI(key string) (spi.Port, error)
	// I2C is the I²C bus named by the option key (closed by the board).
	I2C(key string) (i2c.Bus, error)
	// Fake reports the board's fake backend. SPI and I2C then record the
	// bytes sent; a chip driven on bare pins (the TM1637) has nothing to
	// record them, so it builds an emulation of itself and reports it
	// with SetFake, for tests to read what it shows.
	Fake() bool
	// SetFake hands the board the chip's fake (exported as Fake.Chip).
	SetFake(state any)
}

// Chip describes a registered chip.
type Chip struct {
	// Name is the config name (display.kind), lower case, e.g. "tm1637".
	Name string
	// Summary is a short description, e.g. "4-6 digit module on two GPIO
	// pins".
	Summary string
	// Options are the chip's own [display] keys, in the order
	// --print-config shows them.
	Options []Option
	// Digits returns the usual width for these options (display.digits =
	// 0); nil means 4.
	Digits func(s Settings) int
	// MaxDigits returns the widest display these options drive; nil means
	// Digits.
	MaxDigits func(s Settings) int
	// Check, if not nil, returns every problem with the option values (each
	// naming its key); Digits is resolved when it is called.
	Check func(s Settings) []*OptionError
	// Open returns the chip's renderer on the hardware bus gives.
	Open func(s Settings, bus Bus) (segment.Renderer, error)
}

// OptionError is an option value a chip cannot use. Key is the option's
// key ("layout"), or "digits" / "brightness".
type OptionError struct {
	Key string
	Msg string
}

// Error formats it as "ledchip: KEY: MSG".
func (e *OptionError) Error() string { return "ledchip: " + e.Key + ": " + e.Msg }

var (
	mu    sync.Mutex
	chips = map[string]Chip{}
)

// reserved are display kinds drivers/board and sabotd provide themselves.
var reserved = []string{"none", "terminal", "fake", "kind", "digits", "brightness"}

// Register makes a chip available to display.kind. It panics (a
// programming error) on an empty, upper-case, reserved or duplicate name, a
// nil Open, an option without a key, a duplicate or common key
// ("digits", "brightness", "kind"), or a default of the wrong type.
func Register(c Chip) {
	mu.Lock()
	defer mu.Unlock()
	if c.Name == "" || c.Open == nil || c.Name != strings.ToLower(c.Name) || slices.Contains(reserved, c.Name) {
		panic(fmt.Sprintf("ledchip: Register(%q): needs a lower-case name that is not reserved and an Open function", c.Name))
	}
	if _, dup := chips[c.Name]; dup {
		panic("ledchip: chip " + c.Name + " registered twice")
	}
	seen := map[string]bool{}
	for _, o := range c.Options {
		if o.Key == "" || seen[o.Key] || slices.Contains(reserved, o.Key) || o.Key != strings.ToLower(o.Key) {
			panic(fmt.Sprintf("ledchip: chip %s: option key %q is empty, duplicate, reserved or not lower case", c.Name, o.Key))
		}
		seen[o.Key] = true
		if _, err := convert(o, o.Default); err != "" && o.Default != nil {
			panic(fmt.Sprintf("ledchip: chip %s: option %s: default %v: %s", c.Name, o.Key, o.Default, err))
		}
	}
	c.Options = slices.Clone(c.Options)
	chips[c.Name] = c
}

// Emulator opens a chip's emulation on the board's fake backend, for a
// chip driven on bare pins that nothing on fake pins would answer (the
// TM1637's ACK): it reports the emulation with bus.SetFake, for tests to
// read what the chip shows. The chip's test fake registers it (package
// tm1637test) and the daemon's fake backend (drivers/board) imports that
// fake, so that no chip driver links its own fake.
type Emulator func(s Settings, bus Bus) (segment.Renderer, error)

var emulators = map[string]Emulator{}

// RegisterEmulator makes e the emulation of the chip name on a fake
// backend (OpenOn). It panics (a programming error) on an empty name, a
// nil e or a second emulator for one chip.
func RegisterEmulator(name string, e Emulator) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || e == nil {
		panic("ledchip: RegisterEmulator needs a chip name and an emulator")
	}
	if _, dup := emulators[name]; dup {
		panic("ledchip: emulator of " + name + " registered twice")
	}
	emulators[name] = e
}

// OpenOn opens the chip on bus: its registered Emulator when bus is the
// fake backend and the chip has one, else its Open.
func (c Chip) OpenOn(s Settings, bus Bus) (segment.Renderer, error) {
	if bus.Fake() {
		mu.Lock()
		e, ok := emulators[c.Name]
		mu.Unlock()
		if ok {
			return e(s, bus)
		}
	}
	return c.Open(s, bus)
}

// Lookup returns the registered chip of that name.
func Lookup(name string) (Chip, bool) {
	mu.Lock()
	defer mu.Unlock()
	c, ok := chips[name]
	return c, ok
}

// Names lists the registered chips, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	return slices.Sorted(maps.Keys(chips))
}

// Option returns the chip's option of that key.
func (c Chip) Option(key string) (Option, bool) {
	for _, o := range c.Options {
		if o.Key == key {
			return o, true
		}
	}
	return Option{}, false
}

// Resolve checks the configured option values (as the TOML decoder gives
// them: int64 or int, string, []any or []int; keys not of this chip are the
// caller's to refuse), fills in the defaults, resolves digits (0: the
// chip's usual width) and runs the chip's checks. brightness must already
// be 1–15. It returns every problem.
func (c Chip) Resolve(digits, brightness int, raw map[string]any) (Settings, []*OptionError) {
	s := Settings{Chip: c.Name, Brightness: brightness, Values: map[string]any{}}
	var errs []*OptionError
	for _, o := range c.Options {
		v, set := raw[o.Key]
		if !set {
			v = o.Default
		}
		cv, msg := convert(o, v)
		if msg != "" {
			errs = append(errs, &OptionError{o.Key, msg})
			cv, _ = convert(o, o.Default)
		}
		s.Values[o.Key] = cv
	}
	s.Digits = digits
	if s.Digits == 0 {
		s.Digits = 4
		if c.Digits != nil {
			s.Digits = c.Digits(s)
		}
	}
	maxD := s.Digits
	if c.MaxDigits != nil {
		maxD = c.MaxDigits(s)
	} else if c.Digits != nil {
		maxD = c.Digits(s)
	}
	if s.Digits < 1 || s.Digits > maxD {
		errs = append(errs, &OptionError{"digits", fmt.Sprintf("%d: the %s drives 1 to %d digits with these settings", s.Digits, c.Name, maxD)})
	}
	if len(errs) == 0 && c.Check != nil {
		errs = append(errs, c.Check(s)...)
	}
	return s, errs
}

// convert returns v as o's Go type, or what is wrong with it.
func convert(o Option, v any) (any, string) {
	wrong := func() (any, string) {
		return nil, fmt.Sprintf("wrong type: %s where %s is wanted", describe(v), o.Kind)
	}
	switch o.Kind {
	case Int:
		if n, ok := toInt(v); ok {
			return n, ""
		}
		return wrong()
	case String, Pin:
		if s, ok := v.(string); ok {
			return s, ""
		}
		return wrong()
	case Ints:
		switch l := v.(type) {
		case nil:
			return []int(nil), ""
		case []int:
			if len(l) == 0 {
				return []int(nil), ""
			}
			return slices.Clone(l), ""
		case []any:
			if len(l) == 0 {
				return []int(nil), "" // [] is none, as nil
			}
			out := make([]int, len(l))
			for i, e := range l {
				n, ok := toInt(e)
				if !ok {
					return wrong()
				}
				out[i] = n
			}
			return out, ""
		}
		return wrong()
	}
	return wrong()
}

func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			return int(n), true
		}
	}
	return 0, false
}

// describe names a decoded TOML value's type in the file's terms.
func describe(v any) string {
	switch v.(type) {
	case int, int64:
		return "a TOML integer"
	case float64:
		return "a TOML float"
	case string:
		return "a TOML string"
	case bool:
		return "a TOML boolean"
	case []any, []int:
		return "a TOML array"
	case map[string]any:
		return "a TOML table"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("a TOML value (%T)", v)
}

// Sender sends a chip's writes over its connection (an I²C device, an SPI
// connection: any periph conn.Conn), one Tx each and in order. Its Send is
// safe for concurrent use: the writes of two calls do not interleave.
type Sender struct {
	mu   sync.Mutex
	c    conn.Conn
	fail func(w []byte, err error) error
}

// NewSender returns a Sender on c. fail makes the error Send returns when
// the write w fails with err (naming the chip and w's command or register:
// each driver keeps its own error text).
func NewSender(c conn.Conn, fail func(w []byte, err error) error) *Sender {
	return &Sender{c: c, fail: fail}
}

// Send writes each of writes, in order, and stops at the first that fails:
// its error is fail's.
func (s *Sender) Send(writes ...[]byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range writes {
		if err := s.c.Tx(w, nil); err != nil {
			return s.fail(w, err)
		}
	}
	return nil
}
