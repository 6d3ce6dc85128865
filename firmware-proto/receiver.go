package fwproto

import "errors"

// Action is what a host does with one frame from the shoe (Receiver).
type Action uint8

// The actions.
const (
	// Info: an unsequenced frame (HEARTBEAT, an ACK of a host command, a
	// HELLO or SHOE_STATE with sequence 0): use it, no reply.
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
)

var actionNames = [...]string{"?", "info", "deliver", "duplicate", "gap", "hold", "skip", "damaged"}

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
}

// Receiver applies the host's side of the reliability rules (PROTOCOL.md,
// "Reliability"): it tracks, per boot id, the last sequence delivered, so
// that every (boot id, sequence) event is delivered exactly once and in
// order. It is pure (no I/O, no clock); the zero value is ready. It keeps
// the last MaxBoots boots. Not safe for concurrent use.
//
// To survive a host restart, persist (boot, Last(boot)) of delivered events
// (for example in the journal) and call Restore before the first frame.
type Receiver struct {
	boots []bootSeq // most recent last; at most MaxBoots

	// What the last Deliver or Skip verdict changed, for Retract.
	undo     [MaxBoots]bootSeq
	undoN    int
	undoable bool
}

type bootSeq struct{ boot, last uint32 }

// MaxBoots is how many boots a Receiver remembers.
const MaxBoots = 8

// Last returns the last sequence delivered for boot and whether the boot is
// known.
func (r *Receiver) Last(boot uint32) (uint32, bool) {
	if i := r.find(boot); i >= 0 {
		return r.boots[i].last, true
	}
	return 0, false
}

// Current returns the boot id of the most recent boot seen (0 if none).
func (r *Receiver) Current() uint32 {
	if len(r.boots) == 0 {
		return 0
	}
	return r.boots[len(r.boots)-1].boot
}

// Restore records that events of boot up to last were delivered (read back
// from a journal after a restart).
func (r *Receiver) Restore(boot, last uint32) { r.undoable = false; r.set(boot, last) }

func (r *Receiver) find(boot uint32) int {
	for i := len(r.boots) - 1; i >= 0; i-- {
		if r.boots[i].boot == boot {
			return i
		}
	}
	return -1
}

func (r *Receiver) set(boot, last uint32) {
	if i := r.find(boot); i >= 0 {
		b := r.boots[i]
		b.last = last
		r.boots = append(r.boots[:i], r.boots[i+1:]...)
		r.boots = append(r.boots, b)
		return
	}
	if len(r.boots) == MaxBoots {
		r.boots = append(r.boots[:0], r.boots[1:]...)
	}
	r.boots = append(r.boots, bootSeq{boot, last})
}

func ack(boot, seq uint32) Frame { return Frame{Boot: boot, Msg: &Ack{Seq: seq}} }
func nak(boot, seq uint32, why uint8) Frame {
	return Frame{Boot: boot, Msg: &Nak{Seq: seq, Reason: why}}
}

// Retract undoes the last Deliver (or Skip) verdict, when the event could
// not be delivered after all (the host's handler refused it: its journal
// cannot be written). The event must then not be acknowledged: the shoe
// keeps it and sends it again, and the next Receive of it gives Deliver
// again. Retract reports whether there was a verdict to undo; it undoes
// only the most recent one, and only until the next Receive or Damaged.
func (r *Receiver) Retract() bool {
	if !r.undoable {
		return false
	}
	r.undoable = false
	r.boots = append(r.boots[:0], r.undo[:r.undoN]...)
	return true
}

// Receive decides what to do with a frame decoded from the shoe.
func (r *Receiver) Receive(f Frame) Verdict {
	r.undoable = false
	t := f.Type()
	if f.Seq == 0 || !t.Sequenced() {
		if h, ok := f.Msg.(*Hello); ok && f.Seq == 0 {
			// A status reply: events up to LastAcked were acknowledged
			// (by us or by a host before a restart).
			if last, _ := r.Last(f.Boot); h.LastAcked > last {
				r.set(f.Boot, h.LastAcked)
			}
		}
		return Verdict{Action: Info}
	}
	return r.sequenced(f.Boot, f.Seq, f.Msg)
}

func (r *Receiver) sequenced(boot, seq uint32, m Message) Verdict {
	last, _ := r.Last(boot)
	switch want := last + 1; {
	case seq < want:
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
	r.undoN = copy(r.undo[:], r.boots)
	r.undoable = true
	r.set(boot, seq)
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
