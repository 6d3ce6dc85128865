package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabot-table/sabot/drivers/hostcheck"
	"github.com/sabot-table/sabot/drivers/sdnotify"
)

// systemClockSynced reports whether the system clock is synchronised
// (clockSyncedFrom with hostcheck.ReadClock). It is the default of
// Main.ClockSynced; the package's tests replace it (TestMain), since the
// test machine's clock has nothing to do with what they test.
var systemClockSynced = func(file string) (bool, error) {
	return clockSyncedFrom(file, hostcheck.ReadClock)
}

// clockSyncedFrom tells whether the clock is synchronised: yes when file
// exists ("" skips it); else what adjtimex says (read). The unit's
// ProtectClock=yes refuses adjtimex (EPERM): then, when file's directory
// exists (systemd-timesyncd runs but has not synchronised), no; otherwise
// the error, and sabotd does not wait (the unit is ordered after
// time-sync.target for other NTP daemons).
func clockSyncedFrom(file string, read func() (hostcheck.ClockState, error)) (bool, error) {
	if file != "" {
		if _, err := os.Stat(file); err == nil {
			return true, nil
		}
	}
	st, err := read()
	if err == nil {
		return st.Synced, nil
	}
	if file != "" && errors.Is(err, unix.EPERM) {
		if fi, derr := os.Stat(filepath.Dir(file)); derr == nil && fi.IsDir() {
			return false, nil
		}
	}
	return false, err
}

// clockPoll is how often waitForClock asks whether the clock is
// synchronised.
const clockPoll = time.Second

// clockWaitMsg is logged, and shown by systemctl status, while sabotd waits
// for the clock.
const clockWaitMsg = "waiting for the clock to be synchronised (no RTC)…"

// waitForClock runs at start, after the journal is replayed and before
// anything can stamp an input (the MQTT commands, the board's keys, the
// shoe): a Pi has no RTC, so until NTP sets it its clock is where it was
// at the last shutdown, and the times journaled and the shoe ids minted
// would be wrong. If the clock is not synchronised it logs so and waits up
// to [state] clock_wait, polling every d.clockPoll, telling systemd to
// extend the start timeout and keeping the watchdog fed. Past clock_wait
// it goes on with a warning: the first inputs carry the unsynchronised
// time and the jump that NTP makes later is journaled as clock-jump
// (clock.go). It returns ctx's error if ctx ends first (a stop), and
// nothing otherwise: a clock that cannot be read (adjtimex refused,
// no timesyncd) is logged and not waited for.
func (d *daemon) waitForClock(ctx context.Context) error {
	wait := d.cfg.State.ClockWaitDuration()
	if wait <= 0 || d.demo.Enabled {
		return nil
	}
	synced := d.clockSynced
	if synced == nil {
		synced = func() (bool, error) { return systemClockSynced(d.cfg.State.ClockSyncedFile) }
	}
	ok, err := synced()
	if err != nil {
		d.log.Warn("cannot tell whether the clock is synchronised; not waiting for it", "err", err, "now", time.Now().UTC())
		return nil
	}
	if ok {
		return nil
	}
	start := time.Now()
	d.log.Warn(clockWaitMsg, "clock_wait", wait.String(), "now", start.UTC(),
		"hint", "[state] clock_wait bounds the wait; enable systemd-time-wait-sync.service to hold the start until NTP has set the clock")
	if err := sdnotify.ExtendTimeout(wait+30*time.Second, clockWaitMsg); err != nil {
		d.log.Warn("systemd notify", "err", err)
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	go sdnotify.RunWatchdog(wctx, nil)
	poll := d.clockPoll
	if poll <= 0 {
		poll = clockPoll
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wctx.Done():
			// wctx is ctx's child: a stop ends both, and select may pick
			// this case; a stop is not a timeout.
			if err := ctx.Err(); err != nil {
				return err
			}
			d.log.Warn("the clock is still not synchronised after [state] clock_wait; going on: inputs are stamped with the unsynchronised time until NTP sets the clock, and that jump is journaled as clock-jump",
				"clock_wait", wait.String(), "now", time.Now().UTC())
			return nil
		case <-t.C:
			ok, err := synced()
			if err != nil {
				d.log.Warn("cannot tell whether the clock is synchronised; not waiting any longer", "err", err)
				return nil
			}
			if ok {
				d.log.Info("the clock is synchronised", "waited", time.Since(start).Round(time.Millisecond).String(), "now", time.Now().UTC())
				return nil
			}
		}
	}
}
