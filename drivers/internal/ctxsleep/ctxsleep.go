// Package ctxsleep is the pause between two attempts of a driver's loop
// (the shoe link reopening its port, the MQTT publisher reconnecting): a
// sleep that a cancelled context cuts short.
package ctxsleep

import (
	"context"
	"time"
)

// Sleep waits d or until ctx is done; it reports whether it waited the
// full d (false: ctx is done).
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
