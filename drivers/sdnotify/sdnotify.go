// Package sdnotify tells systemd how sabotd is doing: readiness
// (Type=notify units), stopping, a status line, and the watchdog keep-alive
// (WatchdogSec=). It is a thin layer over github.com/coreos/go-systemd/v22's
// daemon package on Linux and does nothing elsewhere (sdnotify_other.go).
//
// Every function is a no-op returning nil when the process was not started
// by systemd with a notification socket (NOTIFY_SOCKET unset), so the
// daemon calls them unconditionally.
package sdnotify

import (
	"context"
	"strconv"
	"time"
)

// Ready reports that startup is finished (READY=1). status, if not empty,
// is sent as the STATUS= line shown by systemctl status.
func Ready(status string) error { return send(withStatus("READY=1", status)) }

// Stopping reports that a graceful stop has begun (STOPPING=1).
func Stopping() error { return send("STOPPING=1") }

// Status sets the free-form status line shown by systemctl status.
func Status(status string) error { return send("STATUS=" + status) }

// ExtendTimeout asks systemd for d more before the start (or stop) times
// out (EXTEND_TIMEOUT_USEC=, systemd 236+): sabotd sends it before it
// waits for the clock, which may take longer than TimeoutStartSec. status,
// if not empty, is sent as the STATUS= line.
func ExtendTimeout(d time.Duration, status string) error {
	return send(withStatus("EXTEND_TIMEOUT_USEC="+strconv.FormatInt(d.Microseconds(), 10), status))
}

func withStatus(state, status string) string {
	if status == "" {
		return state
	}
	return state + "\nSTATUS=" + status
}

// WatchdogInterval returns the watchdog timeout systemd expects this process
// to honour (WatchdogSec=), or 0 if the watchdog is off for this process.
func WatchdogInterval() time.Duration { return watchdogInterval() }

// RunWatchdog sends WATCHDOG=1 every half watchdog interval while healthy
// returns true, until ctx is done. When healthy returns false it skips the
// keep-alive, so systemd restarts a daemon whose main loop is stuck. It
// returns at once if the watchdog is off. healthy may be nil (always
// healthy).
func RunWatchdog(ctx context.Context, healthy func() bool) {
	iv := WatchdogInterval()
	if iv <= 0 {
		return
	}
	t := time.NewTicker(iv / 2)
	defer t.Stop()
	for {
		if healthy == nil || healthy() {
			send("WATCHDOG=1")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
