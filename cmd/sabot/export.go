package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/sabot-table/sabot/cmd/internal/houseflags"
	"github.com/sabot-table/sabot/cmd/internal/recall"
)

func init() {
	register(&command{
		name:    "export",
		summary: "write the shoes in sabotd's journal as a transcript that `sabot check` reproduces",
		run:     runExport,
	})
}

const exportUsage = `usage: sabot export --state DIR [-o FILE]
       sabot export --verify --state DIR

Reads sabotd's event journal (DIR/journal.db, the [state] dir of sabotd.toml,
and the older records moved to DIR/archive) and writes every shoe in it as a
shoe transcript: cards, "|" (coup button),
"cut", "void" and "shoe", in the order the daemon applied them. Running
'sabot check' on it, with the flags given in its first line, gives the same
coups, alerts and voids the daemon published (the daemon's own alerts —
unreadable cards, alarms, link state, acknowledgements — appear as comments).

The journal must not be open in a running sabotd (stop it, or copy the state
directory). Exit status: 0 written, 2 unreadable journal or bad flags.

--verify checks the journal's hash chain (archives, then the live journal)
instead: it prints the first record that does not match, with its sequence
number and time, and exits 1, or prints the number of records verified and
the chain's head and exits 0.

Flags:
`

func runExport(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("export", exportUsage, stderr)
	state := fs.String("state", "", "sabotd's state `directory` (holds journal.db)")
	outPath := fs.String("o", "-", "output `file` (\"-\": standard output)")
	verify := fs.Bool("verify", false, "check the journal's hash chain instead of exporting (verify.go)")
	if code, exit := flagsExit(parseFlags(fs, args), stderr, ""); exit {
		return code
	}
	if *state == "" && *verify {
		*state = recall.DefaultStateDir
	}
	if *state == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "sabot export: --state DIR is required and takes no arguments")
		fs.Usage()
		return 2
	}
	j := openJournal("export", *state, stderr)
	if j == nil {
		return 2
	}
	defer j.Close()
	if *verify {
		return recall.Verify(j, stdout, stderr)
	}
	var w io.Writer = stdout
	if *outPath != "-" {
		f, err := os.Create(*outPath)
		if err != nil {
			fmt.Fprintf(stderr, "sabot export: %v\n", err)
			return 2
		}
		defer f.Close()
		w = f
	}
	opts, err := recall.TableOptions(j)
	if err == nil {
		err = recall.Export(j, w, opts, houseflags.CheckArgs(opts))
	}
	if err != nil {
		fmt.Fprintf(stderr, "sabot export: %v\n", err)
		return 2
	}
	if f, ok := w.(*os.File); ok && f != os.Stdout {
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "sabot export: %v\n", err)
			return 2
		}
	}
	return 0
}
