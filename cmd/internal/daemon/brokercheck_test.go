package daemon

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/drivers/hostcheck"
	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
	"github.com/sabot-table/sabot/drivers/testenv"
)

// TestShippedConfigStarts: systemd/sabotd.toml as installed, with only a
// table name, a fixture state directory, the fake GPIO backend (no pins on
// the test machine) and free ports, starts, reaches ready and connects to
// its embedded broker: it lists no broker that is not there.
func TestShippedConfigStarts(t *testing.T) {
	src := string(mustRead(t, filepath.Join("..", "..", "..", "systemd", "sabotd.toml")))
	dir := t.TempDir()
	for _, r := range [][2]string{
		{`table = "BAC-01"`, `table = "SHIP-1"`},
		{`dir = "/var/lib/sabot"`, `dir = "` + filepath.Join(dir, "state") + `"`},
		{`backend = "gpio"`, `backend = "fake"`},
		{`# embedded_addr = "127.0.0.1:1883"`, `embedded_addr = "127.0.0.1:0"`},
		{`addr = "127.0.0.1:9180"`, `addr = "127.0.0.1:0"`},
	} {
		if !strings.Contains(src, r[0]) {
			t.Fatalf("systemd/sabotd.toml no longer has %s", r[0])
		}
		src = strings.Replace(src, r[0], r[1], 1)
	}
	if strings.Contains(src, "\nbrokers =") {
		t.Fatal("systemd/sabotd.toml sets [mqtt] brokers: as installed it must use the embedded broker")
	}
	m, logs := bootDaemon(t, src)
	waitFor(t, "the embedded broker connected", 10*time.Second, func() bool { return m.d.health().Broker })
	l := logs.String()
	if !strings.Contains(l, "embedded MQTT broker listening") || strings.Contains(l, "[mqtt] brokers") {
		t.Errorf("shipped config: want the embedded broker and no broker warning:\n%s", l)
	}
	// As installed, the broker is closed to all but the daemon's own
	// clients, and commands are off.
	if m.d.cfg.MQTT.Commands {
		t.Error("systemd/sabotd.toml turns commands on")
	}
	for _, who := range []struct{ user, pass string }{{"", ""}, {"pit", "pit"}, {embedded.OwnUser, "guess"}} {
		o := paho.NewClientOptions().AddBroker(m.d.broker.URL()).SetClientID("stranger").SetProtocolVersion(4).
			SetAutoReconnect(false).SetConnectTimeout(5 * time.Second)
		if who.user != "" {
			o.SetUsername(who.user).SetPassword(who.pass)
		}
		c := paho.NewClient(o)
		if tok := c.Connect(); tok.WaitTimeout(10*time.Second) && tok.Error() == nil {
			c.Disconnect(50)
			t.Errorf("the installed embedded broker let in %q", who.user)
		}
	}
}

// TestBrokerUnreachableOnce: a configured broker that does not answer is
// reported once, naming the key, while the publisher keeps retrying.
func TestBrokerUnreachableOnce(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	dir := t.TempDir()
	port := testenv.FreePort(t) // closed again: nothing listens there
	conf := `table = "NOBROKER-1"
[shoe]
device = "` + filepath.Join(dir, "no-shoe") + `"
protocol = "lines"
[mqtt]
brokers = ["tcp://127.0.0.1:` + strconv.Itoa(port) + `"]
[display]
kind = "none"
[state]
dir = "` + filepath.Join(dir, "state") + `"
[http]
addr = "off"
`
	_, logs := bootDaemon(t, conf)
	want := `msg="mqtt: no broker in [mqtt] brokers answers; messages wait in the outbox and sabotd keeps retrying. Set [mqtt] brokers to your broker, or remove the key to run the embedded broker on [mqtt] embedded_addr" brokers=tcp://127.0.0.1:` + strconv.Itoa(port)
	waitFor(t, "the unreachable broker reported", 10*time.Second, func() bool { return strings.Contains(logs.String(), want) })
	waitFor(t, "three connect attempts", 30*time.Second, func() bool { return strings.Contains(logs.String(), "attempt=3") })
	if n := strings.Count(logs.String(), "no broker in [mqtt] brokers"); n != 1 {
		t.Errorf("reported %d times, want once:\n%s", n, logs.String())
	}
}

// TestPrintConfigPlaceholderWarning: --print-config warns (standard error,
// exit status 0) while shoe.device is the udev link and the rule udev
// uses still has the placeholder serial, and not once the serial is set.
func TestPrintConfigPlaceholderWarning(t *testing.T) {
	dir := t.TempDir()
	etc, lib := filepath.Join(dir, "etc"), filepath.Join(dir, "lib")
	os.MkdirAll(etc, 0o755)
	os.MkdirAll(lib, 0o755)
	shipped := mustRead(t, filepath.Join("..", "..", "..", "systemd", hostcheck.ShoeRuleFile))
	os.WriteFile(filepath.Join(lib, hostcheck.ShoeRuleFile), shipped, 0o644)
	conf := filepath.Join(dir, "sabotd.toml")
	os.WriteFile(conf, []byte("table = \"T\"\n[shoe]\ndevice = \"/dev/sabot-shoe\"\n[state]\ndir = \"/tmp/x\"\n"), 0o644)
	run := func() (string, string) {
		m := NewMain()
		var out, errb strings.Builder
		m.Stdout, m.Stderr = &out, &errb
		m.UdevRuleDirs = []string{etc, lib}
		if err := m.Setup(Options{ConfigPath: conf, PrintConfig: true}); err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String()
	}
	out, stderr := run()
	line := 0
	for i, l := range strings.Split(string(shipped), "\n") {
		if !strings.HasPrefix(l, "#") && strings.Contains(l, hostcheck.Placeholder) {
			line = i + 1
			break
		}
	}
	want := "sabotd: warning: " + hostcheck.PlaceholderWarning("/dev/sabot-shoe", []string{lib}) + "\n"
	if stderr != want || !strings.Contains(want, filepath.Join(lib, hostcheck.ShoeRuleFile)+":"+strconv.Itoa(line)+" still matches the placeholder serial SET-ADAPTER-SERIAL") {
		t.Errorf("placeholder in place:\n got %q\nwant %q", stderr, want)
	}
	if _, err := config.Parse([]byte(out), "printed"); err != nil {
		t.Errorf("standard output is not the configuration: %v", err)
	}
	// The edited copy in /etc/udev/rules.d hides the shipped rule.
	os.WriteFile(filepath.Join(etc, hostcheck.ShoeRuleFile), []byte(strings.ReplaceAll(string(shipped), hostcheck.Placeholder, "A10K3XYZ")), 0o644)
	if _, stderr := run(); stderr != "" {
		t.Errorf("serial set: %q, want no warning", stderr)
	}
}
