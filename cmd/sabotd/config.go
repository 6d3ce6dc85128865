package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Config is sabotd's configuration, read from a TOML file (see
// systemd/sabotd.toml for every key with its default and meaning). The zero
// value is not valid: start from DefaultConfig.
type Config struct {
	// Table is the table's name: used in MQTT topics and message ids, so
	// letters, digits, '-', '_' and '.' only. Required.
	Table string `toml:"table"`
	// Rules is the rule profile: "punto-banco", "super6" or "ez".
	Rules string `toml:"rules"`
	// Decks in the shoe, 1–8.
	Decks int `toml:"decks"`
	// TiePays is the tie bet's payout, 8 (8:1) or 9 (9:1).
	TiePays int `toml:"tie_pays"`
	// CutRule is the end-of-shoe rule: "last-coup" or "one-more".
	CutRule string `toml:"cut_rule"`

	Shoe    ShoeConfig    `toml:"shoe"`
	MQTT    MQTTConfig    `toml:"mqtt"`
	Display DisplayConfig `toml:"display"`
	GPIO    GPIOConfig    `toml:"gpio"`
	State   StateConfig   `toml:"state"`
	HTTP    HTTPConfig    `toml:"http"`
	Alerts  AlertsConfig  `toml:"alerts"`
	Log     LogConfig     `toml:"log"`
}

// ShoeConfig is the [shoe] table: the card-reading shoe's serial link.
type ShoeConfig struct {
	// Device is the serial device path, normally a stable symlink
	// (/dev/sabot-shoe from the udev rule, or /dev/serial/by-id/...).
	// Required.
	Device string `toml:"device"`
	// Protocol is "sabot" (firmware-proto), "beetek" (Bee-Tek ASCII) or
	// "lines" (one transcript token per line: bench readers and tests).
	Protocol string `toml:"protocol"`
	// Baud defaults to 115200 for "sabot", 9600 for "beetek" and "lines".
	Baud int `toml:"baud"`
	// DataBits (5–8, default 8), Parity ("none", "odd", "even", "mark",
	// "space"; default "none") and StopBits ("1", "1.5", "2"; default "1")
	// complete the line settings: 8N1 unless the shoe's manual says
	// otherwise.
	DataBits int    `toml:"data_bits"`
	Parity   string `toml:"parity"`
	StopBits string `toml:"stop_bits"`
	// Markers says whether the coup button delimits coups (the transcript
	// "|"): "auto" (on unless the protocol is "beetek", which has no coup
	// button, and no [gpio] coup_button is set), "on" or "off".
	Markers string `toml:"markers"`
	// Gate says the shoe has a gate that the daemon locks whenever the
	// tableau needs no card (protocol "sabot" only).
	Gate bool `toml:"gate"`
	// UIDRegistry is an optional file mapping RFID reader UIDs to cards
	// (one "UID CARD" per line, '#' comments); a read that disagrees
	// raises card-mismatch.
	UIDRegistry string `toml:"uid_registry"`
}

// MQTTConfig is the [mqtt] table.
type MQTTConfig struct {
	// Brokers is the broker URL list (tcp://, ssl://, ws://), tried in
	// order. Empty: start the embedded broker on EmbeddedAddr.
	Brokers []string `toml:"brokers"`
	// EmbeddedAddr is where the embedded broker listens when Brokers is
	// empty (default "127.0.0.1:1883").
	EmbeddedAddr string `toml:"embedded_addr"`
	// TopicPrefix is the first topic level; topics are
	// "<topic_prefix>/<table>/...".
	TopicPrefix   string `toml:"topic_prefix"`
	TLSCA         string `toml:"tls_ca"`
	TLSCert       string `toml:"tls_cert"`
	TLSKey        string `toml:"tls_key"`
	TLSServerName string `toml:"tls_server_name"`
	Username      string `toml:"username"`
	// PasswordFile holds the password (first line). The environment
	// variable SABOT_MQTT_PASSWORD is used when it is empty.
	PasswordFile string `toml:"password_file"`
	// Commands enables the cmd/ack, cmd/void, cmd/new-shoe and
	// cmd/bets-open, cmd/bets-closed command topics.
	Commands bool `toml:"commands"`
	// BacklogLimit caps the outbox (messages); 0 uses the driver default.
	BacklogLimit int `toml:"backlog_limit"`
}

// DisplayConfig is the [display] table: the player/banker totals display.
type DisplayConfig struct {
	// Kind: "terminal", "tm1637", "max7219", "ht16k33", "fake" or "none"
	// (headless).
	Kind string `toml:"kind"`
	// CLK and DIO are the TM1637 pins (gpioreg names; default GPIO23 and
	// GPIO24).
	CLK string `toml:"clk"`
	DIO string `toml:"dio"`
	// SPI is the MAX7219's SPI port (default "/dev/spidev0.0").
	SPI string `toml:"spi"`
	// I2C is the HT16K33's I²C bus ("" = first bus) and Address its
	// 7-bit address (default 0x70).
	I2C     string `toml:"i2c"`
	Address int    `toml:"address"`
	// Brightness 1–15 (scaled to the chip's range).
	Brightness int `toml:"brightness"`
	// Digits is the display's width; 0: the module's usual (TM1637 and
	// HT16K33 4, MAX7219 8, terminal 8).
	Digits int `toml:"digits"`
}

// GPIOConfig is the [gpio] table: pin names (gpioreg, e.g. "GPIO17") of the
// lamp, buzzer and keys. Empty means not fitted.
type GPIOConfig struct {
	// Backend is "gpio" (real pins through periph) or "fake" (gpiotest
	// pins: a laptop, the demo, tests).
	Backend    string `toml:"backend"`
	Lamp       string `toml:"lamp"`
	Buzzer     string `toml:"buzzer"`
	TowerRed   string `toml:"tower_red"`
	TowerAmber string `toml:"tower_amber"`
	TowerGreen string `toml:"tower_green"`
	// OutputsActiveLow: outputs are on at a low level (most relay boards).
	OutputsActiveLow bool `toml:"outputs_active_low"`
	// InputsActiveHigh: keys pull the pin high; the default is keys to
	// ground with the pull-up enabled.
	InputsActiveHigh bool `toml:"inputs_active_high"`
	// DebounceMS is the key debounce time in milliseconds (default 30; 0
	// also means 30).
	DebounceMS int    `toml:"debounce_ms"`
	AckKey     string `toml:"ack_key"`
	VoidKey    string `toml:"void_key"`
	CoupButton string `toml:"coup_button"`
	// BetsKey is the live-dealer bets-closed key: a press closes betting
	// (it reopens when the coup ends).
	BetsKey string `toml:"bets_key"`
}

// StateConfig is the [state] table.
type StateConfig struct {
	// Dir holds the event journal and the MQTT outbox. It must be
	// writable; systemd's StateDirectory=sabot gives /var/lib/sabot.
	Dir string `toml:"dir"`
}

// HTTPConfig is the [http] table.
type HTTPConfig struct {
	// Addr serves /metrics, /healthz and the scoreboard. Port 0 picks a
	// free port (logged); "off" disables the server.
	Addr string `toml:"addr"`
}

// AlertsConfig is the [alerts] table.
type AlertsConfig struct {
	// AdvantageThreshold raises an advantage alert when a bet's expected
	// value for the next coup exceeds it (e.g. 0.01 = +1%); 0 disables.
	AdvantageThreshold float64 `toml:"advantage_threshold"`
	// Misdeal is "alert-only" (the coup's result stands per the tableau,
	// the surplus card is reported) or "void" (the coup is voided).
	Misdeal string `toml:"misdeal"`
	// RequireBetsClosed raises early-draw for a card drawn while betting
	// is open (live-dealer tables).
	RequireBetsClosed bool `toml:"require_bets_closed"`
}

// LogConfig is the [log] table.
type LogConfig struct {
	// Format is "text" or "json".
	Format string `toml:"format"`
	// Level is "debug", "info", "warn" or "error".
	Level string `toml:"level"`
}

// DefaultConfig returns the configuration with every default filled in; a
// file only overrides what it sets.
func DefaultConfig() Config {
	return Config{
		Rules:   "punto-banco",
		Decks:   8,
		TiePays: 8,
		CutRule: "last-coup",
		Shoe:    ShoeConfig{Protocol: "sabot", Markers: "auto", DataBits: 8, Parity: "none", StopBits: "1"},
		MQTT:    MQTTConfig{TopicPrefix: "sabot", EmbeddedAddr: "127.0.0.1:1883"},
		Display: DisplayConfig{Kind: "none", CLK: "GPIO23", DIO: "GPIO24", SPI: "/dev/spidev0.0", Address: 0x70, Brightness: 7},
		GPIO:    GPIOConfig{Backend: "gpio", DebounceMS: 30},
		State:   StateConfig{Dir: "/var/lib/sabot"},
		HTTP:    HTTPConfig{Addr: "127.0.0.1:0"},
		Alerts:  AlertsConfig{Misdeal: "alert-only"},
		Log:     LogConfig{Format: "text", Level: "info"},
	}
}

// ConfigError is a configuration error. Line is 0 when the error has no
// place in the file (a required key that is missing).
type ConfigError struct {
	File string
	Line int
	Col  int
	Key  string // dotted key, e.g. "shoe.baud"
	Msg  string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// LoadConfig reads and validates the file at path on top of DefaultConfig.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return ParseConfig(data, path)
}

// typeError matches the TOML library's wrong-type message, which names Go
// types and struct fields.
var typeError = regexp.MustCompile(`^cannot decode TOML (\S+) into (?:struct field \S+ of type |a slice of type |)(\S+)`)

// plainTypeError rewrites a wrong-type message in the config file's terms:
// "wrong type: a TOML string where an integer is wanted". Other messages are
// returned as they are.
func plainTypeError(msg string) string {
	m := typeError.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	want := map[string]string{
		"int": "an integer", "int64": "an integer", "uint16": "an integer", "float64": "a number",
		"string": "a string", "bool": "true or false", "[]string": "an array of strings",
	}[m[2]]
	if want == "" {
		want = "another type"
	}
	return "wrong type: a TOML " + m[1] + " where " + want + " is wanted"
}

// ParseConfig decodes and validates a TOML document; file names it in
// errors. Unknown keys, wrong types and impossible values are errors that
// name the key and its line (*ConfigError, joined when several).
func ParseConfig(data []byte, file string) (Config, error) {
	cfg := DefaultConfig()
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		var sm *toml.StrictMissingError
		var de *toml.DecodeError
		switch {
		case errors.As(err, &sm):
			var errs []error
			for i := range sm.Errors {
				e := &sm.Errors[i]
				line, col := e.Position()
				errs = append(errs, &ConfigError{File: file, Line: line, Col: col,
					Key: strings.Join(e.Key(), "."), Msg: "unknown key"})
			}
			return Config{}, errors.Join(errs...)
		case errors.As(err, &de):
			line, col := de.Position()
			msg := plainTypeError(strings.TrimPrefix(de.Error(), "toml: "))
			return Config{}, &ConfigError{File: file, Line: line, Col: col, Key: strings.Join(de.Key(), "."), Msg: msg}
		}
		return Config{}, fmt.Errorf("config: %s: %w", file, err)
	}
	pos := keyLines(data)
	set := func(key string) bool { _, ok := pos[key]; return ok }
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &ConfigError{File: file, Line: lineOf(pos, key), Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if !set("shoe.baud") && (cfg.Shoe.Protocol == "beetek" || cfg.Shoe.Protocol == "lines") {
		cfg.Shoe.Baud = 9600
	}
	if cfg.Shoe.Baud == 0 {
		cfg.Shoe.Baud = 115200
	}
	cfg.validate(bad)
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return cfg, nil
}

var tableName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
var topicLevel = regexp.MustCompile(`^[^#+\x00]+$`)

func oneOf(v string, allowed ...string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// validate calls bad for every impossible value.
func (c *Config) validate(bad func(key, format string, args ...any)) {
	switch {
	case c.Table == "":
		bad("table", "required (the table's name, e.g. table = \"BAC-01\")")
	case !tableName.MatchString(c.Table):
		bad("table", "%q: use letters, digits, '.', '_' and '-' (at most 64), it becomes an MQTT topic level", c.Table)
	}
	if !oneOf(c.Rules, "punto-banco", "super6", "ez") {
		bad("rules", "%q: must be \"punto-banco\", \"super6\" or \"ez\"", c.Rules)
	}
	if c.Decks < 1 || c.Decks > 8 {
		bad("decks", "%d: a shoe holds 1 to 8 decks", c.Decks)
	}
	if c.TiePays != 8 && c.TiePays != 9 {
		bad("tie_pays", "%d: must be 8 (8:1) or 9 (9:1)", c.TiePays)
	}
	if !oneOf(c.CutRule, "last-coup", "one-more") {
		bad("cut_rule", "%q: must be \"last-coup\" or \"one-more\"", c.CutRule)
	}
	if c.Shoe.Device == "" {
		bad("shoe.device", "required (the shoe's serial device, e.g. \"/dev/sabot-shoe\")")
	}
	if !oneOf(c.Shoe.Protocol, "sabot", "beetek", "lines") {
		bad("shoe.protocol", "%q: must be \"sabot\", \"beetek\" or \"lines\"", c.Shoe.Protocol)
	}
	if c.Shoe.Baud < 300 || c.Shoe.Baud > 4000000 {
		bad("shoe.baud", "%d: not a serial baud rate", c.Shoe.Baud)
	}
	if c.Shoe.DataBits < 5 || c.Shoe.DataBits > 8 {
		bad("shoe.data_bits", "%d: must be 5, 6, 7 or 8", c.Shoe.DataBits)
	}
	if !oneOf(c.Shoe.Parity, "none", "odd", "even", "mark", "space") {
		bad("shoe.parity", "%q: must be \"none\", \"odd\", \"even\", \"mark\" or \"space\"", c.Shoe.Parity)
	}
	if !oneOf(c.Shoe.StopBits, "1", "1.5", "2") {
		bad("shoe.stop_bits", "%q: must be \"1\", \"1.5\" or \"2\"", c.Shoe.StopBits)
	}
	if !oneOf(c.Shoe.Markers, "auto", "on", "off") {
		bad("shoe.markers", "%q: must be \"auto\", \"on\" or \"off\"", c.Shoe.Markers)
	}
	if c.Shoe.Gate && c.Shoe.Protocol != "sabot" {
		bad("shoe.gate", "a gate needs protocol \"sabot\" (%q shoes are read-only)", c.Shoe.Protocol)
	}
	for i, b := range c.MQTT.Brokers {
		if !oneOf(schemeOf(b), "tcp", "ssl", "tls", "ws", "wss", "mqtt", "mqtts") {
			bad("mqtt.brokers", "entry %d %q: want a URL such as tcp://host:1883, ssl://host:8883 or ws://host/mqtt", i+1, b)
		}
	}
	if len(c.MQTT.Brokers) == 0 {
		if _, _, err := net.SplitHostPort(c.MQTT.EmbeddedAddr); err != nil {
			bad("mqtt.embedded_addr", "%q: want host:port", c.MQTT.EmbeddedAddr)
		}
	}
	if c.MQTT.TopicPrefix == "" || !topicLevel.MatchString(c.MQTT.TopicPrefix) || strings.HasPrefix(c.MQTT.TopicPrefix, "/") || strings.HasSuffix(c.MQTT.TopicPrefix, "/") {
		bad("mqtt.topic_prefix", "%q: must be a non-empty topic without '+', '#' or a leading/trailing '/'", c.MQTT.TopicPrefix)
	}
	if (c.MQTT.TLSCert == "") != (c.MQTT.TLSKey == "") {
		bad("mqtt.tls_cert", "tls_cert and tls_key go together")
	}
	if c.MQTT.BacklogLimit < 0 {
		bad("mqtt.backlog_limit", "%d: must not be negative", c.MQTT.BacklogLimit)
	}
	switch c.Display.Kind {
	case "terminal", "fake", "none":
	case "tm1637":
		if c.Display.CLK == "" || c.Display.DIO == "" {
			bad("display.kind", "tm1637 needs display.clk and display.dio pins")
		}
	case "max7219":
		if c.Display.SPI == "" {
			bad("display.kind", "max7219 needs display.spi")
		}
	case "ht16k33":
	default:
		bad("display.kind", "%q: must be \"terminal\", \"tm1637\", \"max7219\", \"ht16k33\", \"fake\" or \"none\"", c.Display.Kind)
	}
	if c.Display.Address < 0x08 || c.Display.Address > 0x77 {
		bad("display.address", "%#x: not a 7-bit I²C address", c.Display.Address)
	}
	if c.Display.Brightness < 1 || c.Display.Brightness > 15 {
		bad("display.brightness", "%d: must be 1–15", c.Display.Brightness)
	}
	if c.Display.Digits < 0 || c.Display.Digits > 64 {
		bad("display.digits", "%d: not a display width", c.Display.Digits)
	}
	if !oneOf(c.GPIO.Backend, "gpio", "fake") {
		bad("gpio.backend", "%q: must be \"gpio\" or \"fake\"", c.GPIO.Backend)
	}
	if c.GPIO.DebounceMS < 0 || c.GPIO.DebounceMS > 1000 {
		bad("gpio.debounce_ms", "%d: must be 0–1000", c.GPIO.DebounceMS)
	}
	if c.State.Dir == "" {
		bad("state.dir", "required")
	}
	if c.HTTP.Addr != "off" {
		if _, _, err := net.SplitHostPort(c.HTTP.Addr); err != nil {
			bad("http.addr", "%q: want host:port (port 0 picks a free one) or \"off\"", c.HTTP.Addr)
		}
	}
	if c.Alerts.AdvantageThreshold < 0 || c.Alerts.AdvantageThreshold >= 1 {
		bad("alerts.advantage_threshold", "%v: must be 0 (off) or a fraction below 1, e.g. 0.01", c.Alerts.AdvantageThreshold)
	}
	if !oneOf(c.Alerts.Misdeal, "alert-only", "void") {
		bad("alerts.misdeal", "%q: must be \"alert-only\" or \"void\"", c.Alerts.Misdeal)
	}
	if !oneOf(c.Log.Format, "text", "json") {
		bad("log.format", "%q: must be \"text\" or \"json\"", c.Log.Format)
	}
	if !oneOf(c.Log.Level, "debug", "info", "warn", "error") {
		bad("log.level", "%q: must be debug, info, warn or error", c.Log.Level)
	}
}

func schemeOf(url string) string {
	i := strings.Index(url, "://")
	if i <= 0 || i+3 == len(url) {
		return ""
	}
	return url[:i]
}

// markersOn resolves shoe.markers "auto".
func (c *Config) markersOn() bool {
	switch c.Shoe.Markers {
	case "on":
		return true
	case "off":
		return false
	}
	return c.Shoe.Protocol != "beetek" || c.GPIO.CoupButton != ""
}

// lineOf returns the line of key, or of its closest parent table that is in
// the file (keys inside inline tables), or 0.
func lineOf(pos map[string]int, key string) int {
	for {
		if l, ok := pos[key]; ok {
			return l
		}
		i := strings.LastIndexByte(key, '.')
		if i < 0 {
			return 0
		}
		key = key[:i]
	}
}

// keyLines maps every dotted key set in a (syntactically valid) TOML
// document to its 1-based line, so validation errors can name the line.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	var prefix []string
	keyOf := func(n *unstable.Node) []string {
		var parts []string
		it := n.Key()
		for it.Next() {
			parts = append(parts, string(it.Node().Data))
		}
		return parts
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			prefix = keyOf(e)
			if len(prefix) > 0 {
				it := e.Key()
				if it.Next() {
					lines[strings.Join(prefix, ".")] = p.Shape(it.Node().Raw).Start.Line
				}
			}
		case unstable.KeyValue:
			full := append(append([]string(nil), prefix...), keyOf(e)...)
			line := 0
			if it := e.Key(); it.Next() {
				line = p.Shape(it.Node().Raw).Start.Line
			}
			lines[strings.Join(full, ".")] = line
		}
	}
	return lines
}
