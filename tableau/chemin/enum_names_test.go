package chemin

import "testing"

// TestBankerSeesNames pins BankerSees's String and ParseBankerSees, and the
// text of a value past the last.
func TestBankerSeesNames(t *testing.T) {
	names := []string{SeesTotal: "total", SeesHand: "hand"}
	for v, name := range names {
		if got := BankerSees(v).String(); got != name {
			t.Errorf("BankerSees(%d).String() = %q, want %q", v, got, name)
		}
		if got, err := ParseBankerSees(name); err != nil || got != BankerSees(v) {
			t.Errorf("ParseBankerSees(%q) = %v, %v", name, got, err)
		}
	}
	if got := BankerSees(2).String(); got != "BankerSees(2)" {
		t.Errorf("BankerSees(2).String() = %q", got)
	}
	_, err := ParseBankerSees("Hand")
	if want := `tableau: unknown banker information "Hand" (want total or hand)`; err == nil || err.Error() != want {
		t.Errorf("ParseBankerSees(Hand) error = %v, want %s", err, want)
	}
}
