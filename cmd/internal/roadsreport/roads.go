// Package roadsreport is sabot roads: it folds a shoe transcript as sabot
// check does and prints the scoreboard roads of each shoe (bead plate, big
// road, derived roads, ask-road, statistics; display.Roads) as JSON lines,
// or the roads of results given directly.
package roadsreport

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sabot-table/sabot/cmd/internal/audit"
	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// maxResultsFlag bounds --results (letters, white space included): a
// command line, not a year of coups.
const maxResultsFlag = 1 << 20

// ParseResults parses the --results argument, one letter per coup (B
// banker, P player, T tie; case, white space and commas ignored), into
// results numbered from coup 1. Errors name --results.
func ParseResults(s string) ([]tableau.CoupResult, error) {
	if len(s) > maxResultsFlag {
		return nil, fmt.Errorf("--results: %d bytes, limit %d", len(s), maxResultsFlag)
	}
	var out []tableau.CoupResult
	for i, c := range s {
		var w baccarat.Winner
		switch c {
		case 'B', 'b':
			w = baccarat.WinnerBanker
		case 'P', 'p':
			w = baccarat.WinnerPlayer
		case 'T', 't':
			w = baccarat.WinnerTie
		case ' ', '\t', '\n', '\r', ',':
			continue
		default:
			return nil, fmt.Errorf("--results: %q at byte %d: want B, P or T", c, i+1)
		}
		out = append(out, tableau.CoupResult{Coup: len(out) + 1, Winner: w})
	}
	return out, nil
}

// RunResults prints the roads of the results rs, as one shoe whose cards
// are not known, and returns the exit status: 0, or 2 if the output
// cannot be written (said on stderr).
func RunResults(stdout, stderr io.Writer, rs []tableau.CoupResult) int {
	return writeRoads(stdout, stderr, []display.Roads{display.BuildRoads(display.RoadsInput{Shoe: 1, Results: rs, CardsLeft: -1})})
}

// Run is sabot roads of a transcript, read as cfg says (sabot check's
// flags; package audit reads it twice). It returns the exit status: 0
// success, 1 the transcript has no card, 2 a game without roads or an
// input that cannot be read or parsed (said on stderr; nothing is printed
// on stdout then).
func Run(ctx context.Context, cfg audit.Config, stdin io.Reader, stdout, stderr io.Writer) int {
	if g := cfg.Opts.Rules.Game; cfg.Macao != nil || g == baccarat.GameBanque {
		// The roads are those of the games with one winner per coup.
		name := g.Name()
		switch {
		case cfg.Macao != nil && cfg.Macao.Rules.Victoria:
			name = "victoria"
		case cfg.Macao != nil:
			name = "macao"
		}
		fmt.Fprintf(stderr, "sabot roads: --game %s has no roads: its coups have a result per tableau or seat, not one winner (roads: punto-banco, super6, ez, chemin-de-fer)\n", name)
		return 2
	}
	in, err := audit.OpenInput(cfg.File, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "sabot roads: %v\n", err)
		return 2
	}
	defer in.Close()
	// Two passes, as sabot check: a parse error prints nothing on standard
	// output, and --markers auto learns whether there is a "|".
	sc, err := audit.Scan(ctx, in)
	if err != nil {
		audit.PrintError(stderr, "sabot roads", in.Name(), err)
		return 2
	}
	if sc.Cards == 0 {
		fmt.Fprintf(stderr, "sabot roads: %s: no cards (%d bytes, no coup to draw)\n", in.Name(), sc.Size)
		return 1
	}
	cfg.SetMarkers(sc) // (no Macao here: it has no roads)
	second, err := in.Second(sc.Size)
	if err != nil {
		fmt.Fprintf(stderr, "sabot roads: %s: %v\n", in.Name(), err)
		return 2
	}
	if err := foldRoads(ctx, cfg.Opts, second, in.Name(), stdout); err != nil {
		audit.PrintError(stderr, "sabot roads", in.Name(), err)
		return 2
	}
	return 0
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
			case baccarat.EventCoup:
				c := e.Coup
				r := tableau.CoupResult{Coup: c.Coup, Winner: c.Winner, Natural: c.Natural,
					PlayerPair: c.PlayerPair, BankerPair: c.BankerPair}
				if len(results) == window {
					results = append(results[:0], results[1:]...)
				}
				results = append(results, r)
				prior = tally
				tally.Add(r)
			case baccarat.EventVoid:
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

// ctxCheckEvery is how many tokens pass between two looks at ctx (an
// interrupt) in foldRoads, which reads no input of its own.
const ctxCheckEvery = 1 << 14
