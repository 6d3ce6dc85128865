package shoe

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLinesProtocol(t *testing.T) {
	l := NewLines(ProtocolConfig{Logger: quietLogger()})
	var got []string
	emit := func(ev Event) error { got = append(got, ev.String()); return nil }
	in := "AS\r\n# a comment\n\n 10d  # ten of diamonds\n" + strings.Repeat("x", 200) + "\nKH\n|\nzz\nc"
	for _, chunk := range splitEvery([]byte(in), 7) {
		if err := l.Feed(chunk, time.Time{}, emit); err != nil {
			t.Fatal(err)
		}
	}
	l.Feed([]byte("ut\n"), time.Time{}, emit)
	want := []string{"card AS", "card TD", "card KH", "button coup pressed", "cut-card"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if u := l.Stats().Unknown; u != 2 { // the overlong line and "zz"
		t.Errorf("unknown = %d, want 2", u)
	}
}

func TestLinesDealer(t *testing.T) {
	l := NewLines(ProtocolConfig{Logger: quietLogger()})
	var got []string
	emit := func(ev Event) error { got = append(got, ev.String()); return nil }
	if err := l.Feed([]byte("Dealer D1042\nAS\ndealer -\ndealer\n"), time.Time{}, emit); err != nil {
		t.Fatal(err)
	}
	want := []string{"dealer D1042", "card AS", "dealer sign-out"}
	if !reflect.DeepEqual(got, want) || l.Stats().Unknown != 1 { // "dealer" alone
		t.Fatalf("got %q (unknown %d), want %q", got, l.Stats().Unknown, want)
	}
}

// TestLinesStand: "stand" and the dealer's "non" are the stand button.
func TestLinesStand(t *testing.T) {
	l := NewLines(ProtocolConfig{Logger: quietLogger()})
	var got []string
	emit := func(ev Event) error { got = append(got, ev.String()); return nil }
	if err := l.Feed([]byte("AS\nstand\nNON\nstands\n"), time.Time{}, emit); err != nil {
		t.Fatal(err)
	}
	want := []string{"card AS", "button stand pressed", "button stand pressed"}
	if !reflect.DeepEqual(got, want) || l.Stats().Unknown != 1 { // "stands"
		t.Fatalf("got %q (unknown %d), want %q", got, l.Stats().Unknown, want)
	}
}
