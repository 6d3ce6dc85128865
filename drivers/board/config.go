package board

import (
	"fmt"
	"strings"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/ledchip"
	"github.com/sabot-table/sabot/drivers/terminal"
)

// GPIOConfig is the [gpio] table of sabotd's configuration (the one schema
// of these keys: sabotd's Config embeds it). Pin fields hold gpioreg names
// ("GPIO17"); an empty pin field means "not fitted".
type GPIOConfig struct {
	// Backend is "gpio" (real pins through periph; "" means it too) or
	// "fake" (gpiotest pins and bus fakes: a laptop, the demo, tests).
	Backend    string `toml:"backend"`
	Lamp       string `toml:"lamp"` // the alarm lamp (output OutAlarmLamp)
	Buzzer     string `toml:"buzzer"`
	TowerRed   string `toml:"tower_red"`
	TowerAmber string `toml:"tower_amber"`
	TowerGreen string `toml:"tower_green"`
	// OutputsActiveLow: outputs are on at a low level (most relay boards).
	OutputsActiveLow bool `toml:"outputs_active_low"`
	// InputsActiveHigh: keys pull the pin high (pull-down enabled). The
	// default is keys to ground with the pull-up enabled.
	InputsActiveHigh bool `toml:"inputs_active_high"`
	// DebounceMS is the key debounce time in milliseconds, 0–1000 (0:
	// 30 ms).
	DebounceMS int    `toml:"debounce_ms"`
	AckKey     string `toml:"ack_key"`
	VoidKey    string `toml:"void_key"`
	CoupButton string `toml:"coup_button"`
	// BetsKey is the live-dealer bets-closed key.
	BetsKey string `toml:"bets_key"`
	// DealerKey is the dealer sign-in key (sabotd's [dealer] roster).
	DealerKey string `toml:"dealer_key"`
	// StandKey is the dealer's stand ("non") key: at an option of chemin
	// de fer or banque, the hand whose turn it is declines a card.
	StandKey string `toml:"stand_key"`
	// AlertBuzzer is the buzzer pattern for an unacknowledged alert (see
	// ParsePattern): "" means "beep:3"; "slow-blink" sounds until the
	// acknowledgement.
	AlertBuzzer string `toml:"alert_buzzer"`
}

// DisplayConfig is the [display] table of sabotd's configuration: the
// common keys, and the chip's own keys in Options.
type DisplayConfig struct {
	// Kind is a chip registered in drivers/ledchip ("tm1637", "max7219",
	// "ht16k33"), "terminal", or "none" ("" means none).
	Kind string `toml:"kind"`
	// Brightness is 1–15 (segment.MaxBrightness); Open takes 0 as
	// segment.DefaultBrightness.
	Brightness int `toml:"brightness"`
	// Digits is the display's width; 0: the chip's usual (its
	// registration says; the terminal: 8).
	Digits int `toml:"digits"`
	// Options are the chip's own keys (ledchip.Chip.Options: clk, dio,
	// order, half_bit_us for the TM1637; spi, chips for the MAX7219; i2c,
	// address, layout for the HT16K33), by key; a key not set takes its
	// default. They are not a fixed set, so they have no toml tags:
	// sabotd's loader reads them from the [display] table.
	Options map[string]any `toml:"-"`
}

// Built-in display kinds; every other kind is a registered chip.
const (
	KindNone     = "none"
	KindTerminal = "terminal"
)

// outputKeys and inputKeys are the [gpio] keys of the outputs and inputs.
var (
	outputKeys = map[string]string{OutAlarmLamp: "lamp", OutTowerRed: "tower_red", OutTowerAmber: "tower_amber", OutTowerGreen: "tower_green", OutBuzzer: "buzzer"}
	inputKeys  = map[string]string{InCoupButton: "coup_button", InAckKey: "ack_key", InVoidKey: "void_key", InBetsKey: "bets_key", InDealerKey: "dealer_key", InStandKey: "stand_key"}
)

func (g GPIOConfig) pin(name string) string {
	switch name {
	case OutAlarmLamp:
		return g.Lamp
	case OutTowerRed:
		return g.TowerRed
	case OutTowerAmber:
		return g.TowerAmber
	case OutTowerGreen:
		return g.TowerGreen
	case OutBuzzer:
		return g.Buzzer
	case InCoupButton:
		return g.CoupButton
	case InAckKey:
		return g.AckKey
	case InVoidKey:
		return g.VoidKey
	case InBetsKey:
		return g.BetsKey
	case InDealerKey:
		return g.DealerKey
	case InStandKey:
		return g.StandKey
	}
	return ""
}

// DisplayKinds lists the valid display kinds: the registered chips, then
// "terminal" and "none".
func DisplayKinds() []string { return append(ledchip.Names(), KindTerminal, KindNone) }

// Check validates the [gpio] and [display] tables without touching any
// hardware and returns every problem, each naming its key ("gpio.lamp",
// "display.order"): the backend, debounce and alert buzzer, the display
// kind, width and brightness, the chip's options through its registration
// (unknown keys, types, values), and a pin named by two keys. It also
// returns the chip's resolved settings (zero for "terminal" and "none").
// Open calls it; sabotd calls it at load to name the lines.
func Check(g GPIOConfig, d DisplayConfig) (ledchip.Settings, []*ConfigError) {
	var errs []*ConfigError
	bad := func(key, format string, args ...any) {
		errs = append(errs, &ConfigError{Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	switch g.Backend {
	case BackendGPIO, BackendFake, "":
	default:
		bad("gpio.backend", "unknown backend %q (want %q or %q)", g.Backend, BackendGPIO, BackendFake)
	}
	if g.DebounceMS < 0 || g.DebounceMS > 1000 {
		bad("gpio.debounce_ms", "%d: must be 0–1000", g.DebounceMS)
	}
	if g.AlertBuzzer != "" {
		if _, err := ParsePattern(g.AlertBuzzer); err != nil {
			bad("gpio.alert_buzzer", "%v", err)
		}
	}
	if d.Brightness < 1 || d.Brightness > segment.MaxBrightness {
		bad("display.brightness", "%d: must be 1–%d", d.Brightness, segment.MaxBrightness)
	}
	if d.Digits < 0 || d.Digits > 64 {
		bad("display.digits", "%d: not a display width", d.Digits)
	}
	type use struct{ key, pin string }
	var pins []use
	var s ledchip.Settings
	switch d.Kind {
	case KindNone, "":
		noOptions(d, bad)
	case KindTerminal:
		noOptions(d, bad)
		if d.Digits > terminal.MaxDigits {
			bad("display.digits", "%d: the terminal shows at most %d digits", d.Digits, terminal.MaxDigits)
		}
	default:
		chip, ok := ledchip.Lookup(d.Kind)
		if !ok {
			bad("display.kind", "%q: unknown; want one of %s", d.Kind, quoteList(DisplayKinds()))
			break
		}
		for k := range d.Options {
			if _, ok := chip.Option(k); !ok {
				bad("display."+k, "not an option of the %s%s", chip.Name, OptionHint(k))
			}
		}
		var oerrs []*ledchip.OptionError
		s, oerrs = chip.Resolve(d.Digits, d.Brightness, d.Options)
		for _, e := range oerrs {
			bad("display."+e.Key, "%s", e.Msg)
		}
		for _, o := range chip.Options {
			if o.Kind == ledchip.Pin {
				pins = append(pins, use{"display." + o.Key, s.String(o.Key)})
			}
		}
		if len(oerrs) == 0 {
			if _, err := display.LayoutFor(s.Digits); err != nil {
				bad("display.digits", "%v", err)
			}
		}
	}
	for _, n := range append(append([]string(nil), OutputNames...), InputNames...) {
		k := outputKeys[n]
		if k == "" {
			k = inputKeys[n]
		}
		pins = append(pins, use{"gpio." + k, g.pin(n)})
	}
	first := map[string]string{}
	for _, u := range pins {
		if u.pin == "" {
			continue
		}
		if k, dup := first[u.pin]; dup {
			bad(u.key, "%q is already %s: one pin cannot serve two functions", u.pin, k)
			continue
		}
		first[u.pin] = u.key
	}
	return s, errs
}

// noOptions refuses chip options on a display kind that has none.
func noOptions(d DisplayConfig, bad func(key, format string, args ...any)) {
	for k := range d.Options {
		bad("display."+k, "display.kind %q has no such option%s", orDefault(d.Kind, KindNone), OptionHint(k))
	}
}

// OptionHint says which registered chips have an option of that key
// (" (a tm1637 option)"), or "".
func OptionHint(key string) string {
	var owners []string
	for _, n := range ledchip.Names() {
		if c, _ := ledchip.Lookup(n); true {
			if _, ok := c.Option(key); ok {
				owners = append(owners, n)
			}
		}
	}
	if len(owners) == 0 {
		return ""
	}
	return " (" + strings.Join(owners, " and ") + " option; display.kind selects the chip)"
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
