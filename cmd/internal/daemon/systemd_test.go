package daemon

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// TestSystemdUnit checks the shipped unit's essentials and that systemd
// accepts it (systemd-analyze verify, with ExecStart pointed at a freshly
// built sabotd; required under CI=true).
func TestSystemdUnit(t *testing.T) {
	unit, err := os.ReadFile("../../../systemd/sabotd.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Type=notify", "WatchdogSec=", "StateDirectory=sabot", "User=sabot",
		"ExecStart=/usr/bin/sabotd --config /etc/sabot/sabotd.toml", "NoNewPrivileges=yes", "ProtectSystem=strict"} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("sabotd.service lacks %q", want)
		}
	}
	sysusers, _ := os.ReadFile("../../../systemd/sysusers-sabot.conf")
	if !strings.Contains(string(sysusers), "m sabot dialout") || !strings.Contains(string(sysusers), "u sabot ") {
		t.Errorf("sysusers-sabot.conf does not create sabot in dialout:\n%s", sysusers)
	}
	rules, _ := os.ReadFile("../../../systemd/99-sabot-shoe.rules")
	if !strings.Contains(string(rules), `SYMLINK+="sabot-shoe"`) || !strings.Contains(string(rules), `GROUP="dialout"`) {
		t.Errorf("udev rule lacks the symlink or the group:\n%s", rules)
	}
	analyze := testenv.NeedProgram(t, "systemd-analyze")
	bin := filepath.Join(binaries(t), "sabotd")
	tmp := filepath.Join(t.TempDir(), "sabotd.service")
	os.WriteFile(tmp, []byte(strings.ReplaceAll(string(unit), "/usr/bin/sabotd", bin)), 0o644)
	if out, err := exec.Command(analyze, "verify", tmp).CombinedOutput(); err != nil {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// udevRuleKey matches one key of a udev rule: KEY or KEY{attr}, an
// operator and a double-quoted value.
var udevRuleKey = regexp.MustCompile(`^\s*([A-Z_]+)(\{[A-Za-z0-9_.-]+\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(,|$)`)

// TestUdevRules parses the shipped udev rules the way udev reads them (one
// rule a line, comma-separated KEY op "value") and checks every key: match
// keys use == or !=, assignment keys = or +=, groups exist (sysusers or
// Debian's dialout), modes are octal, and each rule assigns something. It
// stands in for `udevadm verify`, which systemd 253 added and Debian 12's
// systemd 252 lacks; where udevadm has verify, it is run too.
func TestUdevRules(t *testing.T) {
	match := map[string]bool{"SUBSYSTEM": true, "SUBSYSTEMS": true, "KERNEL": true, "KERNELS": true,
		"ATTR": true, "ATTRS": true, "ENV": true, "DRIVERS": true, "ACTION": true}
	assign := map[string]bool{"SYMLINK": true, "GROUP": true, "MODE": true, "OWNER": true, "TAG": true, "ENV": true}
	sysusers, err := os.ReadFile("../../../systemd/sysusers-sabot.conf")
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]bool{"dialout": true} // Debian's, for serial ports
	for _, line := range strings.Split(string(sysusers), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && (f[0] == "g" || f[0] == "u") {
			groups[f[1]] = true
		}
	}
	files, _ := filepath.Glob("../../../systemd/*.rules")
	if len(files) < 2 {
		t.Fatalf("rules files: %v", files)
	}
	wantGroups := map[string]bool{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rules := 0
		for n, line := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			where := fmt.Sprintf("%s:%d", filepath.Base(file), n+1)
			rest, matches, assigns := line, 0, 0
			for strings.TrimSpace(rest) != "" {
				m := udevRuleKey.FindStringSubmatchIndex(rest)
				if m == nil {
					t.Fatalf("%s: cannot parse %q", where, rest)
				}
				key, op, val := rest[m[2]:m[3]], rest[m[6]:m[7]], rest[m[8]:m[9]]
				rest = rest[m[1]:]
				switch {
				case (op == "==" || op == "!=") && match[key]:
					matches++
				case (op == "=" || op == "+=") && assign[key]:
					assigns++
					switch key {
					case "GROUP":
						if !groups[val] {
							t.Errorf("%s: GROUP=%q is no group the package creates", where, val)
						}
						wantGroups[val] = true
					case "MODE":
						if _, err := strconv.ParseUint(val, 8, 32); err != nil || len(val) != 4 {
							t.Errorf("%s: MODE=%q is not a 4-digit octal mode", where, val)
						}
					}
				default:
					t.Errorf("%s: %s%s is not a valid use of %s", where, key, op, key)
				}
			}
			if matches == 0 || assigns == 0 {
				t.Errorf("%s: a rule needs at least one match and one assignment", where)
			}
			rules++
		}
		if rules == 0 {
			t.Errorf("%s: no rules", file)
		}
	}
	for _, g := range []string{"dialout", "gpio", "i2c", "spi"} {
		if !wantGroups[g] {
			t.Errorf("no rule gives devices to group %s", g)
		}
	}
	if udevadm, err := exec.LookPath("udevadm"); err == nil {
		if out, err := exec.Command(udevadm, "verify", "--help").CombinedOutput(); err == nil {
			if out, err := exec.Command(udevadm, append([]string{"verify"}, files...)...).CombinedOutput(); err != nil {
				t.Fatalf("udevadm verify: %v\n%s", err, out)
			}
		} else {
			t.Logf("udevadm has no verify (systemd < 253): %s", strings.TrimSpace(string(out)))
		}
	}
}

// docs/install.md names every system file the package installs (the
// unit, the udev rules, sysusers and tmpfiles, the configuration), by the
// path nfpm gives it: a new user was not told about the GPIO/I²C/SPI rule.
func TestInstallDocNamesPackagedFiles(t *testing.T) {
	pkg := string(mustRead(t, filepath.Join("..", "..", "..", "systemd", "nfpm.yaml")))
	doc := string(mustRead(t, filepath.Join("..", "..", "..", "docs", "install.md")))
	n := 0
	for _, l := range strings.Split(pkg, "\n") {
		dst, ok := strings.CutPrefix(strings.TrimSpace(l), "dst: ")
		if !ok || strings.HasPrefix(dst, "/usr/share/") {
			continue // documentation and lintian's overrides
		}
		n++
		if !strings.Contains(doc, dst) && !strings.Contains(doc, "`"+filepath.Base(dst)+"`") {
			t.Errorf("docs/install.md does not name %s", dst)
		}
	}
	if n < 8 {
		t.Fatalf("%d installed files found in systemd/nfpm.yaml", n)
	}
}
