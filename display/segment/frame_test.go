package segment

import (
	"reflect"
	"testing"
)

// TextFrame reads the notation Frame.String writes, digit by digit.
func TestTextFrame(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []Digit
	}{
		{"9P.n8", []Digit{{Char: '9'}, {Char: 'P', DP: true}, {Char: 'n'}, {Char: '8'}}},
		{"[5]  6", []Digit{{Char: '5', Blink: true}, {Char: ' '}, {Char: ' '}, {Char: '6'}}},
		{"[7.]b", []Digit{{Char: '7', DP: true, Blink: true}, {Char: 'b'}}},
		{".1..", []Digit{{Char: ' ', DP: true}, {Char: '1', DP: true}, {Char: ' ', DP: true}}},
		{"", nil},
	} {
		f := TextFrame(tc.text, 9)
		if !reflect.DeepEqual(f.Digits, tc.want) || f.Brightness != 9 {
			t.Errorf("TextFrame(%q) = %+v (brightness %d), want %+v", tc.text, f.Digits, f.Brightness, tc.want)
		}
		if tc.text != "" && tc.text != ".1.." && f.String() != tc.text {
			t.Errorf("TextFrame(%q).String() = %q", tc.text, f.String())
		}
	}
	if b := TextFrame("8", 99).Brightness; b != MaxBrightness {
		t.Errorf("brightness 99 clamped to %d, want %d", b, MaxBrightness)
	}
}
