package recall

import (
	"fmt"
	"io"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"
)

// Verify is `sabot export --verify`: it checks j's hash chain
// (journal.Verify) and reports on stdout (problems reading on stderr, as
// "sabot export: verify: ..."). It returns the exit status: 0 every record kept matches,
// 1 a record does not (printed: its sequence number, time, file and what
// is wrong), 2 the journal or an archive cannot be read.
func Verify(j *journal.Journal, stdout, stderr io.Writer) int {
	rep, err := j.Verify()
	if err != nil {
		fmt.Fprintf(stderr, "sabot export: verify: %v\n", err)
		return 2
	}
	if rep.Bad != nil {
		fmt.Fprintf(stdout, "FAILED at record %d (%s) in %s: %s\n", rep.Bad.Seq,
			rep.Bad.Time.UTC().Format(time.RFC3339Nano), rep.Bad.File, rep.Bad.Reason)
		fmt.Fprintf(stdout, "%d records before it matched the chain\n", rep.Chained)
		return 1
	}
	if rep.Records == 0 {
		fmt.Fprintf(stdout, "verified 0 records: %s is empty\n", j.Path())
		return 0
	}
	fmt.Fprintf(stdout, "verified %d records (%d to %d)", rep.Chained, rep.First, rep.First+rep.Records-1)
	if rep.Unchained > 0 {
		fmt.Fprintf(stdout, "; %d older records were written before the hash chain (journal format 3) and cannot be verified", rep.Unchained)
	}
	if rep.Anchor != 0 {
		fmt.Fprintf(stdout, "; the chain is checked from record %d, whose predecessors were removed from the archive", rep.Anchor)
	}
	fmt.Fprintln(stdout)
	if rep.Head.Seq != 0 {
		fmt.Fprintf(stdout, "head %d sha256:%s\n", rep.Head.Seq, rep.Head.HashHex())
	}
	return 0
}
