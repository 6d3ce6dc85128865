package shoe

import (
	"math/rand/v2"
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

// TestLinesRandomBytesAreNoise feeds 30 s of random bytes at 9600 baud
// (28,800 bytes) for each of 300 seeds: no card, marker or dealer comes of
// them, and each raises the noise alarm. (Before, the lines were trimmed
// of any white space, control bytes included, and 30 s of noise slipped
// six cards into a coup.)
func TestLinesRandomBytesAreNoise(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		buf := make([]byte, 28800)
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		l := NewLines(ProtocolConfig{Logger: quietLogger()})
		alarms := 0
		now := time.Unix(0, 0)
		emit := func(ev Event) error {
			if ev.Kind == KindAlarm && ev.Alarm.Code == LinesNoiseCode {
				alarms++
				return nil
			}
			t.Errorf("seed %d: %s from random bytes", seed, ev)
			return nil
		}
		for off := 0; off < len(buf); off += 96 { // 96 bytes every 100 ms
			if err := l.Feed(buf[off:min(off+96, len(buf))], now, emit); err != nil {
				t.Fatal(err)
			}
			now = now.Add(100 * time.Millisecond)
		}
		if alarms == 0 {
			t.Errorf("seed %d: no noise alarm (%d lines skipped)", seed, l.Stats().Unknown)
		}
	}
}

// The line after binary noise is refused (it may be the noise's tail) and
// raises the noise alarm at once; the one after it is taken. Unknown and
// blank lines between do not end the noise.
func TestLinesTailOfNoise(t *testing.T) {
	l := NewLines(ProtocolConfig{Logger: quietLogger()})
	var got []string
	emit := func(ev Event) error {
		if ev.Kind == KindAlarm {
			got = append(got, "alarm "+ev.Alarm.Code)
		} else {
			got = append(got, ev.String())
		}
		return nil
	}
	if err := l.Feed([]byte("AS\n\x01\xfe5\n\nzz\n5\n6\n"), time.Unix(0, 0), emit); err != nil {
		t.Fatal(err)
	}
	want := []string{"card AS", "alarm " + LinesNoiseCode, "card 6"}
	if !reflect.DeepEqual(got, want) || l.Stats().Unknown != 3 {
		t.Errorf("got %q (unknown %d), want %q (unknown 3)", got, l.Stats().Unknown, want)
	}
	// Noise, then the link drops and comes back: the first line after the
	// reconnection is not the noise's tail.
	got = nil
	l.Feed([]byte("\x02\x03\n"), time.Unix(1, 0), emit)
	l.Disconnect(time.Unix(2, 0))
	l.Connect(nil, time.Unix(3, 0), func(Event) error { return nil })
	l.Feed([]byte("7\n"), time.Unix(4, 0), emit)
	if want := []string{"card 7"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after a reconnection: got %q, want %q", got, want)
	}
}

// Three lines that are not the grammar within 10 s raise the noise alarm
// once; after 10 s without noise the next burst raises it again; two do not.
func TestLinesNoiseBurst(t *testing.T) {
	l := NewLines(ProtocolConfig{Logger: quietLogger()})
	alarms := 0
	emit := func(ev Event) error {
		if ev.Kind == KindAlarm {
			alarms++
		}
		return nil
	}
	at := func(sec int, s string) {
		t.Helper()
		if err := l.Feed([]byte(s), time.Unix(int64(sec), 0), emit); err != nil {
			t.Fatal(err)
		}
	}
	at(0, "zz\n")
	at(5, "yy\nAS\n")
	if alarms != 0 {
		t.Fatalf("%d alarms after two unknown lines", alarms)
	}
	at(9, "xx\nww\nvv\n")
	if alarms != 1 {
		t.Fatalf("%d alarms after five unknown lines in 9 s, want 1", alarms)
	}
	at(30, "uu\ntt\nss\n")
	if alarms != 2 {
		t.Fatalf("%d alarms after a quiet window and a second burst, want 2", alarms)
	}
}
