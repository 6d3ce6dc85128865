package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/cmd/internal/demo"
	buildversion "github.com/sabot-table/sabot/cmd/internal/version"
	"github.com/sabot-table/sabot/drivers/board"
	"github.com/sabot-table/sabot/drivers/hostcheck"
	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/drivers/shoe"
)

// LinkedVersion is the version linked into the sabotd binary (its
// main.version, set with -ldflags "-X main.version=v1.2.3"); cmd/sabotd
// sets it before anything runs. Empty: the module version from the build
// info is used (cmd/internal/version).
var LinkedVersion = ""

// Version returns sabotd's version string (cmd/internal/version).
func Version() string { return buildversion.String(LinkedVersion) }

// StopTimeout bounds a graceful stop: systemd's TimeoutStopSec is longer.
const StopTimeout = 9 * time.Second

// errConfig marks a startup error that only a configuration change can
// fix (a pin name the GPIO chip does not have, ...): sabotd exits 2, which
// the systemd unit does not restart (RestartPreventExitStatus=2).
var errConfig = errors.New("configuration")

// ExitCode is the exit status for an error from Run: 2 for
// configuration errors (the config file's and the board's, an adapter
// refusing [shoe] rs485 = "kernel"), a state directory written by a newer
// sabotd, and a shoe device another process holds; 1 otherwise (a device
// or the network: restarting may help).
//
// A held shoe is 2, not 1: under the unit (Restart=always, restarts wait
// for the old process to be gone) the holder is another sabotd started with
// another configuration, which a restart cannot fix; restarting every
// second would only fill the log and, worse, grab the shoe the moment the
// other daemon restarts, splitting the table between two daemons. A locked
// state directory stays 1: `sabot` commands read the journal under a shared
// lock for a while, and a restart then succeeds.
func ExitCode(err error) int {
	if errors.Is(err, errConfig) || errors.Is(err, board.ErrConfig) || errors.Is(err, shoe.ErrRS485) || errors.Is(err, errShoeBusy) ||
		errors.Is(err, journal.ErrNewerFormat) || errors.Is(err, mqtt.ErrNewerOutbox) {
		return 2
	}
	return 1
}

// Main is the sabotd program: its options, configuration and the running
// daemon.
type Main struct {
	// ConfigPath is the --config file.
	ConfigPath string
	// Config is the effective configuration once Setup returns.
	Config config.Config
	// Demo holds the --demo flags.
	Demo demo.Options

	Stdout, Stderr io.Writer

	// ClockSynced reports whether the system clock is synchronised; nil
	// reads [state] clock_synced_file, then adjtimex (clockSyncedFrom). Run waits for it up to
	// [state] clock_wait (clockwait.go).
	ClockSynced func() (bool, error)
	// UdevRuleDirs are udev's rule directories, where --print-config looks
	// for the shoe rule's placeholder serial; nil: hostcheck.DefaultRuleDirs.
	UdevRuleDirs []string
	clockPoll    time.Duration // waitForClock's polling interval (0: clockPoll)

	// ExitEarly is set by Setup when --version or --print-config
	// was handled: Run is not to be called and the program exits 0.
	ExitEarly bool
	d         *daemon
}

// NewMain returns a Main writing to the process's stdout and stderr.
func NewMain() *Main {
	return &Main{Stdout: os.Stdout, Stderr: os.Stderr, Config: config.Default()}
}

// Options are sabotd's command line, as cmd/sabotd parses it.
type Options struct {
	// ConfigPath is --config; "": DefaultConfigPath, or the demo's own
	// configuration with --demo.
	ConfigPath  string
	PrintConfig bool // --print-config: print the effective configuration
	Version     bool // --version: print the version
	// Demo are the --demo flags; Demo.Rate "" is "watchable".
	Demo demo.Options
}

// DefaultConfigPath is where sabotd reads its configuration without
// --config (the package installs it there).
const DefaultConfigPath = "/etc/sabot/sabotd.toml"

// Setup does what the command line asks before Run: --version and
// --print-config print and set ExitEarly (Run is then not to be called;
// main exits 0); otherwise it checks the --demo options and loads the
// configuration into Config. Errors name the flag (a bad --demo
// combination) or are the configuration's (*config.Error: file, line,
// column, key).
func (m *Main) Setup(o Options) error {
	m.ConfigPath, m.Demo = o.ConfigPath, o.Demo
	if m.Demo.Rate == "" {
		m.Demo.Rate = "watchable"
	}
	if o.Version {
		fmt.Fprintln(m.Stdout, "sabotd", Version())
		m.ExitEarly = true
		return nil
	}
	if m.Demo.Rate != "watchable" && m.Demo.Rate != "fast" {
		return fmt.Errorf("--demo-rate %q: want \"watchable\" or \"fast\"", m.Demo.Rate)
	}
	if !m.Demo.Enabled && (m.Demo.Errors || m.Demo.Coups != 0) {
		return errors.New("--demo-errors and --demo-coups need --demo")
	}
	if m.Demo.Coups < 0 {
		return fmt.Errorf("--demo-coups %d: must not be negative", m.Demo.Coups)
	}
	switch {
	case m.ConfigPath != "":
		cfg, err := config.Load(m.ConfigPath)
		if err != nil {
			return err
		}
		m.Config = cfg
	case m.Demo.Enabled:
		m.Config = demo.Config()
	default:
		m.ConfigPath = DefaultConfigPath
		cfg, err := config.Load(m.ConfigPath)
		if err != nil {
			if o.PrintConfig && errors.Is(err, os.ErrNotExist) {
				// Show the defaults when there is no file yet.
				m.Config = config.Default()
				break
			}
			return err
		}
		m.Config = cfg
	}
	if o.PrintConfig {
		out, err := config.Marshal(m.Config)
		if err != nil {
			return fmt.Errorf("config: %w", err)
		}
		m.Stdout.Write(out)
		// Standard output stays the configuration; the warning goes to
		// standard error and does not change the exit status.
		if w := hostcheck.PlaceholderWarning(m.Config.Shoe.Device, m.UdevRuleDirs); w != "" {
			fmt.Fprintln(m.Stderr, "sabotd: warning:", w)
		}
		m.ExitEarly = true
	}
	return nil
}

// Run starts the daemon and returns once it is running (journal replayed,
// devices open, ready reported to systemd). It returns an error if startup
// fails. Stop it with Close.
func (m *Main) Run(ctx context.Context) error {
	d, err := newDaemon(m.Config, m.Demo, m.Stdout, m.Stderr)
	if err != nil {
		return err
	}
	d.clockSynced, d.clockPoll = m.ClockSynced, m.clockPoll
	m.d = d
	d.configPath = m.ConfigPath // hashed for the audit trail (audit.go)
	return d.start(ctx)
}

// Done is closed when the daemon stops by itself (a finished --demo-coups
// run or a fatal error); see Err.
func (m *Main) Done() <-chan struct{} {
	if m.d == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return m.d.done
}

// Err returns why the daemon stopped by itself, or nil.
func (m *Main) Err() error {
	if m.d == nil {
		return nil
	}
	return m.d.err()
}

// Close stops the daemon gracefully: stop reading the shoe, flush the
// outbox for a few seconds, publish offline, release GPIO and the port.
// It returns within StopTimeout.
func (m *Main) Close() error {
	if m.d == nil {
		return nil
	}
	return m.d.close()
}
