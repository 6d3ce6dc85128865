package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/cmd/internal/demo"
)

func TestVersionFlag(t *testing.T) {
	m := NewMain()
	var out bytes.Buffer
	m.Stdout = &out
	if err := m.Setup(Options{Version: true}); err != nil {
		t.Fatal(err)
	}
	if !m.ExitEarly || !strings.HasPrefix(out.String(), "sabotd ") {
		t.Fatalf("--version printed %q", out.String())
	}
}

func TestPrintConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.toml")
	os.WriteFile(path, []byte("table = \"BAC-9\"\n[shoe]\ndevice = \"/dev/ttyUSB0\"\nprotocol = \"beetek\"\n"), 0o600)
	m := NewMain()
	var out bytes.Buffer
	m.Stdout = &out
	if err := m.Setup(Options{ConfigPath: path, PrintConfig: true}); err != nil {
		t.Fatal(err)
	}
	// The printed configuration is itself a valid file that gives the same
	// configuration back.
	back, err := config.Parse(out.Bytes(), "printed")
	if err != nil {
		t.Fatalf("printed config does not parse: %v\n%s", err, out.String())
	}
	if back.Table != "BAC-9" || back.Shoe.Baud != 9600 || back.Decks != 8 || back.MQTT.TopicPrefix != "sabot" {
		t.Fatalf("printed config lost values: %+v", back)
	}
	for _, want := range []string{"decks = 8", "topic_prefix = 'sabot'", "baud = 9600", "addr = '127.0.0.1:0'"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--print-config output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestBadOptions: --demo-coups without --demo, an unknown --demo-rate and
// a configuration file that does not exist are refused by Setup (the
// command line itself: cmd/sabotd's TestParseFlags).
func TestBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Demo: demo.Options{Coups: 3}},
		{Demo: demo.Options{Enabled: true, Rate: "slow"}},
		{Demo: demo.Options{Enabled: true, Coups: -1}},
		{ConfigPath: "/nonexistent/sabotd.toml"},
	} {
		m := NewMain()
		m.Stderr = io.Discard
		if err := m.Setup(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestBootHTTP boots the real program from a configuration file and checks
// its HTTP endpoints and a clean Close.
func TestBootHTTP(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	dir := t.TempDir()
	path := filepath.Join(dir, "c.toml")
	os.WriteFile(path, []byte(`table = "BAC-1"
[shoe]
device = "`+filepath.Join(dir, "no-shoe")+`"
protocol = "lines"
[mqtt]
brokers = ["tcp://127.0.0.1:1"]
[display]
kind = "none"
[state]
dir = "`+filepath.Join(dir, "state")+`"
[http]
addr = "127.0.0.1:0"
`), 0o600)
	m, logs := bootDaemon(t, string(mustRead(t, path)))
	addr := m.d.http.addr
	if !strings.Contains(logs.String(), "addr="+addr) {
		t.Fatalf("listening address %s not logged:\n%s", addr, logs.String())
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var h health
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if h.Table != "BAC-1" {
		t.Fatalf("healthz = %+v", h)
	}
	resp, err = http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "sabot_journal_records") || !strings.Contains(string(body), "go_goroutines") {
		t.Fatalf("/metrics lacks sabot metrics:\n%.500s", body)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "state", "journal.db")); err != nil {
		t.Fatalf("journal not in the state dir: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBadPinExitsTwo runs the real binary with a pin name no GPIO chip
// has: a configuration error, so sabotd exits 2 (which the systemd unit
// does not restart) and names the key.
func TestBadPinExitsTwo(t *testing.T) {
	bin := filepath.Join(binaries(t), "sabotd")
	dir := t.TempDir()
	conf := filepath.Join(dir, "sabotd.toml")
	src := fmt.Sprintf(`table = "T-PIN"
[shoe]
device = %q
[display]
kind = "none"
[gpio]
backend = "gpio"
lamp = "SABOT_NO_SUCH_PIN_71"
[state]
dir = %q
`, filepath.Join(dir, "no-shoe"), filepath.Join(dir, "state"))
	if err := os.WriteFile(conf, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", conf)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("sabotd with a bad pin name: %v, want exit status 2\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), `"gpio.lamp"`) || !strings.Contains(stderr.String(), "SABOT_NO_SUCH_PIN_71") {
		t.Errorf("error does not name the key and the pin:\n%s", stderr.String())
	}
}

// TestHelpFlag runs the built sabotd with -h and --help: exit 0, the usage
// and every flag on standard error, nothing on standard output, no panic
// (the flag package prints one when a flag's String panics on a zero value).
func TestHelpFlag(t *testing.T) {
	bin := filepath.Join(binaries(t), "sabotd")
	for _, h := range []string{"-h", "--help"} {
		cmd := exec.Command(bin, h)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("sabotd %s: %v (want exit 0)\n%s", h, err, errOut.String())
		}
		e := errOut.String()
		if out.Len() != 0 || !strings.HasPrefix(e, "usage: sabotd ") || strings.Contains(strings.ToLower(e), "panic") {
			t.Errorf("sabotd %s: stdout %q, stderr:\n%s", h, out.String(), e)
		}
		for _, f := range []string{"-config", "-demo", "-print-config", "-version"} {
			if !strings.Contains(e, "  "+f+" ") && !strings.Contains(e, "  "+f+"\n") {
				t.Errorf("sabotd %s does not list %s:\n%s", h, f, e)
			}
		}
	}
}
