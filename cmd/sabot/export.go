package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
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
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, exportUsage); fs.PrintDefaults() }
	state := fs.String("state", "", "sabotd's state `directory` (holds journal.db)")
	outPath := fs.String("o", "-", "output `file` (\"-\": standard output)")
	verify := fs.Bool("verify", false, "check the journal's hash chain instead of exporting (verify.go)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *state == "" && *verify {
		*state = defaultStateDir
	}
	if *state == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "sabot export: --state DIR is required and takes no arguments")
		fs.Usage()
		return 2
	}
	j, err := journal.Open(*state, &journal.Options{ReadOnly: true})
	if err != nil {
		fmt.Fprintf(stderr, "sabot export: %v\n", err)
		return 2
	}
	defer j.Close()
	if *verify {
		return verifyJournal(j, stdout, stderr)
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
	if err := exportJournal(j, w); err != nil {
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

// checkFlags renders opts as `sabot check` flags (the house rules as
// houseFlagArgs writes them).
func checkFlags(o tableau.Options) string {
	m := "off"
	if o.Markers {
		m = "on"
	}
	decks := o.Decks
	if decks == 0 {
		decks = o.Rules.Game.DefaultDecks()
	}
	g := o.Rules.Game
	house := houseFlagArgs(o.Rules)
	if !g.DealsPuntoBanco() { // --game and the game's parameters
		game := "--game " + g.Name()
		info, _ := baccarat.LookupGame(g.Name())
		for i, v := range g.Params() {
			game += fmt.Sprintf(" --%s %s", info.Params[i].Name, v)
		}
		return fmt.Sprintf("--decks %d %s %s --cut-rule %s --markers %s", decks, game, house, o.CutRule, m)
	}
	return fmt.Sprintf("--decks %d --rules %s %s --cut-rule %s --markers %s", decks, g, house, o.CutRule, m)
}

// exportJournal writes the journal as a transcript: one coup per line
// ("|" and "shoe" end lines), the daemon's own inputs as comments.
func exportJournal(j *journal.Journal, w io.Writer) error {
	opts := tableau.Options{Markers: true}
	if raw, err := j.Meta(journal.MetaTableOptions); err != nil {
		return err
	} else if raw != nil {
		if err := json.Unmarshal(raw, &opts); err != nil {
			return fmt.Errorf("%s: table options: %w", j.Path(), err)
		}
	}
	// The export follows the shoe, to say where the journal stops.
	f, ferr := tableau.NewFold(opts)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# sabot export of %s (%d events)\n", j.Path(), j.Last())
	fmt.Fprintf(bw, "# check with: sabot check %s\n", checkFlags(opts))
	sep := ""
	endLine := func() {
		if sep != "" {
			bw.WriteByte('\n')
			sep = ""
		}
	}
	err := j.ReplayAll(func(r journal.Record) error { // the archives, then the live journal
		var in tableau.Input
		if err := json.Unmarshal(r.Data, &in); err != nil {
			return fmt.Errorf("%s: record %d: %w", j.Path(), r.Seq, err)
		}
		tok, ok := in.Token()
		if ok && tok.Kind == tableau.TokMarker && !opts.Markers {
			return nil // the daemon ignored the coup button
		}
		if ok && tok.Kind == tableau.TokCard && !tok.Card.Valid() {
			ok = false
		}
		if !ok {
			endLine()
			fmt.Fprintf(bw, "# %s %s", r.Time.Format("2006-01-02T15:04:05.000Z"), in.Kind)
			fields := []string{in.Code, in.Text, in.Operator}
			if in.Kind == tableau.InputEvent {
				fields = append(fields, in.Ref) // the binary's or config file's SHA-256
			}
			for _, s := range fields {
				if s != "" {
					fmt.Fprintf(bw, " %q", s)
				}
			}
			bw.WriteByte('\n')
			return nil
		}
		if tok.Kind == tableau.TokShoe {
			endLine()
		}
		if ferr == nil {
			f.Feed(tok, nil)
		}
		bw.WriteString(sep)
		bw.WriteString(tok.String())
		sep = " "
		if tok.Kind == tableau.TokMarker || tok.Kind == tableau.TokShoe {
			bw.WriteByte('\n')
			sep = ""
		}
		return nil
	})
	if err != nil {
		return err
	}
	endLine()
	if ferr == nil && f.Phase() == tableau.PhaseCoup && !f.Voided() && f.Coup().Need() != baccarat.NeedNone {
		// The daemon raised nothing here: it resumes the coup where it
		// stopped. sabot check, at this file's end, reports the coup
		// incomplete.
		fmt.Fprintf(bw, "# the journal ends while coup %d of shoe %d is still being dealt: sabotd resumes it where it stopped (sabot check reports incomplete-coup at the end of this file)\n",
			f.CoupNumber(), f.Shoe())
	}
	return bw.Flush()
}
