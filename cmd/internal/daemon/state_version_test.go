package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/drivers/mqtt"
)

// TestStateDirNewerRefused: a sabotd older than the one that wrote the
// state directory (played by lowering the journal's supported format, or
// by a newer sabotd raising the outbox's) refuses to start with a message
// naming the directory and the versions found and read, with exit status
// 2 (systemd does not restart it in a loop), and leaves the state as it
// was: the current sabotd starts on it afterwards.
func TestStateDirNewerRefused(t *testing.T) {
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	state := t.TempDir()
	path := filepath.Join(t.TempDir(), "sabotd.toml")
	conf := fmt.Sprintf("table = \"V\"\n[shoe]\ndevice = %q\nprotocol = \"lines\"\n[mqtt]\nembedded_addr = \"127.0.0.1:0\"\n[http]\naddr = \"off\"\n[state]\ndir = %q\n", tty.Name(), state)
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	start := func() (*Main, error) {
		m := NewMain()
		m.Stderr = &syncBuffer{}
		if err := m.Setup(Options{ConfigPath: path}); err != nil {
			t.Fatal(err)
		}
		err := m.Run(context.Background())
		if err != nil {
			m.Close()
			return nil, err
		}
		return m, nil
	}
	m, err := start()
	if err != nil {
		t.Fatal(err)
	}
	m.Close()

	cur := journal.FormatVersion
	journal.FormatVersion = cur - 1
	_, err = start()
	journal.FormatVersion = cur
	if !errors.Is(err, journal.ErrNewerFormat) || ExitCode(err) != 2 {
		t.Fatalf("older sabotd on a newer journal: %v (exit %d)", err, ExitCode(err))
	}
	for _, want := range []string{state, fmt.Sprintf("version %d", cur), fmt.Sprintf("versions 1 to %d", cur-1)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}

	curOut := mqtt.OutboxFormat
	mqtt.OutboxFormat = curOut + 1 // a newer sabotd writes the outbox
	m, err = start()
	mqtt.OutboxFormat = curOut
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	_, err = start()
	if !errors.Is(err, mqtt.ErrNewerOutbox) || ExitCode(err) != 2 {
		t.Fatalf("older sabotd on a newer outbox: %v (exit %d)", err, ExitCode(err))
	}
	for _, want := range []string{state, fmt.Sprintf("version %d", curOut+1), fmt.Sprintf("versions 1 to %d", curOut)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	mqtt.OutboxFormat = curOut + 1
	m, err = start()
	mqtt.OutboxFormat = curOut
	if err != nil {
		t.Fatalf("the newer sabotd after the refusal: %v", err)
	}
	m.Close()
}
