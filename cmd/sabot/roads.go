package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"
)

func init() {
	register(&command{
		name:    "roads",
		summary: "draw the scoreboard roads (bead plate, big road, derived roads, ask-road, statistics) of each shoe as JSON lines",
		run:     runRoads,
	})
}

const roadsUsage = `usage: sabot roads [check's flags] [FILE|-]
       sabot roads --results BPPTB...

Reads a shoe transcript (FILE, or standard input if FILE is "-" or absent),
folds it as sabot check does (same flags: --decks, --rules, --tie-pays,
--cut-rule, --markers; see sabot check -h), and prints the roads of each
shoe as one JSON object per line: bead_plate, big_road, big_eye_boy,
small_road, cockroach_pig, ask, stats and the drawn grids (the contract is
drivers/mqtt/schema/roads.json, without the MQTT envelope). Voided coups
are on no road.

With --results, the results are given directly, one letter per coup
(B banker, P player, T tie; case and white space ignored), as one shoe
whose cards are not known.

Roads are drawn for the games with one winner per coup: punto banco (and
super6, ez) and chemin de fer (punter, banker, tie). --game banque, macao
and victoria have none (exit 2).

Exit status: 0 success, 1 the transcript has no card, 2 the input cannot be
read or parsed (nothing is printed on standard output then), bad flags or
a game without roads.
`

// maxResultsFlag bounds --results (letters, white space included): a
// command line, not a year of coups.
const maxResultsFlag = 1 << 20

// parseResults parses the --results argument.
func parseResults(s string) ([]tableau.CoupResult, error) {
	if len(s) > maxResultsFlag {
		return nil, fmt.Errorf("--results: %d bytes, limit %d", len(s), maxResultsFlag)
	}
	var out []tableau.CoupResult
	for i, c := range s {
		var w tableau.Winner
		switch c {
		case 'B', 'b':
			w = tableau.WinnerBanker
		case 'P', 'p':
			w = tableau.WinnerPlayer
		case 'T', 't':
			w = tableau.WinnerTie
		case ' ', '\t', '\n', '\r', ',':
			continue
		default:
			return nil, fmt.Errorf("--results: %q at byte %d: want B, P or T", c, i+1)
		}
		out = append(out, tableau.CoupResult{Coup: len(out) + 1, Winner: w})
	}
	return out, nil
}

// splitResultsFlag takes --results (or -results, with "=" or as the next
// argument) out of args; the rest are check's flags and FILE.
func splitResultsFlag(args []string) (rest []string, results *string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "results" {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, nil, errors.New("--results: missing value (a string such as BPPTB)")
			}
			i++
			val = args[i]
		}
		if results != nil {
			return nil, nil, errors.New("--results given twice")
		}
		results = &val
	}
	return rest, results, nil
}

// runRoads is `sabot roads`.
func runRoads(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" {
			fmt.Fprint(stderr, roadsUsage)
			return 0
		}
	}
	rest, results, err := splitResultsFlag(args)
	if err != nil {
		fmt.Fprintf(stderr, "sabot roads: %v\n", err)
		return 2
	}
	if results != nil {
		if len(rest) > 0 {
			fmt.Fprintf(stderr, "sabot roads: --results takes no other flag or FILE, got %s\n", strings.Join(rest, " "))
			return 2
		}
		rs, err := parseResults(*results)
		if err != nil {
			fmt.Fprintf(stderr, "sabot roads: %v\n", err)
			return 2
		}
		return writeRoads(stdout, stderr, []display.Roads{display.BuildRoads(display.RoadsInput{Shoe: 1, Results: rs, CardsLeft: -1})})
	}

	cfg, err := parseCheckFlags(rest, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if errors.Is(err, errFlagsReported) {
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "sabot roads: %v\n", err)
		return 2
	}
	if g := cfg.opts.Rules.Game; cfg.macao != nil || g == tableau.GameBanque {
		// The roads are those of the games with one winner per coup.
		name := g.Name()
		switch {
		case cfg.macao != nil && cfg.macao.Rules.Victoria:
			name = "victoria"
		case cfg.macao != nil:
			name = "macao"
		}
		fmt.Fprintf(stderr, "sabot roads: --game %s has no roads: its coups have a result per tableau or seat, not one winner (roads: punto-banco, super6, ez, chemin-de-fer)\n", name)
		return 2
	}
	in, err := openCheckInput(cfg.file, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "sabot roads: %v\n", err)
		return 2
	}
	defer in.close()
	// Two passes, as sabot check: a parse error prints nothing on standard
	// output, and --markers auto learns whether there is a "|".
	sc, err := scanTranscript(ctx, in)
	if err != nil {
		printRoadsError(stderr, in.name, err)
		return 2
	}
	if sc.cards == 0 {
		fmt.Fprintf(stderr, "sabot roads: %s: no cards (%d bytes, no coup to draw)\n", in.name, sc.size)
		return 1
	}
	switch cfg.markers {
	case "on":
		cfg.opts.Markers = true
	case "auto":
		cfg.opts.Markers = sc.markers
	}
	second, err := in.second(sc.size)
	if err != nil {
		fmt.Fprintf(stderr, "sabot roads: %s: %v\n", in.name, err)
		return 2
	}
	if err := foldRoads(ctx, cfg.opts, second, in.name, stdout); err != nil {
		printRoadsError(stderr, in.name, err)
		return 2
	}
	return 0
}

func printRoadsError(stderr io.Writer, name string, err error) {
	var pe *tableau.ParseError
	if errors.As(err, &pe) {
		fmt.Fprintln(stderr, pe.Located())
		return
	}
	fmt.Fprintf(stderr, "sabot roads: %s: %v\n", name, err)
}

// foldRoads folds the transcript r token by token and writes the roads of
// each shoe as a JSON line when the shoe ends. Memory is constant: the
// fold's state, the shoe's statistics (display.Tally) and its last
// display.MaxRoadCoups + 1 results (one more, so that a void of the last
// coup leaves a full window).
func foldRoads(ctx context.Context, opts tableau.Options, r io.Reader, name string, stdout io.Writer) error {
	f, err := tableau.NewFold(opts)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	const window = display.MaxRoadCoups + 1
	var (
		results      []tableau.CoupResult // the shoe's last coups, at most window
		tally, prior display.Tally        // the shoe's statistics, and before its last coup
		evs          []tableau.Event
	)
	apply := func(evs []tableau.Event) {
		for i := range evs {
			switch e := &evs[i]; e.Kind {
			case tableau.EventCoup:
				c := e.Coup
				r := tableau.CoupResult{Coup: c.Coup, Winner: c.Winner, Natural: c.Natural,
					PlayerPair: c.PlayerPair, BankerPair: c.BankerPair}
				if len(results) == window {
					results = append(results[:0], results[1:]...)
				}
				results = append(results, r)
				prior = tally
				tally.Add(r)
			case tableau.EventVoid:
				// A voided coup is on no road, even if its coup line was
				// out. Only the current coup can be voided: if it has a
				// result, it is the last one.
				if n := len(results); n > 0 && results[n-1].Coup == e.Void.Coup {
					results = results[:n-1]
					tally = prior
				}
			}
		}
	}
	// closeShoe writes the roads of the fold's current shoe, as it stands
	// before the next shoe (or the end of the input).
	closeShoe := func() error {
		if f.Shoe() == 0 {
			return nil
		}
		rd := display.BuildRoads(display.RoadsInput{Shoe: f.Shoe(), Results: results, Tally: &tally,
			CardsLeft: max(0, f.Composition().Remaining()), Coup: f.CoupNumber(), LastCoup: f.LastCoup()})
		results, tally, prior = results[:0], display.Tally{}, display.Tally{}
		b, err := json.Marshal(&rd)
		if err != nil {
			return fmt.Errorf("encoding shoe %d: %w", rd.Shoe, err)
		}
		w.Write(b)
		if err := w.WriteByte('\n'); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		return nil
	}
	l := tableau.NewLexer(r, name)
	for i := 0; ; i++ {
		if i%ctxCheckEvery == 0 && ctx.Err() != nil {
			return fmt.Errorf("interrupted: %w", ctx.Err())
		}
		t, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err // the file changed since the first pass
		}
		if t.Kind == tableau.TokShoe {
			// Ending a shoe raises alerts only (a coup is out as soon as it
			// is complete), so the old shoe's roads are complete here.
			if err := closeShoe(); err != nil {
				return err
			}
		}
		evs = f.Feed(t, evs[:0])
		apply(evs)
	}
	apply(f.End(evs[:0]))
	if err := closeShoe(); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// writeRoads prints one JSON line per shoe.
func writeRoads(stdout, stderr io.Writer, shoes []display.Roads) int {
	w := bufio.NewWriter(stdout)
	for i := range shoes {
		b, err := json.Marshal(&shoes[i])
		if err != nil {
			fmt.Fprintf(stderr, "sabot roads: encoding shoe %d: %v\n", shoes[i].Shoe, err)
			return 2
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "sabot roads: writing output: %v\n", err)
		return 2
	}
	return 0
}
