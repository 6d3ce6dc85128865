package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/drivers/shoe"
)

func TestRS485Config(t *testing.T) {
	base := "table = \"T\"\n[shoe]\ndevice = \"/dev/x\"\n"
	cfg, err := config.Parse([]byte(base+`rs485 = "gpio"
rs485_de = "GPIO18"
rs485_de_active_low = true
rs485_delay_before_us = 250
rs485_delay_after_us = 1500
`), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := shoe.RS485Config{Mode: "gpio", DEName: "GPIO18", ActiveLow: true, DelayBefore: 250 * time.Microsecond, DelayAfter: 1500 * time.Microsecond}
	if got := cfg.Shoe.RS485Setup(); got != want {
		t.Fatalf("rs485 %+v, want %+v", got, want)
	}
	if d := config.Default().Shoe; d.RS485 != "off" || d.RS485DE != "" || d.RS485DelayBeforeUS != 0 || d.RS485RxDuringTx {
		t.Fatalf("defaults %+v", d)
	}
	for _, tc := range []struct{ extra, want string }{
		{"rs485 = \"gpio\"\n", `c.toml:2: shoe.rs485_de: required with rs485 = "gpio"`},
		{"rs485 = \"yes\"\n", `c.toml:4: shoe.rs485: "yes": want "off", "kernel"`},
		{"rs485 = \"gpio\"\nrs485_de = \"GPIO18\"\nrs485_delay_after_us = 100001\n", "c.toml:6: shoe.rs485_delay_after_us: 100001: must be 0–100000"},
		{"rs485 = \"kernel\"\nrs485_delay_before_us = 500\n", "c.toml:5: shoe.rs485_delay_before_us: 500: with rs485 = \"kernel\" the delay is whole milliseconds"},
		{"rs485 = \"gpio\"\nrs485_de = \"GPIO18\"\nrs485_rx_during_tx = true\n", "c.toml:6: shoe.rs485_rx_during_tx: only with rs485 = \"kernel\""},
		{"rs485_de = \"GPIO18\"\n", `c.toml:4: shoe.rs485_de: "GPIO18" is only used with rs485 = "gpio" (rs485 is "off")`},
		// A pin of another key: the [gpio] outputs and inputs, and the
		// display chip's pins (the TM1637's clk default is GPIO23).
		{"rs485 = \"gpio\"\nrs485_de = \"GPIO17\"\n[gpio]\nlamp = \"GPIO17\"\n", `c.toml:5: shoe.rs485_de: "GPIO17" is already gpio.lamp: one pin cannot serve two functions`},
		{"rs485 = \"gpio\"\nrs485_de = \"GPIO5\"\n[gpio]\nack_key = \"GPIO5\"\n", `shoe.rs485_de: "GPIO5" is already gpio.ack_key`},
		{"rs485 = \"gpio\"\nrs485_de = \"GPIO23\"\n[display]\nkind = \"tm1637\"\n", `shoe.rs485_de: "GPIO23" is already display.clk`},
	} {
		_, err := config.Parse([]byte(base+tc.extra), "c.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v\nwant %q", tc.extra, err, tc.want)
		}
	}
}

// --print-config shows every rs485 key, and reads back to the same.
func TestRS485PrintConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.toml")
	os.WriteFile(path, []byte("table = \"T\"\n[shoe]\ndevice = \"/dev/ttyAMA0\"\nrs485 = \"kernel\"\nrs485_delay_after_us = 2000\n"), 0o600)
	m := NewMain()
	var out bytes.Buffer
	m.Stdout = &out
	if err := m.Setup(Options{ConfigPath: path, PrintConfig: true}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"rs485 = 'kernel'", "rs485_de = ''", "rs485_de_active_low = false", "rs485_delay_before_us = 0", "rs485_delay_after_us = 2000", "rs485_rx_during_tx = false"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("--print-config lacks %q:\n%s", w, out.String())
		}
	}
	back, err := config.Parse(out.Bytes(), "printed")
	if err != nil || back.Shoe.RS485 != "kernel" || back.Shoe.RS485DelayAfterUS != 2000 {
		t.Fatalf("printed config reads back as %+v, %v", back.Shoe, err)
	}
}

func rs485Daemon(t *testing.T, dev, shoeExtra, tables string) string {
	return fmt.Sprintf(`table = "T-485"
[shoe]
device = %q
protocol = "lines"
%s
[mqtt]
embedded_addr = "127.0.0.1:0"
[http]
addr = "off"
[state]
dir = %q
clock_wait = "0s"
%s`, dev, shoeExtra, t.TempDir(), tables)
}

// GPIO mode in the daemon: the DE pin is resolved through the board (the
// fake backend here) and released — low, or high when active-low — once
// the port is open; the shoe works.
func TestRS485DaemonGPIO(t *testing.T) {
	for _, tc := range []struct {
		activeLow bool
		released  gpio.Level
	}{{false, gpio.Low}, {true, gpio.High}} {
		ptmx, tty, err := openPTY(t)
		if err != nil {
			t.Fatal(err)
		}
		defer ptmx.Close()
		defer tty.Close()
		extra := fmt.Sprintf("rs485 = \"gpio\"\nrs485_de = \"GPIO18\"\nrs485_de_active_low = %v\n", tc.activeLow)
		m, _ := bootDaemon(t, rs485Daemon(t, tty.Name(), extra, "[display]\nkind = \"fake\"\n"))
		waitShoeOnline(t, m)
		pin := m.d.board.Fake.Pins["rs485_de"]
		if pin == nil || pin.N != "GPIO18" {
			t.Fatalf("no fake DE pin: %+v", m.d.board.Fake.Pins)
		}
		pin.Lock()
		l := pin.L
		pin.Unlock()
		if l != tc.released {
			t.Errorf("active low %v: DE %v after open, want %v (receive)", tc.activeLow, l, tc.released)
		}
		fmt.Fprintf(ptmx, "AS\r\n")
		waitFor(t, "the card", 5*time.Second, func() bool { return m.d.journal.Last() > 0 })
		m.Close()
	}
}

// A DE pin the GPIO chip does not have: a configuration error naming the
// key, exit status 2.
func TestRS485DaemonUnknownPin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sabotd.toml")
	conf := rs485Daemon(t, filepath.Join(t.TempDir(), "no-shoe"), "rs485 = \"gpio\"\nrs485_de = \"SABOT_NO_SUCH_PIN_485\"\n", "[gpio]\nbackend = \"gpio\"\n")
	os.WriteFile(path, []byte(conf), 0o600)
	m := NewMain()
	m.Stderr = &syncBuffer{}
	if err := m.Setup(Options{ConfigPath: path}); err != nil {
		t.Fatal(err)
	}
	err := m.Run(context.Background())
	defer m.Close()
	if err == nil || ExitCode(err) != 2 || !strings.Contains(err.Error(), `"shoe.rs485_de"`) || !strings.Contains(err.Error(), "SABOT_NO_SUCH_PIN_485") {
		t.Fatalf("Run: %v (exit %d), want exit 2 naming shoe.rs485_de and the pin", err, ExitCode(err))
	}
}

// Kernel mode on a pseudo-terminal (the real kernel refuses TIOCSRS485
// there with ENOTTY): the daemon stops once, exit status 2, naming the
// device and the key.
func TestRS485DaemonKernelRefused(t *testing.T) {
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	m, logs := bootDaemon(t, rs485Daemon(t, tty.Name(), "rs485 = \"kernel\"\n", ""))
	select {
	case <-m.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon kept running on an adapter without RS-485 mode")
	}
	err = m.Err()
	if !errors.Is(err, shoe.ErrRS485) || ExitCode(err) != 2 {
		t.Fatalf("Err: %v (exit %d), want ErrRS485, exit 2", err, ExitCode(err))
	}
	for _, w := range []string{tty.Name(), `[shoe] rs485 = "kernel"`, "no RS-485 mode"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if n := strings.Count(logs.String(), "TIOCSRS485"); n != 1 {
		t.Errorf("the refusal is logged %d times, want once:\n%s", n, logs.String())
	}
}
