// Package hostcheck reads the parts of a Pi's setup that both sabotd and
// `sabot doctor` look at: whether the system clock is synchronised (a Pi
// has no RTC), whether the shoe's udev rule still has the shipped
// placeholder serial number, and whether an MQTT broker answers; and, for
// `sabot doctor`, the GPIO chips' line names that sabotd's pin names are
// looked up in (gpiochip.go).
//
// Every path is a parameter (the udev rule directories, the /dev of the
// GPIO chips) so tests run on fixture trees; the clock is read through a
// function and the GPIO chips through an interface that tests replace.
package hostcheck

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ShoeRuleFile is the udev rule file the package ships
// (systemd/99-sabot-shoe.rules); a copy of the same name in
// /etc/udev/rules.d overrides the one in /lib/udev/rules.d.
const ShoeRuleFile = "99-sabot-shoe.rules"

// Placeholder is the serial number the shipped udev rule matches: no
// adapter has it, so the /dev/sabot-shoe link never appears until it is
// replaced by the adapter's own.
const Placeholder = "SET-ADAPTER-SERIAL"

// ShoeDevice is the link the shipped udev rule creates.
const ShoeDevice = "/dev/sabot-shoe"

// DefaultRuleDirs are udev's rule directories, highest precedence first: a
// file in an earlier directory hides a file of the same name in a later one
// (udev(7)).
var DefaultRuleDirs = []string{"/etc/udev/rules.d", "/run/udev/rules.d", "/lib/udev/rules.d", "/usr/lib/udev/rules.d"}

// ShoeRule is the shoe's udev rule file that udev uses.
type ShoeRule struct {
	// Path is the file udev reads: the first of the directories that has
	// ShoeRuleFile.
	Path string
	// PlaceholderLine is the 1-based line of the first rule (not comment)
	// that still matches Placeholder; 0 when none does.
	PlaceholderLine int
}

// maxRuleBytes bounds how much of a rule file is read (a real one is a
// few KiB).
const maxRuleBytes = 1 << 20

// FindShoeRule returns the ShoeRuleFile udev uses, looking in dirs in
// order of precedence (DefaultRuleDirs when nil). found is false when no
// directory has it. An error is returned for a file that exists but cannot
// be read.
func FindShoeRule(dirs []string) (rule ShoeRule, found bool, err error) {
	if dirs == nil {
		dirs = DefaultRuleDirs
	}
	for _, d := range dirs {
		p := filepath.Join(d, ShoeRuleFile)
		f, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return ShoeRule{Path: p}, true, fmt.Errorf("hostcheck: %w", err)
		}
		defer f.Close()
		rule := ShoeRule{Path: p}
		sc := bufio.NewScanner(io.LimitReader(f, maxRuleBytes))
		sc.Buffer(make([]byte, 0, 4096), maxRuleBytes)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if strings.HasPrefix(line, "#") {
				continue
			}
			if strings.Contains(line, Placeholder) {
				rule.PlaceholderLine = n
				break
			}
		}
		if err := sc.Err(); err != nil {
			return rule, true, fmt.Errorf("hostcheck: %s: %w", p, err)
		}
		return rule, true, nil
	}
	return ShoeRule{}, false, nil
}

// PlaceholderWarning returns the warning to give when device is the
// shipped rule's link and the rule udev uses still has the placeholder
// serial, or "" (the link is another path, no rule is installed, or the
// serial was set). dirs as for FindShoeRule.
func PlaceholderWarning(device string, dirs []string) string {
	if device != ShoeDevice {
		return ""
	}
	rule, found, err := FindShoeRule(dirs)
	if err != nil || !found || rule.PlaceholderLine == 0 {
		return ""
	}
	return fmt.Sprintf("shoe.device is %s but the udev rule %s:%d still matches the placeholder serial %s, so the link never appears: "+
		"copy the rule to /etc/udev/rules.d/%s, put your adapter's serial number in it "+
		"(udevadm info --attribute-walk --name=/dev/ttyUSB0 | grep serial), then run udevadm control --reload && udevadm trigger",
		ShoeDevice, rule.Path, rule.PlaceholderLine, Placeholder, ShoeRuleFile)
}

// ClockState is the kernel's view of the system clock's synchronisation
// (adjtimex(2) read-only).
type ClockState struct {
	// Synced is true when an NTP client (systemd-timesyncd, chrony, ntpd)
	// has disciplined the clock: STA_UNSYNC is clear and the maximum error
	// is below the kernel's 16 s limit (NTP_PHASE_LIMIT), at which it
	// marks the clock unsynchronised.
	Synced bool
	// MaxError is the kernel's maximum error estimate.
	MaxError time.Duration
}

// unsyncedMaxError is the kernel's NTP_PHASE_LIMIT (16 s), the maximum
// error it reports for a clock no NTP client has set.
const unsyncedMaxError = 16 * time.Second

// ReadClock reads the clock's synchronisation state with adjtimex(2) in
// read-only mode (no privilege needed; systemd's ProtectClock=yes refuses
// it, see systemd/sabotd.service).
func ReadClock() (ClockState, error) {
	var tx unix.Timex // Modes 0: read only
	if _, err := unix.Adjtimex(&tx); err != nil {
		return ClockState{}, fmt.Errorf("hostcheck: adjtimex: %w", err)
	}
	return clockState(tx), nil
}

func clockState(tx unix.Timex) ClockState {
	maxErr := time.Duration(tx.Maxerror) * time.Microsecond
	return ClockState{Synced: tx.Status&unix.STA_UNSYNC == 0 && maxErr < unsyncedMaxError, MaxError: maxErr}
}

// BrokerAddr returns the host:port to dial for an MQTT broker URL: its
// port, or for WebSocket URLs without one 80 (ws) or 443 (wss).
func BrokerAddr(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("hostcheck: broker %q: %w", "(a URL that does not parse)", err)
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("hostcheck: broker %q: no host", u.Redacted())
	}
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "ws":
			port = "80"
		case "wss":
			port = "443"
		default:
			return "", fmt.Errorf("hostcheck: broker %q: no port", u.Redacted())
		}
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

// DialBroker opens and closes a TCP connection to the broker at rawURL
// within timeout: it tells whether something listens there, not whether
// it speaks MQTT or accepts the credentials. Its errors name the URL with
// any password redacted.
func DialBroker(ctx context.Context, rawURL string, timeout time.Duration) error {
	addr, err := BrokerAddr(rawURL)
	if err != nil {
		return err
	}
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		u, _ := url.Parse(rawURL) // BrokerAddr parsed it
		return fmt.Errorf("hostcheck: broker %s: %w", u.Redacted(), err)
	}
	return c.Close()
}

// FileKind names what a file of mode m is, for errors about a path that
// must be something else: "a regular file", "a directory", "a character
// device", "a block device", "a FIFO", "a socket", "a symbolic link", or
// its mode ("mode ...") for anything else.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "mode " + m.String()
}
