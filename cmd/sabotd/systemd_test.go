package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemdUnit checks the shipped unit's essentials and, where
// systemd-analyze exists, that systemd accepts it (with ExecStart pointed at
// a freshly built sabotd).
func TestSystemdUnit(t *testing.T) {
	unit, err := os.ReadFile("../../systemd/sabotd.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Type=notify", "WatchdogSec=", "StateDirectory=sabot", "User=sabot",
		"ExecStart=/usr/local/bin/sabotd --config /etc/sabot/sabotd.toml", "NoNewPrivileges=yes", "ProtectSystem=strict"} {
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
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed: unit syntax not verified by systemd")
	}
	bin := filepath.Join(binaries(t), "sabotd")
	tmp := filepath.Join(t.TempDir(), "sabotd.service")
	os.WriteFile(tmp, []byte(strings.ReplaceAll(string(unit), "/usr/local/bin/sabotd", bin)), 0o644)
	if out, err := exec.Command(analyze, "verify", tmp).CombinedOutput(); err != nil {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
