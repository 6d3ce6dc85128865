package shoe

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestDeps fails if the shoe drivers import the rules engine: of tableau
// they need the cards only (tableau/card), so a change to the rules does not
// touch the drivers that read the shoe.
func TestDeps(t *testing.T) {
	const pkg = "github.com/sabot-table/sabot/drivers/shoe"
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	sawCard := false
	for dec.More() {
		var p struct{ ImportPath string }
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		switch rel, ok := strings.CutPrefix(p.ImportPath, "github.com/sabot-table/sabot/"); {
		case rel == "tableau/card":
			sawCard = true
		case ok && (rel == "tableau" || strings.HasPrefix(rel, "tableau/")):
			t.Errorf("%s depends on %s: of tableau, only tableau/card is allowed", pkg, p.ImportPath)
		}
	}
	if !sawCard {
		t.Error("go list did not report tableau/card: the check did not run")
	}
}

// TestAlarmSequenceIsTheTableauCode pins AlarmSequence to the alert code the
// table raises for it, which the driver no longer imports.
func TestAlarmSequenceIsTheTableauCode(t *testing.T) {
	if AlarmSequence != string(baccarat.AlertShoeSequence) {
		t.Errorf("AlarmSequence is %q, baccarat.AlertShoeSequence %q", AlarmSequence, baccarat.AlertShoeSequence)
	}
}
