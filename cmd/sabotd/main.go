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
// main is thin: flags, signals and exit codes. The program is
// cmd/internal/daemon's Main (Setup, Run, Close), so tests boot the real
// program in-process.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
	opts, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2) // the flag package or parseFlags printed the usage
	}
	if err := m.Setup(opts); err != nil {
		fmt.Fprintln(os.Stderr, "sabotd:", err)
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

// errUsage is parseFlags' error for a bad command line once the usage has
// been printed: main exits 2 without printing it again.
var errUsage = errors.New("usage")

// parseFlags parses sabotd's command line. It returns flag.ErrHelp for -h
// and errUsage for a bad flag or an argument (the usage printed on
// stderr).
func parseFlags(args []string, stderr io.Writer) (daemon.Options, error) {
	var o daemon.Options
	fs := flag.NewFlagSet("sabotd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.ConfigPath, "config", "", "configuration `file` (TOML; default /etc/sabot/sabotd.toml unless --demo)")
	fs.BoolVar(&o.PrintConfig, "print-config", false, "print the effective configuration, defaults included, and exit")
	fs.BoolVar(&o.Version, "version", false, "print the version and exit")
	fs.BoolVar(&o.Demo.Enabled, "demo", false, "run without hardware: embedded broker, virtual shoe on a pty, terminal display")
	fs.BoolVar(&o.Demo.Errors, "demo-errors", false, "with --demo: inject dealer errors")
	fs.IntVar(&o.Demo.Coups, "demo-coups", 0, "with --demo: deal `N` coups, check each came back from the broker, exit 0 (1 if any was lost)")
	fs.StringVar(&o.Demo.Rate, "demo-rate", "watchable", "with --demo: dealing pace, \"watchable\" or \"fast\"")
	fs.Int64Var(&o.Demo.Seed, "demo-seed", 0, "with --demo: shuffle `seed` (0: random)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: sabotd [--config FILE] [--print-config] [--version] [--demo [--demo-errors] [--demo-coups N] [--demo-rate watchable|fast]]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sabotd: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return o, errUsage
	}
	return o, nil
}
