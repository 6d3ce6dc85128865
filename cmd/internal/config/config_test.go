package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/ledchip"
	"github.com/sabot-table/sabot/drivers/mqtt"
)

func TestMinimalConfig(t *testing.T) {
	src := `table = "BAC-07"
[shoe]
device = "/dev/sabot-shoe"
[mqtt]
brokers = ["tcp://10.0.0.5:1883"]
[display]
kind = "none"
[state]
dir = "/var/lib/sabot"
`
	cfg, err := Parse([]byte(src), "min.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Table = "BAC-07"
	want.Shoe.Device = "/dev/sabot-shoe"
	want.Shoe.Baud = 115200
	want.MQTT.Brokers = []string{"tcp://10.0.0.5:1883"}
	want.Rules.Commission = "5%" // the rate in force is filled in
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got  %+v\nwant %+v", cfg, want)
	}
	if cfg.Game != "punto-banco" || cfg.Decks != 8 || cfg.MQTT.TopicPrefix != "sabot" || cfg.HTTP.Addr != "127.0.0.1:0" || cfg.Display.Kind != "none" {
		t.Fatalf("defaults wrong: %+v", cfg)
	}
	if !cfg.MarkersOn() {
		t.Fatal("markers auto should be on for protocol sabot")
	}
}

func TestBaudDefaults(t *testing.T) {
	base := "table = \"T\"\n[shoe]\ndevice = \"/dev/x\"\n"
	for _, tc := range []struct {
		extra string
		baud  int
	}{
		{"", 115200},
		{"protocol = \"sabot\"\n", 115200},
		{"protocol = \"beetek\"\n", 9600},
		{"protocol = \"beetek\"\nbaud = 19200\n", 19200},
	} {
		cfg, err := Parse([]byte(base+tc.extra), "c.toml")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Shoe.Baud != tc.baud {
			t.Errorf("%q: baud %d, want %d", tc.extra, cfg.Shoe.Baud, tc.baud)
		}
	}
	// Line settings: 8N1 by default, as configured otherwise.
	cfg, err := Parse([]byte(base), "c.toml")
	if err != nil || cfg.Shoe.DataBits != 8 || cfg.Shoe.Parity != "none" || cfg.Shoe.StopBits != "1" {
		t.Errorf("default line settings %d %q %q (%v), want 8 \"none\" \"1\"", cfg.Shoe.DataBits, cfg.Shoe.Parity, cfg.Shoe.StopBits, err)
	}
	cfg, err = Parse([]byte(base+"protocol = \"beetek\"\ndata_bits = 7\nparity = \"even\"\nstop_bits = \"2\"\n"), "c.toml")
	if err != nil || cfg.Shoe.DataBits != 7 || cfg.Shoe.Parity != "even" || cfg.Shoe.StopBits != "2" {
		t.Errorf("7E2: got %d %q %q (%v)", cfg.Shoe.DataBits, cfg.Shoe.Parity, cfg.Shoe.StopBits, err)
	}
	cfg, _ = Parse([]byte(base+"protocol = \"beetek\"\n"), "c.toml")
	if cfg.MarkersOn() {
		t.Error("markers auto should be off for beetek without a coup button")
	}
}

// TestConfigErrors checks that every kind of bad input names the file, the
// key and the line.
func TestConfigErrors(t *testing.T) {
	ok := "table = \"T1\"\n[shoe]\ndevice = \"/dev/x\"\n"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"impossible decks", "table = \"T1\"\ndecks = 9\n[shoe]\ndevice = \"/dev/x\"\n", `c.toml:2: decks: 9: a shoe holds 1 to 8 decks`},
		{"zero overrun cards", "table = \"T1\"\noverrun_cards = 0\n[shoe]\ndevice = \"/dev/x\"\n", `c.toml:2: overrun_cards: 0: cards beyond 52 × decks before shoe-overrun, 1 to 1000000 (default 52)`},
		{"zero decks", ok + "[state]\n" + "dir = \"/s\"\n" + "\n", ""},
		{"unknown key", ok + "speed = 3\n", `c.toml:4:1: shoe.speed: unknown key`},
		{"unknown table", ok + "[lamps]\nred = 1\n", `c.toml:4:2: lamps: unknown key`},
		{"wrong type", "table = \"T1\"\ndecks = \"eight\"\n", `c.toml:2:9: decks: wrong type: a TOML string where an integer is wanted`},
		{"wrong type array", ok + "[mqtt]\nbrokers = \"tcp://b:1883\"\n", `c.toml:5:11: mqtt.brokers: wrong type: a TOML string where an array of strings is wanted`},
		{"syntax", "table = \"T1\n", `c.toml:1:`},
		{"missing table", "[shoe]\ndevice = \"/dev/x\"\n", `c.toml: table: required`},
		{"missing device", "table = \"T1\"\n[shoe]\nprotocol = \"beetek\"\n", `c.toml:2: shoe.device: required`},
		{"protocol", ok + "protocol = \"rs232\"\n", `c.toml:4: shoe.protocol: "rs232"`},
		{"tie", "tie_pays = 7\n" + ok, `c.toml:1: tie_pays: 7`},
		{"rules", "rules = \"chemmy\"\n" + ok, `c.toml:1: rules: "chemmy"`},
		{"cut rule", "cut_rule = \"never\"\n" + ok, `c.toml:1: cut_rule: "never"`},
		{"display kind", ok + "[display]\nkind = \"lcd\"\n", `c.toml:5: display.kind: "lcd"`},
		{"misdeal", ok + "[alerts]\nmisdeal = \"redeal\"\n", `c.toml:5: alerts.misdeal: "redeal"`},
		{"broker url", ok + "[mqtt]\nbrokers = [\"broker:1883\"]\n", `c.toml:5: mqtt.brokers: entry 1 "broker:1883"`},
		{"table name", "table = \"a/b\"\n[shoe]\ndevice = \"/dev/x\"\n", `c.toml:1: table: "a/b"`},
		{"http addr", ok + "[http]\naddr = \"9180\"\n", `c.toml:5: http.addr: "9180"`},
		{"inline table", "table = \"T1\"\nshoe = { device = \"/dev/x\", baud = 1 }\n", `c.toml:2: shoe.baud: 1`},
		{"gate beetek", ok + "protocol = \"beetek\"\ngate = true\n", `c.toml:5: shoe.gate`},
		{"data bits", ok + "data_bits = 9\n", `c.toml:4: shoe.data_bits: 9`},
		{"parity", ok + "parity = \"e\"\n", `c.toml:4: shoe.parity: "e"`},
		{"stop bits", ok + "stop_bits = \"3\"\n", `c.toml:4: shoe.stop_bits: "3"`},
		{"sabot needs 8 data bits", ok + "data_bits = 7\n", `c.toml:4: shoe.data_bits: 7: the sabot protocol's frames are binary`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src), "c.toml")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q\ndoes not contain %q", err, tc.want)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *Error", err)
			}
		})
	}
}

func TestSeveralErrorsReported(t *testing.T) {
	_, err := Parse([]byte("table = \"T\"\ndecks = 0\ntie_pays = 10\n[shoe]\ndevice = \"/d\"\n"), "c.toml")
	if err == nil || !strings.Contains(err.Error(), "c.toml:2: decks") || !strings.Contains(err.Error(), "c.toml:3: tie_pays") {
		t.Fatalf("want both errors, got %v", err)
	}
}

// TestShippedConfigsParse checks the example configurations in systemd/.
func TestShippedConfigsParse(t *testing.T) {
	for _, name := range []string{"sabotd.toml", "sabotd-minimal.toml"} {
		cfg, err := Load(filepath.Join("..", "..", "..", "systemd", name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cfg.Table == "" || cfg.Shoe.Device != "/dev/sabot-shoe" || cfg.Display.Kind != "tm1637" || cfg.State.Dir != "/var/lib/sabot" {
			t.Errorf("%s: unexpected %+v", name, cfg)
		}
	}
}

func TestLoadConfigMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.toml"))
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nope.toml") {
		t.Fatalf("err = %v", err)
	}
}

// TestExampleConfigListsEveryKey: systemd/sabotd.toml shows every key of
// the schema and every option of the built-in chips, in its table (set or
// commented out), so a new key or chip option cannot go undocumented.
func TestExampleConfigListsEveryKey(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "systemd", "sabotd.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// table of each "key =" line, commented or not.
	seen := map[string]bool{}
	table := ""
	for _, line := range strings.Split(string(src), "\n") {
		l := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#"))
		if strings.HasPrefix(l, "[") && strings.Contains(l, "]") {
			table = l[1:strings.Index(l, "]")] + "."
			continue
		}
		if k, _, ok := strings.Cut(l, " = "); ok && !strings.Contains(k, " ") {
			seen[table+k] = true
		}
	}
	want := []string{}
	for k, isTable := range schema {
		if !isTable {
			want = append(want, k)
		}
	}
	for _, n := range []string{"tm1637", "max7219", "ht16k33"} {
		c, ok := ledchip.Lookup(n)
		if !ok {
			t.Fatalf("chip %s not registered", n)
		}
		for _, o := range c.Options {
			want = append(want, "display."+o.Key)
		}
	}
	for _, k := range want {
		if !seen[k] {
			t.Errorf("systemd/sabotd.toml does not show %s", k)
		}
	}
}

// [mqtt] keepalive: a duration within MinKeepAlive..MaxKeepAlive, given
// to the publisher; anything else is refused naming the key.
func TestConfigKeepAlive(t *testing.T) {
	base := "table = \"T\"\n[shoe]\ndevice = \"/dev/null\"\n[mqtt]\n"
	cfg, err := Parse([]byte(base+"keepalive = \"5s\"\n"), "c.toml")
	if err != nil || cfg.MQTT.KeepAliveDuration() != 5*time.Second {
		t.Fatalf("keepalive 5s: %v, %v", cfg.MQTT.KeepAliveDuration(), err)
	}
	if cfg, err := Parse([]byte(base), "c.toml"); err != nil || cfg.MQTT.KeepAliveDuration() != 0 {
		t.Fatalf("no keepalive: %v, %v (want 0: the driver's 30 s)", cfg.MQTT.KeepAliveDuration(), err)
	}
	for _, v := range []string{"1s", "11m", "5", "-5s"} {
		_, err := Parse([]byte(base+"keepalive = \""+v+"\"\n"), "c.toml")
		if err == nil || !strings.Contains(err.Error(), "mqtt.keepalive") {
			t.Errorf("keepalive %q: %v, want an error naming mqtt.keepalive", v, err)
		}
	}
}

// [mqtt] refusal_timeout: a duration within MinRefusalTimeout..
// MaxRefusalTimeout given to the publisher, "10s" when absent (shown by
// --print-config); anything else is refused with the file, line and key.
func TestConfigRefusalTimeout(t *testing.T) {
	base := "table = \"T\"\n[shoe]\ndevice = \"/dev/null\"\n[mqtt]\n"
	cfg, err := Parse([]byte(base+"refusal_timeout = \"30s\"\n"), "c.toml")
	if err != nil || cfg.MQTT.RefusalTimeoutDuration() != 30*time.Second {
		t.Fatalf("refusal_timeout 30s: %v, %v", cfg.MQTT.RefusalTimeoutDuration(), err)
	}
	cfg, err = Parse([]byte(base), "c.toml")
	if err != nil || cfg.MQTT.RefusalTimeoutDuration() != mqtt.DefaultRefusalTimeout {
		t.Fatalf("no refusal_timeout: %v, %v (want the driver's %v)", cfg.MQTT.RefusalTimeoutDuration(), err, mqtt.DefaultRefusalTimeout)
	}
	out, err := Marshal(cfg)
	if err != nil || !strings.Contains(string(out), "refusal_timeout = '10s'") {
		t.Errorf("--print-config lacks refusal_timeout = '10s' (%v):\n%s", err, out)
	}
	for _, v := range []string{"500ms", "11m", "10", "-5s", ""} {
		_, err := Parse([]byte(base+"refusal_timeout = \""+v+"\"\n"), "c.toml")
		if err == nil || !strings.Contains(err.Error(), "c.toml:5") || !strings.Contains(err.Error(), "mqtt.refusal_timeout") {
			t.Errorf("refusal_timeout %q: %v, want an error at c.toml:5 naming mqtt.refusal_timeout", v, err)
		}
	}
}

// TestGameParamsHaveRulesKeys: every parameter of a game sabotd deals
// (tableau's registry) has its [rules] key, the name with '_' for '-',
// and a registered game needs no list edited here: today chemin de fer's
// punter-five and banker-table, rules.punter_five and rules.banker_table.
func TestGameParamsHaveRulesKeys(t *testing.T) {
	names := gameParamNames()
	if !slices.Equal(names, []string{"punter-five", "banker-table"}) {
		t.Errorf("game parameters %q, want chemin de fer's punter-five and banker-table", names)
	}
	var rc RulesConfig
	for _, n := range names {
		f := rc.gameParam(n)
		if f == nil {
			t.Errorf("game parameter %q has no [rules] key %q", n, strings.ReplaceAll(n, "-", "_"))
			continue
		}
		*f = "x-" + n
	}
	if rc.PunterFive != "x-punter-five" || rc.BankerTable != "x-banker-table" {
		t.Errorf("gameParam set %+v", rc)
	}
	if rc.gameParam("commission") != nil || rc.gameParam("no-such") != nil {
		t.Error("gameParam finds a [rules] field that is no game parameter's string")
	}
}
