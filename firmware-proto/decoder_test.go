package fwproto

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func mustFrame(tb testing.TB, f Frame) []byte {
	tb.Helper()
	b, err := AppendFrame(nil, f)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestDecoderResyncAfterGarbage(t *testing.T) {
	card := mustFrame(t, Frame{Boot: 7, Seq: 1, Msg: &Card{Rank: 12, Suit: SuitDiamonds, Quality: 90, Clock: 5}})
	ack := mustFrame(t, Frame{Boot: 7, Msg: &Ack{Seq: 1}})
	var s []byte
	s = append(s, "\x13\x11garbage\r\n"...) // no delimiter: glued to the next frame
	s = append(s, card...)                  // so the first "frame" is garbage+card: an error
	s = append(s, card...)                  // this one decodes
	s = append(s, 0, 0, 0)                  // empty frames are skipped
	s = append(s, bytes.Repeat([]byte{0x55}, 1000)...)
	s = append(s, 0) // oversize
	s = append(s, ack...)
	s = append(s, card[:5]...) // cut cable: stream ends inside a frame
	d := NewDecoder(bytes.NewReader(s))

	_, err := d.Decode()
	var fe *FrameError
	if !errors.As(err, &fe) || fe.Offset != 0 || fe.Len != 11+len(card)-1 {
		t.Fatalf("first: %v (%+v)", err, fe)
	}
	f, err := d.Decode()
	if err != nil || f.Type() != TypeCard || f.Msg.(*Card).Rank != 12 || f.Boot != 7 || f.Seq != 1 {
		t.Fatalf("second: %v %v", f, err)
	}
	_, err = d.Decode()
	if !errors.Is(err, ErrOversize) || !errors.As(err, &fe) || fe.Len != 1000 {
		t.Fatalf("third: %v", err)
	}
	wantOff := int64(11 + 2*len(card) + 3)
	if fe.Offset != wantOff {
		t.Fatalf("oversize offset %d, want %d", fe.Offset, wantOff)
	}
	f, err = d.Decode()
	if err != nil || f.Type() != TypeAck || f.Msg.(*Ack).Seq != 1 {
		t.Fatalf("fourth: %v %v", f, err)
	}
	_, err = d.Decode()
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("fifth: %v, want truncated", err)
	}
	if _, err = d.Decode(); err != io.EOF {
		t.Fatalf("sixth: %v, want EOF", err)
	}
}

type failReader struct{ err error }

func (r failReader) Read([]byte) (int, error) { return 0, r.err }

func TestDecoderReadError(t *testing.T) {
	boom := errors.New("input/output error")
	_, err := NewDecoder(failReader{boom}).Decode()
	if !errors.Is(err, boom) || IsFrameError(err) {
		t.Fatalf("got %v", err)
	}
}

func TestUnknownTypeKeepsHeader(t *testing.T) {
	raw := []byte{1, 0x7f, 0x44, 0x33, 0x22, 0x11, 9, 0, 0, 0, 0}
	raw = append(raw, byte(CRC16(raw)), byte(CRC16(raw)>>8))
	wire := append(appendCOBS(nil, raw), 0)
	_, err := Decode(wire)
	var fe *FrameError
	if !errors.As(err, &fe) || !errors.Is(err, ErrUnknownType) || !fe.HeaderValid || fe.Boot != 0x11223344 || fe.Seq != 9 || fe.Type != 0x7f {
		t.Fatalf("got %v %+v", err, fe)
	}
}

func TestEncodeRejects(t *testing.T) {
	bad := []Message{
		&Card{Rank: 0}, &Card{Rank: 14}, &Card{Rank: 1, Suit: 5},
		&Card{Rank: 1, UID: make([]byte, MaxUID+1)},
		&Hello{Model: string(make([]byte, MaxString+1))},
		&Alarm{Text: string(make([]byte, MaxAlarmText+1))},
		&Card{Rank: 1, Ext: make([]byte, MaxPayload)},
		nil,
	}
	for _, m := range bad {
		if b, err := AppendFrame([]byte("x"), Frame{Msg: m}); err == nil || string(b) != "x" {
			t.Errorf("%T %+v: encoded without error", m, m)
		}
	}
}

func TestCloneDoesNotAlias(t *testing.T) {
	w := mustFrame(t, Frame{Boot: 1, Seq: 2, Msg: &Card{Rank: 1, UID: []byte{1, 2, 3}}})
	d := NewDecoder(bytes.NewReader(append(append([]byte{}, w...), mustFrame(t, Frame{Boot: 1, Seq: 3, Msg: &Card{Rank: 2, UID: []byte{9, 9, 9}}})...)))
	f, _ := d.Decode()
	keep := Clone(f)
	d.Decode()
	if c := keep.Msg.(*Card); c.Rank != 1 || !bytes.Equal(c.UID, []byte{1, 2, 3}) || keep.Seq != 2 {
		t.Fatalf("clone changed: %+v", keep)
	}
}

func TestEncoderOneWritePerFrame(t *testing.T) {
	var w recWriter
	e := NewEncoder(&w)
	for i := range 3 {
		if err := e.Encode(Frame{Boot: 1, Seq: uint32(i + 1), Msg: &Button{Button: ButtonCoup, Position: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	if len(w.writes) != 3 {
		t.Fatalf("%d writes", len(w.writes))
	}
	for i, b := range w.writes {
		f, err := Decode(b)
		if err != nil || f.Seq != uint32(i+1) || b[len(b)-1] != 0 || bytes.IndexByte(b[:len(b)-1], 0) >= 0 {
			t.Fatalf("write %d: %x %v", i, b, err)
		}
	}
}

type recWriter struct{ writes [][]byte }

func (w *recWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, append([]byte(nil), p...))
	return len(p), nil
}

// loopReader replays the same bytes forever.
type loopReader struct {
	b []byte
	i int
}

func (r *loopReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], r.b[r.i:])
		n += k
		r.i = (r.i + k) % len(r.b)
	}
	return n, nil
}

func BenchmarkDecodeCard(b *testing.B) {
	w := mustFrame(b, Frame{Boot: 0x5AB07001, Seq: 1234, Msg: &Card{Rank: 10, Suit: SuitHearts, Quality: 97, Clock: 65536, UID: []byte{4, 0xa2, 0x24, 0xd2, 0xc3, 0x5e, 0x80}}})
	d := NewDecoder(&loopReader{b: w})
	b.SetBytes(int64(len(w)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := d.Decode()
		if err != nil || f.Type() != TypeCard {
			b.Fatal(f, err)
		}
	}
}

func BenchmarkDecodeMixed(b *testing.B) {
	var w []byte
	w = append(w, mustFrame(b, Frame{Boot: 1, Seq: 1, Msg: &Card{Rank: 10, Suit: SuitHearts}})...)
	w = append(w, mustFrame(b, Frame{Boot: 1, Msg: &Heartbeat{Clock: 9, LastSeq: 1}})...)
	w = append(w, mustFrame(b, Frame{Boot: 1, Seq: 2, Msg: &Button{Button: ButtonCoup, Position: 1}})...)
	w = append(w, mustFrame(b, Frame{Boot: 1, Msg: &Ack{Seq: 2}})...)
	d := NewDecoder(&loopReader{b: w})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Decode(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeCard(b *testing.B) {
	e := NewEncoder(io.Discard)
	f := Frame{Boot: 0x5AB07001, Seq: 1234, Msg: &Card{Rank: 10, Suit: SuitHearts, Quality: 97, Clock: 65536}}
	b.ReportAllocs()
	for b.Loop() {
		if err := e.Encode(f); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDecodeZeroAllocs(t *testing.T) {
	w := mustFrame(t, Frame{Boot: 1, Seq: 1, Msg: &Card{Rank: 10, Suit: SuitHearts, UID: []byte{1, 2, 3, 4}}})
	w = append(w, mustFrame(t, Frame{Boot: 1, Msg: &Heartbeat{Clock: 9, LastSeq: 1}})...)
	d := NewDecoder(&loopReader{b: w})
	if n := testing.AllocsPerRun(1000, func() {
		if _, err := d.Decode(); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per decoded frame, want 0", n)
	}
}

// flakyReader returns an error once, between its two halves.
type flakyReader struct {
	parts [][]byte
	errAt int
	err   error
	i     int
}

func (r *flakyReader) Read(p []byte) (int, error) {
	if r.i == r.errAt && r.err != nil {
		err := r.err
		r.err = nil
		return 0, err
	}
	if r.i >= len(r.parts) {
		return 0, io.EOF
	}
	n := copy(p, r.parts[r.i])
	r.i++
	return n, nil
}

func TestDecoderTransientReadError(t *testing.T) {
	a := mustFrame(t, Frame{Boot: 1, Seq: 1, Msg: &CutCard{Clock: 1}})
	b := mustFrame(t, Frame{Boot: 1, Seq: 2, Msg: &CutCard{Clock: 2}})
	timeout := errors.New("i/o timeout")
	d := NewDecoder(&flakyReader{parts: [][]byte{a, b[:4], b[4:]}, errAt: 2, err: timeout})
	if f, err := d.Decode(); err != nil || f.Seq != 1 {
		t.Fatalf("first: %v %v", f, err)
	}
	// The error comes in the middle of frame 2: reported once, the partial
	// frame is dropped, and decoding goes on (the rest of frame 2 is then
	// a damaged frame).
	if _, err := d.Decode(); !errors.Is(err, timeout) || IsFrameError(err) {
		t.Fatalf("second: %v", err)
	}
	if _, err := d.Decode(); !IsFrameError(err) {
		t.Fatalf("third: %v, want a damaged-frame error", err)
	}
	if _, err := d.Decode(); err != io.EOF {
		t.Fatalf("fourth: %v", err)
	}
}

func TestFeedZeroAllocs(t *testing.T) {
	w := mustFrame(t, Frame{Boot: 1, Seq: 1, Msg: &Card{Rank: 10, Suit: SuitHearts, UID: []byte{1, 2, 3, 4}}})
	d := NewDecoder(nil)
	n := 0
	fn := func(f Frame, err error) error {
		if err != nil || f.Type() != TypeCard {
			t.Fatal(f, err)
		}
		n++
		return nil
	}
	if a := testing.AllocsPerRun(1000, func() { d.Feed(w, fn) }); a != 0 {
		t.Fatalf("%v allocations per fed frame, want 0", a)
	}
	if n < 1000 {
		t.Fatalf("%d frames", n)
	}
}

func BenchmarkFeedCard(b *testing.B) {
	w := mustFrame(b, Frame{Boot: 0x5AB07001, Seq: 1234, Msg: &Card{Rank: 10, Suit: SuitHearts, Quality: 97, Clock: 65536}})
	d := NewDecoder(nil)
	fn := func(Frame, error) error { return nil }
	b.SetBytes(int64(len(w)))
	b.ReportAllocs()
	for b.Loop() {
		d.Feed(w, fn)
	}
}

// TestFrameErrorMessage: errors say what went wrong and where (stream byte
// offset, frame length, and the header when it is trustworthy).
func TestFrameErrorMessage(t *testing.T) {
	good := mustFrame(t, Frame{Boot: 0x11, Seq: 2, Msg: &CutCard{Clock: 3}})
	bad := append([]byte(nil), good...)
	bad[1] ^= 0x40 // the version byte (a data byte, not a COBS code)
	raw := []byte{1, 0x7f, 0x44, 0x33, 0x22, 0x11, 9, 0, 0, 0, 0}
	crc := CRC16(raw)
	unknown := append(appendCOBS(nil, append(raw, byte(crc), byte(crc>>8))), 0)
	d := NewDecoder(bytes.NewReader(append(append(append([]byte{}, good...), bad...), unknown...)))
	d.Decode()
	_, err := d.Decode()
	want := fmt.Sprintf("fwproto: bad CRC at byte %d (%d bytes): frame says ", len(good), len(good)-1)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want prefix %q", err, want)
	}
	_, err = d.Decode()
	want = fmt.Sprintf("fwproto: unknown message type at byte %d (%d bytes) TYPE_0x7f boot 0x11223344 seq 9: type byte 0x7f", 2*len(good), len(unknown)-1)
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}
