package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pelletier/go-toml/v2"
	"golang.org/x/sys/unix"

	"github.com/sabot-table/sabot/drivers/board"
	"github.com/sabot-table/sabot/drivers/hostcheck"
)

func init() {
	register(&command{
		name:    "doctor",
		summary: "check a Pi's setup for sabotd (config, shoe port, udev rule, GPIO, SPI/I²C, clock, broker, state directory)",
		run:     runDoctor,
	})
}

const doctorUsage = `usage: sabot doctor [--config FILE] [flags]

Checks the setup sabotd runs in, as the systemd unit runs it (user sabot,
supplementary groups dialout, gpio, i2c and spi), and prints one line per
check: "ok", "warn" or "FAIL", and under each problem how to fix it.

  config  the file loads with sabotd's own loader (sabotd --print-config)
  user    the sabot user and the unit's groups exist
  shoe    [shoe] device exists, is a character device (or a link to one)
          and the sabot user may read and write it
  udev    the shoe's udev rule no longer has the placeholder serial number
  gpio    /dev/gpiochip* exist and are usable; every pin named exists
  spi/i2c the SPI and I²C devices the display names exist and are usable
  clock   the system clock is synchronised (adjtimex; a Pi has no RTC)
  mqtt    each [mqtt] broker answers a TCP connect; with none, the embedded
          broker's address is free or answering
  state   [state] dir exists, the sabot user may write in it, and it has at
          least --min-free-mb free (warn below)

Run it as root (sudo) to read every file; it reads only. Exit status: 0
nothing failed (warnings allowed), 1 a check failed, 2 bad flags.

Flags:
`

// defaultMinFreeMB is the free space under which the state check warns:
// sabotd's journal grows by a few MiB a month at a busy table and the MQTT
// outbox holds at most [mqtt] backlog_limit messages, so 100 MiB leaves
// months; below it a disk that fills stops sabotd accepting inputs.
const defaultMinFreeMB = 100

// doctorPaths are the system paths doctor reads, so tests run on fixture
// trees (as node_exporter's --path.* flags). Paths in the configuration
// under /dev ([shoe] device, the display's SPI port) are read under Dev.
type doctorPaths struct {
	Dev       string   // "/dev"
	Etc       string   // "/etc": passwd and group
	UdevRules []string // udev's rule directories, highest precedence first
}

// doctor runs the checks; its function fields are the seams that reach
// the hardware.
type doctor struct {
	paths      doctorPaths
	configPath string
	sabotd     string   // the sabotd program
	user       string   // the daemon's user
	unitGroups []string // the unit's SupplementaryGroups=
	minFreeMB  uint64
	timeout    time.Duration

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

// finding is one check's result.
type finding struct {
	status string // "ok", "warn" or "FAIL"
	check  string // "config", "shoe", ...
	msg    string
	fix    string // how to fix it; "" for ok
}

func ok(check, format string, args ...any) finding {
	return finding{"ok", check, fmt.Sprintf(format, args...), ""}
}

func fail(check, fix, format string, args ...any) finding {
	return finding{"FAIL", check, fmt.Sprintf(format, args...), fix}
}

func warn(check, fix, format string, args ...any) finding {
	return finding{"warn", check, fmt.Sprintf(format, args...), fix}
}

func (f finding) write(w io.Writer) {
	fmt.Fprintf(w, "%-4s  %s: %s\n", f.status, f.check, strings.ReplaceAll(f.msg, "\n", "\n        "))
	if f.fix != "" {
		fmt.Fprintf(w, "      fix: %s\n", f.fix)
	}
}

func newDoctor() *doctor {
	d := &doctor{
		paths:      doctorPaths{Dev: "/dev", Etc: "/etc", UdevRules: hostcheck.DefaultRuleDirs},
		configPath: "/etc/sabot/sabotd.toml",
		user:       "sabot",
		unitGroups: []string{"dialout", "gpio", "i2c", "spi"},
		minFreeMB:  defaultMinFreeMB,
		timeout:    2 * time.Second,
		readClock:  hostcheck.ReadClock,
		statfs:     statfs,
		isCharDev:  func(fi fs.FileInfo) bool { return fi.Mode()&fs.ModeCharDevice != 0 },

		openGPIOChip: hostcheck.OpenGPIOChip,
	}
	d.pinExists = d.linePinExists
	return d
}

func runDoctor(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	d := newDoctor()
	fset := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() { fmt.Fprint(stderr, doctorUsage); fset.PrintDefaults() }
	fset.StringVar(&d.configPath, "config", d.configPath, "sabotd's configuration `file`")
	fset.StringVar(&d.sabotd, "sabotd", "", "the sabotd `program` that loads the configuration (default: sabotd beside sabot, else in PATH)")
	fset.StringVar(&d.user, "user", d.user, "the `user` sabotd runs as")
	groups := fset.String("groups", strings.Join(d.unitGroups, ","), "the unit's supplementary `groups`, comma-separated")
	fset.Uint64Var(&d.minFreeMB, "min-free-mb", d.minFreeMB, "warn when [state] dir has less than `MiB` free")
	fset.DurationVar(&d.timeout, "timeout", d.timeout, "TCP connect `timeout` for each broker")
	fset.StringVar(&d.paths.Dev, "path.dev", d.paths.Dev, "where /dev is (tests)")
	fset.StringVar(&d.paths.Etc, "path.etc", d.paths.Etc, "where /etc is (passwd, group)")
	rules := fset.String("path.udev-rules", strings.Join(d.paths.UdevRules, ","), "udev's rule `directories`, highest precedence first, comma-separated")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "sabot doctor: unexpected argument %q\n", fset.Arg(0))
		fset.Usage()
		return 2
	}
	d.unitGroups = splitList(*groups)
	d.paths.UdevRules = splitList(*rules)
	if d.sabotd == "" {
		d.sabotd = findSabotd()
	}
	failed := false
	for _, f := range d.run(ctx) {
		f.write(stdout)
		failed = failed || f.status == "FAIL"
	}
	if failed {
		return 1
	}
	return 0
}

func splitList(s string) []string {
	var l []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			l = append(l, e)
		}
	}
	return l
}

// findSabotd returns sabotd beside the running sabot (both are in
// /usr/bin from the package), or "sabotd" to be looked up in PATH.
func findSabotd() string {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "sabotd")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "sabotd"
}

// run runs every check in order. Without a configuration only the user
// and the clock are checked.
func (d *doctor) run(ctx context.Context) []finding {
	cfg, fc := d.checkConfig(ctx)
	out := []finding{fc}
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

// doctorConfig is what doctor reads of sabotd's effective configuration
// (the TOML that sabotd --print-config writes, defaults filled in).
type doctorConfig struct {
	Table string `toml:"table"`
	Shoe  struct {
		Device  string `toml:"device"`
		RS485   string `toml:"rs485"`
		RS485DE string `toml:"rs485_de"`
	} `toml:"shoe"`
	MQTT struct {
		Brokers      []string `toml:"brokers"`
		EmbeddedAddr string   `toml:"embedded_addr"`
	} `toml:"mqtt"`
	Display map[string]any   `toml:"display"`
	GPIO    board.GPIOConfig `toml:"gpio"`
	State   struct {
		Dir string `toml:"dir"`
	} `toml:"state"`
}

// maxPrintedConfig bounds what is read of sabotd's output (a printed
// configuration is a few KiB).
const maxPrintedConfig = 1 << 20

// checkConfig loads the configuration with sabotd's own loader, by running
// `sabotd --config FILE --print-config`: the loader and its registries
// (shoe protocols, LED chips, board) live in sabotd's package main, and
// running it gives exactly the daemon's verdict and error messages,
// without a second copy of the loader to keep in step.
func (d *doctor) checkConfig(ctx context.Context) (*doctorConfig, finding) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.sabotd, "--config", d.configPath, "--print-config")
	var stdout, stderr limitedBuffer
	stdout.max, stderr.max = maxPrintedConfig, 64<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fail("config", "install the sabot package (it puts sabotd in /usr/bin), or name the program with --sabotd PATH",
			"cannot run sabotd to load %s: %v", d.configPath, err)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		fix := fmt.Sprintf("correct what is named above in %s; `sabotd --config %s --print-config` shows the effective configuration once it loads", d.configPath, d.configPath)
		if strings.Contains(msg, "permission denied") {
			fix = "run sabot doctor as root (sudo): the package makes the configuration readable by root and the sabot group only"
		}
		return nil, fail("config", fix, "%s does not load (%s exit status %d):\n%s", d.configPath, filepath.Base(d.sabotd), exit.ExitCode(), msg)
	}
	var cfg doctorConfig
	if err := toml.Unmarshal(stdout.Bytes(), &cfg); err != nil {
		return nil, fail("config", "use sabot and sabotd from the same package version", "%s: cannot read what sabotd printed: %v", d.configPath, err)
	}
	return &cfg, ok("config", "%s loads (table %q)", d.configPath, cfg.Table)
}

// limitedBuffer keeps the first max bytes written to it and drops the
// rest (a runaway child cannot fill memory).
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
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
func (d *doctor) checkUser() []finding {
	passwd := filepath.Join(d.paths.Etc, "passwd")
	group := filepath.Join(d.paths.Etc, "group")
	const fix = "the package creates the user and its groups: sudo systemd-sysusers"
	users, err := readColonFile(passwd)
	if err != nil {
		return []finding{fail("user", "run as root, or check the file", "cannot read %s: %v", passwd, err)}
	}
	a := &account{gids: map[uint32]bool{}, groups: map[uint32]string{}}
	found := false
	for _, u := range users {
		if len(u) >= 4 && u[0] == d.user {
			uid, err1 := strconv.ParseUint(u[2], 10, 32)
			gid, err2 := strconv.ParseUint(u[3], 10, 32)
			if err1 != nil || err2 != nil {
				return []finding{fail("user", "correct the entry (vipw)", "%s: the entry of %s has no numeric uid and gid", passwd, d.user)}
			}
			a.uid, found = uint32(uid), true
			a.gids[uint32(gid)] = true
			break
		}
	}
	if !found {
		return []finding{fail("user", fix, "no user %s in %s: the unit runs sabotd as %s", d.user, passwd, d.user)}
	}
	groups, err := readColonFile(group)
	if err != nil {
		return []finding{fail("user", "run as root, or check the file", "cannot read %s: %v", group, err)}
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
		if len(g) >= 4 && slicesContains(strings.Split(g[3], ","), d.user) {
			a.gids[uint32(gid)] = true
		}
	}
	var missing []string
	for _, n := range d.unitGroups {
		if gid, ok := byName[n]; ok {
			a.gids[gid] = true
		} else {
			missing = append(missing, n)
		}
	}
	d.acct = a
	if len(missing) > 0 {
		return []finding{fail("user", fix, "no group %s in %s: the unit's SupplementaryGroups= names it, and systemd does not start sabotd without it (status 216/GROUP)",
			strings.Join(missing, ", "), group)}
	}
	return []finding{ok("user", "%s exists, with the unit's groups %s", d.user, strings.Join(d.unitGroups, ", "))}
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
func (d *doctor) hostPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "/dev/"); ok {
		return filepath.Join(d.paths.Dev, rest)
	}
	return p
}

// modeText describes a file's owner, group and permissions for messages:
// "owner root group dialout mode 0660".
func (d *doctor) modeText(fi fs.FileInfo) string {
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
		users[d.acct.uid] = d.user
	}
	users[0] = "root"
	return fmt.Sprintf("owner %s group %s mode %04o", name(st.Uid, users), name(st.Gid, groups), fi.Mode().Perm())
}

// allows reports whether the user may access fi with the permission bits
// want (4 read, 2 write, 1 execute, or'd), by its owner, group and mode
// as the kernel decides for a process of the user with the unit's groups.
func (d *doctor) allows(fi fs.FileInfo, want fs.FileMode) bool {
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
func (d *doctor) device(check, label, path, fix string) finding {
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
		return warn(check, "create the user first (see user)", "%s: %s, %s: cannot tell whether %s may open it", label, what, d.modeText(fi), d.user)
	}
	if !d.allows(fi, 6) {
		return fail(check, "", "%s: %s is %s: %s (groups %s under the unit) cannot open it for reading and writing",
			label, what, d.modeText(fi), d.user, strings.Join(d.unitGroups, ", "))
	}
	return ok(check, "%s: %s, %s: %s may read and write it", label, what, d.modeText(fi), d.user)
}

func fileKind(fi fs.FileInfo) string { return hostcheck.FileKind(fi.Mode()) }

// checkShoe checks [shoe] device.
func (d *doctor) checkShoe(cfg *doctorConfig) finding {
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
func (d *doctor) checkUdev(cfg *doctorConfig) finding {
	if cfg.Shoe.Device != hostcheck.ShoeDevice {
		return ok("udev", "the shoe rule is not used: [shoe] device is %s", cfg.Shoe.Device)
	}
	rule, found, err := hostcheck.FindShoeRule(d.paths.UdevRules)
	if err != nil {
		return fail("udev", "run as root", "%v", err)
	}
	if !found {
		return fail("udev", "reinstall the sabot package (it ships /lib/udev/rules.d/"+hostcheck.ShoeRuleFile+"), or set [shoe] device to the adapter's /dev/serial/by-id/ link",
			"no %s in %s: nothing creates %s", hostcheck.ShoeRuleFile, strings.Join(d.paths.UdevRules, ", "), hostcheck.ShoeDevice)
	}
	if rule.PlaceholderLine > 0 {
		etc := filepath.Join(d.paths.UdevRules[0], hostcheck.ShoeRuleFile)
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

// displayConfig rebuilds the [display] table for drivers/board.
func displayConfig(m map[string]any) board.DisplayConfig {
	d := board.DisplayConfig{Options: map[string]any{}}
	for k, v := range m {
		switch k {
		case "kind":
			d.Kind, _ = v.(string)
		case "brightness":
			n, _ := v.(int64)
			d.Brightness = int(n)
		case "digits":
			n, _ := v.(int64)
			d.Digits = int(n)
		default:
			d.Options[k] = v
		}
	}
	return d
}

// checkBoard checks the GPIO chips and pins and the SPI and I²C devices
// the configuration names (board.Devices: the same lists the daemon
// opens).
func (d *doctor) checkBoard(cfg *doctorConfig) []finding {
	disp := displayConfig(cfg.Display)
	if cfg.GPIO.Backend == board.BackendFake {
		return []finding{ok("gpio", "backend %q: no pins or buses are used", board.BackendFake)}
	}
	uses, err := board.Devices(cfg.GPIO, disp)
	if err != nil {
		return []finding{fail("gpio", "correct the keys named", "%v", err)}
	}
	if cfg.Shoe.RS485 == "gpio" && cfg.Shoe.RS485DE != "" {
		// The shoe's RS-485 driver enable, resolved like the [gpio] pins.
		uses = append(uses, board.DeviceUse{Key: "shoe.rs485_de", Kind: board.DevicePin, Name: cfg.Shoe.RS485DE})
	}
	var pins []board.DeviceUse
	var out []finding
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
func (d *doctor) bus(check string, u board.DeviceUse, path, fix string) finding {
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
func (d *doctor) i2cPath(u board.DeviceUse) (string, *finding) {
	n := strings.TrimPrefix(u.Name, "I2C")
	switch {
	case strings.HasPrefix(u.Name, "/"):
		return u.Name, nil
	case n != "":
		return "/dev/i2c-" + n, nil
	}
	m, _ := filepath.Glob(filepath.Join(d.paths.Dev, "i2c-*"))
	if len(m) == 0 {
		f := fail("i2c", "enable I²C: sudo raspi-config nonint do_i2c 0, then reboot", "%s = \"\" (the first bus): no /dev/i2c-* exists", u.Key)
		return "", &f
	}
	sort.Strings(m)
	return "/dev/" + filepath.Base(m[0]), nil
}

// checkPins checks the GPIO character devices and every pin name.
func (d *doctor) checkPins(pins []board.DeviceUse) []finding {
	if len(pins) == 0 {
		return []finding{ok("gpio", "no GPIO pins configured")}
	}
	chips, _ := filepath.Glob(filepath.Join(d.paths.Dev, "gpiochip*"))
	sort.Strings(chips)
	if len(chips) == 0 {
		return []finding{fail("gpio", "Raspberry Pi OS has them; elsewhere load the board's GPIO driver (a kernel of 4.8 or later)",
			"no /dev/gpiochip*: the kernel's GPIO character devices are missing, and %d pins are configured", len(pins))}
	}
	var out []finding
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
		out = append(out, ok("gpio", "%d pins found (%s) on %d GPIO chips usable by %s", len(good), strings.Join(good, ", "), len(chips), d.user))
	}
	return out
}

// linePinExists looks a pin up among the line names of the GPIO chips
// under paths.Dev, read once (hostcheck.ReadGPIOLines): the names periph's
// gpioioctl driver registers in gpioreg, where sabotd (drivers/board)
// looks its pins up (not the aliases periph's BCM283x driver adds on a Pi
// 4 or older: see hostcheck.GPIOLines.Has). A chip that could not be read
// is an error only for a name no other chip has.
func (d *doctor) linePinExists(name string) (bool, error) {
	if d.gpioLines == nil {
		l, err := hostcheck.ReadGPIOLines(d.paths.Dev, d.openGPIOChip)
		d.gpioLines, d.gpioErr = &l, err
	}
	if d.gpioLines.Has(name) {
		return true, nil
	}
	return false, d.gpioErr
}

// checkClock checks that the clock is synchronised.
func (d *doctor) checkClock() finding {
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
func (d *doctor) checkMQTT(ctx context.Context, cfg *doctorConfig) []finding {
	if len(cfg.MQTT.Brokers) == 0 {
		addr := cfg.MQTT.EmbeddedAddr
		if _, port, _ := net.SplitHostPort(addr); port == "0" {
			return []finding{ok("mqtt", "embedded broker on %s: a free port is picked at start", addr)}
		}
		c, err := (&net.Dialer{Timeout: d.timeout}).DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			return []finding{ok("mqtt", "embedded broker: %s answers (sabotd is running, or another broker listens there, which stops sabotd's embedded broker from starting)", addr)}
		}
		l, lerr := net.Listen("tcp", addr)
		if lerr != nil {
			return []finding{fail("mqtt", "set [mqtt] embedded_addr to a free address, or list your broker in [mqtt] brokers",
				"embedded broker: cannot listen on %s: %v", addr, lerr)}
		}
		l.Close()
		return []finding{ok("mqtt", "embedded broker: %s is free for sabotd to listen on (no [mqtt] brokers listed)", addr)}
	}
	var out []finding
	up := 0
	for _, b := range cfg.MQTT.Brokers {
		if err := hostcheck.DialBroker(ctx, b, d.timeout); err != nil {
			out = append(out, finding{"", "mqtt", fmt.Sprintf("%s does not answer: %s", b, strings.TrimPrefix(err.Error(), "hostcheck: broker "+b+": ")), ""})
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
func (d *doctor) checkState(cfg *doctorConfig) []finding {
	dir := cfg.State.Dir
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []finding{fail("state", "sudo systemd-tmpfiles --create (the package's tmpfiles entry makes /var/lib/sabot, owned by sabot), or sudo install -d -o sabot -g sabot -m 0750 "+dir,
			"state.dir = %q does not exist", dir)}
	}
	if err != nil {
		return []finding{fail("state", "run as root", "state.dir = %q: %v", dir, err)}
	}
	if !fi.IsDir() {
		return []finding{fail("state", "set [state] dir to a directory", "state.dir = %q is %s, not a directory", dir, fileKind(fi))}
	}
	var out []finding
	if d.acct != nil && !d.allows(fi, 3) {
		fix := "sudo chown " + d.user + ":" + d.user + " " + dir + " && sudo chmod 0750 " + dir
		f := fail("state", fix, "state.dir = %q is %s: %s cannot write in it", dir, d.modeText(fi), d.user)
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
	if free < d.minFreeMB*mib {
		return append(out, warn("state", "free space on that file system, or move [state] dir to a larger one",
			"state.dir = %q has %d MiB free of %d MiB, under the %d MiB threshold (--min-free-mb): on a full disk sabotd refuses inputs until there is room",
			dir, free/mib, total/mib, d.minFreeMB))
	}
	if len(out) == 0 && d.acct == nil {
		// No such user: whether it may write there cannot be told.
		out = append(out, warn("state", "create the user (the package's sysusers entry: sudo systemd-sysusers), then run sabot doctor again",
			"state.dir = %q: %d MiB free; the user %s does not exist, so whether it may write in it is not known", dir, free/mib, d.user))
	}
	if len(out) == 0 {
		out = append(out, ok("state", "state.dir = %q: %s may write in it, %d MiB free", dir, d.user, free/mib))
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
