//go:build !linux

package sdnotify

import "time"

func send(string) error { return nil }

func watchdogInterval() time.Duration { return 0 }
