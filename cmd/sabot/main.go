// Command sabot is Sabot's command-line tool: it audits recorded shoes
// (check), computes exact odds (odds), draws scoreboard roads and emulates a
// card-reading shoe (shoe-sim) without hardware, and checks a Pi's setup
// for sabotd (doctor).
//
// Each subcommand lives in its own file and registers itself in init with
// register. Exit status: 0 success, 1 the input was read and has findings
// (alerts), 2 usage or input errors.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	buildversion "github.com/sabot-table/sabot/cmd/internal/version"
)

// command is one subcommand. run gets the arguments after the subcommand's
// name and returns the process exit status.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands = map[string]*command{}

// register adds a subcommand; it panics on a duplicate name (a programming
// error caught by any test run).
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("sabot: duplicate command " + c.name)
	}
	commands[c.name] = c
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// errFlagsPrinted is returned for a flag the flag package has already
// complained about (with the usage): the caller exits 2 without saying it
// again.
var errFlagsPrinted = errors.New("sabot: bad flag (printed)")

// newFlagSet is the flag set of subcommand name: Parse returns its
// errors (ContinueOnError), and the flag package writes them, and -h's
// usage (usage, then the flags' defaults), to stderr.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags is fs.Parse(args), with errFlagsPrinted for a bad flag (the
// flag package prints it and the usage) and flag.ErrHelp for -h.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errFlagsPrinted
	}
	return nil
}

// flagValue is parse(v), the value of flag --name; when v does not parse
// it appends the error `--name "v": want WANT` to *errs (the flag's
// value alone, parse's own error dropped) and returns parse's result.
func flagValue[T any](errs *[]error, name, v, want string, parse func(string) (T, error)) T {
	x, err := parse(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("--%s %q: want %s", name, v, want))
	}
	return x
}

// parsed is a subcommand whose flags parse gives the configuration that
// its package's run takes: flagsExit's status for -h and bad flags (the
// errors prefixed with prefix), else run's.
func parsed[C any](prefix string, parse func([]string, io.Writer) (C, error),
	run func(context.Context, C, io.Reader, io.Writer, io.Writer) int) func(context.Context, []string, io.Reader, io.Writer, io.Writer) int {
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		cfg, err := parse(args, stderr)
		if code, exit := flagsExit(err, stderr, prefix); exit {
			return code
		}
		return run(ctx, cfg, stdin, stdout, stderr)
	}
}

// flagsExit maps the error of a subcommand's flag parsing to its exit
// status, exit false for nil (carry on): 0 for -h (flag.ErrHelp, the usage
// printed), 2 for a flag the flag package has printed (errFlagsPrinted),
// and 2 for any other error, printed on stderr after prefix ("sabot odds:
// ", or "" for errors that name their command).
func flagsExit(err error, stderr io.Writer, prefix string) (code int, exit bool) {
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return 0, true
	case !errors.Is(err, errFlagsPrinted):
		fmt.Fprintf(stderr, "%s%v\n", prefix, err)
	}
	return 2, true
}

// version is set at build time with -ldflags "-X main.version=v1.2.3"
// (.ci/package), as sabotd's.
var version = ""

// run dispatches args[0] to its subcommand.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		fmt.Fprintln(stdout, "sabot", buildversion.String(version))
		return 0
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "sabot: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(ctx, args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: sabot COMMAND [flags] [args]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'sabot COMMAND -h' for a command's flags.")
}

// listFlag is a repeatable string flag appending to *vals. The flag package
// calls String on a zero listFlag (vals nil) to learn the default, so String
// must not dereference a nil vals.
type listFlag struct{ vals *[]string }

// String joins the values with commas.
func (l listFlag) String() string {
	if l.vals == nil {
		return ""
	}
	return strings.Join(*l.vals, ",")
}

// Set appends one value.
func (l listFlag) Set(s string) error { *l.vals = append(*l.vals, s); return nil }
