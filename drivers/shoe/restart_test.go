package shoe

import (
	"fmt"
	"strings"
	"testing"
	"time"

	fwproto "github.com/sabot-table/sabot/firmware-proto"
	"github.com/sabot-table/sabot/firmware-proto/sim"
)

// Two successive runs of the virtual shoe with the same boot id (a shoe
// whose boot id is not random, or real firmware restarting its sequence at
// 1 under the same boot id) on the same port: the host sees the sequence
// restart, raises a "shoe-sequence" alarm, carries on as after a reboot,
// and delivers every card of both runs, in order, none twice.
func TestSabotSequenceRestartSameBootID(t *testing.T) {
	const boot = 0x5AB07001
	link := &ptyLink{name: symlinkPath(t)}
	_, rec, _ := startShoe(t, sabotOptions(link.name))
	var want, want2 []string
	for run, seed := range []uint64{11, 12} {
		r := startSimOn(t, link, sim.Options{Seed: seed, Decks: 1, BootID: boot})
		r.wait(t, 60*time.Second)
		want2 = expectedEvents(r.shoe.Tokens())
		want = append(want, want2...)
		if st := r.shoe.Stats(); st.Boot != boot {
			t.Fatalf("run %d: boot id %#x", run+1, st.Boot)
		}
	}
	// The shoe is done once everything is acknowledged, which the host
	// does after the handler returned: every event is recorded.
	evs := rec.events()
	var got []string
	alarms := 0
	for _, ev := range evs {
		switch ev.Kind {
		case KindOnline, KindOffline:
			continue
		case KindAlarm:
			if ev.Alarm.Code != "shoe-sequence" {
				t.Fatalf("unexpected alarm %v", ev)
			}
			if !strings.Contains(ev.Alarm.Text, "0x5ab07001") {
				t.Errorf("alarm text %q does not name the boot id", ev.Alarm.Text)
			}
			alarms++
			got = append(got, "ALARM")
			continue
		}
		got = append(got, ev.String())
	}
	if alarms != 1 {
		t.Fatalf("%d shoe-sequence alarms, want 1: %q", alarms, got)
	}
	// The alarm comes between the two runs.
	var noAlarm []string
	at := -1
	for i, g := range got {
		if g == "ALARM" {
			at = i
			continue
		}
		noAlarm = append(noAlarm, g)
	}
	if strings.Join(noAlarm, "\n") != strings.Join(want, "\n") {
		for i := range min(len(noAlarm), len(want)) {
			if noAlarm[i] != want[i] {
				t.Fatalf("event %d: got %q, want %q (%d delivered, %d dealt)", i, noAlarm[i], want[i], len(noAlarm), len(want))
			}
		}
		t.Fatalf("%d events delivered, %d dealt", len(noAlarm), len(want))
	}
	if at != len(want)-len(want2) {
		t.Fatalf("alarm at event %d, want %d (after the first run's events)", at, len(want)-len(want2))
	}
	// Carried on as after a reboot: offline, then online again, between the runs.
	if count(evs, KindOnline) < 2 || count(evs, KindOffline) < 1 {
		t.Errorf("online %d, offline %d", count(evs, KindOnline), count(evs, KindOffline))
	}
}

// A HELLO repeated for a boot already delivered holds that boot's events
// unacknowledged; with no heartbeat to decide within waitTimeout, the host
// takes it for a retransmission: ACK of what was delivered, nothing
// delivered twice, no alarm.
func TestSabotWaitTimeout(t *testing.T) {
	s := NewSabot(ProtocolConfig{Logger: quietLogger()})
	out := &captureSender{}
	var got []string
	emit := func(ev Event) error { got = append(got, ev.String()); return nil }
	now := time.Unix(1000, 0)
	if err := s.Connect(out, now, emit); err != nil {
		t.Fatal(err)
	}
	var wire []byte
	wire, _ = fwproto.AppendFrame(wire, fwproto.Frame{Boot: 7, Seq: 1, Msg: &fwproto.Hello{Model: "M"}})
	wire, _ = fwproto.AppendFrame(wire, fwproto.Frame{Boot: 7, Seq: 2, Msg: &fwproto.Card{Rank: 5, Suit: 1, Clock: 100}})
	if err := s.Feed(wire, now, emit); err != nil {
		t.Fatal(err)
	}
	if err := s.Feed(wire, now.Add(time.Second), emit); err != nil { // both again
		t.Fatal(err)
	}
	acks := func() []string {
		var a []string
		for _, f := range out.frames(t) {
			if m, ok := f.Msg.(*fwproto.Ack); ok {
				a = append(a, fmt.Sprint(m.Seq))
			}
		}
		return a
	}
	if a := acks(); strings.Join(a, ",") != "1,2" {
		t.Fatalf("ACKs while waiting: %v, want 1,2 (the repeated events wait)", a)
	}
	for i := 1; i <= 3; i++ {
		if err := s.Tick(now.Add(time.Second+time.Duration(i)*time.Second+10*time.Millisecond), emit); err != nil {
			t.Fatal(err)
		}
	}
	if a := acks(); strings.Join(a, ",") != "1,2,2" {
		t.Fatalf("ACKs after the wait: %v, want 1,2,2", a)
	}
	// (The silence of this test's shoe also reports it offline.)
	if len(got) < 2 || got[0] != "online M " || got[1] != "card 5S" || strings.Contains(strings.Join(got, ","), "alarm") {
		t.Fatalf("delivered %q", got)
	}
}
