package segment_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// The 7-segment frame and what imports it for the LED chips: segment
// depends on the standard library only, and no chip driver depends on
// tableau or display (the shoe's rules and the table's composition are
// not theirs), only on segment and ledchip.
func TestDeps(t *testing.T) {
	for _, tc := range []struct {
		pkg     string
		allowed []string
	}{
		{"github.com/sabot-table/sabot/display/segment", nil},
		{"github.com/sabot-table/sabot/drivers/ledchip", []string{"display/segment"}},
		{"github.com/sabot-table/sabot/drivers/max7219", []string{"display/segment", "drivers/ledchip"}},
		{"github.com/sabot-table/sabot/drivers/ht16k33", []string{"display/segment", "drivers/ledchip"}},
		{"github.com/sabot-table/sabot/drivers/tm1637", []string{"display/segment", "drivers/ledchip"}},
	} {
		out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard,Module", tc.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", tc.pkg, err)
		}
		dec := json.NewDecoder(strings.NewReader(string(out)))
		n := 0
		for dec.More() {
			var p struct {
				ImportPath string
				Standard   bool
				Module     *struct{ Path string }
			}
			if err := dec.Decode(&p); err != nil {
				t.Fatal(err)
			}
			n++
			rel, ours := strings.CutPrefix(p.ImportPath, "github.com/sabot-table/sabot/")
			switch {
			case p.Standard || p.ImportPath == tc.pkg:
			case !ours:
				if tc.allowed == nil {
					t.Errorf("%s depends on %s: only the standard library is allowed", tc.pkg, p.ImportPath)
				}
			default:
				ok := false
				for _, a := range tc.allowed {
					ok = ok || rel == a
				}
				if !ok {
					t.Errorf("%s depends on %s", tc.pkg, p.ImportPath)
				}
			}
		}
		if n < 2 {
			t.Errorf("go list reported %d packages for %s: the check did not run", n, tc.pkg)
		}
	}
}
