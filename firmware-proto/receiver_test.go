package fwproto

import (
	"fmt"
	"testing"
)

func reply(v Verdict) string {
	switch m := v.Reply.Msg.(type) {
	case *Ack:
		return fmt.Sprintf("ACK %x/%d", v.Reply.Boot, m.Seq)
	case *Nak:
		return fmt.Sprintf("NAK %x/%d r%d", v.Reply.Boot, m.Seq, m.Reason)
	case nil:
		return "-"
	}
	return "?"
}

func TestReceiverRules(t *testing.T) {
	card := &Card{Rank: 1}
	steps := []struct {
		f      Frame
		action Action
		reply  string
		lost   uint32
	}{
		{Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}}, Deliver, "ACK a/1", 0},
		{Frame{Boot: 0xA, Seq: 2, Msg: card}, Deliver, "ACK a/2", 0},
		{Frame{Boot: 0xA, Seq: 2, Msg: card}, Duplicate, "ACK a/2", 0}, // retransmission
		{Frame{Boot: 0xA, Seq: 4, Msg: card}, Gap, "NAK a/3 r1", 0},    // 3 lost
		{Frame{Boot: 0xA, Msg: &Heartbeat{LastSeq: 4}}, Info, "-", 0},
		{Frame{Boot: 0xA, Seq: 3, Msg: card}, Deliver, "ACK a/3", 0},
		{Frame{Boot: 0xA, Seq: 4, Msg: card}, Deliver, "ACK a/4", 0},
		// Reboot of a persistent shoe with event 5 of boot A still pending:
		// the HELLO is held until 5 arrives.
		{Frame{Boot: 0xB, Seq: 1, Msg: &Hello{Caps: CapPersist, PrevBoot: 0xA, PrevLastSeq: 5}}, Hold, "NAK a/5 r1", 0},
		{Frame{Boot: 0xA, Seq: 5, Msg: card}, Deliver, "ACK a/5", 0},
		{Frame{Boot: 0xB, Seq: 1, Msg: &Hello{Caps: CapPersist, PrevBoot: 0xA, PrevLastSeq: 5}}, Deliver, "ACK b/1", 0},
		{Frame{Boot: 0xB, Seq: 2, Msg: card}, Deliver, "ACK b/2", 0},
		// A shoe without a persistent ring reboots having lost 3 events.
		{Frame{Boot: 0xC, Seq: 1, Msg: &Hello{PrevBoot: 0xB, PrevLastSeq: 5}}, Deliver, "ACK c/1", 3},
		// A boot never seen, first event not HELLO (host restarted): ask for 1.
		{Frame{Boot: 0xD, Seq: 7, Msg: card}, Gap, "NAK d/1 r1", 0},
		// The shoe answers with its status: 6 was acknowledged before.
		{Frame{Boot: 0xD, Seq: 0, Msg: &Hello{LastAcked: 6}}, Info, "-", 0},
		{Frame{Boot: 0xD, Seq: 7, Msg: card}, Deliver, "ACK d/7", 0},
		{Frame{Boot: 0xD, Seq: 0, Msg: &Ack{Seq: 3}}, Info, "-", 0}, // the shoe acknowledging a command
	}
	var r Receiver
	for i, s := range steps {
		v := r.Receive(s.f)
		if v.Action != s.action || reply(v) != s.reply || v.Lost != s.lost {
			t.Fatalf("step %d %v: got %v %s lost %d, want %v %s lost %d", i, s.f, v.Action, reply(v), v.Lost, s.action, s.reply, s.lost)
		}
	}
	if last, ok := r.Last(0xA); !ok || last != 5 {
		t.Fatalf("Last(A) = %d %v", last, ok)
	}
	if r.Current() != 0xD {
		t.Fatalf("Current = %x", r.Current())
	}
}

func TestReceiverDamaged(t *testing.T) {
	var r Receiver
	r.Restore(0xA, 9)
	for _, c := range []struct {
		err    error
		action Action
		reply  string
	}{
		{&FrameError{Kind: ErrBadCRC}, Damaged, "NAK a/0 r2"},
		{&FrameError{Kind: ErrUnknownType, HeaderValid: true, Type: 0x0e, Boot: 0xA, Seq: 10}, Skip, "ACK a/10"},
		{&FrameError{Kind: ErrUnknownType, HeaderValid: true, Type: 0x0e, Boot: 0xA, Seq: 10}, Duplicate, "ACK a/10"},
		{&FrameError{Kind: ErrBadPayload, HeaderValid: true, Type: TypeCard, Boot: 0xA, Seq: 11}, Damaged, "NAK a/11 r4"},
		{fmt.Errorf("read: %w", ErrBadCRC), 0, "-"},
	} {
		v := r.Damaged(c.err)
		if v.Action != c.action || reply(v) != c.reply {
			t.Errorf("%v: %v %s, want %v %s", c.err, v.Action, reply(v), c.action, c.reply)
		}
	}
}

func TestReceiverForgetsOldBoots(t *testing.T) {
	var r Receiver
	for b := uint32(1); b <= MaxBoots+2; b++ {
		r.Receive(Frame{Boot: b, Seq: 1, Msg: &Hello{}})
	}
	if _, ok := r.Last(1); ok {
		t.Fatal("boot 1 still remembered")
	}
	if l, ok := r.Last(MaxBoots + 2); !ok || l != 1 {
		t.Fatal("latest boot forgotten")
	}
}

// A delivery the host could not complete is retracted: the event is not
// acknowledged, the next copy of it is delivered, and nothing after it is
// delivered before it.
func TestReceiverRetract(t *testing.T) {
	var r Receiver
	card := &Card{Rank: 3}
	if v := r.Receive(Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}}); v.Action != Deliver {
		t.Fatal(v.Action)
	}
	if r.Retract() != true {
		t.Fatal("Retract after Deliver: nothing to undo")
	}
	if _, known := r.Last(0xA); known || r.Current() != 0 {
		t.Fatalf("after retracting the first HELLO the boot is still known (current %x)", r.Current())
	}
	if r.Retract() {
		t.Fatal("Retract twice undid twice")
	}
	steps := []struct {
		f       Frame
		action  Action
		reply   string
		retract bool
	}{
		{Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}}, Deliver, "ACK a/1", false},
		{Frame{Boot: 0xA, Seq: 2, Msg: card}, Deliver, "ACK a/2", true}, // refused by the handler
		{Frame{Boot: 0xA, Seq: 3, Msg: card}, Gap, "NAK a/2 r1", false},
		{Frame{Boot: 0xA, Seq: 2, Msg: card}, Deliver, "ACK a/2", false}, // the shoe's retransmission
		{Frame{Boot: 0xA, Seq: 2, Msg: card}, Duplicate, "ACK a/2", false},
		{Frame{Boot: 0xA, Seq: 3, Msg: card}, Deliver, "ACK a/3", false},
		// A new boot's HELLO refused: the old boot stays current.
		{Frame{Boot: 0xB, Seq: 1, Msg: &Hello{PrevBoot: 0xA, PrevLastSeq: 3}}, Deliver, "ACK b/1", true},
	}
	for i, s := range steps {
		v := r.Receive(s.f)
		if v.Action != s.action || reply(v) != s.reply {
			t.Fatalf("step %d %v: got %v %s, want %v %s", i, s.f, v.Action, reply(v), s.action, s.reply)
		}
		if s.retract && !r.Retract() {
			t.Fatalf("step %d: nothing to retract", i)
		}
	}
	if r.Current() != 0xA {
		t.Fatalf("Current %x after the new boot's HELLO was retracted, want a", r.Current())
	}
	if last, _ := r.Last(0xA); last != 3 {
		t.Fatalf("Last(a) = %d", last)
	}
	if _, known := r.Last(0xB); known {
		t.Fatal("boot b known after its HELLO was retracted")
	}
	// Only a Deliver can be retracted.
	r.Receive(Frame{Boot: 0xA, Seq: 2, Msg: card})
	if r.Retract() {
		t.Fatal("retracted a duplicate")
	}
}

// A shoe whose sequence restarts under a boot id already seen (a boot id
// that is not random): its HELLO comes again, its events wait, and its next
// HEARTBEAT shows its sequence and clock went back: Restart, after which
// the new sequence is delivered from its HELLO.
func TestReceiverSequenceRestart(t *testing.T) {
	card := func(clock uint32) *Card { return &Card{Rank: 4, Clock: clock} }
	steps := []struct {
		f      Frame
		action Action
		reply  string
	}{
		// First run: HELLO and three cards, the last at 9 s of shoe clock.
		{Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}}, Deliver, "ACK a/1"},
		{Frame{Boot: 0xA, Seq: 2, Msg: card(3000)}, Deliver, "ACK a/2"},
		{Frame{Boot: 0xA, Seq: 3, Msg: card(6000)}, Deliver, "ACK a/3"},
		{Frame{Boot: 0xA, Seq: 4, Msg: card(9000)}, Deliver, "ACK a/4"},
		{Frame{Boot: 0xA, Msg: &Heartbeat{Clock: 9500, LastSeq: 4}}, Info, "-"},
		// Second run, same boot id: HELLO again, cards 2..5 wait unacknowledged.
		{Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}}, Wait, "-"},
		{Frame{Boot: 0xA, Seq: 2, Msg: card(100)}, Wait, "-"},
		{Frame{Boot: 0xA, Seq: 5, Msg: card(900)}, Wait, "-"},
		// Its heartbeat: sequence 5 is past 4, but the clock went back.
		{Frame{Boot: 0xA, Msg: &Heartbeat{Clock: 1000, LastSeq: 5}}, Restart, "NAK a/1 r1"},
		{Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}}, Deliver, "ACK a/1"},
		{Frame{Boot: 0xA, Seq: 2, Msg: card(100)}, Deliver, "ACK a/2"},
		// Third run, shorter: its heartbeat's sequence is below what was
		// delivered (no HELLO seen: it was damaged).
		{Frame{Boot: 0xA, Msg: &Heartbeat{Clock: 50, LastSeq: 1}}, Restart, "NAK a/1 r1"},
		{Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}}, Deliver, "ACK a/1"},
	}
	var r Receiver
	for i, s := range steps {
		v := r.Receive(s.f)
		if v.Action != s.action || reply(v) != s.reply {
			t.Fatalf("step %d %v: got %v %s, want %v %s", i, s.f, v.Action, reply(v), s.action, s.reply)
		}
		if v.Action == Restart && v.Prior == 0 {
			t.Fatalf("step %d: Restart without Prior", i)
		}
	}
}

// A HELLO sent again because its ACKs were late or lost (the shoe's timer
// ran out, or the cable was pulled): the events wait, and the heartbeat
// (sequence and clock going on) says it was a retransmission: ACK of what
// was delivered, nothing delivered twice.
func TestReceiverHelloRetransmission(t *testing.T) {
	var r Receiver
	for _, f := range []Frame{
		{Boot: 0xA, Seq: 1, Msg: &Hello{}},
		{Boot: 0xA, Msg: &Heartbeat{Clock: 10, LastSeq: 3}},
		{Boot: 0xA, Seq: 2, Msg: &Card{Rank: 1, Clock: 20}},
		{Boot: 0xA, Seq: 3, Msg: &Card{Rank: 2, Clock: 30}},
	} {
		r.Receive(f)
	}
	for _, s := range []struct {
		f      Frame
		action Action
		reply  string
	}{
		{Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}}, Wait, "-"},
		{Frame{Boot: 0xA, Seq: 2, Msg: &Card{Rank: 1, Clock: 20}}, Wait, "-"},
		{Frame{Boot: 0xA, Seq: 4, Msg: &Card{Rank: 3, Clock: 260}}, Wait, "-"},
		{Frame{Boot: 0xA, Msg: &Heartbeat{Clock: 270, LastSeq: 4}}, Info, "ACK a/3"},
		{Frame{Boot: 0xA, Seq: 2, Msg: &Card{Rank: 1, Clock: 20}}, Duplicate, "ACK a/3"},
		{Frame{Boot: 0xA, Seq: 4, Msg: &Card{Rank: 3, Clock: 260}}, Deliver, "ACK a/4"},
	} {
		if v := r.Receive(s.f); v.Action != s.action || reply(v) != s.reply {
			t.Fatalf("%v: got %v %s, want %v %s", s.f, v.Action, reply(v), s.action, s.reply)
		}
	}
	// A shoe that sends no heartbeat: EndWait takes the HELLO for a
	// retransmission.
	r.Receive(Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}})
	if b, ok := r.Waiting(); !ok || b != 0xA {
		t.Fatalf("Waiting = %x %v", b, ok)
	}
	if v := r.EndWait(); v.Action != Info || reply(v) != "ACK a/4" {
		t.Fatalf("EndWait: %v %s", v.Action, reply(v))
	}
	if _, ok := r.Waiting(); ok {
		t.Fatal("still waiting")
	}
	// A clock that wraps (49.7 days) is not a restart.
	r.Receive(Frame{Boot: 0xB, Seq: 1, Msg: &Hello{}})
	r.Receive(Frame{Boot: 0xB, Seq: 2, Msg: &Card{Rank: 1, Clock: 0xFFFFFF00}})
	r.Receive(Frame{Boot: 0xB, Seq: 1, Msg: &Hello{}})
	if v := r.Receive(Frame{Boot: 0xB, Msg: &Heartbeat{Clock: 0x100, LastSeq: 2}}); v.Action != Info {
		t.Fatalf("clock wrap: %v", v.Action)
	}
}

// A Restart the host could not record (its handler refused the alarm) is
// retracted: the next heartbeat decides again.
func TestReceiverRetractRestart(t *testing.T) {
	var r Receiver
	r.Receive(Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}})
	r.Receive(Frame{Boot: 0xA, Seq: 2, Msg: &Card{Rank: 1, Clock: 5000}})
	r.Receive(Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}})
	hb := Frame{Boot: 0xA, Msg: &Heartbeat{Clock: 10, LastSeq: 1}}
	if v := r.Receive(hb); v.Action != Restart || v.Prior != 2 {
		t.Fatalf("%v prior %d", v.Action, v.Prior)
	}
	if !r.Retract() {
		t.Fatal("nothing to retract")
	}
	if last, _ := r.Last(0xA); last != 2 {
		t.Fatalf("Last after Retract %d", last)
	}
	if v := r.Receive(Frame{Boot: 0xA, Seq: 2, Msg: &Card{Rank: 9, Clock: 8}}); v.Action != Wait {
		t.Fatalf("after Retract: %v, want wait", v.Action)
	}
	if v := r.Receive(hb); v.Action != Restart {
		t.Fatalf("second heartbeat: %v", v.Action)
	}
}

// A persistent-ring shoe that rebooted sends the old boot's unacknowledged
// events, HELLO included, ahead of the new boot's: the repeated HELLO of
// the old boot waits until a heartbeat, which is the new boot's: the shoe
// has moved on, so it was a retransmission.
func TestReceiverOldBootHelloRepeated(t *testing.T) {
	var r Receiver
	r.Receive(Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}})
	r.Receive(Frame{Boot: 0xA, Seq: 2, Msg: &Card{Rank: 1, Clock: 5000}})
	if v := r.Receive(Frame{Boot: 0xA, Seq: 1, Msg: &Hello{}}); v.Action != Wait {
		t.Fatalf("%v", v.Action)
	}
	if v := r.Receive(Frame{Boot: 0xC, Msg: &Heartbeat{Clock: 3, LastSeq: 1}}); v.Action != Info || reply(v) != "ACK a/2" {
		t.Fatalf("heartbeat of the new boot: %v %s", v.Action, reply(v))
	}
	if v := r.Receive(Frame{Boot: 0xC, Seq: 1, Msg: &Hello{PrevBoot: 0xA, PrevLastSeq: 2, Caps: CapPersist}}); v.Action != Deliver {
		t.Fatalf("new boot's HELLO: %v", v.Action)
	}
}

// TestDealerMinorVersions: the DEALER event of minor version 1 between
// hosts and shoes of either minor version (PROTOCOL.md 5). A minor-1 host
// delivers it; a minor-0 host, whose decoder does not know type 0x09,
// sees ErrUnknownType with a valid header (what Decoder returns for any
// type it does not know), acknowledges it and skips it, and delivers the
// next event: the shoe's ring drains, no card is held up.
func TestDealerMinorVersions(t *testing.T) {
	var in Frame
	for _, v := range loadVectors(t) {
		if v.Name == "dealer-sign-in" {
			in = v.frame(t)
		}
	}
	d, ok := in.Msg.(*Dealer)
	if !ok || d.DealerID() != "D1042" || in.Seq != 15 {
		t.Fatalf("vector dealer-sign-in: %v", in)
	}
	card := Frame{Boot: in.Boot, Seq: 16, Msg: &Card{Rank: 9, Suit: SuitSpades, Clock: 11001}}

	var newHost Receiver
	newHost.Restore(in.Boot, 14)
	if v := newHost.Receive(in); v.Action != Deliver || reply(v) != "ACK 5aaa7001/15" {
		t.Fatalf("minor-1 host: %v %s", v.Action, reply(v))
	}

	var oldHost Receiver
	oldHost.Restore(in.Boot, 14)
	old := &FrameError{Kind: ErrUnknownType, HeaderValid: true, Type: in.Type(), Boot: in.Boot, Seq: in.Seq}
	if v := oldHost.Damaged(old); v.Action != Skip || reply(v) != "ACK 5aaa7001/15" {
		t.Fatalf("minor-0 host: %v %s, want Skip with ACK", v.Action, reply(v))
	}
	if v := oldHost.Receive(card); v.Action != Deliver || reply(v) != "ACK 5aaa7001/16" {
		t.Fatalf("minor-0 host, card after DEALER: %v %s", v.Action, reply(v))
	}
	// A retransmitted DEALER (its ACK was lost) is a duplicate for both.
	if v := oldHost.Damaged(old); v.Action != Duplicate {
		t.Fatalf("minor-0 host, DEALER again: %v", v.Action)
	}
	if !TypeDealer.Sequenced() || TypeHeartbeat.Sequenced() {
		t.Fatal("DEALER is an event, HEARTBEAT is not")
	}
	// The badge-only form: the UID in hex is the id.
	if id := (&Dealer{Badge: HexBytes{0x04, 0xa2}}).DealerID(); id != "04a2" {
		t.Fatalf("badge-only id %q", id)
	}
}
