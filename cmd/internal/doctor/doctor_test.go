package doctor

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/drivers/board"
	"github.com/sabot-table/sabot/drivers/hostcheck"
)

// docFixture is a fixture tree for doctor: dev/, etc/passwd and etc/group
// (user sabot, uid 4242, not the test's, so the group and other bits
// decide; the test's own group is called dialout), and udev rule
// directories udev/etc and udev/lib.
type docFixture struct {
	root, dev string
	etcRules  string
	libRules  string
	d         *Doctor
	owner     string // the fixture files' owner as messages name it
}

func newDocFixture(t *testing.T) *docFixture {
	t.Helper()
	root := t.TempDir()
	f := &docFixture{root: root, dev: filepath.Join(root, "dev"),
		etcRules: filepath.Join(root, "udev", "etc"), libRules: filepath.Join(root, "udev", "lib")}
	for _, dir := range []string{f.dev, filepath.Join(root, "etc"), f.etcRules, f.libRules} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gid := os.Getgid()
	writeFile(t, filepath.Join(root, "etc", "passwd"), "root:x:0:0:root:/root:/bin/sh\nsabot:x:4242:4242:Sabot table daemon:/var/lib/sabot:/usr/sbin/nologin\n", 0o644)
	writeFile(t, filepath.Join(root, "etc", "group"), fmt.Sprintf("dialout:x:%d:\nsabot:x:4242:\ngpio:x:4300:sabot\ni2c:x:4301:sabot\nspi:x:4302:sabot\n", gid), 0o644)
	f.d = New()
	f.d.Paths = Paths{Dev: f.dev, Etc: filepath.Join(root, "etc"), UdevRules: []string{f.etcRules, f.libRules}}
	// Fixture files stand for devices (only root can make device nodes).
	f.d.isCharDev = func(fi fs.FileInfo) bool { return fi.Mode().IsRegular() || fi.Mode()&fs.ModeCharDevice != 0 }
	f.d.pinExists = func(string) (bool, error) { return false, errors.New("no pins in this test") }
	f.d.readClock = func() (hostcheck.ClockState, error) {
		return hostcheck.ClockState{}, errors.New("no clock in this test")
	}
	f.d.statfs = func(string) (uint64, uint64, error) { return 0, 0, errors.New("no statfs in this test") }
	f.owner = strconv.Itoa(os.Getuid())
	if os.Getuid() == 0 {
		f.owner = "root"
	}
	if got := f.d.checkUser(); len(got) != 1 || got[0].status != "ok" {
		t.Fatalf("fixture user: %+v", got)
	}
	return f
}

func writeFile(t *testing.T, path, text string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

func wantFindings(t *testing.T, what string, got []Finding, want ...Finding) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		var g, w strings.Builder
		for _, f := range got {
			f.Write(&g)
		}
		for _, f := range want {
			f.Write(&w)
		}
		t.Errorf("%s:\n got:\n%s\nwant:\n%s", what, g.String(), w.String())
	}
}

func TestDoctorUser(t *testing.T) {
	f := newDocFixture(t)
	wantFindings(t, "user and groups there", f.d.checkUser(), ok("user", "sabot exists, with the unit's groups dialout, gpio, i2c, spi"))
	const fix = "the package creates the user and its groups: sudo systemd-sysusers"
	group := filepath.Join(f.root, "etc", "group")
	writeFile(t, group, "dialout:x:20:\nsabot:x:4242:\ngpio:x:4300:sabot\n", 0o644)
	wantFindings(t, "no i2c and spi groups", f.d.checkUser(), fail("user", fix,
		"no group i2c, spi in %s: the unit's SupplementaryGroups= names it, and systemd does not start sabotd without it (status 216/GROUP)", group))
	passwd := filepath.Join(f.root, "etc", "passwd")
	writeFile(t, passwd, "root:x:0:0:root:/root:/bin/sh\n", 0o644)
	wantFindings(t, "no user", f.d.checkUser(), fail("user", fix, "no user sabot in %s: the unit runs sabotd as sabot", passwd))
}

func TestDoctorShoe(t *testing.T) {
	f := newDocFixture(t)
	cfg := &config.Config{}
	cfg.Shoe.Device = "/dev/sabot-shoe"
	linkFix := "plug in the shoe's serial adapter; `ls -l /dev/serial/by-id/` lists the adapters: set [shoe] device to its link there, or keep /dev/sabot-shoe and set the udev rule's serial number (see udev)"
	wantFindings(t, "no link", []Finding{f.d.checkShoe(cfg)},
		fail("shoe", linkFix, `shoe.device = "/dev/sabot-shoe": /dev/sabot-shoe does not exist`))

	if err := os.Symlink("ttyUSB0", filepath.Join(f.dev, "sabot-shoe")); err != nil {
		t.Fatal(err)
	}
	wantFindings(t, "dangling link", []Finding{f.d.checkShoe(cfg)},
		fail("shoe", linkFix, `shoe.device = "/dev/sabot-shoe": /dev/sabot-shoe → ttyUSB0, which does not exist`))

	tty := filepath.Join(f.dev, "ttyUSB0")
	writeFile(t, tty, "", 0o660)
	wantFindings(t, "link to a dialout 0660 port", []Finding{f.d.checkShoe(cfg)},
		ok("shoe", `shoe.device = "/dev/sabot-shoe": /dev/sabot-shoe → ttyUSB0, owner %s group dialout mode 0660: sabot may read and write it`, f.owner))

	os.Chmod(tty, 0o640)
	wantFindings(t, "group may only read", []Finding{f.d.checkShoe(cfg)},
		fail("shoe", `the shipped udev rule gives the adapter GROUP="dialout", MODE="0660" (see udev); for a port udev does not cover, add such a rule for it`,
			`shoe.device = "/dev/sabot-shoe": /dev/sabot-shoe → ttyUSB0 is owner %s group dialout mode 0640: sabot (groups dialout, gpio, i2c, spi under the unit) cannot open it for reading and writing`, f.owner))

	// The real character-device test: a regular file is refused, the
	// system's /dev/null (a character device, mode 0666) is accepted.
	f.d.isCharDev = New().isCharDev
	wantFindings(t, "a regular file", []Finding{f.d.checkShoe(cfg)},
		fail("shoe", "name the device itself (a character device such as /dev/ttyUSB0 or /dev/spidev0.0) or a udev link to it",
			`shoe.device = "/dev/sabot-shoe": /dev/sabot-shoe → ttyUSB0 is not a character device (a regular file)`))
	os.Remove(tty)
	if err := os.Symlink("/dev/null", tty); err != nil {
		t.Fatal(err)
	}
	cfg.Shoe.Device = "/dev/ttyUSB0"
	wantFindings(t, "/dev/null", []Finding{f.d.checkShoe(cfg)},
		ok("shoe", `shoe.device = "/dev/ttyUSB0": /dev/ttyUSB0 → /dev/null, owner root group %s mode 0666: sabot may read and write it`, groupOfDevNull(t, f)))

	cfg.Shoe.Device = "/dev/serial/by-id/usb-FTDI_FT232R_A10K3XYZ-if00-port0"
	wantFindings(t, "another path missing", []Finding{f.d.checkShoe(cfg)},
		fail("shoe", "plug in the shoe's serial adapter, or set [shoe] device to its path (`ls -l /dev/serial/by-id/` lists the adapters)",
			`shoe.device = "/dev/serial/by-id/usb-FTDI_FT232R_A10K3XYZ-if00-port0": /dev/serial/by-id/usb-FTDI_FT232R_A10K3XYZ-if00-port0 does not exist`))
}

// groupOfDevNull names /dev/null's group as the fixture's group file does.
func groupOfDevNull(t *testing.T, f *docFixture) string {
	fi, err := os.Stat("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(f.d.modeText(fi))[3]
}

func TestDoctorUdev(t *testing.T) {
	f := newDocFixture(t)
	cfg := &config.Config{}
	cfg.Shoe.Device = "/dev/sabot-shoe"
	etcRule, libRule := filepath.Join(f.etcRules, hostcheck.ShoeRuleFile), filepath.Join(f.libRules, hostcheck.ShoeRuleFile)
	wantFindings(t, "no rule", []Finding{f.d.checkUdev(cfg)},
		fail("udev", "reinstall the sabot package (it ships /lib/udev/rules.d/99-sabot-shoe.rules), or set [shoe] device to the adapter's /dev/serial/by-id/ link",
			"no 99-sabot-shoe.rules in %s, %s: nothing creates /dev/sabot-shoe", f.etcRules, f.libRules))

	shipped, err := os.ReadFile("../../../systemd/99-sabot-shoe.rules")
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(shipped), "\n") {
		if !strings.HasPrefix(l, "#") && strings.Contains(l, hostcheck.Placeholder) {
			line = i + 1
			break
		}
	}
	writeFile(t, libRule, string(shipped), 0o644)
	const how = ": put your adapter's serial number in place of SET-ADAPTER-SERIAL (`udevadm info --attribute-walk --name=/dev/ttyUSB0 | grep serial`), then sudo udevadm control --reload && sudo udevadm trigger"
	wantFindings(t, "shipped rule", []Finding{f.d.checkUdev(cfg)},
		fail("udev", "sudo cp "+libRule+" "+etcRule+" and edit the copy"+how,
			"%s:%d still matches the placeholder serial SET-ADAPTER-SERIAL, so /dev/sabot-shoe never appears", libRule, line))

	writeFile(t, etcRule, string(shipped), 0o644)
	wantFindings(t, "copied, not edited", []Finding{f.d.checkUdev(cfg)},
		fail("udev", "edit "+etcRule+how,
			"%s:%d still matches the placeholder serial SET-ADAPTER-SERIAL, so /dev/sabot-shoe never appears", etcRule, line))

	writeFile(t, etcRule, strings.ReplaceAll(string(shipped), hostcheck.Placeholder, "A10K3XYZ"), 0o644)
	wantFindings(t, "edited", []Finding{f.d.checkUdev(cfg)}, ok("udev", "%s has the adapter's serial number set", etcRule))

	cfg.Shoe.Device = "/dev/ttyAMA0"
	os.Remove(etcRule)
	wantFindings(t, "not the link", []Finding{f.d.checkUdev(cfg)}, ok("udev", "the shoe rule is not used: [shoe] device is /dev/ttyAMA0"))
}

// pinSet answers pinExists from a fixed set of names.
func pinSet(names ...string) func(string) (bool, error) {
	return func(n string) (bool, error) {
		for _, x := range names {
			if x == n {
				return true, nil
			}
		}
		return false, nil
	}
}

func TestDoctorGPIO(t *testing.T) {
	f := newDocFixture(t)
	cfg := &config.Config{Display: board.DisplayConfig{Kind: "tm1637", Brightness: 7, Options: map[string]any{}}}
	cfg.GPIO.Lamp = "GPIO17"
	f.d.pinExists = pinSet("GPIO17", "GPIO23", "GPIO24")
	wantFindings(t, "no gpiochip", f.d.checkBoard(cfg),
		fail("gpio", "Raspberry Pi OS has them; elsewhere load the board's GPIO driver (a kernel of 4.8 or later)",
			"no /dev/gpiochip*: the kernel's GPIO character devices are missing, and 3 pins are configured"))

	chip := filepath.Join(f.dev, "gpiochip0")
	writeFile(t, chip, "", 0o600)
	wantFindings(t, "gpiochip0 root only", f.d.checkBoard(cfg),
		fail("gpio", "the package's udev rule 60-sabot-devices.rules gives gpiochip* to group gpio: sudo udevadm trigger",
			"GPIO chip: /dev/gpiochip0 is owner %s group dialout mode 0600: sabot (groups dialout, gpio, i2c, spi under the unit) cannot open it for reading and writing", f.owner))

	os.Chmod(chip, 0o660)
	wantFindings(t, "all there", f.d.checkBoard(cfg),
		ok("gpio", "3 pins found (GPIO17, GPIO23, GPIO24) on 1 GPIO chips usable by sabot"))

	cfg.Shoe.RS485, cfg.Shoe.RS485DE = "gpio", "GPIO18"
	wantFindings(t, "the RS-485 DE pin missing", f.d.checkBoard(cfg),
		fail("gpio", "use the line names `gpioinfo` lists (\"GPIO17\" is header pin 11; docs/install.md has the wiring tables)",
			`no such pin on this board: shoe.rs485_de = "GPIO18"`))
	cfg.Shoe.RS485, cfg.Shoe.RS485DE = "", ""

	cfg.GPIO.AckKey = "GPIO99"
	cfg.Display.Options["clk"] = "GPIO2"
	wantFindings(t, "two unknown pins", f.d.checkBoard(cfg),
		fail("gpio", "use the line names `gpioinfo` lists (\"GPIO17\" is header pin 11; docs/install.md has the wiring tables)",
			`no such pin on this board: gpio.ack_key = "GPIO99", display.clk = "GPIO2"`))

	cfg = &config.Config{Display: board.DisplayConfig{Kind: "none"}}
	wantFindings(t, "nothing fitted", f.d.checkBoard(cfg), ok("gpio", "no GPIO pins configured"))
	cfg.GPIO.Backend = "fake"
	wantFindings(t, "fake backend", f.d.checkBoard(cfg), ok("gpio", `backend "fake": no pins or buses are used`))
}

// lineChip is a GPIO chip whose lines have these names: it answers the
// chip and line info ioctls (hostcheck's byte layouts) as the kernel does.
type lineChip []string

func (c lineChip) Ioctl(req uint, arg []byte) error {
	switch req {
	case unix.GPIO_GET_CHIPINFO_IOCTL:
		copy(arg, "gpiochip0")
		copy(arg[32:], "pinctrl-bcm2711")
		binary.NativeEndian.PutUint32(arg[64:], uint32(len(c)))
	case unix.GPIO_V2_GET_LINEINFO_IOCTL:
		copy(arg, c[binary.NativeEndian.Uint32(arg[64:])])
	default:
		return unix.ENOTTY
	}
	return nil
}

func (lineChip) Close() error { return nil }

// rp1Chip is lineChip labelled as a Pi 5's RP1 ("pinctrl-rp1").
type rp1Chip struct{ lineChip }

func (c rp1Chip) Ioctl(req uint, arg []byte) error {
	err := c.lineChip.Ioctl(req, arg)
	if req == unix.GPIO_GET_CHIPINFO_IOCTL {
		clear(arg[32:64])
		copy(arg[32:], "pinctrl-rp1")
	}
	return err
}

// Doctor's own lookup: the line names of the chips under --path.dev, as
// periph's gpioioctl driver registers them for sabotd.
func TestDoctorGPIOLineNames(t *testing.T) {
	f := newDocFixture(t)
	f.d.pinExists = f.d.linePinExists
	f.d.openGPIOChip = func(string) (hostcheck.GPIOChipDevice, error) {
		return lineChip{"ID_SDA", "GPIO17", "GPIO23", "GPIO24"}, nil
	}
	writeFile(t, filepath.Join(f.dev, "gpiochip0"), "", 0o660)
	cfg := &config.Config{Display: board.DisplayConfig{Kind: "tm1637", Options: map[string]any{"clk": "GPIO23", "dio": "GPIO24"}}}
	cfg.GPIO.Lamp = "GPIO17"
	wantFindings(t, "all there", f.d.checkBoard(cfg),
		ok("gpio", "3 pins found (GPIO17, GPIO23, GPIO24) on 1 GPIO chips usable by sabot"))
	// periph's bcm283x driver registers each pin's number as an alias on
	// a Broadcom chip (lineChip's label: pinctrl-bcm2711); a number with
	// no such line, or written otherwise, is no pin.
	cfg.GPIO.AckKey = "17"
	wantFindings(t, "a number alias", f.d.checkBoard(cfg),
		ok("gpio", "4 pins found (GPIO17, 17, GPIO23, GPIO24) on 1 GPIO chips usable by sabot"))
	cfg.GPIO.AckKey = "5"
	wantFindings(t, "a number with no line", f.d.checkBoard(cfg),
		fail("gpio", "use the line names `gpioinfo` lists (\"GPIO17\" is header pin 11; docs/install.md has the wiring tables)",
			`no such pin on this board: gpio.ack_key = "5"`))
	cfg.GPIO.AckKey = "017"
	wantFindings(t, "a number written otherwise", f.d.checkBoard(cfg),
		fail("gpio", "use the line names `gpioinfo` lists (\"GPIO17\" is header pin 11; docs/install.md has the wiring tables)",
			`no such pin on this board: gpio.ack_key = "017"`))
	rp1 := lineChip{"ID_SDA", "GPIO17", "GPIO23", "GPIO24"}
	f.d.gpioLines = nil
	f.d.openGPIOChip = func(string) (hostcheck.GPIOChipDevice, error) { return rp1Chip{rp1}, nil }
	cfg.GPIO.AckKey = "17"
	wantFindings(t, "a number on a Pi 5's RP1", f.d.checkBoard(cfg),
		fail("gpio", "use the line names `gpioinfo` lists (\"GPIO17\" is header pin 11; docs/install.md has the wiring tables)",
			`no such pin on this board: gpio.ack_key = "17"`))

	// The real ioctls on a fixture file, which is no GPIO chip.
	f = newDocFixture(t)
	f.d.pinExists = f.d.linePinExists
	chip := filepath.Join(f.dev, "gpiochip0")
	writeFile(t, chip, "", 0o660)
	wantFindings(t, "not a chip", f.d.checkBoard(cfg),
		fail("gpio", "run as root; check that the GPIO driver is loaded",
			"cannot look up the pins: hostcheck: %s: GPIO_GET_CHIPINFO_IOCTL: inappropriate ioctl for device", chip))
}

func TestDoctorSPII2C(t *testing.T) {
	f := newDocFixture(t)
	cfg := &config.Config{Display: board.DisplayConfig{Kind: "max7219", Options: map[string]any{"spi": "SPI0.1"}}}
	wantFindings(t, "no spidev", f.d.checkBoard(cfg),
		ok("gpio", "no GPIO pins configured"),
		fail("spi", "enable SPI: sudo raspi-config nonint do_spi 0, then reboot", `display.spi = "SPI0.1": /dev/spidev0.1 does not exist`))
	writeFile(t, filepath.Join(f.dev, "spidev0.1"), "", 0o660)
	os.Chown(filepath.Join(f.dev, "spidev0.1"), -1, os.Getgid())
	wantFindings(t, "spidev0.1", f.d.checkBoard(cfg),
		ok("gpio", "no GPIO pins configured"),
		ok("spi", `display.spi = "SPI0.1": /dev/spidev0.1, owner %s group dialout mode 0660: sabot may read and write it`, f.owner))

	cfg = &config.Config{Display: board.DisplayConfig{Kind: "ht16k33", Options: map[string]any{}}}
	const i2cFix = "enable I²C: sudo raspi-config nonint do_i2c 0, then reboot"
	wantFindings(t, "no I²C bus", f.d.checkBoard(cfg),
		ok("gpio", "no GPIO pins configured"),
		fail("i2c", i2cFix, `display.i2c = "" (the first bus): no /dev/i2c-* exists`))
	writeFile(t, filepath.Join(f.dev, "i2c-1"), "", 0o600)
	wantFindings(t, "i2c-1 root only", f.d.checkBoard(cfg),
		ok("gpio", "no GPIO pins configured"),
		fail("i2c", "the package's udev rule 60-sabot-devices.rules gives spidev* to group spi and i2c-* to group i2c: sudo udevadm trigger",
			`display.i2c = "": /dev/i2c-1 is owner %s group dialout mode 0600: sabot (groups dialout, gpio, i2c, spi under the unit) cannot open it for reading and writing`, f.owner))
	cfg.Display.Options["i2c"] = "3"
	wantFindings(t, "bus 3", f.d.checkBoard(cfg),
		ok("gpio", "no GPIO pins configured"),
		fail("i2c", i2cFix, `display.i2c = "3": /dev/i2c-3 does not exist`))
}

func TestDoctorClock(t *testing.T) {
	f := newDocFixture(t)
	f.d.readClock = func() (hostcheck.ClockState, error) {
		return hostcheck.ClockState{Synced: true, MaxError: 120 * time.Millisecond}, nil
	}
	wantFindings(t, "synced", []Finding{f.d.checkClock()}, ok("clock", "synchronised (maximum error 120ms)"))
	f.d.readClock = func() (hostcheck.ClockState, error) { return hostcheck.ClockState{MaxError: 16 * time.Second}, nil }
	wantFindings(t, "unsynced", []Finding{f.d.checkClock()},
		fail("clock", "check the network and the NTP client (timedatectl timesync-status; sudo systemctl enable --now systemd-timesyncd); "+
			"sudo systemctl enable systemd-time-wait-sync.service holds sabotd's start until the clock is set ([state] clock_wait bounds sabotd's own wait)",
			"not synchronised (maximum error 16s): a Pi has no RTC, so until NTP sets it the clock runs from where it stopped, and inputs are stamped with that time"))
	f.d.readClock = func() (hostcheck.ClockState, error) {
		return hostcheck.ClockState{}, errors.New("hostcheck: adjtimex: operation not permitted")
	}
	wantFindings(t, "unreadable", []Finding{f.d.checkClock()},
		warn("clock", "run sabot doctor outside a restricted sandbox; `timedatectl` shows the same",
			"cannot read the clock's state: hostcheck: adjtimex: operation not permitted"))
}

// listener accepts and closes connections until the test ends.
func listener(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l.Addr().String()
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := l.Addr().String()
	l.Close()
	return a
}

func TestDoctorMQTT(t *testing.T) {
	f := newDocFixture(t)
	ctx := context.Background()
	up, down := listener(t), closedAddr(t)
	refused := func(a string) string {
		_, err := net.Dial("tcp", a)
		return err.Error()
	}
	cfg := &config.Config{}
	cfg.MQTT.Brokers = []string{"tcp://" + down, "tcp://" + up}
	wantFindings(t, "first of two down", f.d.checkMQTT(ctx, cfg),
		warn("mqtt", "a later broker of the failover list answers; start this one or remove it from [mqtt] brokers", "tcp://%s does not answer: %s", down, refused(down)),
		ok("mqtt", "tcp://%s answers", up))
	cfg.MQTT.Brokers = []string{"tcp://" + down}
	wantFindings(t, "the only one down", f.d.checkMQTT(ctx, cfg),
		fail("mqtt", "start the broker, or set [mqtt] brokers to one that runs; without the key sabotd runs its embedded broker", "tcp://%s does not answer: %s", down, refused(down)))

	cfg.MQTT.Brokers = nil
	cfg.MQTT.EmbeddedAddr = down
	wantFindings(t, "embedded, free", f.d.checkMQTT(ctx, cfg),
		ok("mqtt", "embedded broker: %s is free for sabotd to listen on (no [mqtt] brokers listed)", down))
	cfg.MQTT.EmbeddedAddr = up
	wantFindings(t, "embedded, answering", f.d.checkMQTT(ctx, cfg),
		ok("mqtt", "embedded broker: %s answers (sabotd is running, or another broker listens there, which stops sabotd's embedded broker from starting)", up))
	cfg.MQTT.EmbeddedAddr = "192.0.2.1:1883" // TEST-NET-1: not an address of this machine
	_, lerr := net.Listen("tcp", cfg.MQTT.EmbeddedAddr)
	f.d.Timeout = 200 * time.Millisecond
	wantFindings(t, "embedded, not an address here", f.d.checkMQTT(ctx, cfg),
		fail("mqtt", "set [mqtt] embedded_addr to a free address, or list your broker in [mqtt] brokers", "embedded broker: cannot listen on 192.0.2.1:1883: %v", lerr))
}

func TestDoctorState(t *testing.T) {
	f := newDocFixture(t)
	dir := filepath.Join(f.root, "state")
	cfg := &config.Config{}
	cfg.State.Dir = dir
	wantFindings(t, "missing", f.d.checkState(cfg),
		fail("state", "sudo systemd-tmpfiles --create (the package's tmpfiles entry makes /var/lib/sabot, owned by sabot), or sudo install -d -o sabot -g sabot -m 0750 "+dir,
			"state.dir = %q does not exist", dir))
	if err := os.Mkdir(dir, 0o770); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o770)
	var asked string
	f.d.statfs = func(p string) (uint64, uint64, error) { asked = p; return 5000 << 20, 30000 << 20, nil }
	wantFindings(t, "writable, room", f.d.checkState(cfg), ok("state", "state.dir = %q: sabot may write in it, 5000 MiB free", dir))
	if asked != dir {
		t.Errorf("statfs of %q, want %q", asked, dir)
	}
	f.d.statfs = func(string) (uint64, uint64, error) { return 42 << 20, 1000 << 20, nil }
	wantFindings(t, "little room", f.d.checkState(cfg),
		warn("state", "free space on that file system, or move [state] dir to a larger one",
			"state.dir = %q has 42 MiB free of 1000 MiB, under the 100 MiB threshold (--min-free-mb): on a full disk sabotd refuses inputs until there is room", dir))
	os.Chmod(dir, 0o750)
	f.d.statfs = func(string) (uint64, uint64, error) { return 5000 << 20, 30000 << 20, nil }
	wantFindings(t, "group may not write", f.d.checkState(cfg),
		fail("state", "sudo chown sabot:sabot "+dir+" && sudo chmod 0750 "+dir,
			"state.dir = %q is owner %s group dialout mode 0750: sabot cannot write in it", dir, f.owner))
	file := filepath.Join(f.root, "state-file")
	writeFile(t, file, "", 0o644)
	cfg.State.Dir = file
	wantFindings(t, "a file", f.d.checkState(cfg), fail("state", "set [state] dir to a directory", "state.dir = %q is a regular file, not a directory", file))
}

// TestDoctorRun runs the checks on a fixture Pi whose setup is right, with
// sabotd's real loader, then breaks the configuration: every check is ok,
// then the config check fails with the loader's error naming the key and
// line, and only the user and clock are checked.
func TestDoctorRun(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	f := newDocFixture(t)
	os.Symlink("ttyUSB0", filepath.Join(f.dev, "sabot-shoe"))
	writeFile(t, filepath.Join(f.dev, "ttyUSB0"), "", 0o660)
	writeFile(t, filepath.Join(f.dev, "gpiochip0"), "", 0o660)
	shipped, _ := os.ReadFile("../../../systemd/99-sabot-shoe.rules")
	writeFile(t, filepath.Join(f.etcRules, hostcheck.ShoeRuleFile), strings.ReplaceAll(string(shipped), hostcheck.Placeholder, "A10K3XYZ"), 0o644)
	state := filepath.Join(f.root, "state")
	os.Mkdir(state, 0o770)
	os.Chmod(state, 0o770)
	conf := filepath.Join(f.root, "sabotd.toml")
	broker := listener(t)
	src := fmt.Sprintf("table = \"DOC-1\"\n[shoe]\ndevice = \"/dev/sabot-shoe\"\n[mqtt]\nbrokers = [\"tcp://%s\"]\n[display]\nkind = \"tm1637\"\n[gpio]\nlamp = \"GPIO17\"\n[state]\ndir = %q\n", broker, state)
	writeFile(t, conf, src, 0o644)
	f.d.ConfigPath = conf
	f.d.pinExists = pinSet("GPIO17", "GPIO23", "GPIO24")
	f.d.readClock = func() (hostcheck.ClockState, error) {
		return hostcheck.ClockState{Synced: true, MaxError: time.Second}, nil
	}
	f.d.statfs = func(string) (uint64, uint64, error) { return 5000 << 20, 30000 << 20, nil }
	got := f.d.Run(context.Background())
	var out strings.Builder
	for _, x := range got {
		x.Write(&out)
		if x.status != "ok" {
			t.Errorf("a right setup: %s %s: %s", x.status, x.check, x.msg)
		}
	}
	want := []string{"config", "user", "shoe", "udev", "gpio", "clock", "mqtt", "state"}
	var checks []string
	for _, x := range got {
		checks = append(checks, x.check)
	}
	if !reflect.DeepEqual(checks, want) {
		t.Errorf("checks %v, want %v\n%s", checks, want, out.String())
	}
	if !strings.HasPrefix(out.String(), fmt.Sprintf("ok    config: %s loads (table \"DOC-1\")\n", conf)) {
		t.Errorf("output:\n%s", out.String())
	}

	writeFile(t, conf, strings.Replace(src, "[display]\n", "[display]\nkind_ = 1\n", 1), 0o644)
	got = f.d.Run(context.Background())
	wantFindings(t, "broken config", got[:1],
		fail("config", fmt.Sprintf("correct what is named above in %s; `sabotd --config %s --print-config` shows the effective configuration once it loads", conf, conf),
			"%s does not load:\nconfig: %s:7:1: display.kind_: unknown key", conf, conf))
	checks = nil
	for _, x := range got {
		checks = append(checks, x.check)
	}
	if !reflect.DeepEqual(checks, []string{"config", "user", "clock"}) {
		t.Errorf("without a configuration: checks %v, want config, user and clock", checks)
	}

}
