package fwproto

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

// emptyReader returns (0, nil) on every call, like a serial port whose
// read timeout passes with nothing on the line; after give calls it
// returns errGaveUp so that a decoder that spins fails the test instead of
// hanging it.
type emptyReader struct {
	calls, give int
}

var errGaveUp = errors.New("test reader: too many empty reads")

func (r *emptyReader) Read([]byte) (int, error) {
	r.calls++
	if r.calls <= r.give {
		return 0, nil
	}
	return 0, errGaveUp
}

// A reader that keeps returning (0, nil) must not make Decode spin: after
// maxEmptyReads it returns io.ErrNoProgress, as bufio does.
func TestDecoderEmptyReadsBounded(t *testing.T) {
	r := &emptyReader{give: 1 << 20}
	d := NewDecoder(r)
	_, err := d.Decode()
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("Decode on a reader returning (0, nil): %v after %d reads, want io.ErrNoProgress", err, r.calls)
	}
	if r.calls != maxEmptyReads {
		t.Fatalf("%d reads before giving up, want %d", r.calls, maxEmptyReads)
	}
	if IsFrameError(err) {
		t.Fatalf("ErrNoProgress reported as a frame error: %v", err)
	}
}

// An idle port between the two halves of a frame: Decode gives up waiting
// (io.ErrNoProgress) but keeps the half it has, so the next Decode returns
// the whole frame and nothing is lost.
func TestDecoderEmptyReadsKeepPartialFrame(t *testing.T) {
	wire := mustFrame(t, Frame{Boot: 0x5AB07001, Seq: 3, Msg: &Card{Rank: 10, Suit: SuitHearts, Quality: 97, Clock: 65536, UID: HexBytes{4, 1, 2}}})
	half := len(wire) / 2
	// The first half, then three times the limit of empty reads, then the rest.
	d := NewDecoder(&splitReader{first: wire[:half], empties: 3 * maxEmptyReads, rest: wire[half:]})
	_, err := d.Decode()
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("first Decode: %v, want io.ErrNoProgress", err)
	}
	for {
		f, err := d.Decode()
		if errors.Is(err, io.ErrNoProgress) {
			continue // still idle
		}
		if err != nil {
			t.Fatalf("after the idle time: %v", err)
		}
		c, ok := f.Msg.(*Card)
		if !ok || f.Seq != 3 || c.Rank != 10 || c.Clock != 65536 || !bytes.Equal(c.UID, []byte{4, 1, 2}) {
			t.Fatalf("frame after the idle time: %v", f)
		}
		break
	}
	if d.Offset() != int64(len(wire)) {
		t.Fatalf("offset %d, want %d", d.Offset(), len(wire))
	}
}

// splitReader returns first, then empties (0, nil) reads, then rest, then
// io.EOF.
type splitReader struct {
	first, rest []byte
	empties     int
}

func (r *splitReader) Read(p []byte) (int, error) {
	switch {
	case len(r.first) > 0:
		n := copy(p, r.first)
		r.first = r.first[n:]
		return n, nil
	case r.empties > 0:
		r.empties--
		return 0, nil
	case len(r.rest) > 0:
		n := copy(p, r.rest)
		r.rest = r.rest[n:]
		return n, nil
	}
	return 0, io.EOF
}

// Clone of a frame the Decoder returned must not share memory with the
// Decoder, even when the caller edited the message so that it no longer
// encodes (an out-of-range rank): decoding the next frame overwrites the
// Decoder's message and buffers, and the clone must not change.
func TestCloneEditedDecoderFrame(t *testing.T) {
	var s []byte
	s = append(s, mustFrame(t, Frame{Boot: 9, Seq: 1, Msg: &Card{Rank: 5, Suit: SuitSpades, Quality: 80, Clock: 100, UID: HexBytes{0xAA, 0xBB}}})...)
	s = append(s, mustFrame(t, Frame{Boot: 9, Seq: 2, Msg: &Card{Rank: 13, Suit: SuitClubs, Quality: 99, Clock: 200, UID: HexBytes{0x11, 0x22}}})...)
	d := NewDecoder(bytes.NewReader(s))
	f, err := d.Decode()
	if err != nil {
		t.Fatal(err)
	}
	m := f.Msg.(*Card)
	m.Rank = 0 // the caller's own marking: not a valid CARD any more
	m.UID = append(m.UID[:0:0], 0xAA, 0xBB, 0xCC)
	c := Clone(f)
	if c.Msg == f.Msg {
		t.Fatal("Clone returned the Decoder's own message")
	}
	if _, err := d.Decode(); err != nil {
		t.Fatal(err)
	}
	got := c.Msg.(*Card)
	if got.Rank != 0 || got.Suit != SuitSpades || got.Clock != 100 || !bytes.Equal(got.UID, []byte{0xAA, 0xBB, 0xCC}) || c.Seq != 1 {
		t.Fatalf("clone changed after the next Decode: %+v seq %d", got, c.Seq)
	}
}

// Clone of a hand-built frame with fields out of range copies it too: the
// caller's slices may be reused.
func TestCloneHandBuiltOutOfRange(t *testing.T) {
	uid := HexBytes(bytes.Repeat([]byte{7}, 300)) // longer than a length byte can say
	ext := HexBytes{1, 2, 3}
	f := Frame{Boot: 1, Seq: 2, Msg: &Card{Rank: 20, UID: uid, Ext: ext}}
	c := Clone(f)
	uid[0], ext[0] = 9, 9
	got := c.Msg.(*Card)
	if got.Rank != 20 || len(got.UID) != 300 || got.UID[0] != 7 || got.Ext[0] != 1 {
		t.Fatalf("clone shares the caller's memory: rank %d uid[0] %d ext[0] %d", got.Rank, got.UID[0], got.Ext[0])
	}
	// Every message type: Ext is copied.
	for ty := Type(0); ty < 0x30; ty++ {
		m := NewMessage(ty)
		if m == nil {
			continue
		}
		e := HexBytes{5, 6}
		setExt(t, m, e)
		c := Clone(Frame{Msg: m})
		e[0] = 0
		if got := extOf(t, c.Msg); len(got) != 2 || got[0] != 5 {
			t.Fatalf("%v: clone's Ext %v follows the original", ty, got)
		}
	}
}

func setExt(t *testing.T, m Message, e HexBytes) {
	t.Helper()
	reflect.ValueOf(m).Elem().FieldByName("Ext").Set(reflect.ValueOf(e))
}

func extOf(t *testing.T, m Message) HexBytes {
	t.Helper()
	return reflect.ValueOf(m).Elem().FieldByName("Ext").Interface().(HexBytes)
}
