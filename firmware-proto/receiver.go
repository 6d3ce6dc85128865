package fwproto

import "errors"

// Action is what a host does with one frame from the shoe (Receiver).
type Action uint8

// The actions.
const (
	// Info: an unsequenced frame (HEARTBEAT, an ACK of a host command, a
	// HELLO or SHOE_STATE with sequence 0): use it; send the reply if
	// there is one (an ACK when a Wait ends in a retransmission).
	Info Action = iota + 1
	// Deliver: the next event of its boot: deliver it (exactly once); the
	// reply ACKs it.
	Deliver
	// Duplicate: an event delivered before: drop it; the reply re-ACKs.
	Duplicate
	// Gap: an event after a missing one: drop it; the reply NAKs the
	// missing sequence so the shoe resends from there.
	Gap
	// Hold: a new boot's HELLO while events of the previous boot are still
	// to come (the shoe's ring survives resets): drop it; the reply NAKs
	// the first missing event of the previous boot.
	Hold
	// Skip: a sequenced event of a type this host does not know (a newer
	// shoe): it is acknowledged and skipped so the stream goes on; report
	// it.
	Skip
	// Damaged: a damaged frame; the reply NAKs (sequence 0) so the shoe
	// resends everything unacknowledged without waiting for its timeout.
	Damaged
	// Wait: a HELLO (sequence 1) came again for a boot of which events were
	// delivered — a retransmission (its ACKs were lost or late), or a shoe
	// that restarted its sequence under the same boot id (a boot id that is
	// not random) — and this event is of that boot. Drop it with no reply:
	// not acknowledged, the shoe keeps it. The next HEARTBEAT decides:
	// Restart, or Info with an ACK (a retransmission after all; always so
	// for a HEARTBEAT of another boot: the shoe has moved on).
	Wait
	// Restart: the shoe's sequence restarted under a boot id already seen:
	// a HEARTBEAT says its last sequence is below what was delivered, or
	// (after a repeated HELLO) its clock went back. The Receiver forgets the
	// boot's events (Verdict.Prior is the last one delivered) and delivers
	// the boot again from its HELLO; the reply NAKs sequence 1 so the shoe
	// resends from there. Carry on as after a reboot, and raise an alarm:
	// events of the old sequence the host had not yet received are lost
	// unless the shoe still holds them.
	Restart
)

var actionNames = [...]string{"?", "info", "deliver", "duplicate", "gap", "hold", "skip", "damaged", "wait", "restart"}

// String returns the action's name ("deliver").
func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return "?"
}

// Verdict is the Receiver's decision about one frame.
type Verdict struct {
	Action Action
	// Reply is the frame to send back (ACK or NAK); Reply.Msg is nil when
	// there is nothing to send.
	Reply Frame
	// Lost is set on the HELLO of a new boot from a shoe whose ring does
	// not survive resets (no CapPersist): the number of events of the
	// previous boot that were never delivered and never will be. Raise an
	// alert.
	Lost uint32
	// Prior is set on Restart: the last sequence of the boot delivered
	// before its sequence restarted.
	Prior uint32
}

// Receiver applies the host's side of the reliability rules (PROTOCOL.md,
// "Reliability"): it tracks, per boot id, the last sequence delivered, so
// that every (boot id, sequence) event is delivered exactly once and in
// order, and it detects a shoe whose sequence restarts under a boot id it
// has already used (Wait, Restart). It is pure (no I/O, no clock); the
// zero value is ready. It keeps the last MaxBoots boots. Not safe for
// concurrent use.
//
// To survive a host restart, persist (boot, Last(boot)) of delivered events
// (for example in the journal) and call Restore before the first frame.
type Receiver struct {
	st rxState
	// The state before the last Deliver, Skip or Restart verdict, for
	// Retract.
	undo     rxState
	undoable bool
}

// rxState is a Receiver's state: a plain value (no slices), so that keeping
// a copy for Retract costs no allocation.
type rxState struct {
	boots [MaxBoots]bootSeq // boots[:n], most recent last
	n     int
	// probing: a HELLO came again for boot probe after events of it were
	// delivered; its events Wait until its next HEARTBEAT.
	probing bool
	probe   uint32
	// clock is the latest shoe clock (ms since boot) seen in a delivered
	// event or a HEARTBEAT of clockBoot.
	clockSet  bool
	clockBoot uint32
	clock     uint32
}

type bootSeq struct{ boot, last uint32 }

// MaxBoots is how many boots a Receiver remembers.
const MaxBoots = 8

// Last returns the last sequence delivered for boot and whether the boot is
// known.
func (r *Receiver) Last(boot uint32) (uint32, bool) {
	if i := r.find(boot); i >= 0 {
		return r.st.boots[i].last, true
	}
	return 0, false
}

// Current returns the boot id of the most recent boot seen (0 if none).
func (r *Receiver) Current() uint32 {
	if r.st.n == 0 {
		return 0
	}
	return r.st.boots[r.st.n-1].boot
}

// Restore records that events of boot up to last were delivered (read back
// from a journal after a restart).
func (r *Receiver) Restore(boot, last uint32) { r.undoable = false; r.set(boot, last) }

// Waiting reports the boot whose events Wait (a HELLO came again for it),
// if any.
func (r *Receiver) Waiting() (boot uint32, ok bool) { return r.st.probe, r.st.probing }

// EndWait ends a Wait without a HEARTBEAT to decide (a shoe that sends
// none in time): the repeated HELLO is taken for a retransmission, and the
// verdict's reply ACKs the boot's last delivered event. It returns the zero
// Verdict if nothing was waiting.
func (r *Receiver) EndWait() Verdict {
	if !r.st.probing {
		return Verdict{}
	}
	r.undoable = false
	r.st.probing = false
	last, _ := r.Last(r.st.probe)
	return Verdict{Action: Info, Reply: ack(r.st.probe, last)}
}

func (r *Receiver) find(boot uint32) int {
	for i := r.st.n - 1; i >= 0; i-- {
		if r.st.boots[i].boot == boot {
			return i
		}
	}
	return -1
}

func (r *Receiver) set(boot, last uint32) {
	st := &r.st
	if i := r.find(boot); i >= 0 {
		copy(st.boots[i:st.n-1], st.boots[i+1:st.n])
		st.boots[st.n-1] = bootSeq{boot, last}
		return
	}
	if st.n == MaxBoots {
		copy(st.boots[:], st.boots[1:])
		st.n--
	}
	st.boots[st.n] = bootSeq{boot, last}
	st.n++
}

// noteClock records the shoe clock of a frame of boot.
func (r *Receiver) noteClock(boot, clock uint32) {
	r.st.clockSet, r.st.clockBoot, r.st.clock = true, boot, clock
}

// eventClock is the shoe clock an event carries, if it carries one.
func eventClock(m Message) (uint32, bool) {
	switch v := m.(type) {
	case *Card:
		return v.Clock, true
	case *CardUnreadable:
		return v.Clock, true
	case *Button:
		return v.Clock, true
	case *CutCard:
		return v.Clock, true
	case *ShoeState:
		return v.Clock, true
	case *Alarm:
		return v.Clock, true
	case *Dealer:
		return v.Clock, true
	}
	return 0, false
}

func ack(boot, seq uint32) Frame { return Frame{Boot: boot, Msg: &Ack{Seq: seq}} }
func nak(boot, seq uint32, why uint8) Frame {
	return Frame{Boot: boot, Msg: &Nak{Seq: seq, Reason: why}}
}

// Retract undoes the last Deliver, Skip or Restart verdict, when the event
// could not be delivered after all (the host's handler refused it: its
// journal cannot be written). The event must then not be acknowledged: the
// shoe keeps it and sends it again, and the next Receive of it gives
// Deliver again (after a Restart, the next HEARTBEAT decides again).
// Retract reports whether there was a verdict to undo; it undoes only the
// most recent one, and only until the next Receive, Damaged or Restore.
func (r *Receiver) Retract() bool {
	if !r.undoable {
		return false
	}
	r.undoable = false
	r.st = r.undo
	return true
}

// Receive decides what to do with a frame decoded from the shoe.
func (r *Receiver) Receive(f Frame) Verdict {
	r.undoable = false
	t := f.Type()
	if f.Seq == 0 || !t.Sequenced() {
		switch m := f.Msg.(type) {
		case *Hello:
			if f.Seq == 0 {
				// A status reply: events up to LastAcked were
				// acknowledged (by us or by a host before a restart).
				if last, _ := r.Last(f.Boot); m.LastAcked > last {
					r.set(f.Boot, m.LastAcked)
				}
			}
		case *Heartbeat:
			return r.heartbeat(f.Boot, m)
		}
		return Verdict{Action: Info}
	}
	return r.sequenced(f.Boot, f.Seq, f.Msg)
}

// heartbeat checks a HEARTBEAT against what was delivered of its boot: a
// shoe's last sequence and clock never go back within a boot, so if they
// do, its sequence restarted.
func (r *Receiver) heartbeat(boot uint32, m *Heartbeat) Verdict {
	if r.st.probing && r.st.probe != boot {
		// The shoe runs another boot: the repeated HELLO was an old
		// boot's, sent again ahead of the new one's events (a persistent
		// ring after a reboot). A retransmission: acknowledge it.
		r.st.probing = false
		last, _ := r.Last(r.st.probe)
		r.noteClock(boot, m.Clock)
		return Verdict{Action: Info, Reply: ack(r.st.probe, last)}
	}
	last, known := r.Last(boot)
	waiting := r.st.probing && r.st.probe == boot
	// Serial-number comparison: the clock wraps after 49.7 days.
	clockBack := r.st.clockSet && r.st.clockBoot == boot && int32(m.Clock-r.st.clock) < 0
	if known && last > 0 && (m.LastSeq < last || waiting && clockBack) {
		r.undo, r.undoable = r.st, true
		r.st.probing = false
		r.st.clockSet = false
		r.set(boot, 0)
		return Verdict{Action: Restart, Prior: last, Reply: nak(boot, 1, NakGap)}
	}
	r.noteClock(boot, m.Clock)
	if waiting {
		// The shoe's counter and clock went on: the HELLO was a
		// retransmission. Acknowledge what was delivered.
		r.st.probing = false
		return Verdict{Action: Info, Reply: ack(boot, last)}
	}
	return Verdict{Action: Info}
}

func (r *Receiver) sequenced(boot, seq uint32, m Message) Verdict {
	if r.st.probing && r.st.probe == boot {
		return Verdict{Action: Wait}
	}
	last, _ := r.Last(boot)
	switch want := last + 1; {
	case seq < want:
		if _, hello := m.(*Hello); hello && seq == 1 {
			// HELLO is event 1 of a boot: sent again after events of the
			// boot were delivered, it is a retransmission or a restarted
			// sequence. Acknowledging it as a duplicate would, in the
			// second case, make the shoe drop every event of its new
			// sequence up to last: wait for the boot's next HEARTBEAT.
			r.st.probing, r.st.probe = true, boot
			return Verdict{Action: Wait}
		}
		return Verdict{Action: Duplicate, Reply: ack(boot, last)}
	case seq > want:
		return Verdict{Action: Gap, Reply: nak(boot, want, NakGap)}
	}
	var lost uint32
	if h, ok := m.(*Hello); ok && h.PrevBoot != 0 && h.PrevBoot != boot {
		if plast, known := r.Last(h.PrevBoot); known && h.PrevLastSeq > plast {
			if h.Caps&CapPersist != 0 {
				return Verdict{Action: Hold, Reply: nak(h.PrevBoot, plast+1, NakGap)}
			}
			lost = h.PrevLastSeq - plast
		}
	}
	r.undo, r.undoable = r.st, true
	r.set(boot, seq)
	if c, ok := eventClock(m); ok {
		r.noteClock(boot, c)
	}
	a := Deliver
	if m == nil {
		a = Skip
	}
	return Verdict{Action: a, Reply: ack(boot, seq), Lost: lost}
}

// Damaged decides what to do after a decoding error. A sequenced event of
// an unknown type (ErrUnknownType with a valid header) is treated like any
// event and, if it is the next one, acknowledged and skipped (Skip). Any
// other damaged frame gets a NAK with sequence 0 (Damaged). Errors that are
// not *FrameError get the zero Verdict.
func (r *Receiver) Damaged(err error) Verdict {
	r.undoable = false
	var fe *FrameError
	if !errors.As(err, &fe) {
		return Verdict{}
	}
	if fe.HeaderValid && errors.Is(err, ErrUnknownType) && fe.Seq != 0 && fe.Type < TypeAck {
		return r.sequenced(fe.Boot, fe.Seq, nil)
	}
	if fe.HeaderValid && errors.Is(err, ErrBadPayload) && fe.Seq != 0 {
		// The shoe sent a malformed event: resending will not help.
		return Verdict{Action: Damaged, Reply: nak(fe.Boot, fe.Seq, NakBadPayload)}
	}
	return Verdict{Action: Damaged, Reply: nak(r.Current(), 0, NakBadFrame)}
}
