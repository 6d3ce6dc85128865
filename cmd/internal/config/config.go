package config

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/board"
	"github.com/sabot-table/sabot/drivers/hostcheck"
	"github.com/sabot-table/sabot/drivers/ledchip"
	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/drivers/mqtt/embedded/mosqauth"
	"github.com/sabot-table/sabot/drivers/shoe"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// Config is sabotd's configuration, read from a TOML file (see
// systemd/sabotd.toml for every key with its default and meaning). The zero
// value is not valid: start from Default.
type Config struct {
	// Table is the table's name: used in MQTT topics and message ids, so
	// letters, digits, '-' and '_' only (mqtt.TableProblem). Required.
	Table string `toml:"table"`
	// Game is the game dealt: "punto-banco", "super6", "ez",
	// "chemin-de-fer" or "banque" (tableau's registry: GameNames); its
	// options are [rules] keys (punter_five, banker_table). Files
	// written before [rules] existed name it rules = "..."; that form is
	// still read (legacyConfig), and --print-config writes game.
	Game string `toml:"game"`
	// Decks in the shoe, 1–8; absent: the game's (8; chemin-de-fer 6,
	// banque 3).
	Decks int `toml:"decks"`
	// CutRule is the end-of-shoe rule: "last-coup" or "one-more".
	CutRule string `toml:"cut_rule"`
	// OverrunCards is how many cards beyond 52 × decks one shoe may give
	// before shoe-overrun is raised (once per shoe): no new shoe was
	// signalled. 1–tableau.MaxOverrunCards, default 52
	// (tableau.TableConfig.OverrunCards).
	OverrunCards int `toml:"overrun_cards"`

	// Rules is the [rules] table: the house rules (commission, payouts,
	// side bets and their pay tables).
	Rules RulesConfig `toml:"rules"`

	Shoe ShoeConfig `toml:"shoe"`
	MQTT MQTTConfig `toml:"mqtt"`
	// Display and GPIO are the board's own tables (drivers/board: one
	// schema); the display chip's keys come from its registration
	// (drivers/ledchip).
	Display board.DisplayConfig `toml:"display"`
	GPIO    board.GPIOConfig    `toml:"gpio"`
	State   StateConfig         `toml:"state"`
	HTTP    HTTPConfig          `toml:"http"`
	Alerts  AlertsConfig        `toml:"alerts"`
	Log     LogConfig           `toml:"log"`
	Board   BoardConfig         `toml:"board"`
	Dealer  DealerConfig        `toml:"dealer"`

	// legacy records the keys of the old form a file used (not printed).
	legacy struct{ rules, tiePays bool }
}

// RulesConfig is the [rules] table: the house rules, which differ from
// casino to casino. Each key is a `sabot check` and `sabot odds` flag of
// the same name ('-' for '_'), and baccarat.Rules.ProblemsGiven validates
// both. Every key has its default in Default, so --print-config
// shows the whole table.
type RulesConfig struct {
	// Commission is the house's share of a banker win: "5%", "4%", "2.5%",
	// "0%", or as a fraction 0.05 (baccarat.ParseCommission). Absent: the
	// game's usual (5% under punto banco, none under super6 and ez, where
	// only 0 is accepted). Held as written (RateText) and parsed by
	// validate, which names the key and line of a bad value.
	Commission RateText `toml:"commission"`
	// TiePays is the tie bet's payout, 8 (8:1) or 9 (9:1).
	TiePays int `toml:"tie_pays"`
	// PairPays is what player pair and banker pair pay, to 1 (11; some
	// houses 12), 1–1000.
	PairPays int `toml:"pair_pays"`
	// PairSuitedPays is what player pair and banker pair pay, to 1, when
	// the pair is suited (same rank and suit; some houses 25): 0 (the
	// default) for the same as pair_pays, else pair_pays–1000. A pair
	// with a rank-only card is then not settled (its pay hangs on the
	// suit), and the pair bets are valued by the suits left.
	PairSuitedPays int `toml:"pair_suited_pays"`
	// SideBets lists the side bets offered: "perfect-pair",
	// "either-pair", "big", "small", "dragon-player", "dragon-banker",
	// "lucky6" (also "dragon" for both Dragon Bonus bets, "all"); default
	// none.
	SideBets []string `toml:"side_bets"`
	// The side bets' pay tables, each figure "to one", more than 0 and at
	// most 1000 (baccarat.SidePays): Perfect Pair [one hand, both hands],
	// Either Pair, Big (5 or 6 cards), Small (4 cards), Dragon Bonus for
	// a non-natural win by [9, 8, 7, 6, 5, 4] and for a natural win, Lucky 6
	// [two cards, three cards].
	PaysPerfectPair   []float64 `toml:"pays_perfect_pair"`
	PaysEitherPair    float64   `toml:"pays_either_pair"`
	PaysBig           float64   `toml:"pays_big"`
	PaysSmall         float64   `toml:"pays_small"`
	PaysDragon        []float64 `toml:"pays_dragon"`
	PaysDragonNatural float64   `toml:"pays_dragon_natural"`
	PaysLucky6        []float64 `toml:"pays_lucky6"`
	// PunterFive and BankerTable are chemin de fer's options (the game's
	// parameters "punter-five" and "banker-table" in tableau's registry):
	// the punter's rule on 5, "option" (default), "draw" or "stand"; the
	// banker's table, "scarne" (default) or "free". Only with game =
	// "chemin-de-fer"; --print-config shows them only there.
	PunterFive  string `toml:"punter_five,omitempty"`
	BankerTable string `toml:"banker_table,omitempty"`
}

// gameParam returns the [rules] field of the game parameter named name
// ("punter-five"): the string field whose TOML key is the name with '_'
// for '-' ("punter_five"), or nil when [rules] has no such key.
func (rc *RulesConfig) gameParam(name string) *string {
	key := strings.ReplaceAll(name, "-", "_")
	v := reflect.ValueOf(rc).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("toml"), ","); tag == key && f.Type == reflect.TypeFor[string]() {
			return v.Field(i).Addr().Interface().(*string)
		}
	}
	return nil
}

// gameParamNames are the parameters of the games sabotd deals, from
// tableau's registry, in its order, each once: every one is a [rules] key
// (gameParam; TestGameParamsHaveRulesKeys).
func gameParamNames() []string {
	var names []string
	for _, g := range daemonGames() {
		info, _ := baccarat.LookupGame(g)
		for _, p := range info.Params {
			if !slices.Contains(names, p.Name) {
				names = append(names, p.Name)
			}
		}
	}
	return names
}

// daemonGames are the games sabotd deals: the registry's games except
// Macao and Victoria, which are `sabot check` games only (casinos do not
// deal them from a smart shoe).
func daemonGames() []string {
	var names []string
	for _, n := range baccarat.GameNames() {
		if g, err := baccarat.ParseGame(n); err == nil {
			if _, macao := g.Macao(); !macao {
				names = append(names, n)
			}
		}
	}
	return names
}

// RateText is a rate as the file writes it, a TOML string ("4%") or
// number (0.04), kept as its text: the decoder hands any value to
// UnmarshalText, which never fails, so a bad rate is reported by validate
// with its key and line rather than by the decoder without them.
type RateText string

// UnmarshalText keeps the text.
func (r *RateText) UnmarshalText(b []byte) error { *r = RateText(b); return nil }

// MarshalText writes the text (a TOML string).
func (r RateText) MarshalText() ([]byte, error) { return []byte(r), nil }

// defaultRulesConfig is [rules] with every default (tableau's).
func defaultRulesConfig() RulesConfig {
	p := baccarat.DefaultSidePays
	return RulesConfig{
		TiePays: 8, PairPays: 11, SideBets: []string{},
		PaysPerfectPair: []float64{p.PerfectPair, p.PerfectPairBoth}, PaysEitherPair: p.EitherPair,
		PaysBig: p.Big, PaysSmall: p.Small, PaysDragon: p.Dragon[:], PaysDragonNatural: p.DragonNatural,
		PaysLucky6: []float64{p.Lucky6Two, p.Lucky6Three},
	}
}

// HouseRules returns the tableau rules the configuration gives (game and
// [rules]), and calls bad for each key that cannot be used: a list of the
// wrong length, an unknown side bet, and every finding of tableau's one
// validation (Rules.ProblemsGiven) under its [rules] key. tieKey is where
// tie_pays was set ("rules.tie_pays", or "tie_pays" in an old file).
func (c *Config) HouseRules(bad func(key, format string, args ...any)) baccarat.Rules {
	var r baccarat.Rules
	rc := &c.Rules
	if info, ok := baccarat.LookupGame(c.Game); ok {
		params := map[string]string{}
		for _, name := range gameParamNames() {
			v := rc.gameParam(name)
			if *v == "" {
				continue
			}
			key := "rules." + strings.ReplaceAll(name, "-", "_")
			if !slices.ContainsFunc(info.Params, func(p baccarat.GameParam) bool { return p.Name == name }) {
				bad(key, "%q: %s has no such rule (chemin de fer's option)", *v, c.Game)
				continue
			}
			if _, err := baccarat.NewGame(c.Game, map[string]string{name: *v}); err != nil {
				bad(key, "%s", strings.TrimPrefix(err.Error(), baccarat.ErrRules.Error()+": "))
				continue
			}
			params[name] = *v
		}
		if g, err := baccarat.NewGame(c.Game, params); err == nil {
			r.Game = g
		}
	}
	cm, err := baccarat.ParseCommission(string(rc.Commission))
	if err != nil {
		bad("rules.commission", "%s", strings.TrimPrefix(err.Error(), baccarat.ErrRules.Error()+": commission "))
	}
	r.Commission, r.TiePays, r.PairPays, r.PairSuitedPays = cm, rc.TiePays, rc.PairPays, rc.PairSuitedPays
	set, err := baccarat.ParseSideSet(strings.Join(rc.SideBets, ","))
	if err != nil {
		bad("rules.side_bets", "%s", strings.TrimPrefix(err.Error(), baccarat.ErrRules.Error()+": "))
	}
	r.Side.Offered = set
	list := func(key string, v []float64, what string, dst ...*float64) {
		if len(v) != len(dst) {
			bad("rules."+key, "%d figures: want %d (%s)", len(v), len(dst), what)
			return
		}
		for i, d := range dst {
			*d = v[i]
		}
	}
	r.Side.Pays = baccarat.DefaultSidePays // a list of the wrong length keeps its default (reported once)
	p := &r.Side.Pays
	list("pays_perfect_pair", rc.PaysPerfectPair, "one hand, both hands", &p.PerfectPair, &p.PerfectPairBoth)
	d := &p.Dragon
	list("pays_dragon", rc.PaysDragon, "a non-natural win by 9, 8, 7, 6, 5, 4", &d[0], &d[1], &d[2], &d[3], &d[4], &d[5])
	list("pays_lucky6", rc.PaysLucky6, "two cards, three cards", &p.Lucky6Two, &p.Lucky6Three)
	p.EitherPair, p.Big, p.Small, p.DragonNatural = rc.PaysEitherPair, rc.PaysBig, rc.PaysSmall, rc.PaysDragonNatural
	for _, e := range r.ProblemsGiven() {
		switch e.Key {
		case "game": // validate checks the game
		case "tie_pays":
			bad(c.tieKey(), "%s", e.Msg)
		default:
			bad("rules."+e.Key, "%s", e.Msg)
		}
	}
	return r
}

// tieKey is the key tie_pays was given as.
func (c *Config) tieKey() string {
	if c.legacy.tiePays {
		return "tie_pays"
	}
	return "rules.tie_pays"
}

// gameKey is the key the game was given as.
func (c *Config) gameKey() string {
	if c.legacy.rules {
		return "rules"
	}
	return "game"
}

// ShoeConfig is the [shoe] table: the card-reading shoe's serial link.
type ShoeConfig struct {
	// Device is the serial device path, normally a stable symlink
	// (/dev/sabot-shoe from the udev rule, or /dev/serial/by-id/...).
	// Required.
	Device string `toml:"device"`
	// Protocol is a protocol registered with drivers/shoe (shoe.Register):
	// "sabot" (firmware-proto), "beetek" (Bee-Tek ASCII) or "lines" (one
	// transcript token per line: bench readers and tests).
	Protocol string `toml:"protocol"`
	// Baud is one of shoe.BaudRates; not set, the protocol's DefaultBaud
	// (115200 for "sabot", 9600 for "beetek" and "lines").
	Baud int `toml:"baud"`
	// DataBits (5–8, default 8), Parity ("none", "odd", "even", "mark",
	// "space"; default "none") and StopBits ("1", "1.5", "2"; default "1")
	// complete the line settings: 8N1 unless the shoe's manual says
	// otherwise.
	DataBits int    `toml:"data_bits"`
	Parity   string `toml:"parity"`
	StopBits string `toml:"stop_bits"`
	// Markers says whether the coup button delimits coups (the transcript
	// "|"): "auto" (on if the protocol's registration says the shoe
	// delimits coups itself, as "sabot" and "lines" do and "beetek" does
	// not, or a [gpio] coup_button is set), "on" or "off".
	Markers string `toml:"markers"`
	// Gate says the shoe has a gate that the daemon locks whenever the
	// tableau needs no card (a protocol whose registration has Gate:
	// "sabot").
	Gate bool `toml:"gate"`
	// UIDRegistry is an optional file mapping RFID reader UIDs to cards
	// (one "UID CARD" per line, '#' comments); a read that disagrees
	// raises card-mismatch.
	UIDRegistry string `toml:"uid_registry"`
	// RS485 is the half-duplex direction control of an RS-485 shoe line:
	// "off" (default: RS-232, USB, 4-wire lines and adapters that switch
	// direction themselves), "kernel" (the adapter's driver switches RTS:
	// TIOCSRS485) or "gpio" (RS485DE is the transceiver's DE/RE line).
	RS485 string `toml:"rs485"`
	// RS485DE is the DE/RE pin for rs485 = "gpio", a name as for [gpio]
	// ("GPIO18"); it must not be a pin used by another key.
	RS485DE string `toml:"rs485_de"`
	// RS485DEActiveLow: the transceiver transmits while DE is low (gpio),
	// or RTS_AFTER_SEND instead of RTS_ON_SEND (kernel).
	RS485DEActiveLow bool `toml:"rs485_de_active_low"`
	// RS485DelayBeforeUS and RS485DelayAfterUS are the waits between
	// asserting DE and the first bit, and between the last bit and
	// releasing DE, in µs, 0–100000 (whole milliseconds for "kernel").
	RS485DelayBeforeUS int `toml:"rs485_delay_before_us"`
	RS485DelayAfterUS  int `toml:"rs485_delay_after_us"`
	// RS485RxDuringTx keeps the receiver on while sending ("kernel"
	// only: SER_RS485_RX_DURING_TX).
	RS485RxDuringTx bool `toml:"rs485_rx_during_tx"`
}

// RS485Setup is the [shoe] rs485 keys in drivers/shoe's terms (the DE pin by
// name only: the daemon resolves it through the board).
func (s ShoeConfig) RS485Setup() shoe.RS485Config {
	return shoe.RS485Config{
		Mode:        s.RS485,
		DEName:      s.RS485DE,
		ActiveLow:   s.RS485DEActiveLow,
		DelayBefore: time.Duration(s.RS485DelayBeforeUS) * time.Microsecond,
		DelayAfter:  time.Duration(s.RS485DelayAfterUS) * time.Microsecond,
		RxDuringTx:  s.RS485RxDuringTx,
	}
}

// MQTTConfig is the [mqtt] table.
type MQTTConfig struct {
	// Brokers is the broker URL list (tcp://, ssl://, ws://), tried in
	// order. Empty: start the embedded broker on EmbeddedAddr.
	Brokers []string `toml:"brokers"`
	// EmbeddedAddr is where the embedded broker listens when Brokers is
	// empty (default "127.0.0.1:1883").
	EmbeddedAddr string `toml:"embedded_addr"`
	// EmbeddedPasswordFile is a Mosquitto password file (mosquitto_passwd)
	// whose users may log in to the embedded broker; it is needed for an
	// embedded_addr that is not loopback. The same file serves a
	// Mosquitto (docs/brokers/mosquitto.passwd is an example).
	EmbeddedPasswordFile string `toml:"embedded_password_file"`
	// EmbeddedACLFile is a Mosquitto acl_file saying what each user, and
	// the anonymous clients, may read and write on the embedded broker
	// (docs/brokers/mosquitto.acl). Without one, the password file's
	// users may do anything and anonymous clients only read.
	EmbeddedACLFile string `toml:"embedded_acl_file"`
	// EmbeddedAllowAnonymous lets clients without a username connect to
	// the embedded broker (default false: only the daemon's own clients
	// and the password file's users). --demo turns it on.
	EmbeddedAllowAnonymous bool `toml:"embedded_allow_anonymous"`
	// Operators, if not empty, are the only operators whose commands the
	// daemon carries out; a command naming another is refused
	// ("operator \"x\" is not authorised"). The operator is the name the sender puts
	// in the command (the pit console: its logged-in user), so the list
	// is as good as the broker's ACL on who may publish commands.
	Operators []string `toml:"operators"`
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
	// Commands enables the cmd/ack, cmd/void, cmd/new-shoe,
	// cmd/bets-open, cmd/bets-closed, cmd/dealer and cmd/stand command
	// topics.
	Commands bool `toml:"commands"`
	// BacklogLimit caps the outbox (messages); 0 uses the driver default.
	BacklogLimit int `toml:"backlog_limit"`
	// KeepAlive is the MQTT keepalive, a Go duration (default "30s",
	// MinKeepAlive to MaxKeepAlive): a connection whose broker stays
	// silent for it (plus the ping timeout, at most 10 s) counts as lost
	// and the daemon moves to the next broker. A silent network partition
	// is noticed only this way; on a floor with a cluster, "5s" fails over
	// within 10 s.
	KeepAlive string `toml:"keepalive"`
	// RefusalTimeout is how long a broker may refuse the command
	// subscription or leave published messages without a PUBACK before
	// the daemon disconnects and moves to the next of Brokers, a Go
	// duration (default "10s", mqtt.DefaultRefusalTimeout;
	// MinRefusalTimeout to MaxRefusalTimeout). A single broker is never
	// left (mqtt.Options.RefusalTimeout).
	RefusalTimeout string `toml:"refusal_timeout"`
}

// Bounds of [mqtt] keepalive.
const (
	MinKeepAlive = 2 * time.Second
	MaxKeepAlive = 10 * time.Minute
)

// Bounds of [mqtt] refusal_timeout: below a second a broker would be left
// before it could answer; above 10 minutes a node that refuses is as good
// as gone.
const (
	MinRefusalTimeout = time.Second
	MaxRefusalTimeout = 10 * time.Minute
)

// parsedDuration is s parsed as a Go duration, 0 if it is not one: the
// *Duration methods read fields that validate has checked.
func parsedDuration(s string) time.Duration {
	d, _ := time.ParseDuration(s)
	return d
}

// KeepAliveDuration is KeepAlive parsed (validate checked it; 0, the
// driver's default, if it is empty).
func (m MQTTConfig) KeepAliveDuration() time.Duration {
	return parsedDuration(m.KeepAlive)
}

// RefusalTimeoutDuration is RefusalTimeout parsed (validate checked it).
func (m MQTTConfig) RefusalTimeoutDuration() time.Duration {
	return parsedDuration(m.RefusalTimeout)
}

// DefaultClockSyncedFile is [state] clock_synced_file's default:
// systemd-timesyncd creates it at its first synchronisation of each boot
// (systemd-timesyncd.service(8)).
const DefaultClockSyncedFile = "/run/systemd/timesync/synchronized"

// StateConfig is the [state] table.
type StateConfig struct {
	// Dir holds the event journal and the MQTT outbox. It must be
	// writable; systemd's StateDirectory=sabot gives /var/lib/sabot.
	Dir string `toml:"dir"`
	// RetainDays: journal records older than this many days move from the
	// live journal to dated, compressed files in Dir/archive (still read
	// by `sabot export`); 0 keeps everything in the live journal.
	RetainDays int `toml:"retain_days"`
	// ArchiveMaxMB caps Dir/archive (MiB): past it the oldest archive
	// file is removed, logged and alerted (archive-pruned); 0: no cap.
	ArchiveMaxMB int `toml:"archive_max_mb"`
	// ClockWait is how long sabotd waits at start for the system clock to
	// be synchronised (a Pi has no RTC) before it stamps the first input,
	// as a Go duration ("90s", "2m"); "0s" does not wait. Past it sabotd
	// goes on with a warning (clockwait.go). Default "90s", at most 1h.
	ClockWait string `toml:"clock_wait"`
	// ClockSyncedFile is a file whose existence says the clock is
	// synchronised: systemd-timesyncd's (DefaultClockSyncedFile), read
	// because the unit's ProtectClock=yes refuses adjtimex; "" asks
	// adjtimex only (clockwait.go). An absolute path.
	ClockSyncedFile string `toml:"clock_synced_file"`
}

// MaxClockWait bounds [state] clock_wait.
const MaxClockWait = time.Hour

// ClockWaitDuration is ClockWait parsed (validate checked it; 0 if it is
// not a duration).
func (s StateConfig) ClockWaitDuration() time.Duration {
	return parsedDuration(s.ClockWait)
}

// HTTPConfig is the [http] table.
type HTTPConfig struct {
	// Addr serves /metrics, /healthz and the scoreboard. Port 0 picks a
	// free port (logged); "off" disables the server.
	Addr string `toml:"addr"`
	// Recall says who may read /recall, the last coups with every card
	// and its time (for the pit and regulators, not a public board):
	// "loopback" (the default: programs on this Pi, an SSH tunnel), "all"
	// (anyone who reaches addr) or "off".
	Recall string `toml:"recall"`
}

// BoardConfig is the [board] table: what the board page (served at "/" on
// [http] addr) shows beside the roads.
type BoardConfig struct {
	// Game is the game's name on the board; "" shows the rule profile's
	// ("Punto Banco", "Super 6", "EZ Baccarat"). At most 40 characters.
	Game string `toml:"game"`
	// Lang is the board's label language: "en" (English) or "zh"
	// (Chinese); a page's ?lang= overrides it.
	Lang string `toml:"lang"`
	// Currency is written before the limits ("$", "HK$"; at most 8
	// characters). MinBet and MaxBet are the banker and player limits,
	// TieMax and PairMax the tie and pair maximums; 0 is not shown.
	Currency string `toml:"currency"`
	// Display is the wall display's address (an IP): one of the board's
	// event-stream slots is kept for it, so that other clients taking
	// every slot cannot blank the board. "" keeps none.
	Display string `toml:"display"`
	MinBet  int    `toml:"min_bet"`
	MaxBet  int    `toml:"max_bet"`
	TieMax  int    `toml:"tie_max"`
	PairMax int    `toml:"pair_max"`
}

// AlertsConfig is the [alerts] table.
type AlertsConfig struct {
	// AdvantageThreshold raises an advantage alert when a bet's expected
	// value for the player on the next coup exceeds it: a fraction of the
	// stake, 0 ≤ T < 1 (0: any positive expectation, 0.01: more than +1%),
	// as `sabot check --advantage T` (odds.AdvantageThreshold). Absent
	// (nil): off.
	AdvantageThreshold *float64 `toml:"advantage_threshold"`
	// Misdeal is "alert-only" (the coup's result stands per the tableau,
	// the surplus card is reported) or "void" (the coup is voided).
	Misdeal string `toml:"misdeal"`
	// RequireBetsClosed raises early-draw for a card drawn while betting
	// is open (live-dealer tables).
	RequireBetsClosed bool `toml:"require_bets_closed"`
}

// Advantage is the advantage threshold the key gives: off when absent.
func (a AlertsConfig) Advantage() (odds.AdvantageThreshold, error) {
	if a.AdvantageThreshold == nil {
		return odds.AdvantageThreshold{}, nil
	}
	return odds.AdvantageAbove(*a.AdvantageThreshold)
}

// LogConfig is the [log] table.
type LogConfig struct {
	// Format is "text" or "json".
	Format string `toml:"format"`
	// Level is "debug", "info", "warn" or "error".
	Level string `toml:"level"`
}

// Default returns the configuration with every default filled in; a
// file only overrides what it sets.
func Default() Config {
	return Config{
		Game:         "punto-banco",
		Decks:        8,
		OverrunCards: tableau.DefaultOverrunCards,
		Rules:        defaultRulesConfig(),
		CutRule:      "last-coup",
		Shoe:         ShoeConfig{Protocol: "sabot", Markers: "auto", DataBits: 8, Parity: "none", StopBits: "1", RS485: shoe.RS485Off},
		MQTT:         MQTTConfig{TopicPrefix: "sabot", EmbeddedAddr: "127.0.0.1:1883", RefusalTimeout: mqtt.DefaultRefusalTimeout.String()},
		Display:      board.DisplayConfig{Kind: "none", Brightness: segment.DefaultBrightness},
		GPIO:         board.GPIOConfig{Backend: board.BackendGPIO, DebounceMS: 30},
		State:        StateConfig{Dir: "/var/lib/sabot", RetainDays: 90, ArchiveMaxMB: 1024, ClockWait: "90s", ClockSyncedFile: DefaultClockSyncedFile},
		HTTP:         HTTPConfig{Addr: "127.0.0.1:0", Recall: "loopback"},
		Alerts:       AlertsConfig{Misdeal: "alert-only"},
		Log:          LogConfig{Format: "text", Level: "info"},
		Board:        BoardConfig{Lang: "en"},
		Dealer:       DealerConfig{ShiftStart: []string{"06:00", "14:00", "22:00"}, KeyGapMS: DefaultKeyGapMS},
	}
}

// Error is a configuration error. Line is 0 when the error has no
// place in the file (a required key that is missing).
type Error struct {
	File string
	Line int
	Col  int
	Key  string // dotted key, e.g. "shoe.baud"
	Msg  string
}

func (e *Error) Error() string {
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

// Size limits of a configuration file. A real one is a few KiB; anything
// far larger is the wrong file (a journal, /dev/zero) and is refused before
// it is read into memory.
const (
	// MaxConfigBytes bounds the file: Load reads at most this much.
	MaxConfigBytes = 256 << 10
	// MaxConfigLine bounds a line (comments included), in bytes.
	MaxConfigLine = 4096
	// MaxConfigSettings bounds the lines that are neither blank nor a
	// comment (the example has about 100). The TOML library checks each
	// key against the keys already in its table one by one, so its time
	// grows with the square of the keys: this bound keeps a wrong file
	// from stalling the start.
	MaxConfigSettings = 2000
)

// Load reads and validates the file at path on top of Default.
// It reads at most MaxConfigBytes (+1, to tell a longer file), so memory
// does not grow with the file.
func Load(path string) (Config, error) {
	// Stat before opening: opening a FIFO would block.
	if st, err := os.Stat(path); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	} else if !st.Mode().IsRegular() {
		return Config{}, &Error{File: path, Msg: fmt.Sprintf("not a regular file: %s", hostcheck.FileKind(st.Mode()))}
	}
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	if len(data) > MaxConfigBytes {
		return Config{}, &Error{File: path, Msg: fmt.Sprintf("larger than %d bytes: not a configuration file", MaxConfigBytes)}
	}
	return Parse(data, path)
}

// checkLines refuses a line longer than MaxConfigLine and more than
// MaxConfigSettings lines that are not blank or comments.
func checkLines(data []byte, file string) error {
	settings := 0
	for n := 1; len(data) > 0; n++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data)
		}
		if i > MaxConfigLine {
			return &Error{File: file, Line: n, Col: MaxConfigLine + 1, Msg: fmt.Sprintf("line longer than %d bytes", MaxConfigLine)}
		}
		if l := bytes.TrimSpace(data[:i]); len(l) > 0 && l[0] != '#' {
			if settings++; settings > MaxConfigSettings {
				return &Error{File: file, Line: n, Msg: fmt.Sprintf("more than %d lines of settings: not a sabotd configuration", MaxConfigSettings)}
			}
		}
		data = data[min(i+1, len(data)):]
	}
	return nil
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
		"main.RateText": `a rate such as "5%" or 0.05`, "[]float64": "an array of numbers",
	}[m[2]]
	if want == "" {
		want = "another type"
	}
	return "wrong type: a TOML " + m[1] + " where " + want + " is wanted"
}

// Parse decodes and validates a TOML document; file names it in
// errors. Over-long lines, unknown keys (keys are case-sensitive; a known
// key in the wrong table gets a hint where it belongs), wrong types and
// impossible values are errors that name the key and its line
// (*Error, joined when several).
func Parse(data []byte, file string) (Config, error) {
	if err := checkLines(data, file); err != nil {
		return Config{}, err
	}
	// Syntax first, with the parser's position.
	var raw map[string]any
	if err := toml.Unmarshal(data, &raw); err != nil {
		return Config{}, decodeError(err, file)
	}
	keys := docKeys(data)
	// The old form's top-level keys (before [rules]): rules = "GAME" and
	// tie_pays. They are read as game and [rules] tie_pays.
	_, oldRules := raw["rules"].(string)
	_, oldTie := raw["tie_pays"]
	if errs := checkKeys(keys, raw, file); len(errs) > 0 {
		return Config{}, joinErrors(errs)
	}
	cfg := Default()
	// Every key is known and spelt exactly (checkKeys), so the decoder's
	// case-insensitive matching cannot apply.
	if oldRules || oldTie {
		l := legacyConfig{Config: cfg}
		var err error
		if oldRules {
			err = toml.NewDecoder(bytes.NewReader(data)).Decode(&l)
		} else {
			lt := legacyTie{Config: cfg}
			err = toml.NewDecoder(bytes.NewReader(data)).Decode(&lt)
			l.Config, l.TiePays = lt.Config, lt.TiePays
		}
		if err != nil {
			return Config{}, decodeError(err, file)
		}
		cfg = l.Config
		cfg.legacy.rules, cfg.legacy.tiePays = oldRules, oldTie
		if oldRules {
			cfg.Game = l.Rules
		}
		if l.TiePays != nil {
			cfg.Rules.TiePays = *l.TiePays
		}
	} else if err := toml.NewDecoder(bytes.NewReader(data)).Decode(&cfg); err != nil {
		return Config{}, decodeError(err, file)
	}
	// The display chip's own keys (checkKeys let through only those of the
	// configured chip), as decoded; board.Check types and checks them.
	if dm, ok := raw["display"].(map[string]any); ok {
		for k, v := range dm {
			if _, known := schema["display."+k]; !known {
				if cfg.Display.Options == nil {
					cfg.Display.Options = map[string]any{}
				}
				cfg.Display.Options[k] = v
			}
		}
	}
	pos := map[string]int{}
	for _, k := range keys {
		if _, dup := pos[k.key]; !dup {
			pos[k.key] = k.line
		}
	}
	set := func(key string) bool { _, ok := pos[key]; return ok }
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &Error{File: file, Line: lineOf(pos, key), Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if oldRules && set("game") {
		bad("rules", "%q: the game is game = %q; rules = \"GAME\" is its old name, and [rules] now holds the house rules: keep game only", cfg.Game, cfg.Game)
	}
	if oldTie && set("rules.tie_pays") {
		bad("tie_pays", "also set in [rules]: keep [rules] tie_pays only (the top-level key is its old place)")
	}
	if info, ok := baccarat.LookupGame(cfg.Game); ok && !set("decks") {
		cfg.Decks = info.DefaultDecks // the game's: chemin de fer 6, banque 3
	}
	if p, err := shoe.LookupProtocol(cfg.Shoe.Protocol); err == nil && !set("shoe.baud") {
		cfg.Shoe.Baud = p.DefaultBaud
	}
	cfg.validate(bad)
	if len(errs) == 0 {
		cfg.checkFiles(bad)
	}
	if len(errs) > 0 {
		return Config{}, joinErrors(errs)
	}
	return cfg, nil
}

// MaxErrors bounds the errors one load reports: a wrong file (not a
// configuration at all) would otherwise give one per line.
const MaxErrors = 20

// joinErrors joins at most MaxErrors errors, and says how many more
// there were.
func joinErrors(errs []error) error {
	if len(errs) > MaxErrors {
		more := fmt.Errorf("config: and %d more errors", len(errs)-MaxErrors)
		errs = append(errs[:MaxErrors:MaxErrors], more)
	}
	return errors.Join(errs...)
}

// decodeError turns the TOML library's error into an *Error.
func decodeError(err error, file string) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		msg := plainTypeError(strings.TrimPrefix(de.Error(), "toml: "))
		return &Error{File: file, Line: line, Col: col, Key: strings.Join(de.Key(), "."), Msg: msg}
	}
	return fmt.Errorf("config: %s: %w", file, err)
}

// legacyConfig decodes a file of the old form, where rules = "GAME" named
// the game and tie_pays was a top-level key: its fields shadow Config's
// rules table for that file (the decoder resolves a name to the shallowest
// field, as encoding/json does).
type legacyConfig struct {
	Config
	Rules   string `toml:"rules"`
	TiePays *int   `toml:"tie_pays"`
}

// legacyTie decodes a file with [rules] (or none) and the old top-level
// tie_pays.
type legacyTie struct {
	Config
	TiePays *int `toml:"tie_pays"`
}

// legacyKeys are the old form's keys checkKeys lets through: rules (the
// game, when a string) and the top-level tie_pays.
var legacyKeys = map[string]bool{"tie_pays": true}

var textUnmarshaler = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()

// schema maps every dotted key of the file format to whether it is a
// table ([shoe]) rather than a value; it is read from Config's toml tags.
var schema = func() map[string]bool {
	m := map[string]bool{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "" || name == "-" {
				continue
			}
			key := prefix + name
			// A struct that reads itself from text (the commission) is a
			// value, not a table.
			table := f.Type.Kind() == reflect.Struct && !reflect.PointerTo(f.Type).Implements(textUnmarshaler)
			m[key] = table
			if table {
				walk(f.Type, key+".")
			}
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	return m
}()

// checkKeys refuses every key of the document that is not in the schema,
// naming its line and column, with a hint when the key is known in another
// table or with another case. A table that is unknown is reported once, not
// once per key in it.
func checkKeys(keys []docKey, raw map[string]any, file string) []error {
	kind := Default().Display.Kind
	if dm, ok := raw["display"].(map[string]any); ok {
		if k, ok := dm["kind"].(string); ok {
			kind = k
		}
	}
	chip, isChip := ledchip.Lookup(kind)
	var errs []error
	reported := map[string]bool{}
	for _, k := range keys {
		if _, ok := schema[k.key]; ok || legacyKeys[k.key] {
			continue
		}
		opt, inDisplay := strings.CutPrefix(k.key, "display.")
		inDisplay = inDisplay && !strings.Contains(opt, ".")
		if inDisplay && isChip {
			if _, ok := chip.Option(opt); ok {
				continue
			}
		}
		parent, skip := k.key, false
		for {
			i := strings.LastIndexByte(parent, '.')
			if i < 0 {
				break
			}
			parent = parent[:i]
			if reported[parent] {
				skip = true
				break
			}
		}
		if skip || reported[k.key] {
			continue
		}
		reported[k.key] = true
		msg := "unknown key" + keyHint(k.key)
		if h := board.OptionHint(opt); inDisplay && h != "" {
			msg = fmt.Sprintf("not an option of display.kind %q%s", kind, h)
		}
		errs = append(errs, &Error{File: file, Line: k.line, Col: k.col, Key: k.key, Msg: msg})
	}
	return errs
}

// keyHint says where an unknown key belongs: another case of a known key,
// or the same name in another table.
func keyHint(key string) string {
	if t, ok := schema[strings.ToLower(key)]; ok {
		if t {
			return fmt.Sprintf(" (keys and tables are case-sensitive: write [%s])", strings.ToLower(key))
		}
		return fmt.Sprintf(" (keys are case-sensitive: write %s)", strings.ToLower(key))
	}
	leaf := key[strings.LastIndexByte(key, '.')+1:]
	var homes []string
	for k, table := range schema {
		if table || !strings.EqualFold(k[strings.LastIndexByte(k, '.')+1:], leaf) {
			continue
		}
		name := k[strings.LastIndexByte(k, '.')+1:]
		if i := strings.LastIndexByte(k, '.'); i < 0 {
			homes = append(homes, name+" belongs at the top level, before the first [table]")
		} else {
			homes = append(homes, name+" belongs in ["+k[:i]+"]")
		}
	}
	if h := board.OptionHint(leaf); h != "" && !strings.HasPrefix(key, "display.") {
		homes = append(homes, leaf+" belongs in [display]"+h)
	}
	if len(homes) == 0 {
		return ""
	}
	sort.Strings(homes)
	return "; " + strings.Join(homes, ", or ")
}

// quoteList writes names as `"a", "b" or "c"`.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

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
	case mqtt.TableProblem(c.Table) != "":
		bad("table", "%q: %s", c.Table, mqtt.TableProblem(c.Table))
	}
	if !oneOf(c.Game, daemonGames()...) {
		bad(c.gameKey(), "%q: must be %s", c.Game, quoteList(daemonGames()))
	}
	if c.Decks < 1 || c.Decks > 8 {
		bad("decks", "%d: a shoe holds 1 to 8 decks", c.Decks)
	}
	if c.OverrunCards < 1 || c.OverrunCards > tableau.MaxOverrunCards {
		bad("overrun_cards", "%d: cards beyond 52 × decks before shoe-overrun, 1 to %d (default %d)", c.OverrunCards, tableau.MaxOverrunCards, tableau.DefaultOverrunCards)
	}
	rulesOK := true
	r := c.HouseRules(func(key, format string, args ...any) {
		rulesOK = false
		bad(key, format, args...)
	})
	if rulesOK {
		// The commission and the game's options in force, so that
		// --print-config shows them.
		cm, _ := baccarat.CommissionOf(r.CommissionBP())
		c.Rules.Commission = RateText(cm.String())
		if info, ok := baccarat.LookupGame(c.Game); ok {
			for i, v := range r.Game.Params() {
				if f := c.Rules.gameParam(info.Params[i].Name); f != nil {
					*f = v
				}
			}
		}
	}
	if !oneOf(c.CutRule, "last-coup", "one-more") {
		bad("cut_rule", "%q: must be \"last-coup\" or \"one-more\"", c.CutRule)
	}
	if c.Shoe.Device == "" {
		bad("shoe.device", "required (the shoe's serial device, e.g. \"/dev/sabot-shoe\")")
	}
	if p, err := shoe.LookupProtocol(c.Shoe.Protocol); err != nil {
		bad("shoe.protocol", "%q: unknown; registered protocols: %s", c.Shoe.Protocol, protocolList())
	} else {
		for _, e := range p.CheckLine(shoe.LineSettings{Baud: c.Shoe.Baud, DataBits: c.Shoe.DataBits, Parity: c.Shoe.Parity, StopBits: c.Shoe.StopBits}) {
			bad("shoe."+e.Key, "%s", e.Msg)
		}
		if c.Shoe.Gate && !p.Gate {
			bad("shoe.gate", "protocol %q has no gate to lock (%s)", p.Name, p.Summary)
		}
	}
	c.Shoe.validateRS485(c, bad)
	if !oneOf(c.Shoe.Markers, "auto", "on", "off") {
		bad("shoe.markers", "%q: must be \"auto\", \"on\" or \"off\"", c.Shoe.Markers)
	}
	for i, b := range c.MQTT.Brokers {
		if msg := checkBroker(b); msg != "" {
			bad("mqtt.brokers", "entry %d %q: %s", i+1, b, msg)
		}
	}
	if len(c.MQTT.Brokers) == 0 {
		if !listenAddr(c.MQTT.EmbeddedAddr) {
			bad("mqtt.embedded_addr", "%q: want host:port with a port 0–65535", c.MQTT.EmbeddedAddr)
		} else if host, _, _ := net.SplitHostPort(c.MQTT.EmbeddedAddr); host != "localhost" && c.MQTT.EmbeddedPasswordFile == "" {
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				bad("mqtt.embedded_addr", "%q: not loopback, so a password file is needed (embedded_password_file)", c.MQTT.EmbeddedAddr)
			}
		}
		if c.MQTT.EmbeddedPasswordFile != "" {
			if _, err := mosqauth.LoadPasswordFile(c.MQTT.EmbeddedPasswordFile); err != nil {
				bad("mqtt.embedded_password_file", "%v", err)
			}
		}
		if c.MQTT.EmbeddedACLFile != "" {
			if _, err := mosqauth.LoadACLFile(c.MQTT.EmbeddedACLFile); err != nil {
				bad("mqtt.embedded_acl_file", "%v", err)
			}
		}
	} else {
		for _, k := range []struct {
			key string
			set bool
		}{{"embedded_password_file", c.MQTT.EmbeddedPasswordFile != ""}, {"embedded_acl_file", c.MQTT.EmbeddedACLFile != ""},
			{"embedded_allow_anonymous", c.MQTT.EmbeddedAllowAnonymous}} {
			if k.set {
				bad("mqtt."+k.key, "set with [mqtt] brokers: it is the embedded broker's, which does not run (give these files to your broker)")
			}
		}
	}
	for i, op := range c.MQTT.Operators {
		if op == "" || len(op) > 64 {
			bad("mqtt.operators", "entry %d %q: want 1 to 64 bytes", i+1, op)
		}
	}
	if why := mqtt.TopicPrefixProblem(c.MQTT.TopicPrefix); why != "" {
		bad("mqtt.topic_prefix", "%q: %s", c.MQTT.TopicPrefix, why)
	}
	if (c.MQTT.TLSCert == "") != (c.MQTT.TLSKey == "") {
		bad("mqtt.tls_cert", "tls_cert and tls_key go together")
	}
	if c.State.RetainDays < 0 {
		bad("state.retain_days", "%d: must not be negative (0 keeps every record in the live journal)", c.State.RetainDays)
	}
	if c.State.ArchiveMaxMB < 0 {
		bad("state.archive_max_mb", "%d: must not be negative (0: no cap)", c.State.ArchiveMaxMB)
	}
	if k, err := time.ParseDuration(c.MQTT.KeepAlive); c.MQTT.KeepAlive != "" && (err != nil || k < MinKeepAlive || k > MaxKeepAlive) {
		bad("mqtt.keepalive", "%q: want a duration from %v to %v, e.g. \"30s\"", c.MQTT.KeepAlive, MinKeepAlive, MaxKeepAlive)
	}
	if r, err := time.ParseDuration(c.MQTT.RefusalTimeout); err != nil || r < MinRefusalTimeout || r > MaxRefusalTimeout {
		bad("mqtt.refusal_timeout", "%q: want a duration from %v to %v, e.g. %q", c.MQTT.RefusalTimeout, MinRefusalTimeout, MaxRefusalTimeout, mqtt.DefaultRefusalTimeout.String())
	}
	if f := c.State.ClockSyncedFile; f != "" && !filepath.IsAbs(f) {
		bad("state.clock_synced_file", "%q: want an absolute path (default %q), or \"\" to ask the kernel only", f, DefaultClockSyncedFile)
	}
	if w, err := time.ParseDuration(c.State.ClockWait); err != nil || w < 0 || w > MaxClockWait {
		bad("state.clock_wait", "%q: want a duration from \"0s\" (do not wait) to %q, e.g. \"90s\"", c.State.ClockWait, MaxClockWait.String())
	}
	if c.MQTT.BacklogLimit < 0 {
		bad("mqtt.backlog_limit", "%d: must not be negative", c.MQTT.BacklogLimit)
	}
	if c.Display.Kind == "fake" {
		noBoardOptions := c.Display
		noBoardOptions.Kind = "none"
		_, errs := board.Check(c.GPIO, noBoardOptions)
		for _, e := range errs {
			bad(e.Key, "%s", e.Msg)
		}
	} else {
		s, errs := board.Check(c.GPIO, c.Display)
		for _, e := range errs {
			bad(e.Key, "%s", e.Msg)
		}
		if len(errs) == 0 && s.Values != nil {
			c.Display.Options = s.Values // every option, defaults filled in
		}
	}
	if c.State.Dir == "" {
		bad("state.dir", "required")
	}
	if c.HTTP.Addr != "off" {
		if !listenAddr(c.HTTP.Addr) {
			bad("http.addr", "%q: want host:port with a port 0–65535 (0 picks a free one) or \"off\"", c.HTTP.Addr)
		}
	}
	if !oneOf(c.HTTP.Recall, "", "loopback", "all", "off") {
		bad("http.recall", "%q: want \"loopback\" (the default), \"all\" or \"off\"", c.HTTP.Recall)
	}
	if c.Board.Display != "" && net.ParseIP(c.Board.Display) == nil {
		bad("board.display", "%q: want the wall display's IP address, or \"\"", c.Board.Display)
	}
	if a, err := c.Alerts.Advantage(); err != nil {
		bad("alerts.advantage_threshold", "%s (remove the key for off)", strings.TrimPrefix(err.Error(), odds.ErrAdvantageThreshold.Error()+": "))
	} else if a.On() && !r.Game.DealsPuntoBanco() && oneOf(c.Game, daemonGames()...) {
		bad("alerts.advantage_threshold", "the advantage check values the punto banco tableau's bets, not %s's: remove the key (game = %q)", c.Game, c.Game)
	}
	if !oneOf(c.Alerts.Misdeal, "alert-only", "void") {
		bad("alerts.misdeal", "%q: must be \"alert-only\" or \"void\"", c.Alerts.Misdeal)
	}
	c.Board.validate(bad)
	c.Dealer.validate(bad)
	if !oneOf(c.Log.Format, "text", "json") {
		bad("log.format", "%q: must be \"text\" or \"json\"", c.Log.Format)
	}
	if !oneOf(c.Log.Level, "debug", "info", "warn", "error") {
		bad("log.level", "%q: must be debug, info, warn or error", c.Log.Level)
	}
}

// validateRS485 checks the [shoe] rs485 keys (drivers/shoe's rules) and
// that the DE pin is no other key's pin ([gpio], the display chip's).
func (s ShoeConfig) validateRS485(c *Config, bad func(key, format string, args ...any)) {
	for _, e := range s.RS485Setup().Check() {
		bad("shoe."+e.Key, "%s", e.Msg)
	}
	if s.RS485 != shoe.RS485GPIO || s.RS485DE == "" {
		return
	}
	g, d := c.BoardTables()
	uses, err := board.Devices(g, d)
	if err != nil {
		return // the board's own errors are reported with their keys
	}
	for _, u := range uses {
		if u.Kind == board.DevicePin && u.Name == s.RS485DE {
			bad("shoe.rs485_de", "%q is already %s: one pin cannot serve two functions", s.RS485DE, u.Key)
			return
		}
	}
}

// listenAddr reports whether a is host:port with a numeric port 0–65535
// (0: a free port).
func listenAddr(a string) bool {
	_, p, err := net.SplitHostPort(a)
	if err != nil {
		return false
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 0 && n <= 65535
}

// protocolList is the registered shoe protocols for an error message:
// `"beetek" (Bee-Tek ASCII records, read-only), ...`.
func protocolList() string {
	var l []string
	for _, n := range shoe.Protocols() {
		p, _ := shoe.LookupProtocol(n)
		l = append(l, fmt.Sprintf("%q (%s)", n, p.Summary))
	}
	return strings.Join(l, ", ")
}

// checkBroker returns what is wrong with a broker URL ("" if nothing):
// mqtt.BrokerURLProblem.
func checkBroker(s string) string { return mqtt.BrokerURLProblem(s) }

// checkFiles refuses files the daemon would fail to read at startup: the
// MQTT password, CA and client certificate, the UID registry. Each error
// names the key; reading stops at MaxConfigBytes.
func (c *Config) checkFiles(bad func(key, format string, args ...any)) {
	// Regular files only: opening a FIFO or a terminal would block the
	// start.
	regular := func(key, path string) bool {
		if st, err := os.Stat(path); err != nil {
			bad(key, "%v", err)
			return false
		} else if !st.Mode().IsRegular() {
			bad(key, "%s: not a regular file: %s", path, hostcheck.FileKind(st.Mode()))
			return false
		}
		return true
	}
	read := func(key, path string) ([]byte, bool) {
		if !regular(key, path) {
			return nil, false
		}
		f, err := os.Open(path)
		if err != nil {
			bad(key, "%v", err)
			return nil, false
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes))
		if err != nil {
			bad(key, "%s: %v", path, err)
			return nil, false
		}
		return b, true
	}
	if p := c.MQTT.PasswordFile; p != "" {
		if b, ok := read("mqtt.password_file", p); ok {
			line, _, _ := strings.Cut(string(b), "\n")
			if strings.TrimRight(line, "\r") == "" {
				bad("mqtt.password_file", "%s: first line is empty (it holds the password)", p)
			} else if c.MQTT.Username == "" {
				bad("mqtt.username", "required with mqtt.password_file")
			}
		}
	}
	if p := c.MQTT.TLSCA; p != "" {
		if b, ok := read("mqtt.tls_ca", p); ok && !x509.NewCertPool().AppendCertsFromPEM(b) {
			bad("mqtt.tls_ca", "%s: no PEM certificate found", p)
		}
	}
	if c.MQTT.TLSCert != "" && c.MQTT.TLSKey != "" {
		if _, err := tls.LoadX509KeyPair(c.MQTT.TLSCert, c.MQTT.TLSKey); err != nil {
			bad("mqtt.tls_cert", "with mqtt.tls_key: %v", err)
		}
	}
	if p := c.Shoe.UIDRegistry; p != "" {
		if regular("shoe.uid_registry", p) {
			// The daemon's own loader, so a line it would refuse at
			// start is refused here, with exit status 2.
			if _, err := LoadRegistry(p); err != nil {
				bad("shoe.uid_registry", "%s", strings.TrimPrefix(err.Error(), "shoe.uid_registry: "))
			}
		}
	}
}

// validate checks the [board] keys.
func (b *BoardConfig) validate(bad func(key, format string, args ...any)) {
	if n := len([]rune(b.Game)); n > 40 {
		bad("board.game", "%d characters: at most 40 fit the board", n)
	}
	if !oneOf(b.Lang, "en", "zh") {
		bad("board.lang", "%q: must be \"en\" or \"zh\"", b.Lang)
	}
	if n := len([]rune(b.Currency)); n > 8 {
		bad("board.currency", "%q: at most 8 characters", b.Currency)
	}
	for _, l := range []struct {
		key string
		v   int
	}{{"board.min_bet", b.MinBet}, {"board.max_bet", b.MaxBet}, {"board.tie_max", b.TieMax}, {"board.pair_max", b.PairMax}} {
		if l.v < 0 || l.v > 1_000_000_000 {
			bad(l.key, "%d: must be 0 (not shown) to 1000000000", l.v)
		}
	}
	if b.MinBet > 0 && b.MaxBet > 0 && b.MinBet > b.MaxBet {
		bad("board.min_bet", "%d is above board.max_bet %d", b.MinBet, b.MaxBet)
	}
}

// MarkersOn resolves shoe.markers "auto".
func (c *Config) MarkersOn() bool {
	switch c.Shoe.Markers {
	case "on":
		return true
	case "off":
		return false
	}
	p, err := shoe.LookupProtocol(c.Shoe.Protocol)
	return (err == nil && p.Markers) || c.GPIO.CoupButton != ""
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

// docKey is one key set in a TOML document, with where it is.
type docKey struct {
	key       string // dotted, e.g. "shoe.baud"
	line, col int    // 1-based
}

// docKeys lists every dotted key a (syntactically valid) TOML document
// sets, tables and keys inside inline tables included, in document order,
// so errors can name the line.
//
// Positions come from an index of line starts (the parser's Shape scans
// the document from its start on every call, which made a file of many
// keys quadratic).
func docKeys(data []byte) []docKey {
	var keys []docKey
	var p unstable.Parser
	p.Reset(data)
	lineStarts := []int{0}
	for i, c := range data {
		if c == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	position := func(r unstable.Range) unstable.Position {
		off := int(r.Offset)
		l := sort.Search(len(lineStarts), func(i int) bool { return lineStarts[i] > off }) // 1-based line
		return unstable.Position{Offset: off, Line: l, Column: off - lineStarts[l-1] + 1}
	}
	var prefix []string
	keyOf := func(n *unstable.Node) ([]string, unstable.Position) {
		var parts []string
		var at unstable.Position
		it := n.Key()
		for it.Next() {
			if parts == nil {
				at = position(it.Node().Raw)
			}
			part := string(it.Node().Data)
			if strings.ContainsAny(part, ". ") || part == "" {
				// A quoted key such as "shoe.device" is one key with a
				// dot in its name, which no schema key is.
				part = strconv.Quote(part)
			}
			parts = append(parts, part)
		}
		return parts, at
	}
	var keyValue func(e *unstable.Node, prefix []string)
	keyValue = func(e *unstable.Node, prefix []string) {
		parts, at := keyOf(e)
		full := append(append([]string(nil), prefix...), parts...)
		keys = append(keys, docKey{strings.Join(full, "."), at.Line, at.Column})
		if v := e.Value(); v != nil && v.Kind == unstable.InlineTable {
			it := v.Children()
			for it.Next() {
				if c := it.Node(); c.Kind == unstable.KeyValue {
					keyValue(c, full)
				}
			}
		}
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			var at unstable.Position
			prefix, at = keyOf(e)
			if len(prefix) > 0 {
				keys = append(keys, docKey{strings.Join(prefix, "."), at.Line, at.Column})
			}
		case unstable.KeyValue:
			keyValue(e, prefix)
		}
	}
	return keys
}

// Marshal writes c as a TOML file that Parse reads back to c:
// every key with its value, the display chip's own keys (in its
// registration's order, defaults filled in) in the [display] table.
func Marshal(c Config) ([]byte, error) {
	out, err := toml.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	chip, ok := ledchip.Lookup(c.Display.Kind)
	if !ok || len(c.Display.Options) == 0 {
		return out, nil
	}
	// The options as a struct built for them, so that they keep their
	// order and TOML types.
	var fields []reflect.StructField
	var values []any
	for i, o := range chip.Options {
		v, set := c.Display.Options[o.Key]
		if !set {
			continue
		}
		if l, isList := v.([]int); isList && l == nil {
			v = []int{}
		}
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: reflect.TypeOf(v), Tag: reflect.StructTag(`toml:"` + o.Key + `"`)})
		values = append(values, v)
	}
	sv := reflect.New(reflect.StructOf(fields)).Elem()
	for i, v := range values {
		sv.Field(i).Set(reflect.ValueOf(v))
	}
	opts, err := toml.Marshal(sv.Interface())
	if err != nil {
		return nil, fmt.Errorf("config: display options: %w", err)
	}
	// Append them to the [display] table, which ends at the next blank
	// line (the encoder separates tables with one).
	i := bytes.Index(out, []byte("\n[display]\n"))
	if i < 0 {
		return nil, errors.New("config: no [display] table in the encoded configuration")
	}
	i += len("\n[display]\n")
	end := bytes.Index(out[i:], []byte("\n\n"))
	if end < 0 {
		end = len(out) - i - 1
	}
	end += i + 1
	return slices.Concat(out[:end], opts, out[end:]), nil
}
