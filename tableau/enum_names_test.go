package tableau

import (
	"fmt"
	"testing"
)

// TestEnumNames pins the String of every value of the package's name-table
// enumerations, and of values past them (the fallback text).
func TestEnumNames(t *testing.T) {
	for v, want := range map[fmt.Stringer]string{
		CutRule(0):      "last-coup",
		CutRule(1):      "one-more",
		CutRule(2):      "CutRule(2)",
		CutRule(255):    "CutRule(255)",
		Phase(0):        "no-shoe",
		Phase(1):        "burn",
		Phase(2):        "between",
		Phase(3):        "coup",
		Phase(4):        "Phase(4)",
		Phase(255):      "Phase(255)",
		TokenKind(0):    "TokenKind(0)",
		TokenKind(1):    "card",
		TokenKind(2):    "shoe",
		TokenKind(3):    "|",
		TokenKind(4):    "cut",
		TokenKind(5):    "void",
		TokenKind(6):    "dealer",
		TokenKind(7):    "stand",
		TokenKind(8):    "refuse",
		TokenKind(9):    "declare",
		TokenKind(10):   "TokenKind(10)",
		TokenKind(255):  "TokenKind(255)",
		OutputKind(0):   "OutputKind(0)",
		OutputKind(1):   "card",
		OutputKind(2):   "coup",
		OutputKind(3):   "alert",
		OutputKind(4):   "void",
		OutputKind(5):   "ack",
		OutputKind(6):   "gate",
		OutputKind(7):   "OutputKind(7)",
		OutputKind(255): "OutputKind(255)",
	} {
		if got := v.String(); got != want {
			t.Errorf("%T(%d).String() = %q, want %q", v, v, got, want)
		}
	}
}
