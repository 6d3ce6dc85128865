// Package doctor is `sabot doctor`: it checks the setup sabotd runs in, as
// the systemd unit runs it — the configuration (read with sabotd's own
// loader, cmd/internal/config), the user and groups, the shoe's device and
// udev rule, the GPIO chips and pins, the SPI and I²C devices, the clock,
// the brokers and the state directory — and says for each problem how to
// fix it. Every system path is configurable (Paths), so tests run on
// fixture trees.
package doctor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/drivers/board"
	"github.com/sabot-table/sabot/drivers/hostcheck"
)

// DefaultMinFreeMB is the free space under which the state check warns:
// sabotd's journal grows by a few MiB a month at a busy table and the MQTT
// outbox holds at most [mqtt] backlog_limit messages, so 100 MiB leaves
// months; below it a disk that fills stops sabotd accepting inputs.
const DefaultMinFreeMB = 100

// Paths are the system paths doctor reads, so tests run on fixture
// trees (as node_exporter's --path.* flags). Paths in the configuration
// under /dev ([shoe] device, the display's SPI port) are read under Dev.
type Paths struct {
	Dev       string   // "/dev"
	Etc       string   // "/etc": passwd and group
	UdevRules []string // udev's rule directories, highest precedence first
}

// Doctor runs the checks (Run); its exported fields are the command's
// flags, its function fields the seams that reach the hardware.
type Doctor struct {
	Paths      Paths
	ConfigPath string        // sabotd's configuration file
	User       string        // the daemon's user
	UnitGroups []string      // the unit's SupplementaryGroups=
	MinFreeMB  uint64        // the state check warns below this many MiB free
	Timeout    time.Duration // TCP connect timeout for each broker

	// readClock reads the clock's synchronisation (hostcheck.ReadClock).
	readClock func() (hostcheck.ClockState, error)
	// pinExists tells whether the board has a GPIO pin of that name
	// (linePinExists: the GPIO chips' line names, which periph's
	// gpioioctl driver registers for sabotd's own lookup).
	pinExists func(name string) (bool, error)
	// openGPIOChip opens a GPIO chip for linePinExists
	// (hostcheck.OpenGPIOChip).
	openGPIOChip func(path string) (hostcheck.GPIOChipDevice, error)
	// gpioLines and gpioErr are what linePinExists read, once.
	gpioLines *hostcheck.GPIOLines
	gpioErr   error
	// statfs returns the free (to unprivileged users) and total bytes of
	// the file system holding path.
	statfs func(path string) (free, total uint64, err error)
	// isCharDev tells a character device (tests take fixture files for
	// devices).
	isCharDev func(fs.FileInfo) bool

	acct *account // the user's ids, once checkUser found them
}

// Finding is one check's result: Write prints it, Failed tells a FAIL.
type Finding struct {
	status string // "ok", "warn" or "FAIL"
	check  string // "config", "shoe", ...
	msg    string
	fix    string // how to fix it; "" for ok
}

// ok, fail and warn make findings.
func ok(check, format string, args ...any) Finding {
	return Finding{"ok", check, fmt.Sprintf(format, args...), ""}
}

func fail(check, fix, format string, args ...any) Finding {
	return Finding{"FAIL", check, fmt.Sprintf(format, args...), fix}
}

func warn(check, fix, format string, args ...any) Finding {
	return Finding{"warn", check, fmt.Sprintf(format, args...), fix}
}

// Write prints the finding: "ok", "warn" or "FAIL", the check and the
// message, then how to fix it.
func (f Finding) Write(w io.Writer) {
	fmt.Fprintf(w, "%-4s  %s: %s\n", f.status, f.check, strings.ReplaceAll(f.msg, "\n", "\n        "))
	if f.fix != "" {
		fmt.Fprintf(w, "      fix: %s\n", f.fix)
	}
}

// New returns a doctor with the Pi's paths, the packaged configuration
// file, user and groups, and the real hardware seams.
func New() *Doctor {
	d := &Doctor{
		Paths:      Paths{Dev: "/dev", Etc: "/etc", UdevRules: hostcheck.DefaultRuleDirs},
		ConfigPath: "/etc/sabot/sabotd.toml",
		User:       "sabot",
		UnitGroups: []string{"dialout", "gpio", "i2c", "spi"},
		MinFreeMB:  DefaultMinFreeMB,
		Timeout:    2 * time.Second,
		readClock:  hostcheck.ReadClock,
		statfs:     statfs,
		isCharDev:  func(fi fs.FileInfo) bool { return fi.Mode()&fs.ModeCharDevice != 0 },

		openGPIOChip: hostcheck.OpenGPIOChip,
	}
	d.pinExists = d.linePinExists
	return d
}

// Run runs every check in order and returns their findings. Without a configuration only the user
// and the clock are checked.
func (d *Doctor) Run(ctx context.Context) []Finding {
	cfg, fc := d.checkConfig()
	out := []Finding{fc}
	out = append(out, d.checkUser()...)
	if cfg != nil {
		out = append(out, d.checkShoe(cfg))
		out = append(out, d.checkUdev(cfg))
		out = append(out, d.checkBoard(cfg)...)
	}
	out = append(out, d.checkClock())
	if cfg != nil {
		out = append(out, d.checkMQTT(ctx, cfg)...)
		out = append(out, d.checkState(cfg)...)
	}
	return out
}

// checkConfig loads the configuration with sabotd's own loader
// (cmd/internal/config), in this process: the same verdict and error
// messages as the daemon's, naming the file, line, column and key.
func (d *Doctor) checkConfig() (*config.Config, Finding) {
	cfg, err := config.Load(d.ConfigPath)
	if err != nil {
		fix := fmt.Sprintf("correct what is named above in %s; `sabotd --config %s --print-config` shows the effective configuration once it loads", d.ConfigPath, d.ConfigPath)
		if errors.Is(err, fs.ErrPermission) {
			fix = "run sabot doctor as root (sudo): the package makes the configuration readable by root and the sabot group only"
		}
		return nil, fail("config", fix, "%s does not load:\n%v", d.ConfigPath, err)
	}
	return &cfg, ok("config", "%s loads (table %q)", d.ConfigPath, cfg.Table)
}

// account is a user's ids: its uid, and every gid it has under the unit.
type account struct {
	uid    uint32
	gids   map[uint32]bool
	groups map[uint32]string // every group of /etc/group by gid, for messages
}

// maxAccountFile bounds what is read of /etc/passwd and /etc/group.
const maxAccountFile = 4 << 20

// readColonFile reads a passwd(5)/group(5) style file: one record a line,
// fields separated by ':'.
func readColonFile(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs [][]string
	sc := bufio.NewScanner(io.LimitReader(f, maxAccountFile))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		recs = append(recs, strings.Split(line, ":"))
	}
	return recs, sc.Err()
}

// checkUser finds the user and the unit's groups in /etc/passwd and
// /etc/group: systemd refuses to start the unit (status 216/GROUP or
// 217/USER) when one is missing.
func (d *Doctor) checkUser() []Finding {
	passwd := filepath.Join(d.Paths.Etc, "passwd")
	group := filepath.Join(d.Paths.Etc, "group")
	const fix = "the package creates the user and its groups: sudo systemd-sysusers"
	users, err := readColonFile(passwd)
	if err != nil {
		return []Finding{fail("user", "run as root, or check the file", "cannot read %s: %v", passwd, err)}
	}
	a := &account{gids: map[uint32]bool{}, groups: map[uint32]string{}}
	found := false
	for _, u := range users {
		if len(u) >= 4 && u[0] == d.User {
			uid, err1 := strconv.ParseUint(u[2], 10, 32)
			gid, err2 := strconv.ParseUint(u[3], 10, 32)
			if err1 != nil || err2 != nil {
				return []Finding{fail("user", "correct the entry (vipw)", "%s: the entry of %s has no numeric uid and gid", passwd, d.User)}
			}
			a.uid, found = uint32(uid), true
			a.gids[uint32(gid)] = true
			break
		}
	}
	if !found {
		return []Finding{fail("user", fix, "no user %s in %s: the unit runs sabotd as %s", d.User, passwd, d.User)}
	}
	groups, err := readColonFile(group)
	if err != nil {
		return []Finding{fail("user", "run as root, or check the file", "cannot read %s: %v", group, err)}
	}
	byName := map[string]uint32{}
	for _, g := range groups {
		if len(g) < 3 {
			continue
		}
		gid, err := strconv.ParseUint(g[2], 10, 32)
		if err != nil {
			continue
		}
		byName[g[0]] = uint32(gid)
		a.groups[uint32(gid)] = g[0]
		if len(g) >= 4 && slicesContains(strings.Split(g[3], ","), d.User) {
			a.gids[uint32(gid)] = true
		}
	}
	var missing []string
	for _, n := range d.UnitGroups {
		if gid, ok := byName[n]; ok {
			a.gids[gid] = true
		} else {
			missing = append(missing, n)
		}
	}
	d.acct = a
	if len(missing) > 0 {
		return []Finding{fail("user", fix, "no group %s in %s: the unit's SupplementaryGroups= names it, and systemd does not start sabotd without it (status 216/GROUP)",
			strings.Join(missing, ", "), group)}
	}
	return []Finding{ok("user", "%s exists, with the unit's groups %s", d.User, strings.Join(d.UnitGroups, ", "))}
}

func slicesContains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}

// hostPath maps a path of the configuration onto the fixture tree: one
// under /dev is read under paths.Dev.
func (d *Doctor) hostPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "/dev/"); ok {
		return filepath.Join(d.Paths.Dev, rest)
	}
	return p
}

// modeText describes a file's owner, group and permissions for messages:
// "owner root group dialout mode 0660".
func (d *Doctor) modeText(fi fs.FileInfo) string {
	st, _ := fi.Sys().(*syscall.Stat_t)
	if st == nil {
		return fmt.Sprintf("mode %04o", fi.Mode().Perm())
	}
	name := func(id uint32, names map[uint32]string) string {
		if n, ok := names[id]; ok {
			return n
		}
		return strconv.FormatUint(uint64(id), 10)
	}
	var groups map[uint32]string
	users := map[uint32]string{}
	if d.acct != nil {
		groups = d.acct.groups
		users[d.acct.uid] = d.User
	}
	users[0] = "root"
	return fmt.Sprintf("owner %s group %s mode %04o", name(st.Uid, users), name(st.Gid, groups), fi.Mode().Perm())
}

// allows reports whether the user may access fi with the permission bits
// want (4 read, 2 write, 1 execute, or'd), by its owner, group and mode
// as the kernel decides for a process of the user with the unit's groups.
func (d *Doctor) allows(fi fs.FileInfo, want fs.FileMode) bool {
	st, _ := fi.Sys().(*syscall.Stat_t)
	if st == nil || d.acct == nil {
		return false
	}
	perm := fi.Mode().Perm()
	switch {
	case st.Uid == d.acct.uid:
		return perm>>6&want == want
	case d.acct.gids[st.Gid]:
		return perm>>3&want == want
	}
	return perm&want == want
}

// device checks that path (as configured) is a character device, or a
// link to one, that the user may read and write. label starts each
// message (`shoe.device = "/dev/sabot-shoe"`); fix is for a device that
// is missing; a permission problem gets no fix (the caller gives it).
func (d *Doctor) device(check, label, path, fix string) Finding {
	p := d.hostPath(path)
	lfi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fail(check, fix, "%s: %s does not exist", label, path)
	}
	if err != nil {
		return fail(check, "run as root", "%s: %v", label, err)
	}
	what := path
	if lfi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(p)
		what = path + " → " + target
	}
	fi, err := os.Stat(p)
	if err != nil {
		return fail(check, fix, "%s: %s, which does not exist", label, what)
	}
	if !d.isCharDev(fi) {
		return fail(check, "name the device itself (a character device such as /dev/ttyUSB0 or /dev/spidev0.0) or a udev link to it",
			"%s: %s is not a character device (%s)", label, what, fileKind(fi))
	}
	if d.acct == nil {
		return warn(check, "create the user first (see user)", "%s: %s, %s: cannot tell whether %s may open it", label, what, d.modeText(fi), d.User)
	}
	if !d.allows(fi, 6) {
		return fail(check, "", "%s: %s is %s: %s (groups %s under the unit) cannot open it for reading and writing",
			label, what, d.modeText(fi), d.User, strings.Join(d.UnitGroups, ", "))
	}
	return ok(check, "%s: %s, %s: %s may read and write it", label, what, d.modeText(fi), d.User)
}

func fileKind(fi fs.FileInfo) string { return hostcheck.FileKind(fi.Mode()) }

// checkShoe checks [shoe] device.
func (d *Doctor) checkShoe(cfg *config.Config) Finding {
	dev := cfg.Shoe.Device
	fix := "plug in the shoe's serial adapter; `ls -l /dev/serial/by-id/` lists the adapters: set [shoe] device to its link there, or keep /dev/sabot-shoe and set the udev rule's serial number (see udev)"
	if dev != hostcheck.ShoeDevice {
		fix = "plug in the shoe's serial adapter, or set [shoe] device to its path (`ls -l /dev/serial/by-id/` lists the adapters)"
	}
	f := d.device("shoe", fmt.Sprintf("shoe.device = %q", dev), dev, fix)
	if f.status == "FAIL" && f.fix == "" {
		f.fix = "the shipped udev rule gives the adapter GROUP=\"dialout\", MODE=\"0660\" (see udev); for a port udev does not cover, add such a rule for it"
	}
	return f
}

// checkUdev checks the shoe's udev rule when [shoe] device is its link.
func (d *Doctor) checkUdev(cfg *config.Config) Finding {
	if cfg.Shoe.Device != hostcheck.ShoeDevice {
		return ok("udev", "the shoe rule is not used: [shoe] device is %s", cfg.Shoe.Device)
	}
	rule, found, err := hostcheck.FindShoeRule(d.Paths.UdevRules)
	if err != nil {
		return fail("udev", "run as root", "%v", err)
	}
	if !found {
		return fail("udev", "reinstall the sabot package (it ships /lib/udev/rules.d/"+hostcheck.ShoeRuleFile+"), or set [shoe] device to the adapter's /dev/serial/by-id/ link",
			"no %s in %s: nothing creates %s", hostcheck.ShoeRuleFile, strings.Join(d.Paths.UdevRules, ", "), hostcheck.ShoeDevice)
	}
	if rule.PlaceholderLine > 0 {
		etc := filepath.Join(d.Paths.UdevRules[0], hostcheck.ShoeRuleFile)
		fix := "edit " + rule.Path
		if rule.Path != etc {
			fix = "sudo cp " + rule.Path + " " + etc + " and edit the copy"
		}
		return fail("udev", fix+": put your adapter's serial number in place of "+hostcheck.Placeholder+
			" (`udevadm info --attribute-walk --name=/dev/ttyUSB0 | grep serial`), then sudo udevadm control --reload && sudo udevadm trigger",
			"%s:%d still matches the placeholder serial %s, so %s never appears", rule.Path, rule.PlaceholderLine, hostcheck.Placeholder, hostcheck.ShoeDevice)
	}
	return ok("udev", "%s has the adapter's serial number set", rule.Path)
}

// checkBoard checks the GPIO chips and pins and the SPI and I²C devices
// the configuration names (board.Devices: the same lists the daemon
// opens).
func (d *Doctor) checkBoard(cfg *config.Config) []Finding {
	gpio, disp := cfg.BoardTables()
	if gpio.Backend == board.BackendFake {
		return []Finding{ok("gpio", "backend %q: no pins or buses are used", board.BackendFake)}
	}
	uses, err := board.Devices(gpio, disp)
	if err != nil {
		return []Finding{fail("gpio", "correct the keys named", "%v", err)}
	}
	if cfg.Shoe.RS485 == "gpio" && cfg.Shoe.RS485DE != "" {
		// The shoe's RS-485 driver enable, resolved like the [gpio] pins.
		uses = append(uses, board.DeviceUse{Key: "shoe.rs485_de", Kind: board.DevicePin, Name: cfg.Shoe.RS485DE})
	}
	var pins []board.DeviceUse
	var out []Finding
	for _, u := range uses {
		switch u.Kind {
		case board.DevicePin:
			pins = append(pins, u)
		case board.DeviceSPI:
			out = append(out, d.bus("spi", u, spiPath(u.Name), "enable SPI: sudo raspi-config nonint do_spi 0, then reboot"))
		case board.DeviceI2C:
			p, f := d.i2cPath(u)
			if f != nil {
				out = append(out, *f)
			} else {
				out = append(out, d.bus("i2c", u, p, "enable I²C: sudo raspi-config nonint do_i2c 0, then reboot"))
			}
		}
	}
	return append(d.checkPins(pins), out...)
}

// bus checks one SPI or I²C device.
func (d *Doctor) bus(check string, u board.DeviceUse, path, fix string) Finding {
	label := fmt.Sprintf("%s = %q", u.Key, u.Name)
	f := d.device(check, label, path, fix)
	if f.status == "FAIL" && f.fix == "" {
		f.fix = "the package's udev rule 60-sabot-devices.rules gives spidev* to group spi and i2c-* to group i2c: sudo udevadm trigger"
	}
	return f
}

// spiPath is the device of an SPI port name: "/dev/spidev0.0" as it is,
// periph's "SPI0.0" as /dev/spidev0.0.
func spiPath(name string) string {
	if rest, ok := strings.CutPrefix(name, "SPI"); ok {
		return "/dev/spidev" + rest
	}
	return name
}

// i2cPath is the device of an I²C bus name: a path as it is, "1" or
// periph's "I2C1" as /dev/i2c-1, "" the first bus there is.
func (d *Doctor) i2cPath(u board.DeviceUse) (string, *Finding) {
	n := strings.TrimPrefix(u.Name, "I2C")
	switch {
	case strings.HasPrefix(u.Name, "/"):
		return u.Name, nil
	case n != "":
		return "/dev/i2c-" + n, nil
	}
	m, _ := filepath.Glob(filepath.Join(d.Paths.Dev, "i2c-*"))
	if len(m) == 0 {
		f := fail("i2c", "enable I²C: sudo raspi-config nonint do_i2c 0, then reboot", "%s = \"\" (the first bus): no /dev/i2c-* exists", u.Key)
		return "", &f
	}
	sort.Strings(m)
	return "/dev/" + filepath.Base(m[0]), nil
}

// checkPins checks the GPIO character devices and every pin name.
func (d *Doctor) checkPins(pins []board.DeviceUse) []Finding {
	if len(pins) == 0 {
		return []Finding{ok("gpio", "no GPIO pins configured")}
	}
	chips, _ := filepath.Glob(filepath.Join(d.Paths.Dev, "gpiochip*"))
	sort.Strings(chips)
	if len(chips) == 0 {
		return []Finding{fail("gpio", "Raspberry Pi OS has them; elsewhere load the board's GPIO driver (a kernel of 4.8 or later)",
			"no /dev/gpiochip*: the kernel's GPIO character devices are missing, and %d pins are configured", len(pins))}
	}
	var out []Finding
	for _, c := range chips {
		f := d.device("gpio", "GPIO chip", "/dev/"+filepath.Base(c), "")
		if f.status == "FAIL" {
			f.fix = "the package's udev rule 60-sabot-devices.rules gives gpiochip* to group gpio: sudo udevadm trigger"
		}
		if f.status != "ok" {
			out = append(out, f)
		}
	}
	var bad, good []string
	for _, p := range pins {
		found, err := d.pinExists(p.Name)
		switch {
		case err != nil:
			out = append(out, fail("gpio", "run as root; check that the GPIO driver is loaded", "cannot look up the pins: %v", err))
			return out
		case !found:
			bad = append(bad, fmt.Sprintf("%s = %q", p.Key, p.Name))
		default:
			good = append(good, p.Name)
		}
	}
	if len(bad) > 0 {
		out = append(out, fail("gpio", "use the line names `gpioinfo` lists (\"GPIO17\" is header pin 11; docs/install.md has the wiring tables)",
			"no such pin on this board: %s", strings.Join(bad, ", ")))
	}
	if len(out) == 0 {
		out = append(out, ok("gpio", "%d pins found (%s) on %d GPIO chips usable by %s", len(good), strings.Join(good, ", "), len(chips), d.User))
	}
	return out
}

// linePinExists looks a pin up among the line names of the GPIO chips
// under Paths.Dev, read once (hostcheck.ReadGPIOLines): the names periph's
// gpioioctl driver registers in gpioreg, where sabotd (drivers/board)
// looks its pins up. On a Raspberry Pi whose header chip is a Broadcom
// one (label "pinctrl-bcm…"), periph's bcm283x driver also registers each
// pin's number as an alias ("17" for GPIO17), which is accepted too; the
// aliases it adds for pin functions ("PWM0") depend on how the pins are
// set at the time and are not known here. A chip that could not be read
// is an error only for a name no other chip has.
func (d *Doctor) linePinExists(name string) (bool, error) {
	if d.gpioLines == nil {
		l, err := hostcheck.ReadGPIOLines(d.Paths.Dev, d.openGPIOChip)
		d.gpioLines, d.gpioErr = &l, err
	}
	if d.gpioLines.Has(name) {
		return true, nil
	}
	if n, err := strconv.ParseUint(name, 10, 8); err == nil && strconv.FormatUint(n, 10) == name && d.gpioLines.Has("GPIO"+name) {
		for _, c := range d.gpioLines.Chips {
			if strings.HasPrefix(c.Label, "pinctrl-bcm") {
				return true, nil
			}
		}
	}
	return false, d.gpioErr
}

// checkClock checks that the clock is synchronised.
func (d *Doctor) checkClock() Finding {
	s, err := d.readClock()
	if err != nil {
		return warn("clock", "run sabot doctor outside a restricted sandbox; `timedatectl` shows the same", "cannot read the clock's state: %v", err)
	}
	if !s.Synced {
		return fail("clock", "check the network and the NTP client (timedatectl timesync-status; sudo systemctl enable --now systemd-timesyncd); "+
			"sudo systemctl enable systemd-time-wait-sync.service holds sabotd's start until the clock is set ([state] clock_wait bounds sabotd's own wait)",
			"not synchronised (maximum error %v): a Pi has no RTC, so until NTP sets it the clock runs from where it stopped, and inputs are stamped with that time",
			s.MaxError)
	}
	return ok("clock", "synchronised (maximum error %v)", s.MaxError)
}

// checkMQTT checks that each configured broker answers, or that the
// embedded broker's address is usable.
func (d *Doctor) checkMQTT(ctx context.Context, cfg *config.Config) []Finding {
	if len(cfg.MQTT.Brokers) == 0 {
		addr := cfg.MQTT.EmbeddedAddr
		if _, port, _ := net.SplitHostPort(addr); port == "0" {
			return []Finding{ok("mqtt", "embedded broker on %s: a free port is picked at start", addr)}
		}
		c, err := (&net.Dialer{Timeout: d.Timeout}).DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			return []Finding{ok("mqtt", "embedded broker: %s answers (sabotd is running, or another broker listens there, which stops sabotd's embedded broker from starting)", addr)}
		}
		l, lerr := net.Listen("tcp", addr)
		if lerr != nil {
			return []Finding{fail("mqtt", "set [mqtt] embedded_addr to a free address, or list your broker in [mqtt] brokers",
				"embedded broker: cannot listen on %s: %v", addr, lerr)}
		}
		l.Close()
		return []Finding{ok("mqtt", "embedded broker: %s is free for sabotd to listen on (no [mqtt] brokers listed)", addr)}
	}
	var out []Finding
	up := 0
	for _, b := range cfg.MQTT.Brokers {
		if err := hostcheck.DialBroker(ctx, b, d.Timeout); err != nil {
			out = append(out, Finding{"", "mqtt", fmt.Sprintf("%s does not answer: %s", b, strings.TrimPrefix(err.Error(), "hostcheck: broker "+b+": ")), ""})
			continue
		}
		up++
		out = append(out, ok("mqtt", "%s answers", b))
	}
	for i := range out {
		if out[i].status == "" {
			out[i].status = "warn"
			out[i].fix = "a later broker of the failover list answers; start this one or remove it from [mqtt] brokers"
			if up == 0 {
				out[i].status = "FAIL"
				out[i].fix = "start the broker, or set [mqtt] brokers to one that runs; without the key sabotd runs its embedded broker"
			}
		}
	}
	return out
}

// checkState checks [state] dir: it exists, the user may write in it, and
// its file system has room.
func (d *Doctor) checkState(cfg *config.Config) []Finding {
	dir := cfg.State.Dir
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Finding{fail("state", "sudo systemd-tmpfiles --create (the package's tmpfiles entry makes /var/lib/sabot, owned by sabot), or sudo install -d -o sabot -g sabot -m 0750 "+dir,
			"state.dir = %q does not exist", dir)}
	}
	if err != nil {
		return []Finding{fail("state", "run as root", "state.dir = %q: %v", dir, err)}
	}
	if !fi.IsDir() {
		return []Finding{fail("state", "set [state] dir to a directory", "state.dir = %q is %s, not a directory", dir, fileKind(fi))}
	}
	var out []Finding
	if d.acct != nil && !d.allows(fi, 3) {
		fix := "sudo chown " + d.User + ":" + d.User + " " + dir + " && sudo chmod 0750 " + dir
		f := fail("state", fix, "state.dir = %q is %s: %s cannot write in it", dir, d.modeText(fi), d.User)
		if dir == "/var/lib/sabot" {
			// StateDirectory=sabot: systemd gives it to the user at each start.
			f = warn("state", fix+" (systemd's StateDirectory=sabot also does it when the unit starts)", "%s", f.msg)
		}
		out = append(out, f)
	}
	free, total, err := d.statfs(dir)
	if err != nil {
		return append(out, warn("state", "", "state.dir = %q: cannot tell the free space: %v", dir, err))
	}
	const mib = 1 << 20
	if free < d.MinFreeMB*mib {
		return append(out, warn("state", "free space on that file system, or move [state] dir to a larger one",
			"state.dir = %q has %d MiB free of %d MiB, under the %d MiB threshold (--min-free-mb): on a full disk sabotd refuses inputs until there is room",
			dir, free/mib, total/mib, d.MinFreeMB))
	}
	if len(out) == 0 && d.acct == nil {
		// No such user: whether it may write there cannot be told.
		out = append(out, warn("state", "create the user (the package's sysusers entry: sudo systemd-sysusers), then run sabot doctor again",
			"state.dir = %q: %d MiB free; the user %s does not exist, so whether it may write in it is not known", dir, free/mib, d.User))
	}
	if len(out) == 0 {
		out = append(out, ok("state", "state.dir = %q: %s may write in it, %d MiB free", dir, d.User, free/mib))
	}
	return out
}

// statfs is the free space (for unprivileged users) and size of the file
// system holding path.
func statfs(path string) (free, total uint64, err error) {
	var s unix.Statfs_t
	if err := unix.Statfs(path, &s); err != nil {
		return 0, 0, err
	}
	return s.Bavail * uint64(s.Bsize), s.Blocks * uint64(s.Bsize), nil
}

// Failed reports whether the check failed ("FAIL"; a warning is not).
func (f Finding) Failed() bool { return f.status == "FAIL" }
