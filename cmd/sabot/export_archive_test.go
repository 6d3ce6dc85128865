package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
)

// TestExportReadsArchives: after part of the journal has moved to archive
// files, `sabot export` writes exactly the transcript it wrote before.
func TestExportReadsArchives(t *testing.T) {
	src, err := os.ReadFile("../../tableau/testdata/multi-shoe.decks6.shoe")
	if err != nil {
		t.Fatal(err)
	}
	dir := journalFrom(t, string(src), tableau.Options{Decks: 6, Markers: true})
	export := func() string {
		var out, errb strings.Builder
		if code := run(context.Background(), []string{"export", "--state", dir}, nil, &out, &errb); code != 0 {
			t.Fatalf("export exit %d: %s", code, errb.String())
		}
		return out.String()
	}
	before := export()
	j, err := journal.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	half := j.Last() / 2
	res, err := j.Retain(journal.RetainOptions{Before: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), UpTo: half})
	j.Close()
	if err != nil || res.Moved != int(half) || len(res.Written) == 0 {
		t.Fatalf("Retain: %+v %v", res, err)
	}
	if after := export(); after != before {
		t.Fatalf("export after archiving differs:\n%s\nbefore:\n%s", after, before)
	}
}
