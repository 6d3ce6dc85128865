package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
)

// standRig is a chemin de fer table on a "lines" pty shoe with the MQTT
// stand command and a [gpio] stand_key, and a subscriber to its topics:
// the set-up of the stand tests.
type standRig struct {
	m    *Main
	ptmx *os.File
	r    *received
	cmds paho.Client
}

func newStandRig(t *testing.T, table string) *standRig {
	t.Helper()
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	conf := fmt.Sprintf(`table = %q
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
`, table, tty.Name(), t.TempDir())
	m, _ := bootDaemon(t, conf)
	waitShoeOnline(t, m)
	s := &standRig{m: m, ptmx: ptmx, r: newReceived()}
	s.cmds = subscribe(t, ownURL(m.d.broker), "sabot/"+table, s.r)
	return s
}

// send writes the tokens to the shoe and waits until each is journaled.
func (s *standRig) send(t *testing.T, toks string) {
	t.Helper()
	n := s.m.d.journal.Last()
	for _, tok := range strings.Fields(toks) {
		fmt.Fprintf(s.ptmx, "%s\r\n", tok)
	}
	k := uint64(len(strings.Fields(toks)))
	waitFor(t, "the tokens journaled", 10*time.Second, func() bool { return s.m.d.journal.Last() >= n+k })
}

// stands lists the sources of the journaled stands, oldest first.
func (s *standRig) stands() []string {
	var src []string
	s.m.d.journal.Replay(1, func(rec journal.Record) error {
		var in tableau.Input
		if json.Unmarshal(rec.Data, &in) == nil && in.Kind == tableau.InputStand {
			src = append(src, in.Source)
		}
		return nil
	})
	return src
}

// TestDaemonStand: at a chemin de fer table the punter's 5 is declined
// three ways — the shoe's "stand" (the lines protocol), the MQTT stand
// command and the [gpio] stand_key — and each goes through the journal to
// the table like every input: the three coups say the punter stood on 5
// and the banker drew, and the journal holds the three stands with their
// sources.
func TestDaemonStand(t *testing.T) {
	s := newStandRig(t, "T-C")
	m, r, cmds, stands := s.m, s.r, s.cmds, s.stands
	send := func(toks string) { t.Helper(); s.send(t, toks) }
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

// TestDaemonStandButton: a sabot-protocol shoe's stand button (BUTTON 4,
// from the virtual shoe dealing the transcript's "stand") reaches a chemin
// de fer table as the punter's declined 5.
func TestDaemonStandButton(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "ttySHOE")
	conf := fmt.Sprintf(`table = "T-S"
game = "chemin-de-fer"
[shoe]
device = %q
protocol = "sabot"
markers = "on"
[mqtt]
embedded_addr = "127.0.0.1:0"
[state]
dir = %q
`, link, filepath.Join(dir, "state"))
	m, _ := bootDaemon(t, conf)
	r := newReceived()
	subscribe(t, ownURL(m.d.broker), "sabot/T-S", r)
	dealVirtualShoe(t, link, "shoe 3C 4D 9H 2S | 4H 3D AC KS stand 5C |", 3)
	waitFor(t, "the coup", 10*time.Second, func() bool { return len(r.kind("coup")) == 1 })
	c := r.kind("coup")[0]
	opts, _ := json.Marshal(c["options"])
	if string(opts) != `[{"choice":"stand","hand":"player","total":5}]` || fmt.Sprint(c["banker"]) != "[3D KS 5C]" {
		t.Errorf("coup %v", c)
	}
}

// TestDaemonBanque: a banque table on the lines protocol publishes its
// coup in banque's shape and its 8-digit display shows the three totals
// and each tableau's result.
func TestDaemonBanque(t *testing.T) {
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	conf := fmt.Sprintf(`table = "T-B"
game = "banque"
[shoe]
device = %q
protocol = "lines"
[mqtt]
embedded_addr = "127.0.0.1:0"
[display]
kind = "fake"
[state]
dir = %q
`, tty.Name(), t.TempDir())
	m, _ := bootDaemon(t, conf)
	waitShoeOnline(t, m)
	r := newReceived()
	subscribe(t, ownURL(m.d.broker), "sabot/T-B", r)
	for _, tok := range strings.Fields("shoe 2C 8D 4S | 5S 2H 9D KC AC 8H") {
		fmt.Fprintf(ptmx, "%s\r\n", tok)
	}
	// The right tableau's 5 is at its option: it blinks.
	waitFor(t, "the option on the display", 10*time.Second, func() bool { return m.d.fakeFrame() == "r[5] L3 b7" })
	for _, tok := range strings.Fields("stand 4D 6H |") {
		fmt.Fprintf(ptmx, "%s\r\n", tok)
	}
	waitFor(t, "the coup", 10*time.Second, func() bool { return len(r.kind("coup")) == 1 })
	c := r.kind("coup")[0]
	if c["game"] != "banque" || c["right_winner"] != "right" || c["left_winner"] != "left" || c["banker_total"] != float64(3) ||
		fmt.Sprint(c["left"]) != "[2H AC 4D]" || c["rules"] != "banque" {
		t.Errorf("banque coup %v", c)
	}
	if _, ok := c["tie_pays"]; ok {
		t.Errorf("banque coup with tie_pays: %v", c)
	}
	waitFor(t, "the result on the display", 10*time.Second, func() bool { return m.d.fakeFrame() == "r5PL7Pb3" })
}

// dealVirtualShoe runs a virtual sabot-protocol shoe (seeded with seed) on
// the pty link until it has dealt the transcript src, or fails the test.
func dealVirtualShoe(t *testing.T, link, src string, seed uint64) {
	t.Helper()
	toks, err := tableau.ParseTranscript(strings.NewReader(src), "deal")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sim.New(sim.Options{Tokens: toks, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := vs.Run(ctx, sim.NewPTY(link)); err != nil {
		t.Fatalf("virtual shoe: %v (%+v)", err, vs.Stats())
	}
}
