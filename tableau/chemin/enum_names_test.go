package chemin

import (
	"fmt"
	"testing"
)

// TestEnumNames pins the String of every value of the package's name-table
// enumerations, and of values past them (the fallback text).
func TestEnumNames(t *testing.T) {
	cases := []struct {
		v    fmt.Stringer
		want string
	}{
		{BankerSees(0), "total"},
		{BankerSees(1), "hand"},
		{BankerSees(2), "BankerSees(2)"},
		{BankerSees(255), "BankerSees(255)"},
	}
	for _, c := range cases {
		if got := c.v.String(); got != c.want {
			t.Errorf("%T(%d).String() = %q, want %q", c.v, c.v, got, c.want)
		}
	}
}
