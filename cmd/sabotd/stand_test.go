package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
)

// TestDaemonStand: at a chemin de fer table the punter's 5 is declined
// three ways — the shoe's "stand" (the lines protocol), the MQTT stand
// command and the [gpio] stand_key — and each goes through the journal to
// the table like every input: the three coups say the punter stood on 5
// and the banker drew, and the journal holds the three stands with their
// sources.
func TestDaemonStand(t *testing.T) {
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	conf := fmt.Sprintf(`table = "T-C"
game = "chemin-de-fer"
[shoe]
device = %q
protocol = "lines"
[mqtt]
embedded_addr = "127.0.0.1:0"
commands = true
[display]
kind = "fake"
[gpio]
stand_key = "GPIO6"
[state]
dir = %q
`, tty.Name(), t.TempDir())
	m, _ := bootDaemon(t, conf)
	waitShoeOnline(t, m)
	r := newReceived()
	cmds := subscribe(t, m.d.broker.URL(), "sabot/T-C", r)
	send := func(toks string) {
		t.Helper()
		n := m.d.journal.Last()
		for _, tok := range strings.Fields(toks) {
			fmt.Fprintf(ptmx, "%s\r\n", tok)
		}
		k := uint64(len(strings.Fields(toks)))
		waitFor(t, "the tokens journaled", 10*time.Second, func() bool { return m.d.journal.Last() >= n+k })
	}
	stands := func() []string {
		var src []string
		m.d.journal.Replay(1, func(rec journal.Record) error {
			var in tableau.Input
			if json.Unmarshal(rec.Data, &in) == nil && in.Kind == tableau.InputStand {
				src = append(src, in.Source)
			}
			return nil
		})
		return src
	}
	send("shoe 3C 4D 9H 2S |")
	// 1: the shoe's own stand.
	send("4H 3D AC KS stand 5C |")
	// 2: the pit system's command.
	send("4H 3D AC KS")
	cmds.Publish("sabot/T-C/cmd/stand", 1, false, `{"request_id":"s1","operator":"pit"}`).WaitTimeout(time.Second)
	waitFor(t, "the command's stand", 10*time.Second, func() bool { return len(stands()) == 2 })
	send("5C |")
	// 3: the dealer's key.
	send("4H 3D AC KS")
	if err := m.d.board.Fake.Press("stand_key"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the key's stand", 10*time.Second, func() bool { return len(stands()) == 3 })
	m.d.board.Fake.Release("stand_key")
	send("5C |")

	waitFor(t, "3 coups", 10*time.Second, func() bool { return len(r.kind("coup")) >= 3 })
	for i, c := range r.kind("coup") {
		opts, _ := json.Marshal(c["options"])
		if c["game"] != "chemin-de-fer" || string(opts) != `[{"choice":"stand","hand":"player","total":5}]` ||
			fmt.Sprint(c["banker"]) != "[3D KS 5C]" || c["winner"] != "banker" {
			t.Errorf("coup %d: %v", i+1, c)
		}
	}
	if got := strings.Join(stands(), " "); got != "shoe mqtt gpio" {
		t.Errorf("stands journaled from %q, want shoe mqtt gpio", got)
	}
	if len(r.events()) != 3 {
		t.Errorf("events: %v", r.events())
	}
}
