package segment

import (
	"strings"
	"time"
)

// MaxBrightness is the highest Brightness. A frame's brightness runs from 0
// (dimmest that is still lit) to MaxBrightness (full); chip drivers scale it
// to their own steps (TM1637: 8 steps, Brightness/2; MAX7219 and HT16K33: 16
// steps, used as is).
const MaxBrightness = 15

// DefaultBrightness is the brightness used when none is configured.
const DefaultBrightness = 10

// BlinkPeriod is the period of a blinking digit: lit for the first half of
// each period, dark for the second half (2 Hz, well under the 3 Hz where
// flashing becomes a photosensitivity concern).
const BlinkPeriod = 500 * time.Millisecond

// Digit is what one 7-segment digit shows.
type Digit struct {
	// Char is a character of the glyph table (see Glyph): '0'–'9', 'P',
	// 'b', 't', 'E', 'r', 'n', '-' or ' ' (blank). The zero value 0 is
	// shown blank too.
	Char rune
	// DP lights the decimal point (on clock-style 4-digit modules the dp
	// of digit 1 is the colon).
	DP bool
	// Blink makes the digit flash: lit for the first half of each
	// BlinkPeriod, dark for the second.
	Blink bool
}

// Segments returns the digit's lit segments, decimal point included. A
// character outside the glyph table shows blank (Compose never produces
// one).
func (d Digit) Segments() Segments {
	s, _ := Glyph(d.Char)
	if d.DP {
		s |= SegDP
	}
	return s
}

// Frame is everything a totals display shows at one moment: each digit,
// left to right (index 0 is the leftmost digit as the dealer sees it), and
// the brightness. Chip drivers render frames and nothing else, so any chip
// shows the same thing.
type Frame struct {
	Digits     []Digit
	Brightness int // 0..MaxBrightness
	// Turns are further pages shown in turn after Digits, each for
	// TurnPeriod, round and round (a 4-digit display showing banque's
	// three totals one after another); nil for a frame of one page. Each
	// page has len(Digits) digits.
	Turns [][]Digit
}

// TurnPeriod is how long each page of a frame with Turns is shown: a
// whole number of half BlinkPeriods, so that a renderer redrawing at each
// half period (as for blinking) turns the pages on time.
const TurnPeriod = 3 * BlinkPeriod

// pages returns the frame's pages: Digits, then Turns.
func (f Frame) pages() int { return 1 + len(f.Turns) }

// page returns the digits of page i (0: Digits).
func (f Frame) page(i int) []Digit {
	if i == 0 {
		return f.Digits
	}
	return f.Turns[i-1]
}

// Blank returns a frame of n blank digits at brightness b.
func Blank(n, b int) Frame {
	return Frame{Digits: make([]Digit, n), Brightness: ClampBrightness(b)}
}

// Segments returns the pattern of every digit, left to right, as shown
// when blinking digits are lit (on) or dark (!on).
func (f Frame) Segments(on bool) []Segments {
	out := make([]Segments, len(f.Digits))
	for i, d := range f.Digits {
		if d.Blink && !on {
			continue
		}
		out[i] = d.Segments()
	}
	return out
}

// Blinking reports whether any digit blinks, i.e. whether the frame must
// be redrawn every half BlinkPeriod.
func (f Frame) Blinking() bool {
	if len(f.Turns) > 0 {
		return true // its pages turn at half periods too
	}
	for _, d := range f.Digits {
		if d.Blink {
			return true
		}
	}
	return false
}

// Phase returns the frame as shown at the given blink phase: with on false
// every blinking digit is blank. The result has no Blink flags, so a
// driver can show it as is.
func (f Frame) Phase(on bool) Frame {
	out := Frame{Digits: make([]Digit, len(f.Digits)), Brightness: f.Brightness}
	for i, d := range f.Digits {
		if d.Blink && !on {
			continue
		}
		d.Blink = false
		out.Digits[i] = d
	}
	return out
}

// At returns the frame as shown at elapsed time t since it was first
// shown: Phase(true) in the first half of each BlinkPeriod, Phase(false)
// in the second.
//
// A frame with Turns shows page (t / TurnPeriod) mod (1 + len(Turns)):
// the result is that page at its blink phase, with no Turns.
func (f Frame) At(t time.Duration) Frame {
	if t < 0 {
		t = 0
	}
	if len(f.Turns) > 0 {
		f = Frame{Digits: f.page(int(t/TurnPeriod) % f.pages()), Brightness: f.Brightness}
	}
	return f.Phase(t%BlinkPeriod < BlinkPeriod/2)
}

// Equal reports whether two frames show the same thing.
func (f Frame) Equal(g Frame) bool {
	if f.Brightness != g.Brightness || len(f.Digits) != len(g.Digits) || len(f.Turns) != len(g.Turns) {
		return false
	}
	for p := range f.pages() {
		a, b := f.page(p), g.page(p)
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i].Segments() != b[i].Segments() || a[i].Blink != b[i].Blink {
				return false
			}
		}
	}
	return true
}

// String is a one-line picture of the frame for logs and tests: each digit's
// character (a blank digit as ' '), followed by '.' when its decimal point is
// lit, with a blinking digit wrapped in brackets: "[7] bn5" is a blinking 7,
// a blank, a 'b', an 'n' and a 5.
//
// The pages of a frame with Turns are written one after another, separated
// by " / ": "r  5 / L  3 / b  7".
func (f Frame) String() string {
	var b strings.Builder
	for p := range f.pages() {
		if p > 0 {
			b.WriteString(" / ")
		}
		writeDigits(&b, f.page(p))
	}
	return b.String()
}

func writeDigits(b *strings.Builder, digits []Digit) {
	for _, d := range digits {
		c := d.Segments().Char()
		if d.Blink {
			b.WriteByte('[')
		}
		b.WriteRune(c)
		if d.DP {
			b.WriteByte('.')
		}
		if d.Blink {
			b.WriteByte(']')
		}
	}
}

// TextFrame is the inverse of Frame.String: each character is a digit,
// a '.' lights the decimal point of the digit before it, and "[x]" makes x
// blink. TextFrame("9P.n8", 7) is the four digits 9, P with its point, n
// and 8 at brightness 7. Characters outside the glyph table show blank
// (see Glyph); a '.' with no digit before it is a digit showing only its
// point, and an unclosed '[' blinks the rest.
func TextFrame(text string, brightness int) Frame {
	f := Frame{Brightness: ClampBrightness(brightness)}
	blink := false
	for _, r := range text {
		switch {
		case r == '[':
			blink = true
		case r == ']':
			blink = false
		case r == '.' && len(f.Digits) > 0 && !f.Digits[len(f.Digits)-1].DP:
			f.Digits[len(f.Digits)-1].DP = true
		case r == '.':
			f.Digits = append(f.Digits, Digit{Char: ' ', DP: true, Blink: blink})
		default:
			f.Digits = append(f.Digits, Digit{Char: r, Blink: blink})
		}
	}
	return f
}

// Renderer shows frames: every chip driver (drivers/tm1637,
// drivers/max7219, drivers/ht16k33) and the terminal display
// (drivers/terminal) implement it. Render shows f as given, digit 0
// leftmost; it does not animate Blink flags itself, so callers that want
// blinking pass f.At(elapsed) (or f.Phase) at each half BlinkPeriod.
// Errors are the device's, prefixed with the driver's name.
type Renderer interface {
	Render(f Frame) error
}

// ClampBrightness is b clamped to 0..MaxBrightness: what a frame holds and
// what a chip driver scales to its own steps.
func ClampBrightness(b int) int {
	if b < 0 {
		return 0
	}
	if b > MaxBrightness {
		return MaxBrightness
	}
	return b
}
