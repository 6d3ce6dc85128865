package strategy

import (
	"fmt"
	"slices"
	"testing"
)

func bad(e Entry, why string) error { return fmt.Errorf("entry %d %q: %s", e.N, e.Text, why) }

func TestEntries(t *testing.T) {
	var got []Entry
	for e, err := range Entries(" 3/9 = stand, 6/*=draw ,5/stood=draw", bad) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	want := []Entry{
		{N: 1, Text: "3/9 = stand", Cell: "3/9"},
		{N: 2, Text: "6/*=draw", Cell: "6/*", Draw: true},
		{N: 3, Text: "5/stood=draw", Cell: "5/stood", Draw: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Entries = %+v, want %+v", got, want)
	}
	for range Entries("  ", bad) {
		t.Error("a blank list has an entry")
	}
}

func TestEntriesErrors(t *testing.T) {
	for s, want := range map[string]string{
		"3/9=stand,6/*":     `entry 2 "6/*": no '='`,
		"3/9= hit ,6/*":     `entry 1 "3/9= hit": " hit" is not draw or stand`,
		"3/9=stand,,6=draw": `entry 2 "": no '='`,
	} {
		var err error
		n := 0
		for _, err = range Entries(s, bad) {
			n++
			if err != nil {
				break
			}
		}
		if err == nil || err.Error() != want {
			t.Errorf("Entries(%q): error %v after %d entries, want %s", s, err, n, want)
		}
	}
}
