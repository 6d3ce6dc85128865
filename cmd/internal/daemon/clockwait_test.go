package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/drivers/hostcheck"
	"github.com/sabot-table/sabot/drivers/testenv"
)

// clockWaitConfig is a daemon with nothing to wait for but the clock.
func clockWaitConfig(t *testing.T, wait string) string {
	dir := t.TempDir()
	return fmt.Sprintf(`table = "CLK-1"
[shoe]
device = %q
protocol = "lines"
[mqtt]
embedded_addr = "127.0.0.1:0"
[display]
kind = "none"
[state]
dir = %q
clock_wait = %q
[http]
addr = "off"
`, filepath.Join(dir, "no-shoe"), filepath.Join(dir, "state"), wait)
}

// startWithClock runs a Main whose clock probe answers synced from its
// n-th call (never when n is 0), counting the calls; onProbe, if not nil,
// is called with each call's number.
func startWithClock(t *testing.T, ctx context.Context, conf string, n int64, onProbe func(int64)) (*Main, *syncBuffer, *atomic.Int64, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sabotd.toml")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	m := NewMain()
	logs := &syncBuffer{}
	m.Stderr = logs
	if err := m.Setup(Options{ConfigPath: path}); err != nil {
		t.Fatal(err)
	}
	calls := &atomic.Int64{}
	m.ClockSynced = func() (bool, error) {
		c := calls.Add(1)
		if onProbe != nil {
			onProbe(c)
		}
		return n > 0 && c >= n, nil
	}
	m.clockPoll = 5 * time.Millisecond
	err := m.Run(ctx)
	t.Cleanup(func() { m.Close() })
	return m, logs, calls, err
}

// TestClockWaitThenSynced: the clock is synchronised at the 4th look;
// sabotd says it waits, then that the clock is set, before it starts
// anything that stamps an input (MQTT, the shoe).
func TestClockWaitThenSynced(t *testing.T) {
	_, logs, calls, err := startWithClock(t, context.Background(), clockWaitConfig(t, "1h"), 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 4 {
		t.Errorf("clock probed %d times, want 4 (3 unsynchronised, then synchronised)", calls.Load())
	}
	l := logs.String()
	wait := strings.Index(l, `msg="waiting for the clock to be synchronised (no RTC)…" clock_wait=1h0m0s`)
	synced := strings.Index(l, `msg="the clock is synchronised"`)
	broker := strings.Index(l, "embedded MQTT broker listening")
	if wait < 0 || synced < wait || broker < synced {
		t.Fatalf("want the wait, the sync, then the broker logged in order (at %d, %d, %d):\n%s", wait, synced, broker, l)
	}
	if strings.Contains(l, "still not synchronised") {
		t.Errorf("timeout logged although the clock was synchronised:\n%s", l)
	}
}

// TestClockWaitTimeout: a clock that never synchronises holds the start
// for clock_wait, then sabotd goes on with a warning.
func TestClockWaitTimeout(t *testing.T) {
	m, logs, calls, err := startWithClock(t, context.Background(), clockWaitConfig(t, "200ms"), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := logs.String()
	if !strings.Contains(l, `msg="waiting for the clock to be synchronised (no RTC)…" clock_wait=200ms`) ||
		!strings.Contains(l, `msg="the clock is still not synchronised after [state] clock_wait; going on: inputs are stamped with the unsynchronised time until NTP sets the clock, and that jump is journaled as clock-jump" clock_wait=200ms`) {
		t.Fatalf("wait and timeout not logged:\n%s", l)
	}
	if calls.Load() < 2 {
		t.Errorf("clock probed %d times, want the first look and at least one poll", calls.Load())
	}
	if !m.d.health().OK {
		t.Errorf("not healthy after going on: %+v", m.d.health())
	}
}

// TestClockWaitStop: a stop while waiting ends the start at once.
// The stop comes at the wait's second look at the clock, so the test does
// not depend on how long the start takes before the wait (a 50 ms timer
// did, and under load fired before the wait began).
func TestClockWaitStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, _, calls, err := startWithClock(t, ctx, clockWaitConfig(t, "1h"), 0, func(c int64) {
		if c == 2 {
			cancel()
		}
	})
	if calls.Load() < 2 {
		t.Fatalf("clock probed %d times: the wait did not begin", calls.Load())
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

// TestClockWaitOff: clock_wait = "0s" does not even look at the clock;
// the default is 90 s.
func TestClockWaitOff(t *testing.T) {
	_, logs, calls, err := startWithClock(t, context.Background(), clockWaitConfig(t, "0s"), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 0 || strings.Contains(logs.String(), "waiting for the clock") {
		t.Errorf("clock_wait 0s: probed %d times\n%s", calls.Load(), logs.String())
	}
	if got := config.Default().State.ClockWaitDuration(); got != 90*time.Second {
		t.Errorf("default clock_wait %v, want 90s", got)
	}
}

func TestClockWaitConfig(t *testing.T) {
	for _, v := range []string{"-1s", "2h", "ninety"} {
		_, err := config.Parse([]byte("table = \"T\"\n[shoe]\ndevice = \"/dev/null\"\n[state]\ndir = \"/tmp/x\"\nclock_wait = \""+v+"\"\n"), "c.toml")
		want := fmt.Sprintf(`config: c.toml:6: state.clock_wait: %q: want a duration from "0s" (do not wait) to "1h0m0s", e.g. "90s"`, v)
		if err == nil || err.Error() != want {
			t.Errorf("clock_wait %q:\n got %v\nwant %s", v, err, want)
		}
	}
}

// TestUnitHardening: the unit waits for time-sync.target, protects the
// clock (ProtectClock=yes, no adjtimex allowed back: sabotd reads
// timesyncd's file instead), refuses @privileged and @resources with EPERM
// rather than a kill, and systemd-analyze security rates its exposure 2.0
// or less (it was 2.2 with adjtimex allowed, 1.7 before that). The
// exposure is checked where systemd-analyze is (required under CI=true).
func TestUnitHardening(t *testing.T) {
	unit := string(mustRead(t, "../../../systemd/sabotd.service"))
	for _, want := range []string{"\nWants=network-online.target time-sync.target\n", "\nAfter=network-online.target time-sync.target\n",
		"\nSystemCallErrorNumber=EPERM\n", "\nProtectClock=yes\n", "\nSystemCallFilter=~@privileged @resources\n"} {
		if !strings.Contains(unit, want) {
			t.Errorf("sabotd.service lacks %q", strings.TrimSpace(want))
		}
	}
	if strings.Contains(unit, "\nSystemCallFilter=adjtimex") {
		t.Error("sabotd.service allows adjtimex back")
	}
	analyze := testenv.NeedProgram(t, "systemd-analyze")
	out, err := exec.Command(analyze, "security", "--offline=true", "../../../systemd/sabotd.service").CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Overall exposure level for sabotd\.service: ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no exposure level in:\n%s", out)
	}
	level, _ := strconv.ParseFloat(string(m[1]), 64)
	if level > 2.0 {
		t.Errorf("exposure level %.1f, want 2.0 or less", level)
	}
	t.Logf("MEASURE systemd-analyze security --offline=true: exposure %.1f", level)
}

// clockSyncedFrom: timesyncd's file says synchronised whatever adjtimex
// says; without it adjtimex decides; adjtimex refused (the unit's
// ProtectClock=yes) is "not yet" when timesyncd's directory exists, and an
// error (do not wait) when it does not.
func TestClockSyncedFrom(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "timesync", "synchronized")
	refused := func() (hostcheck.ClockState, error) {
		return hostcheck.ClockState{}, fmt.Errorf("hostcheck: adjtimex: %w", unix.EPERM)
	}
	unsynced := func() (hostcheck.ClockState, error) { return hostcheck.ClockState{Synced: false}, nil }
	synced := func() (hostcheck.ClockState, error) { return hostcheck.ClockState{Synced: true}, nil }
	check := func(what, file string, read func() (hostcheck.ClockState, error), want bool, wantErr bool) {
		t.Helper()
		got, err := clockSyncedFrom(file, read)
		if got != want || (err != nil) != wantErr {
			t.Errorf("%s: %v, %v; want %v, error %v", what, got, err, want, wantErr)
		}
	}
	check("no timesyncd, adjtimex refused", file, refused, false, true)
	check("no timesyncd, adjtimex unsynced", file, unsynced, false, false)
	check("no timesyncd, adjtimex synced", file, synced, true, false)
	if err := os.Mkdir(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	check("timesyncd not yet, adjtimex refused", file, refused, false, false)
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	check("timesyncd synchronised, adjtimex refused", file, refused, true, false)
	check("timesyncd synchronised, adjtimex unsynced", file, unsynced, true, false)
	check("no file configured, adjtimex refused", "", refused, false, true)
}
