package daemon

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/ledchip"
	"github.com/sabot-table/sabot/drivers/shoe"
)

// A shoe protocol and an LED chip that exist only in this test: each is
// its registration and nothing else in sabotd, and the tests below
// configure them through a config file like the built-in ones.

// testShoe is "lines" under another name and other defaults: 57600 baud,
// no coup markers of its own, no gate, even parity required.
type testShoe struct{ shoe.Protocol }

func (testShoe) Name() string { return "test-shoe" }

// testChip records what the board opened it with and the frames it shows.
type testChip struct {
	mu       sync.Mutex
	settings ledchip.Settings
	fake     bool
	frames   []segment.Frame
}

func (c *testChip) Render(f segment.Frame) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frames = append(c.frames, f)
	return nil
}

func (c *testChip) lastFrame() (segment.Frame, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.frames) == 0 {
		return segment.Frame{}, 0
	}
	return c.frames[len(c.frames)-1], len(c.frames)
}

var testChipOpened = struct {
	sync.Mutex
	last *testChip
}{}

func init() {
	shoe.Register(shoe.ProtocolInfo{
		Name:        "test-shoe",
		Summary:     "a test's shoe",
		DefaultBaud: 57600,
		Markers:     false,
		Gate:        false,
		Check: func(l shoe.LineSettings) *shoe.SettingError {
			if l.Parity != "even" {
				return &shoe.SettingError{Key: "parity", Msg: fmt.Sprintf("%q: the test shoe sends even parity", l.Parity)}
			}
			return nil
		},
		New: func(cfg shoe.ProtocolConfig) shoe.Protocol { return testShoe{shoe.NewLines(cfg)} },
	})
	ledchip.Register(ledchip.Chip{
		Name:    "test-chip",
		Summary: "a test's chip",
		Options: []ledchip.Option{
			{Key: "wire", Kind: ledchip.Pin, Default: "GPIO40", Doc: "the one wire"},
			{Key: "gain", Kind: ledchip.Int, Default: 3, Doc: "1-9"},
			{Key: "lanes", Kind: ledchip.Ints, Doc: "lane order"},
			{Key: "flavour", Kind: ledchip.String, Default: "plain", Doc: "plain or fancy"},
		},
		Digits:    func(s ledchip.Settings) int { return 5 },
		MaxDigits: func(s ledchip.Settings) int { return 6 },
		Check: func(s ledchip.Settings) []*ledchip.OptionError {
			if g := s.Int("gain"); g < 1 || g > 9 {
				return []*ledchip.OptionError{{Key: "gain", Msg: fmt.Sprintf("%d: want 1-9", g)}}
			}
			return nil
		},
		Open: func(s ledchip.Settings, bus ledchip.Bus) (segment.Renderer, error) {
			c := &testChip{settings: s, fake: bus.Fake()}
			if !bus.Fake() {
				if _, err := bus.Pin("wire"); err != nil {
					return nil, err
				}
			}
			testChipOpened.Lock()
			testChipOpened.last = c
			testChipOpened.Unlock()
			return c, nil
		},
	})
}

const regHead = "table = \"T1\"\n[shoe]\ndevice = \"/dev/x\"\n"

// The registered protocol's defaults and checks apply to shoe.protocol.
func TestConfigRegisteredProtocol(t *testing.T) {
	cfg, err := config.Parse([]byte(regHead+"protocol = \"test-shoe\"\nparity = \"even\"\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Shoe.Baud != 57600 || cfg.MarkersOn() {
		t.Errorf("baud %d markers %v, want the registration's 57600 and off", cfg.Shoe.Baud, cfg.MarkersOn())
	}
	cfg, err = config.Parse([]byte(regHead+"protocol = \"test-shoe\"\nparity = \"even\"\n[gpio]\ncoup_button = \"GPIO13\"\n"), "c.toml")
	if err != nil || !cfg.MarkersOn() {
		t.Errorf("a table coup button turns markers on: %v %v", cfg.MarkersOn(), err)
	}
	for _, tc := range []struct{ src, want string }{
		{"protocol = \"test-shoe\"\n", `c.toml:2: shoe.parity: "none": the test shoe sends even parity`},
		{"protocol = \"test-shoe\"\nparity = \"even\"\ngate = true\n", `c.toml:6: shoe.gate: protocol "test-shoe" has no gate to lock (a test's shoe)`},
		{"protocol = \"test-shoe\"\nparity = \"even\"\nbaud = 57601\n", `c.toml:6: shoe.baud: 57601: not a standard serial line speed`},
		{"protocol = \"rs232\"\n", `c.toml:4: shoe.protocol: "rs232": unknown; registered protocols: "beetek" (`},
	} {
		_, err := config.Parse([]byte(regHead+tc.src), "c.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v\nwant …%s…", tc.src, err, tc.want)
		}
	}
	if _, err := config.Parse([]byte(regHead+"protocol = \"rs232\"\n"), "c.toml"); err == nil || !strings.Contains(err.Error(), `"test-shoe" (a test's shoe)`) {
		t.Errorf("the registered test protocol is not listed: %v", err)
	}
}

// The registered chip's options are [display] keys: defaults, types,
// checks, pins and --print-config all come from its registration.
func TestConfigRegisteredChip(t *testing.T) {
	cfg, err := config.Parse([]byte(regHead+"[display]\nkind = \"test-chip\"\ngain = 7\nlanes = [2, 0, 1]\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"wire": "GPIO40", "gain": 7, "lanes": []int{2, 0, 1}, "flavour": "plain"}
	if !reflect.DeepEqual(cfg.Display.Options, want) {
		t.Errorf("options %#v, want %#v", cfg.Display.Options, want)
	}
	for _, tc := range []struct{ src, want string }{
		{"gain = 12\n", `c.toml:6: display.gain: 12: want 1-9`},
		{"gain = \"high\"\n", `c.toml:6: display.gain: wrong type: a TOML string where an integer is wanted`},
		{"lanes = [\"a\"]\n", `c.toml:6: display.lanes: wrong type: a TOML array where an array of integers is wanted`},
		{"digits = 7\n", `c.toml:6: display.digits: 7: the test-chip drives 1 to 6 digits`},
		{"clk = \"GPIO2\"\n", `c.toml:6:1: display.clk: not an option of display.kind "test-chip" (tm1637 option; display.kind selects the chip)`},
		{"[gpio]\nlamp = \"GPIO40\"\n", `c.toml:7: gpio.lamp: "GPIO40" is already display.wire`},
		{"[gpio]\ngain = 2\n", `c.toml:7:1: gpio.gain: unknown key; gain belongs in [display] (test-chip option`},
	} {
		_, err := config.Parse([]byte(regHead+"[display]\nkind = \"test-chip\"\n"+tc.src), "c.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v\nwant …%s…", tc.src, err, tc.want)
		}
	}
	// A key of the test chip under another chip names the test chip.
	_, err = config.Parse([]byte(regHead+"[display]\nkind = \"max7219\"\ngain = 2\n"), "c.toml")
	if err == nil || !strings.Contains(err.Error(), `c.toml:6:1: display.gain: not an option of display.kind "max7219" (test-chip option`) {
		t.Errorf("gain under max7219: %v", err)
	}

	// --print-config shows the chip's keys with their defaults, and reads
	// back to the same configuration.
	path := filepath.Join(t.TempDir(), "c.toml")
	os.WriteFile(path, []byte(regHead+"[display]\nkind = \"test-chip\"\ngain = 7\n"), 0o600)
	m := NewMain()
	var out bytes.Buffer
	m.Stdout = &out
	if err := m.Setup(Options{ConfigPath: path, PrintConfig: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "[display]\nkind = 'test-chip'\nbrightness = 10\ndigits = 0\nwire = 'GPIO40'\ngain = 7\nlanes = []\nflavour = 'plain'\n\n[gpio]") {
		t.Errorf("--print-config [display]:\n%s", out.String())
	}
	back, err := config.Parse(out.Bytes(), "printed")
	if err != nil {
		t.Fatalf("printed config does not parse: %v\n%s", err, out.String())
	}
	if !reflect.DeepEqual(back.Display, m.Config.Display) || back.Table != "T1" {
		t.Errorf("printed config reads back as\n%#v\nnot\n%#v", back.Display, m.Config.Display)
	}
}

// The daemon opens the registered chip with its configured settings and
// shows frames on it, and reads cards from the registered protocol.
func TestDaemonRegisteredChipAndProtocol(t *testing.T) {
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	conf := fmt.Sprintf(`table = "T-REG"
[shoe]
device = %q
protocol = "test-shoe"
parity = "even"
[mqtt]
embedded_addr = "127.0.0.1:0"
[display]
kind = "test-chip"
digits = 6
gain = 4
[gpio]
backend = "fake"
[state]
dir = %q
[http]
addr = "off"
`, tty.Name(), t.TempDir())
	m, logs := bootDaemon(t, conf)
	defer func() {
		if t.Failed() {
			f, n := chip0().lastFrame()
			t.Logf("%d frames, last %q\n%s", n, f.String(), logs.String())
		}
	}()
	testChipOpened.Lock()
	chip := testChipOpened.last
	testChipOpened.Unlock()
	if chip == nil {
		t.Fatal("the registered chip was not opened")
	}
	if !chip.fake || chip.settings.Digits != 6 || chip.settings.Int("gain") != 4 || chip.settings.String("wire") != "GPIO40" {
		t.Errorf("chip opened with fake %v, settings %+v", chip.fake, chip.settings)
	}
	waitShoeOnline(t, m)
	// A new shoe, the burn (a 2: two cards burnt), then player 4+5 = 9,
	// banker 3+3 = 6: a player natural. The test shoe has no coup button
	// and none is fitted: the coup ends by the tableau.
	for _, tok := range []string{"shoe", "2H", "3C", "4D", "4H", "3D", "5S", "3C"} {
		fmt.Fprintf(ptmx, "%s\r\n", tok)
	}
	waitFor(t, "the coup on the test chip", 10*time.Second, func() bool {
		f, _ := chip.lastFrame()
		return len(f.Digits) == 6 && strings.Contains(f.String(), "9") && strings.Contains(f.String(), "6")
	})
	// Six digits (display.digits), the default brightness: player 9,
	// "P" (player wins), "n" (natural), banker 6.
	if f, _ := chip.lastFrame(); f.String() != "9 P n6" || f.Brightness != 10 {
		t.Errorf("frame %q brightness %d, want \"9 P n6\" at 10", f.String(), f.Brightness)
	}
}

func chip0() *testChip {
	testChipOpened.Lock()
	defer testChipOpened.Unlock()
	if testChipOpened.last == nil {
		return &testChip{}
	}
	return testChipOpened.last
}
