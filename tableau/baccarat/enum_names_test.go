package baccarat

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
		{Need(0), "player"},
		{Need(1), "banker"},
		{Need(2), "player-third"},
		{Need(3), "banker-third"},
		{Need(4), "complete"},
		{Need(5), "left"},
		{Need(6), "left-third"},
		{Need(7), "Need(7)"},
		{Need(255), "Need(255)"},
		{Winner(0), ""},
		{Winner(1), "player"},
		{Winner(2), "banker"},
		{Winner(3), "tie"},
		{Winner(4), ""},
		{Winner(255), ""},
		{EventKind(0), "EventKind(0)"},
		{EventKind(1), "coup"},
		{EventKind(2), "alert"},
		{EventKind(3), "void"},
		{EventKind(4), "EventKind(4)"},
		{EventKind(255), "EventKind(255)"},
		{Rule(0), "stand"},
		{Rule(1), "draw"},
		{Rule(2), "option"},
		{Rule(3), "Rule(3)"},
		{Rule(255), "Rule(255)"},
		{BankerTable(0), "scarne"},
		{BankerTable(1), "free"},
		{BankerTable(2), "BankerTable(2)"},
		{BankerTable(255), "BankerTable(255)"},
		{MacaoCount(0), "modulo"},
		{MacaoCount(1), "bust"},
		{MacaoCount(2), "MacaoCount(2)"},
		{MacaoCount(255), "MacaoCount(255)"},
		{MacaoEqual(0), "banker"},
		{MacaoEqual(1), "push"},
		{MacaoEqual(2), "MacaoEqual(2)"},
		{MacaoEqual(255), "MacaoEqual(255)"},
		{MacaoPayTable(0), "3-2"},
		{MacaoPayTable(1), "2-1"},
		{MacaoPayTable(2), "MacaoPayTable(2)"},
		{MacaoPayTable(255), "MacaoPayTable(255)"},
		{Outcome(0), ""},
		{Outcome(1), "win"},
		{Outcome(2), "lose"},
		{Outcome(3), "push"},
		{Outcome(4), ""},
		{Outcome(255), ""},
	}
	for _, c := range cases {
		if got := c.v.String(); got != c.want {
			t.Errorf("%T(%d).String() = %q, want %q", c.v, c.v, got, c.want)
		}
	}
}
