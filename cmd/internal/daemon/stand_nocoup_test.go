package daemon

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestDaemonStandWithNoCoup: at a chemin de fer table a stand between
// coups — the shoe's "stand", the MQTT stand command, the [gpio]
// stand_key — is journaled (the dealer's press, for the audit trail) and
// raises misplaced-token, published as a warning that awaits no ack:
// nothing latches, the display keeps the last coup's totals, and the next
// coup is dealt and settled as without the presses.
func TestDaemonStandWithNoCoup(t *testing.T) {
	s := newStandRig(t, "T-N")
	m, r, cmds, stands := s.m, s.r, s.cmds, s.stands
	send := func(toks string) { t.Helper(); s.send(t, toks) }
	send("shoe 3C 4D 9H 2S | 7H 2C KD 4S |")
	waitFor(t, "coup 1", 10*time.Second, func() bool { return len(r.kind("coup")) == 1 })
	frame := m.d.fakeFrame()
	send("stand")
	cmds.Publish("sabot/T-N/cmd/stand", 1, false, `{"request_id":"s1","operator":"pit"}`).WaitTimeout(time.Second)
	waitFor(t, "the command's stand", 10*time.Second, func() bool { return len(stands()) == 2 })
	if err := m.d.board.Fake.Press("stand_key"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the key's stand", 10*time.Second, func() bool { return len(stands()) == 3 })
	m.d.board.Fake.Release("stand_key")
	waitFor(t, "3 alerts", 10*time.Second, func() bool { return len(r.kind("alert")) >= 3 })
	for _, a := range r.kind("alert") {
		if a["code"] != "misplaced-token" || a["severity"] != "warning" || a["awaits_ack"] != false || a["coup"] != 1.0 {
			t.Errorf("alert %v", a)
		}
	}
	if got := strings.Join(stands(), " "); got != "shoe mqtt gpio" {
		t.Errorf("stands journaled from %q, want shoe mqtt gpio", got)
	}
	if v := m.d.currentView(); v.AlertCount != 0 || len(v.Alerts) != 0 {
		t.Errorf("latched alerts after stray stands: %d %v", v.AlertCount, v.Alerts)
	}
	if got := m.d.fakeFrame(); got != frame {
		t.Errorf("display after the stands %q, before %q", got, frame)
	}
	send("4H 3D AC KS stand 5C |")
	waitFor(t, "coup 2", 10*time.Second, func() bool { return len(r.kind("coup")) == 2 })
	c := r.kind("coup")[1]
	if opts, _ := json.Marshal(c["options"]); c["coup"] != 2.0 || c["winner"] != "banker" || string(opts) != `[{"choice":"stand","hand":"player","total":5}]` {
		t.Errorf("coup 2: %v", c)
	}
	if n := len(r.kind("alert")); n != 3 {
		t.Errorf("%d alerts, want 3", n)
	}
}
