package fwproto

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Frame is one message with its header fields. Boot is the shoe's boot id
// (shoe → host: the sender's; host → shoe: the boot the host addresses, 0
// for any). Seq is the event sequence number (shoe → host events, from 1),
// the command sequence number (host → shoe commands, from 1), or 0 for
// unsequenced frames (HEARTBEAT, ACK, NAK, replies to STATUS_REQUEST).
type Frame struct {
	Boot uint32
	Seq  uint32
	Msg  Message
}

// Type returns the type of f.Msg, or 0 if Msg is nil.
func (f Frame) Type() Type {
	if f.Msg == nil {
		return 0
	}
	return f.Msg.Type()
}

// String formats the frame for logs: "CARD boot 0x1a2b3c4d seq 7 &{...}".
func (f Frame) String() string {
	return fmt.Sprintf("%v boot %#08x seq %d %+v", f.Type(), f.Boot, f.Seq, f.Msg)
}

// AppendFrame appends the complete wire form of f to dst: the COBS-encoded
// header, payload and CRC followed by the 0x00 delimiter (at most
// MaxWireLen bytes). It fails if f.Msg is nil, a field is out of range or
// the payload is longer than MaxPayload; dst is then returned unchanged.
func AppendFrame(dst []byte, f Frame) ([]byte, error) {
	b, err := appendRaw(make([]byte, 0, MaxFrameLen+64), f)
	if err != nil {
		return dst, err
	}
	dst = appendCOBS(dst, b)
	return append(dst, 0), nil
}

// appendRaw appends header ‖ payload ‖ CRC (before COBS).
func appendRaw(b []byte, f Frame) ([]byte, error) {
	if f.Msg == nil {
		return b, fmt.Errorf("fwproto: encoding a frame with no message")
	}
	if err := f.Msg.check(); err != nil {
		return b, err
	}
	start := len(b)
	b = append(b, Version, byte(f.Msg.Type()))
	b = binary.LittleEndian.AppendUint32(b, f.Boot)
	b = binary.LittleEndian.AppendUint32(b, f.Seq)
	b = append(b, 0)
	b = f.Msg.AppendPayload(b)
	n := len(b) - start - HeaderLen
	if n > MaxPayload {
		return b[:start], fmt.Errorf("fwproto: %v payload is %d bytes, longer than %d", f.Msg.Type(), n, MaxPayload)
	}
	b[start+HeaderLen-1] = byte(n)
	return binary.LittleEndian.AppendUint16(b, CRC16(b[start:])), nil
}

// Encoder writes frames to an io.Writer, one Write call per frame, so a
// frame is never interleaved with another writer's bytes at the Write level.
// It is not safe for concurrent use; wrap it in a mutex if several
// goroutines send.
type Encoder struct {
	w        io.Writer
	raw, buf []byte
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer) *Encoder {
	return &Encoder{w: w, raw: make([]byte, 0, MaxFrameLen+64), buf: make([]byte, 0, MaxWireLen+64)}
}

// Encode writes f. Errors are encoding errors (see AppendFrame) or the
// writer's, wrapped.
func (e *Encoder) Encode(f Frame) error {
	raw, err := appendRaw(e.raw[:0], f)
	if err != nil {
		return err
	}
	e.raw = raw
	b := append(appendCOBS(e.buf[:0], raw), 0)
	e.buf = b
	if _, err := e.w.Write(b); err != nil {
		return fmt.Errorf("fwproto: writing %v: %w", f.Type(), err)
	}
	return nil
}
