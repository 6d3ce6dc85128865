package journal_test

import (
	"fmt"
	"os"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"
)

func Example() {
	dir, _ := os.MkdirTemp("", "journal-example")
	defer os.RemoveAll(dir)

	j, err := journal.Open(dir, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	at := time.Date(2026, 11, 30, 21, 0, 0, 0, time.UTC)
	j.Append(at, []byte(`{"kind":"card","card":"9H"}`))
	j.Append(at.Add(time.Second), []byte(`{"kind":"card","card":"2C"}`))
	j.Close()

	j, _ = journal.Open(dir, nil) // after a restart
	defer j.Close()
	j.Replay(1, func(r journal.Record) error {
		fmt.Println(r.Seq, r.Time.Format(time.TimeOnly), string(r.Data))
		return nil
	})
	// Output:
	// 1 21:00:00 {"kind":"card","card":"9H"}
	// 2 21:00:01 {"kind":"card","card":"2C"}
}
