package ht16k33_test

import (
	"bufio"
	"encoding/hex"
	"os"
	"reflect"
	"strings"
	"testing"

	"periph.io/x/conn/v3/i2c/i2ctest"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/drivers/ht16k33"
)

func readGolden(t *testing.T, name string, addr uint16) []i2ctest.IO {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []i2ctest.IO
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
		out = append(out, i2ctest.IO{Addr: addr, W: b})
	}
	return out
}

func TestGoldenBackpack4(t *testing.T) {
	rec := &i2ctest.Record{}
	d, err := ht16k33.New(rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Render(segment.TextFrame("9P.n6", 12)); err != nil {
		t.Fatal(err)
	}
	if want := readGolden(t, "backpack4.golden", 0x70); !reflect.DeepEqual(rec.Ops, want) {
		t.Errorf("transcript:\n got %x\nwant %x", rec.Ops, want)
	}
}

// Playback checks the same transcript byte for byte, then Halt.
func TestPlaybackLinear8(t *testing.T) {
	ops := readGolden(t, "linear8.golden", 0x71)
	ops = append(ops, i2ctest.IO{Addr: 0x71, W: []byte{0x80}})
	pb := &i2ctest.Playback{Ops: ops, DontPanic: true}
	d, err := ht16k33.New(pb, &ht16k33.Opts{Addr: 0x71, Layout: ht16k33.LayoutLinear})
	if err != nil {
		t.Fatal(err)
	}
	s := display.TableState{Alert: "extra-card", AlertAcknowledged: true}
	if err := d.Render(display.Compose(s, display.Layout8, 0)); err != nil {
		t.Fatal(err)
	}
	if err := d.Halt(); err != nil {
		t.Fatal(err)
	}
	if err := pb.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestErrors(t *testing.T) {
	if _, err := ht16k33.New(nil, nil); err == nil {
		t.Error("nil bus accepted")
	}
	pb := &i2ctest.Playback{DontPanic: true} // no device answers
	d, _ := ht16k33.New(pb, nil)
	err := d.Render(segment.TextFrame("1", 3))
	if err == nil || !strings.HasPrefix(err.Error(), "ht16k33: HT16K33(playback@0x70): write 0x21") {
		t.Errorf("error %v", err)
	}
	if err := d.Render(segment.TextFrame("12345", 3)); err == nil || !strings.Contains(err.Error(), "5 digits") {
		t.Errorf("5 digits on backpack: %v", err)
	}
	if d.Digits() != 4 {
		t.Errorf("Digits %d", d.Digits())
	}
}

// Only digit 1's decimal point lights the colon; other dps stay with their
// digits.
func TestColonOnlyFromDigit1(t *testing.T) {
	ram, err := ht16k33.EncodeRAM(segment.TextFrame("1.23.4", 1), ht16k33.LayoutBackpack4)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x00, 0x86, 0, 0x5b, 0, 0x00, 0, 0xcf, 0, 0x66, 0, 0, 0, 0, 0, 0, 0}
	if !reflect.DeepEqual(ram, want) {
		t.Errorf("RAM % x\nwant % x", ram, want)
	}
}
