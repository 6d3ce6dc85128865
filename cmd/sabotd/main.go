// Command sabotd is Sabot's table daemon: it reads every card from the
// card-reading shoe, checks it against the tableau the moment it is drawn,
// shows the totals, raises dealer-error alerts and publishes cards, coups,
// alerts and scoreboard state over MQTT. Every input event is applied to
// the table in memory and shown, then journaled (fsynced), and only then
// published or acknowledged to the shoe, so that nothing is lost across
// crashes (the order: process in cmd/internal/daemon/loop.go).
//
// Usage:
//
//	sabotd --config /etc/sabot/sabotd.toml
//	sabotd --print-config [--config FILE]
//	sabotd --version
//	sabotd --demo [--demo-errors] [--demo-coups N] [--demo-rate watchable|fast]
//
// main is thin: signals and exit codes. The flags and the program are
// cmd/internal/daemon's Main (ParseFlags, Run, Close), so tests boot the
// real program in-process.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/sabot-table/sabot/cmd/internal/daemon"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version from the build info is used.
var version = ""

func main() {
	daemon.LinkedVersion = version
	m := daemon.NewMain()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := m.ParseFlags(ctx, os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		if !errors.Is(err, daemon.ErrUsage) {
			fmt.Fprintln(os.Stderr, "sabotd:", err)
		}
		os.Exit(2)
	}
	if m.ExitEarly {
		os.Exit(0)
	}
	if err := m.Run(ctx); err != nil {
		m.Close()
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			// SIGTERM or Ctrl-C while starting (during the clock wait,
			// say): a clean stop, not a failure.
			fmt.Fprintln(os.Stderr, "sabotd: stopped while starting")
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "sabotd:", err)
		os.Exit(daemon.ExitCode(err))
	}
	select {
	case <-ctx.Done():
	case <-m.Done():
	}
	stop()
	code := 0
	if err := m.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "sabotd:", err)
		code = 1
	}
	if err := m.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "sabotd:", err)
		code = 1
	}
	os.Exit(code)
}
