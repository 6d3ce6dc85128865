package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorCommand runs `sabot doctor` on a configuration that does not
// load: exit status 1, the config check's FAIL line first, with the
// loader's error naming the file, line, column and key. --sabotd, which
// named the program older versions ran to load it, is still accepted. An
// argument is a usage error (exit 2). The checks themselves are tested in
// cmd/internal/doctor.
func TestDoctorCommand(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "sabotd.toml")
	if err := os.WriteFile(conf, []byte("table = \"DOC-1\"\n[shoe]\ndevice = \"/dev/sabot-shoe\"\n[display]\nkind_ = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	etc := filepath.Join(dir, "etc")
	os.Mkdir(etc, 0o755)
	var stdout, stderr strings.Builder
	code := run(context.Background(), []string{"doctor", "--config", conf, "--sabotd", "/nonexistent/sabotd", "--path.etc", etc,
		"--path.dev", filepath.Join(dir, "dev"), "--path.udev-rules", filepath.Join(dir, "rules")}, nil, &stdout, &stderr)
	want := "FAIL  config: " + conf + " does not load:\n        config: " + conf + ":5:1: display.kind_: unknown key\n"
	if code != 1 || !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("sabot doctor on a broken config: exit %d, want 1 and output starting\n%s\ngot:\n%s%s", code, want, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"doctor", "extra"}, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), `sabot doctor: unexpected argument "extra"`) {
		t.Errorf("an argument: exit %d, want 2\n%s", code, stderr.String())
	}
}
