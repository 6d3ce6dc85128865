package main

import (
	"strings"
	"testing"
)

// TestCheckDeclare: `sabot check` checks "declare" tokens: the coup 1
// cards give player 8 to banker 5 (naturals), declared banker; coup 2
// gives banker 8 to 5, declared banker; coup 3's declaration comes
// before it is complete. A bad declaration is refused with its position.
func TestCheckDeclare(t *testing.T) {
	src := "shoe AD 2C\n8S 2H KS 3D declare B\n2H 8S 3D KS declare B\n8S 8H declare T\n"
	code, out, _ := runCheckArgs(t, src)
	var alerts []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, `{"type":"alert"`) {
			alerts = append(alerts, l)
		}
	}
	want := []string{
		`{"type":"alert","shoe":1,"coup":1,"code":"result-mismatch","declared":"banker","computed":"player"}`,
		`{"type":"alert","shoe":1,"coup":3,"code":"misplaced-declare"}`,
		`{"type":"alert","shoe":1,"coup":3,"code":"incomplete-coup"}`,
	}
	if code != 1 || strings.Join(alerts, "\n") != strings.Join(want, "\n") {
		t.Errorf("exit %d, alerts:\n%s\nwant:\n%s", code, strings.Join(alerts, "\n"), strings.Join(want, "\n"))
	}
	code, _, errs := runCheckArgs(t, "shoe AD 2C\n8S 2H KS 3D declare X\n")
	if code != 2 || !strings.Contains(errs, `2:21: bad declaration "X": a declared result is P, B or T`) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
