package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sabot-table/sabot/cmd/internal/roadsreport"
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

// runRoads is `sabot roads`: its flags (check's, or --results), then
// package roadsreport.
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
		rs, err := roadsreport.ParseResults(*results)
		if err != nil {
			fmt.Fprintf(stderr, "sabot roads: %v\n", err)
			return 2
		}
		return roadsreport.RunResults(stdout, stderr, rs)
	}

	cfg, err := parseCheckFlags(rest, stderr)
	if code, exit := flagsExit(err, stderr, "sabot roads: "); exit {
		return code
	}
	return roadsreport.Run(ctx, cfg, stdin, stdout, stderr)
}
