package recall

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// Export writes the journal as a transcript: one coup per line ("|" and
// "shoe" end lines), the daemon's own inputs as comments. opts are the
// journal's table options (TableOptions) and checkFlags the `sabot check`
// flags that reproduce them, written in the header. Errors are the
// journal's (its path, a bad record's sequence number) or w's.
func Export(j *journal.Journal, w io.Writer, opts tableau.Options, checkFlags string) error {
	// The export follows the shoe, to say where the journal stops.
	f, ferr := tableau.NewFold(opts)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# sabot export of %s (%d events)\n", j.Path(), j.Last())
	fmt.Fprintf(bw, "# check with: sabot check %s\n", checkFlags)
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
