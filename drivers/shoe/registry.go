package shoe

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// This file is the protocol registry: the one place that knows which shoe
// protocols exist, their defaults (line speed, whether the shoe delimits
// coups, whether it has a gate) and which line settings they accept.
// sabotd's configuration reads it; a new kind of shoe is one file that
// implements Protocol and calls Register from its init function.

// ProtocolInfo describes a registered protocol.
type ProtocolInfo struct {
	// Name is the config name (shoe.protocol), e.g. "beetek".
	Name string
	// Summary is a short description for listings and errors, e.g.
	// "Bee-Tek ASCII, read-only".
	Summary string
	// DefaultBaud is the line speed when none is configured (Options.Baud
	// 0, no shoe.baud key); one of BaudRates.
	DefaultBaud int
	// Markers says the shoe delimits coups itself (a coup button on the
	// shoe, or "|" in its stream): what shoe.markers = "auto" means when no
	// table coup button is fitted.
	Markers bool
	// Gate says the protocol can lock the shoe's gate (its Protocol
	// implements Commander).
	Gate bool
	// Check, if not nil, refuses line settings this protocol cannot work
	// with (after the generic checks of CheckLine passed), e.g. 7 data bits
	// for a binary protocol. The error's Key names the setting.
	Check func(l LineSettings) *SettingError
	// New returns a fresh Protocol for one Shoe.
	New func(cfg ProtocolConfig) Protocol
}

// LineSettings are the serial line settings a configuration gives, in
// PortConfig's terms.
type LineSettings struct {
	Baud     int    // bits per second
	DataBits int    // 5–8
	Parity   string // "none", "odd", "even", "mark" or "space"
	StopBits string // "1", "1.5" or "2"
}

// SettingError is a shoe setting the protocol or the serial driver cannot
// use. Key is the setting's config key within [shoe] ("baud").
type SettingError struct {
	Key string
	Msg string
}

// Error formats it as "shoe: KEY: MSG".
func (e *SettingError) Error() string { return "shoe: " + e.Key + ": " + e.Msg }

// BaudRates are the line speeds the serial driver sets through termios on
// Linux (go.bug.st/serial's table of Bnnn constants), in bits per second.
// Another number would be set through BOTHER, which USB serial adapters
// round silently or refuse: it is nearly always a typing error for one of
// these.
var BaudRates = []int{50, 75, 110, 134, 150, 200, 300, 600, 1200, 1800, 2400, 4800, 9600,
	19200, 38400, 57600, 115200, 230400, 460800, 500000, 576000, 921600, 1000000, 1152000,
	1500000, 2000000, 2500000, 3000000, 3500000, 4000000}

// CheckLine checks line settings for protocol p: the generic checks (a
// baud rate from BaudRates, 5–8 data bits, a known parity and stop-bit
// setting) and then p.Check. It returns every problem, in key order.
func (p ProtocolInfo) CheckLine(l LineSettings) []*SettingError {
	var errs []*SettingError
	if !slices.Contains(BaudRates, l.Baud) {
		errs = append(errs, &SettingError{"baud", fmt.Sprintf("%d: not a standard serial line speed (e.g. 9600, 19200, 38400, 57600, 115200; the shoe's manual says which)", l.Baud)})
	}
	if l.DataBits < 5 || l.DataBits > 8 {
		errs = append(errs, &SettingError{"data_bits", fmt.Sprintf("%d: must be 5, 6, 7 or 8", l.DataBits)})
	}
	if !slices.Contains([]string{"none", "odd", "even", "mark", "space"}, l.Parity) {
		errs = append(errs, &SettingError{"parity", fmt.Sprintf("%q: must be \"none\", \"odd\", \"even\", \"mark\" or \"space\"", l.Parity)})
	}
	if !slices.Contains([]string{"1", "1.5", "2"}, l.StopBits) {
		errs = append(errs, &SettingError{"stop_bits", fmt.Sprintf("%q: must be \"1\", \"1.5\" or \"2\"", l.StopBits)})
	}
	if len(errs) == 0 && p.Check != nil {
		if e := p.Check(l); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

var (
	registryMu sync.Mutex
	registry   = map[string]ProtocolInfo{}
)

// Register makes a protocol available by name to Options.Protocol and to
// sabotd's shoe.protocol. It panics (a programming error) if the name is
// empty, not lower case, already registered, if New is nil or DefaultBaud is
// not one of BaudRates.
func Register(p ProtocolInfo) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if p.Name == "" || p.New == nil {
		panic("shoe: Register needs a name and a constructor")
	}
	if p.Name != strings.ToLower(p.Name) {
		panic("shoe: protocol name " + p.Name + " is not lower case")
	}
	if !slices.Contains(BaudRates, p.DefaultBaud) {
		panic(fmt.Sprintf("shoe: protocol %s: default baud %d is not one of BaudRates", p.Name, p.DefaultBaud))
	}
	if _, dup := registry[p.Name]; dup {
		panic("shoe: protocol " + p.Name + " registered twice")
	}
	registry[p.Name] = p
}

// Protocols lists the registered protocol names, sorted.
func Protocols() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	return slices.Sorted(maps.Keys(registry))
}

// LookupProtocol returns the registered protocol of that name; the error
// lists the known ones.
func LookupProtocol(name string) (ProtocolInfo, error) {
	registryMu.Lock()
	p, ok := registry[name]
	registryMu.Unlock()
	if !ok {
		return ProtocolInfo{}, fmt.Errorf("shoe: protocol = %q: unknown (known: %s)", name, strings.Join(quoted(Protocols()), ", "))
	}
	return p, nil
}

func quoted(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return q
}
