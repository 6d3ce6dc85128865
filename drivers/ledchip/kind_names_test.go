package ledchip

import "testing"

// TestKindString pins Kind's names and the text of a kind out of range.
func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{
		-1:     "ledchip.Kind(-1)",
		Int:    "an integer",
		String: "a string",
		Pin:    "a pin name (a string)",
		Ints:   "an array of integers",
		4:      "ledchip.Kind(4)",
	} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}
