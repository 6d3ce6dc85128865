package segment

import "testing"

// The expected patterns, written out segment by segment (bit0=a ... bit6=g,
// bit7=dp) from the standard 7-segment drawings of each character.
func TestGlyphTable(t *testing.T) {
	cases := []struct {
		r    rune
		want Segments
		segs string
	}{
		{'0', 0x3F, "abcdef"},
		{'1', 0x06, "bc"},
		{'2', 0x5B, "abdeg"},
		{'3', 0x4F, "abcdg"},
		{'4', 0x66, "bcfg"},
		{'5', 0x6D, "acdfg"},
		{'6', 0x7D, "acdefg"},
		{'7', 0x07, "abc"},
		{'8', 0x7F, "abcdefg"},
		{'9', 0x6F, "abcdfg"},
		{'P', 0x73, "abefg"},
		{'b', 0x7C, "cdefg"},
		{'t', 0x78, "defg"},
		{'E', 0x79, "adefg"},
		{'r', 0x50, "eg"},
		{'n', 0x54, "ceg"},
		{'L', 0x38, "def"},
		{'-', 0x40, "g"},
		{' ', 0x00, ""},
	}
	if len(cases) != len(Glyphs()) {
		t.Fatalf("glyph table has %d characters, test covers %d", len(Glyphs()), len(cases))
	}
	for _, c := range cases {
		got, ok := Glyph(c.r)
		if !ok {
			t.Errorf("Glyph(%q): not in table", c.r)
			continue
		}
		if got != c.want {
			t.Errorf("Glyph(%q) = %#02x, want %#02x", c.r, uint8(got), uint8(c.want))
		}
		if got.String() != c.segs {
			t.Errorf("Glyph(%q).String() = %q, want %q", c.r, got.String(), c.segs)
		}
		if got.Char() != c.r {
			t.Errorf("Glyph(%q).Char() = %q", c.r, got.Char())
		}
		if (got | SegDP).Char() != c.r {
			t.Errorf("(Glyph(%q)|dp).Char() = %q", c.r, (got | SegDP).Char())
		}
	}
}

func TestGlyphUnknown(t *testing.T) {
	for _, r := range []rune{'A', 'B', 'p', 'x', '.', 0, 'é'} {
		if s, ok := Glyph(r); ok {
			t.Errorf("Glyph(%q) = %v, true; want not found", r, s)
		}
	}
	if c := Segments(SegA | SegD).Char(); c != '?' {
		t.Errorf("Char of unknown pattern = %q, want '?'", c)
	}
}

func TestSegmentBits(t *testing.T) {
	want := []Segments{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80}
	got := []Segments{SegA, SegB, SegC, SegD, SegE, SegF, SegG, SegDP}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("segment %d = %#x, want %#x", i, got[i], want[i])
		}
	}
	if s := (SegB | SegC | SegDP).String(); s != "bcp" {
		t.Errorf("String = %q, want bcp", s)
	}
}
