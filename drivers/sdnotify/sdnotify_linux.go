//go:build linux

package sdnotify

import (
	"fmt"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
)

func send(state string) error {
	if _, err := daemon.SdNotify(false, state); err != nil {
		return fmt.Errorf("sdnotify: %w", err)
	}
	return nil
}

func watchdogInterval() time.Duration {
	d, err := daemon.SdWatchdogEnabled(false)
	if err != nil {
		return 0
	}
	return d
}
