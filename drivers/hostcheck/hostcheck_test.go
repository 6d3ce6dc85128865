package hostcheck

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func writeRule(t *testing.T, dir, text string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, ShoeRuleFile)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const setRule = `SUBSYSTEM=="tty", ATTRS{serial}=="A10K3XYZ", SYMLINK+="sabot-shoe"` + "\n"

func TestFindShoeRulePrecedence(t *testing.T) {
	root := t.TempDir()
	etc, lib := filepath.Join(root, "etc"), filepath.Join(root, "lib")
	dirs := []string{etc, lib}

	if _, found, err := FindShoeRule(dirs); found || err != nil {
		t.Fatalf("no rule: found %v, err %v", found, err)
	}
	// The shipped rule: the placeholder on line 3 (the comment on line 1
	// names it too and does not count).
	libRule := writeRule(t, lib, "# the serial below is "+Placeholder+"\n\n"+
		`SUBSYSTEM=="tty", ATTRS{serial}=="`+Placeholder+`", SYMLINK+="sabot-shoe"`+"\n")
	r, found, err := FindShoeRule(dirs)
	if err != nil || !found || r.Path != libRule || r.PlaceholderLine != 3 {
		t.Fatalf("shipped rule: %+v found %v err %v", r, found, err)
	}
	// The copy in etc with the serial set hides it.
	etcRule := writeRule(t, etc, "# was "+Placeholder+"\n"+setRule)
	r, found, err = FindShoeRule(dirs)
	if err != nil || !found || r.Path != etcRule || r.PlaceholderLine != 0 {
		t.Fatalf("edited copy: %+v found %v err %v", r, found, err)
	}
}

func TestShippedRuleHasPlaceholder(t *testing.T) {
	r, found, err := FindShoeRule([]string{"../../systemd"})
	if err != nil || !found || r.PlaceholderLine == 0 {
		t.Fatalf("systemd/%s: %+v found %v err %v; want the placeholder %s on a rule line", ShoeRuleFile, r, found, err, Placeholder)
	}
}

func TestPlaceholderWarning(t *testing.T) {
	lib := t.TempDir()
	p := writeRule(t, lib, `ATTRS{serial}=="`+Placeholder+`", SYMLINK+="sabot-shoe"`+"\n")
	want := "shoe.device is /dev/sabot-shoe but the udev rule " + p + ":1 still matches the placeholder serial SET-ADAPTER-SERIAL, so the link never appears: " +
		"copy the rule to /etc/udev/rules.d/99-sabot-shoe.rules, put your adapter's serial number in it " +
		"(udevadm info --attribute-walk --name=/dev/ttyUSB0 | grep serial), then run udevadm control --reload && udevadm trigger"
	if got := PlaceholderWarning("/dev/sabot-shoe", []string{lib}); got != want {
		t.Errorf("warning:\n got %q\nwant %q", got, want)
	}
	if got := PlaceholderWarning("/dev/serial/by-id/usb-FTDI-if00-port0", []string{lib}); got != "" {
		t.Errorf("another device path: %q, want none", got)
	}
	writeRule(t, lib, setRule)
	if got := PlaceholderWarning("/dev/sabot-shoe", []string{lib}); got != "" {
		t.Errorf("serial set: %q, want none", got)
	}
}

func TestClockState(t *testing.T) {
	for _, c := range []struct {
		name   string
		tx     unix.Timex
		synced bool
	}{
		{"boot, never set", unix.Timex{Status: unix.STA_UNSYNC, Maxerror: 16_000_000}, false},
		{"timesyncd synced", unix.Timex{Status: unix.STA_PLL, Maxerror: 120_000}, true},
		{"flag clear but error at the limit", unix.Timex{Maxerror: 16_000_000}, false},
		{"flag set, small error", unix.Timex{Status: unix.STA_UNSYNC, Maxerror: 1000}, false},
	} {
		s := clockState(c.tx)
		if s.Synced != c.synced || s.MaxError != time.Duration(c.tx.Maxerror)*time.Microsecond {
			t.Errorf("%s: %+v, want synced %v", c.name, s, c.synced)
		}
	}
	if _, err := ReadClock(); err != nil {
		t.Errorf("ReadClock on this machine: %v", err)
	}
}

func TestDialBroker(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ctx := context.Background()
	if err := DialBroker(ctx, "tcp://"+addr, 5*time.Second); err != nil {
		t.Errorf("listening broker: %v", err)
	}
	l.Close()
	if err := DialBroker(ctx, "tcp://"+addr, 5*time.Second); err == nil {
		t.Errorf("closed port %s: no error", addr)
	}
	for url, want := range map[string]string{"ws://b.lan/mqtt": "b.lan:80", "wss://b.lan/mqtt": "b.lan:443", "ssl://[::1]:8883": "[::1]:8883"} {
		if got, err := BrokerAddr(url); got != want || err != nil {
			t.Errorf("BrokerAddr(%q) = %q, %v; want %q", url, got, err, want)
		}
	}
	if _, err := BrokerAddr("tcp://b.lan"); err == nil {
		t.Error("tcp URL without a port: no error")
	}
}

// A broker URL's password never appears in DialBroker's errors (sabot pit
// and floor-sim print them).
func TestDialBrokerRedactsPassword(t *testing.T) {
	for _, u := range []string{"tcp://pit:s3cret@127.0.0.1:1", "tcp://pit:s3cret@127.0.0.1", "tcp://pit:s3cret@:1883"} {
		err := DialBroker(context.Background(), u, time.Second)
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "127.0.0.1") && !strings.Contains(err.Error(), "no host") {
			t.Errorf("%s: %v", u, err)
		}
	}
}
