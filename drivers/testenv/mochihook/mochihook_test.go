package mochihook

import "testing"

// TestRefuse: the filter is refused the given number of times, then
// granted; publishes and other filters are never refused nor counted.
func TestRefuse(t *testing.T) {
	h := RefuseSubscribe("sabot/+/state", 2)
	var got []bool
	for range 3 {
		got = append(got, h.OnACLCheck(nil, "sabot/+/state", false))
		if !h.OnACLCheck(nil, "sabot/+/state", true) || !h.OnACLCheck(nil, "sabot/+/coup", false) {
			t.Fatal("a publish or another filter refused")
		}
	}
	if got[0] || got[1] || !got[2] {
		t.Errorf("granted %v, want [false false true]", got)
	}
	if n := h.Asked(); n != 3 {
		t.Errorf("asked %d, want 3", n)
	}
}
