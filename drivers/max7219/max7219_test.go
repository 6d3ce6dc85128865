package max7219_test

import (
	"bufio"
	"encoding/hex"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"periph.io/x/conn/v3/conntest"
	"periph.io/x/conn/v3/spi/spitest"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/max7219"
)

// readGolden reads a transcript: one transfer per line, hex bytes before
// the first run of three spaces, '#' comments.
func readGolden(t *testing.T, name string) [][]byte {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if i := strings.Index(line, "   "); i >= 0 {
			line = line[:i]
		}
		b, err := hex.DecodeString(strings.ReplaceAll(line, " ", ""))
		if err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		out = append(out, b)
	}
	return out
}

func ops(rec []conntest.IO) [][]byte {
	var out [][]byte
	for _, io := range rec {
		out = append(out, io.W)
	}
	return out
}

func TestSegmentByte(t *testing.T) {
	want := map[rune]byte{
		'0': 0x7E, '1': 0x30, '2': 0x6D, '3': 0x79, '4': 0x33, '5': 0x5B, '6': 0x5F, '7': 0x70,
		'8': 0x7F, '9': 0x7B, 'P': 0x67, 'b': 0x1F, 't': 0x0F, 'E': 0x4F, 'r': 0x05, 'n': 0x15, 'L': 0x0E, // L: d, e, f (t without g)
		'-': 0x01, ' ': 0x00,
	}
	for _, r := range segment.Glyphs() {
		s, _ := segment.Glyph(r)
		if got := max7219.SegmentByte(s); got != want[r] {
			t.Errorf("%q: %#02x, want %#02x", r, got, want[r])
		}
		if got := max7219.SegmentByte(s | segment.SegDP); got != want[r]|0x80 {
			t.Errorf("%q with dp: %#02x, want %#02x", r, got, want[r]|0x80)
		}
	}
}

func TestGoldenOneChip(t *testing.T) {
	rec := &spitest.Record{}
	d, err := max7219.Open(rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := segment.TextFrame("P9 P.n b6", 10)
	if err := d.Render(f); err != nil {
		t.Fatal(err)
	}
	if got, want := ops(rec.Ops), readGolden(t, "one-chip.golden"); !reflect.DeepEqual(got, want) {
		t.Errorf("transcript:\n got % x\nwant % x", got, want)
	}
	// The same frame from the coup state gives the same bytes.
	enc, _ := max7219.Encode(f, 1)
	if !reflect.DeepEqual(enc, readGolden(t, "one-chip.golden")) {
		t.Error("Encode differs from the golden transcript")
	}
}

func TestGoldenTwoChips(t *testing.T) {
	rec := &conntest.Record{}
	d, err := max7219.New(rec, &max7219.Opts{Chips: 2})
	if err != nil {
		t.Fatal(err)
	}
	if d.Digits() != 16 {
		t.Errorf("Digits = %d", d.Digits())
	}
	if err := d.Render(segment.TextFrame("0123456789Pbt-Er", 15)); err != nil {
		t.Fatal(err)
	}
	if got, want := ops(rec.Ops), readGolden(t, "two-chips.golden"); !reflect.DeepEqual(got, want) {
		t.Errorf("transcript:\n got % x\nwant % x", got, want)
	}
	rec.Ops = nil
	if err := d.Halt(); err != nil {
		t.Fatal(err)
	}
	if got := ops(rec.Ops); !reflect.DeepEqual(got, [][]byte{{0x0c, 0, 0x0c, 0}}) {
		t.Errorf("Halt sent % x", got)
	}
}

// A short frame is padded blank; a frame wider than the cascade is refused
// before anything is sent.
func TestFrameWidth(t *testing.T) {
	rec := &conntest.Record{}
	d, _ := max7219.New(rec, nil)
	if err := d.Render(segment.TextFrame("123456789", 1)); err == nil {
		t.Error("9 digits accepted on one chip")
	}
	if len(rec.Ops) != 0 {
		t.Errorf("sent %d transfers for a refused frame", len(rec.Ops))
	}
	if err := d.Render(segment.TextFrame("1", 1)); err != nil {
		t.Fatal(err)
	}
	got := ops(rec.Ops)
	if !reflect.DeepEqual(got[12], []byte{0x08, 0x30}) || !reflect.DeepEqual(got[5], []byte{0x01, 0x00}) {
		t.Errorf("padded frame: % x", got)
	}
}

type failConn struct{ conntest.Discard }

func (*failConn) Tx(w, r []byte) error { return errors.New("bus gone") }

func TestErrors(t *testing.T) {
	if _, err := max7219.New(nil, nil); err == nil {
		t.Error("nil conn accepted")
	}
	if _, err := max7219.New(&conntest.Record{}, &max7219.Opts{Chips: -1}); err == nil {
		t.Error("-1 chips accepted")
	}
	d, _ := max7219.New(&failConn{}, nil)
	err := d.Render(segment.TextFrame("1", 1))
	if err == nil || !strings.HasPrefix(err.Error(), "max7219: ") || !strings.Contains(err.Error(), "register 0x0f") {
		t.Errorf("error %v", err)
	}
}

func BenchmarkRender(b *testing.B) {
	d, _ := max7219.New(&conntest.Discard{}, &max7219.Opts{Chips: 2})
	f := segment.TextFrame("0123456789Pbt-Er", 15)
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Render(f); err != nil {
			b.Fatal(err)
		}
	}
}
