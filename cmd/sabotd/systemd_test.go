package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// TestSystemdUnit checks the shipped unit's essentials and that systemd
// accepts it (systemd-analyze verify, with ExecStart pointed at a freshly
// built sabotd; required under CI=true).
func TestSystemdUnit(t *testing.T) {
	unit, err := os.ReadFile("../../systemd/sabotd.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Type=notify", "WatchdogSec=", "StateDirectory=sabot", "User=sabot",
		"ExecStart=/usr/bin/sabotd --config /etc/sabot/sabotd.toml", "NoNewPrivileges=yes", "ProtectSystem=strict"} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("sabotd.service lacks %q", want)
		}
	}
	sysusers, _ := os.ReadFile("../../systemd/sysusers-sabot.conf")
	if !strings.Contains(string(sysusers), "m sabot dialout") || !strings.Contains(string(sysusers), "u sabot ") {
		t.Errorf("sysusers-sabot.conf does not create sabot in dialout:\n%s", sysusers)
	}
	rules, _ := os.ReadFile("../../systemd/99-sabot-shoe.rules")
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
