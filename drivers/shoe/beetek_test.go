package shoe

import (
	"bytes"
	"log/slog"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// beetekCases is the one table behind the Bee-Tek read tests and the fuzz
// seeds: input bytes, the events they give (Event.String form), and how
// many unknown records are skipped.
var beetekCases = []struct {
	name    string
	in      string
	want    []string
	unknown uint64
}{
	{"card rank first", " [Game]<Card:4S> ", []string{"card 4S"}, 0},
	{"card suit first", " [Game]<Card:H3> ", []string{"card 3H"}, 0},
	{"ten as 10", " [Game]<Card:10D> [Game]<Card:D10> ", []string{"card TD", "card TD"}, 0},
	{"ten as T", " [Game]<Card:TC> [Game]<Card:CT> ", []string{"card TC", "card TC"}, 0},
	{"lower case", " [game]<card:qs> ", []string{"card QS"}, 0},
	{"rank only", " [Game]<Card:7> ", []string{"card 7"}, 0},
	{"burn mode", " [Manual Burn Cards]<Card:H3> [Manual Burn Cards]<Card:KC> ", []string{"card 3H burn", "card KC burn"}, 0},
	{"burn then game", " [Manual Burn Cards]<Card:2S> [Game]<Card:2S> ", []string{"card 2S burn", "card 2S"}, 0},
	{"unreadable", " [Game]<Game> ", []string{"unreadable"}, 0},
	{"unreadable burn", " [Manual Burn Cards]<Game> ", []string{"unreadable burn"}, 0},
	{"alarm", " [Game]<Alarm:E3 Card Not Read> ", []string{"alarm E3 Card Not Read"}, 0},
	{"game alarm", " [GameAlarm]<Alarm:E7 Jam> ", []string{"alarm E7 Jam"}, 0},
	{"alarm without code", " [GameAlarm]<Alarm:Shoe Empty> ", []string{"alarm Shoe Empty"}, 0},
	{"warning", " <W0x01> ", []string{"alarm warning W0x01"}, 0},
	{"warning with mode", " [Game]<W0x1F> ", []string{"alarm warning W0x1F"}, 0},
	{"glued", "[Game]<Card:4S>[Game]<Card:5H>[Game]<Game>", []string{"card 4S", "card 5H", "unreadable"}, 0},
	{"glued no mode", "<Card:4S><Card:5H>", []string{"card 4S", "card 5H"}, 0},
	{"space between mode and body", " [Game] <Card:6D> ", []string{"card 6D"}, 0},
	{"crlf", " [Game]<Card:4S> \r\n [Game]<Card:5S> \r\n", []string{"card 4S", "card 5S"}, 0},
	{"bad card", " [Game]<Card:ZZ> [Game]<Card:4S> ", []string{"card 4S"}, 1},
	{"bad card two suits", " [Game]<Card:SH> ", nil, 1},
	{"unknown body", " [Game]<Hello> ", nil, 1},
	{"garbage", " ##garbage## [Game]<Card:9D> ", []string{"card 9D"}, 1},
	{"mode without body", " [Game] [Game]<Card:9D> ", []string{"card 9D"}, 1},
	{"record cut by newline", " [Game]<Car\r\n [Game]<Card:8H> ", []string{"card 8H"}, 1},
	{"record restarted", " [Game]<Card:5H[Game]<Card:6H> ", []string{"card 6H"}, 1},
	{"body restarted", "<Card:5H<Card:6H>", []string{"card 6H"}, 1},
	{"overlong body", " <" + strings.Repeat("x", 200) + "> <Card:2D> ", []string{"card 2D"}, 2}, // the first 96 bytes, then the rest
	{"nul bytes", "\x00\x00 [Game]<Card:AS>\x00", []string{"card AS"}, 0},
	{"empty", "", nil, 0},
}

// feedAll feeds in to a fresh Beetek in the given chunks and returns the
// events (String form) and the parser.
func feedAll(t testing.TB, chunks [][]byte, lg *slog.Logger) ([]string, *Beetek) {
	if lg == nil {
		lg = slog.New(slog.NewTextHandler(discard{}, nil))
	}
	b := NewBeetek(ProtocolConfig{Path: "/dev/test", Logger: lg})
	var got []string
	emit := func(ev Event) error {
		if ev.Kind == KindCard && !ev.Card.Valid() {
			t.Errorf("invalid card emitted: %+v", ev.Card)
		}
		got = append(got, ev.String())
		return nil
	}
	now := time.Unix(0, 0)
	for _, c := range chunks {
		if err := b.Feed(c, now, emit); err != nil {
			t.Fatalf("Feed: %v", err)
		}
	}
	return got, b
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func splitEvery(b []byte, n int) [][]byte {
	var out [][]byte
	for len(b) > n {
		out = append(out, b[:n])
		b = b[n:]
	}
	return append(out, b)
}

func TestBeetekCases(t *testing.T) {
	for _, tc := range beetekCases {
		t.Run(tc.name, func(t *testing.T) {
			// Whole, byte by byte, and in threes: the same events.
			for _, n := range []int{len(tc.in) + 1, 1, 3} {
				got, b := feedAll(t, splitEvery([]byte(tc.in), n), nil)
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("chunks of %d: got %q, want %q", n, got, tc.want)
				}
				if u := b.Stats().Unknown; u != tc.unknown {
					t.Errorf("chunks of %d: %d unknown records, want %d", n, u, tc.unknown)
				}
			}
		})
	}
}

func TestBeetekFields(t *testing.T) {
	b := NewBeetek(ProtocolConfig{})
	var evs []Event
	err := b.Feed([]byte(" [Game]<Alarm:E3 Card Not Read>  <W0x02>  [Manual Burn Cards]<Card:S10> "), time.Unix(5, 0), func(ev Event) error {
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 {
		t.Fatalf("got %d events, want 3", len(evs))
	}
	if a := evs[0].Alarm; evs[0].Kind != KindAlarm || a.Code != "E3" || a.Text != "Card Not Read" || a.Warning {
		t.Errorf("alarm = %+v", evs[0])
	}
	if a := evs[1].Alarm; evs[1].Kind != KindAlarm || a.Code != "W0x02" || a.Text != "" || !a.Warning {
		t.Errorf("warning = %+v", evs[1])
	}
	if c := evs[2]; c.Kind != KindCard || c.Card.Rank != 10 || c.Card.Suit != 1 || !c.Burn || !c.Time.Equal(time.Unix(5, 0)) {
		t.Errorf("card = %+v", c)
	}
}

// The recorded-style session: a stream as a Bee-Tek shoe sends it, with
// records glued, split across reads, both rank/suit orders, burn mode,
// unreadable reads, alarms, warnings and garbage.
func TestBeetekSession(t *testing.T) {
	data, err := os.ReadFile("testdata/beetek-session.bin")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"card 4S", "card 3H",
		"card TD burn", "card KC burn",
		"card TS", "card TS", "unreadable",
		"alarm E3 Card Not Read",
		"alarm E7 Jam", "alarm warning W0x01", "alarm warning W0x1F",
		"card 9D",
		"card AH", "card 2C", "card QH", "card 7",
		"card 4S",
	}
	var log bytes.Buffer
	lg := slog.New(slog.NewTextHandler(&log, nil))
	got, b := feedAll(t, [][]byte{data}, lg)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("whole stream:\n got %q\nwant %q", got, want)
	}
	// "##garbage##", "[Game]<Card:ZZ>", "[Game]<Hello>".
	if u := b.Stats().Unknown; u != 3 {
		t.Errorf("unknown = %d, want 3", u)
	}
	for _, rec := range []string{`bytes=##garbage##`, `bytes=[Game]<Card:ZZ>`, `bytes=[Game]<Hello>`} {
		if !strings.Contains(log.String(), rec) {
			t.Errorf("log lacks %s:\n%s", rec, log.String())
		}
	}
	if !strings.Contains(log.String(), "offset=") {
		t.Errorf("log lacks the stream offset:\n%s", log.String())
	}
	// Random splits give the same events.
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		var chunks [][]byte
		rest := data
		for len(rest) > 0 {
			n := 1 + rng.IntN(min(len(rest), 40))
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		got, _ := feedAll(t, chunks, nil)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("split %d: got %q", i, got)
		}
	}
}

func TestBeetekUnknownLoggedOnce(t *testing.T) {
	var log bytes.Buffer
	lg := slog.New(slog.NewTextHandler(&log, nil))
	in := strings.Repeat(" [Game]<Bogus:1> ", 5) + " [Game]<Card:2H> " + strings.Repeat(" [Game]<Bogus:2> ", 2)
	got, b := feedAll(t, [][]byte{[]byte(in)}, lg)
	if !reflect.DeepEqual(got, []string{"card 2H"}) {
		t.Errorf("events %q", got)
	}
	if u := b.Stats().Unknown; u != 7 {
		t.Errorf("unknown = %d, want 7", u)
	}
	if n := strings.Count(log.String(), "Bogus:1"); n != 1 {
		t.Errorf("Bogus:1 logged %d times, want once:\n%s", n, log.String())
	}
	if n := strings.Count(log.String(), "Bogus:2"); n != 1 {
		t.Errorf("Bogus:2 logged %d times, want once", n)
	}
	// The hex of the bytes is logged too.
	if !strings.Contains(log.String(), "5b 47 61 6d 65 5d") {
		t.Errorf("hex missing:\n%s", log.String())
	}
}

func TestBeetekUnknownLogBounded(t *testing.T) {
	var log bytes.Buffer
	lg := slog.New(slog.NewTextHandler(&log, nil))
	var in strings.Builder
	for i := 0; i < 3*unknownLogLimit; i++ {
		in.WriteString(" <Bogus:")
		in.WriteString(strings.Repeat("x", i%7))
		in.WriteByte(byte('A' + i%26))
		in.WriteString(strings.Repeat("y", i/26))
		in.WriteString("> ")
	}
	_, b := feedAll(t, [][]byte{[]byte(in.String())}, lg)
	if u := b.Stats().Unknown; u != 3*unknownLogLimit {
		t.Errorf("unknown = %d", u)
	}
	if n := strings.Count(log.String(), "unknown record skipped"); n != unknownLogLimit {
		t.Errorf("%d unknown records logged, want %d", n, unknownLogLimit)
	}
}

func TestBeetekReconnectDropsPartial(t *testing.T) {
	b := NewBeetek(ProtocolConfig{Logger: slog.New(slog.NewTextHandler(discard{}, nil))})
	var got []string
	emit := func(ev Event) error { got = append(got, ev.String()); return nil }
	now := time.Now()
	if err := b.Connect(nil, now, emit); err != nil {
		t.Fatal(err)
	}
	_ = b.Feed([]byte(" [Game]<Card:4"), now, emit)
	b.Disconnect(now)
	_ = b.Connect(nil, now, emit)
	_ = b.Feed([]byte("S> [Game]<Card:5S> "), now, emit)
	want := []string{"online", "online", "card 5S"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzBeetek(f *testing.F) {
	for _, tc := range beetekCases {
		f.Add([]byte(tc.in), uint8(3))
	}
	if data, err := os.ReadFile("testdata/beetek-session.bin"); err == nil {
		f.Add(data, uint8(7))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint8) {
		whole, b := feedAll(t, [][]byte{in}, nil)
		n := int(split)%16 + 1
		parts, _ := feedAll(t, splitEvery(in, n), nil)
		if !reflect.DeepEqual(whole, parts) {
			t.Fatalf("split into %d-byte reads changes the events:\nwhole %q\nparts %q", n, whole, parts)
		}
		// Every event costs at least "<Game>" (6 bytes); every unknown
		// record at least one byte.
		if len(whole)*6 > len(in) || b.Stats().Unknown > uint64(len(in)) {
			t.Fatalf("%d events and %d unknown from %d bytes", len(whole), b.Stats().Unknown, len(in))
		}
	})
}
