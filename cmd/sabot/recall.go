package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sabot-table/sabot/cmd/internal/recall"
	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
)

func init() {
	register(&command{
		name:    "recall",
		summary: "print the last coups from sabotd's journal: every card and its time, totals, result, alerts",
		run:     runRecall,
	})
}

const recallUsage = `usage: sabot recall [--last N] [--state DIR] [--text]

Game recall: replays sabotd's journal (DIR/journal.db and the records moved
to DIR/archive) through the table as the daemon did, and prints the last N
coups (1 to 1000, default 10), oldest first: every card with where it went
and when it was drawn, the totals, the result (player, banker, tie, void,
or "" for a coup still being dealt) and the alerts raised during the coup.
The output is one JSON object per coup and line, or with --text a form for
people. A running sabotd serves its last 200 coups at /recall?last=N.

Alerts that need what the journal does not keep (the UID registry's
card-mismatch, advantage) are the daemon's only: see /recall.

The journal must not be open in a running sabotd (stop it, or copy the state
directory). Exit status: 0 printed, 2 unreadable journal or bad flags.

Flags:
`

func runRecall(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("recall", recallUsage, stderr)
	state := fs.String("state", recall.DefaultStateDir, "sabotd's state `directory` (holds journal.db)")
	last := fs.Int("last", 10, "how many `coups`, the newest (1 to 1000)")
	text := fs.Bool("text", false, "print for people instead of JSON lines")
	if code, exit := flagsExit(parseFlags(fs, args), stderr, ""); exit {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "sabot recall: takes no arguments")
		return 2
	}
	if *last < 1 || *last > tableau.MaxRecall {
		fmt.Fprintf(stderr, "sabot recall: --last %d: want 1 to %d\n", *last, tableau.MaxRecall)
		return 2
	}
	j := openJournal("recall", *state, stderr)
	if j == nil {
		return 2
	}
	defer j.Close()
	coups, err := recall.Journal(j, *last)
	if err != nil {
		fmt.Fprintf(stderr, "sabot recall: %v\n", err)
		return 2
	}
	if *text {
		io.WriteString(stdout, tableau.RecallText(coups))
		return 0
	}
	enc := json.NewEncoder(stdout)
	for _, c := range coups {
		if err := enc.Encode(c); err != nil {
			fmt.Fprintf(stderr, "sabot recall: %v\n", err)
			return 2
		}
	}
	return 0
}

// openJournal opens the journal in sabotd's state directory read-only, for
// sabot export and sabot recall (a running sabotd must not hold it). On an
// error it prints it after "sabot NAME: " and returns nil (exit status 2).
func openJournal(name, state string, stderr io.Writer) *journal.Journal {
	j, err := journal.Open(state, &journal.Options{ReadOnly: true})
	if err != nil {
		fmt.Fprintf(stderr, "sabot %s: %v\n", name, err)
		return nil
	}
	return j
}
