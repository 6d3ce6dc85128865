package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/sabot-table/sabot/tableau"
)

func init() {
	register(&command{
		name:    "check",
		summary: "audit a shoe transcript against the tableau; prints coups, alerts and voids as JSON lines",
		run:     runCheck,
	})
}

const checkUsage = `usage: sabot check [--decks N] [--rules punto-banco|super6|ez] [--tie-pays 8|9]
                   [--cut-rule last-coup|one-more] [--markers auto|on|off]
                   [--advantage THRESHOLD] [FILE|-]

Reads a shoe transcript (FILE, or standard input if FILE is "-" or absent),
checks every coup against the punto banco tableau, and prints one JSON object
per line: coups, alerts and voids, in the order they happen.

With --advantage THRESHOLD (e.g. 0 or 0.01), when the first card of each coup
is drawn the exact odds of the rest of the shoe (the decks less every card
drawn so far, burn and surplus cards included) are computed, and an alert
{"type":"alert","code":"advantage","shoe":1,"coup":73,"bet":"dragon7","ev":0.0521}
is printed ahead of the coup for every offered bet whose expectation for the
player exceeds THRESHOLD (see sabot odds for bet names).

Exit status: 0 no alert, 1 at least one alert, 2 the input cannot be read or
parsed (nothing is printed on standard output then) or bad flags.

Flags:
`

// checkConfig is the parsed command line of `sabot check`.
type checkConfig struct {
	opts    tableau.Options
	markers string // auto, on, off
	file    string // "-" for standard input
	// advantage is the --advantage threshold; nil without the flag.
	advantage *float64
}

// errFlagsReported marks a flag syntax error that the flag package has
// already printed, with the usage, to stderr.
var errFlagsReported = errors.New("bad flags")

// parseCheckFlags parses the arguments of `sabot check`. It returns
// flag.ErrHelp for -h.
func parseCheckFlags(args []string, stderr io.Writer) (checkConfig, error) {
	var cfg checkConfig
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, checkUsage)
		fs.PrintDefaults()
	}
	decks := fs.Int("decks", tableau.DefaultDecks, "decks in the shoe, 1–8")
	rules := fs.String("rules", "punto-banco", "rule profile for settlement: punto-banco, super6 or ez")
	tie := fs.Int("tie-pays", 8, "tie payout: 8 (8:1) or 9 (9:1)")
	cut := fs.String("cut-rule", "last-coup", "end-of-shoe rule once the cut card is out: last-coup or one-more")
	fs.StringVar(&cfg.markers, "markers", "auto", "coup markers \"|\": on, off, or auto (on if the transcript has any)")
	fs.Func("advantage", "alert before each coup on every bet whose expectation for the player exceeds `THRESHOLD` (e.g. 0 or 0.01)", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("want a number such as 0 or 0.01")
		}
		cfg.advantage = &v
		return nil
	})
	// Flags may come before or after FILE ("sabot check shoe.txt --decks 6");
	// everything after "--" is an argument.
	var files []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return cfg, err
			}
			// The flag package has printed the error and the usage.
			return cfg, fmt.Errorf("%w: %w", errFlagsReported, err)
		}
		left := fs.Args()
		if len(left) == 0 {
			break
		}
		if n := len(rest) - len(left); n > 0 && rest[n-1] == "--" {
			files = append(files, left...)
			break
		}
		files = append(files, left[0])
		rest = left[1:]
	}
	var errs []error
	if *decks < 1 || *decks > tableau.MaxDecks {
		errs = append(errs, fmt.Errorf("--decks %d: want 1–%d", *decks, tableau.MaxDecks))
	}
	cfg.opts.Decks = *decks
	g, err := tableau.ParseGame(*rules)
	if err != nil {
		errs = append(errs, fmt.Errorf("--rules %q: want punto-banco, super6 or ez", *rules))
	}
	cfg.opts.Rules = tableau.Rules{Game: g, TiePays: *tie}
	if *tie != 8 && *tie != 9 {
		errs = append(errs, fmt.Errorf("--tie-pays %d: want 8 or 9", *tie))
	}
	cfg.opts.CutRule, err = tableau.ParseCutRule(*cut)
	if err != nil {
		errs = append(errs, fmt.Errorf("--cut-rule %q: want last-coup or one-more", *cut))
	}
	given := cfg.markers
	switch cfg.markers = strings.ToLower(cfg.markers); cfg.markers {
	case "auto", "on", "off":
	default:
		errs = append(errs, fmt.Errorf("--markers %q: want auto, on or off", given))
	}
	switch len(files) {
	case 0:
		cfg.file = "-"
	case 1:
		cfg.file = files[0]
	default:
		errs = append(errs, fmt.Errorf("want at most one FILE, got %d: %s", len(files), strings.Join(files, " ")))
	}
	return cfg, errors.Join(errs...)
}

// runCheck is `sabot check`. The whole transcript is parsed before any
// coup is folded, so a syntax error prints no coup at all.
func runCheck(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseCheckFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if errors.Is(err, errFlagsReported) {
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "sabot check: %v\n", err)
		return 2
	}

	in, name := stdin, "<stdin>"
	if cfg.file != "-" {
		f, err := os.Open(cfg.file)
		if err != nil {
			fmt.Fprintf(stderr, "sabot check: %v\n", err)
			return 2
		}
		defer f.Close()
		in, name = f, cfg.file
	}
	toks, err := tableau.ParseTranscript(in, name)
	if err != nil {
		var pe *tableau.ParseError
		if errors.As(err, &pe) {
			fmt.Fprintln(stderr, pe.Located())
		} else {
			fmt.Fprintf(stderr, "sabot check: %s: %v\n", name, err)
		}
		return 2
	}
	switch cfg.markers {
	case "on":
		cfg.opts.Markers = true
	case "auto":
		cfg.opts.Markers = tableau.HasMarkers(toks)
	}

	events, err := foldCheck(cfg, toks)
	if err != nil {
		fmt.Fprintf(stderr, "sabot check: %v\n", err)
		return 2
	}
	alerts := 0
	w := bufio.NewWriter(stdout)
	for i := range events {
		b, err := json.Marshal(events[i])
		if err != nil {
			fmt.Fprintf(stderr, "sabot check: encoding event: %v\n", err)
			return 2
		}
		w.Write(b)
		w.WriteByte('\n')
		if events[i].Kind == tableau.EventAlert {
			alerts++
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "sabot check: writing output: %v\n", err)
		return 2
	}
	if alerts > 0 {
		return 1
	}
	return 0
}

// foldCheck folds the transcript, with the advantage check before each coup
// when --advantage is given (issue 3).
func foldCheck(cfg checkConfig, toks []tableau.Token) ([]tableau.Event, error) {
	if cfg.advantage == nil {
		return tableau.FoldTokens(cfg.opts, toks)
	}
	f, err := tableau.NewFold(cfg.opts)
	if err != nil {
		return nil, err
	}
	var out []tableau.Event
	for _, t := range toks {
		out = f.FeedAdvantages(t, *cfg.advantage, out)
	}
	return f.End(out), nil
}
