package segment

// Segments is the pattern of one 7-segment digit, one bit per segment:
//
//	bit0 = a (top)          bit4 = e (lower left)
//	bit1 = b (upper right)  bit5 = f (upper left)
//	bit2 = c (lower right)  bit6 = g (middle)
//	bit3 = d (bottom)       bit7 = dp (decimal point)
//
//	 aaa
//	f   b
//	 ggg
//	e   c
//	 ddd  dp
//
// This is the TM1637's and the HT16K33 backpack's own bit order; chip
// drivers whose order differs (the MAX7219 in no-decode mode) convert it.
type Segments uint8

// The eight segments.
const (
	SegA Segments = 1 << iota
	SegB
	SegC
	SegD
	SegE
	SegF
	SegG
	SegDP
)

// The glyph table: every character a frame may show.
var glyphs = map[rune]Segments{
	'0': SegA | SegB | SegC | SegD | SegE | SegF,
	'1': SegB | SegC,
	'2': SegA | SegB | SegD | SegE | SegG,
	'3': SegA | SegB | SegC | SegD | SegG,
	'4': SegB | SegC | SegF | SegG,
	'5': SegA | SegC | SegD | SegF | SegG,
	'6': SegA | SegC | SegD | SegE | SegF | SegG,
	'7': SegA | SegB | SegC,
	'8': SegA | SegB | SegC | SegD | SegE | SegF | SegG,
	'9': SegA | SegB | SegC | SegD | SegF | SegG,
	'P': SegA | SegB | SegE | SegF | SegG, // player, winner indicator
	'b': SegC | SegD | SegE | SegF | SegG, // banker, burn ("br")
	't': SegD | SegE | SegF | SegG,        // tie
	'E': SegA | SegD | SegE | SegF | SegG, // error code prefix
	'r': SegE | SegG,                      // "Err", "br"
	'n': SegC | SegE | SegG,               // natural
	'L': SegD | SegE | SegF,               // banque's left tableau
	'-': SegG,                             // shoe offline
	' ': 0,                                // blank
}

// Glyph returns the segments that show r, which must be one of the digits
// '0'–'9', the letters 'P', 'b', 't', 'E', 'r', 'n', 'L', the dash '-' or the
// blank ' '. ok is false for any other rune.
func Glyph(r rune) (s Segments, ok bool) {
	s, ok = glyphs[r]
	return s, ok
}

// Glyphs returns the characters of the glyph table, in a fixed order.
func Glyphs() []rune {
	return []rune("0123456789PbtErnL- ")
}

// String lists the lit segments by letter, e.g. "abcdef" for '0'; the
// decimal point is written "p" ("bcp" is "1."). A blank digit gives "".
func (s Segments) String() string {
	const names = "abcdefgp"
	b := make([]byte, 0, 8)
	for i := 0; i < 8; i++ {
		if s&(1<<i) != 0 {
			b = append(b, names[i])
		}
	}
	return string(b)
}

// Char returns the glyph-table character whose pattern is s without its
// decimal point, or '?' if no glyph has that pattern.
func (s Segments) Char() rune {
	s &^= SegDP
	for _, r := range Glyphs() {
		if glyphs[r] == s {
			return r
		}
	}
	return '?'
}
