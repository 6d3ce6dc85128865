package fwproto

import (
	"errors"
	"fmt"
)

// The kinds of damaged frame. A *FrameError wraps exactly one of them, so
// callers test with errors.Is(err, fwproto.ErrBadCRC) and so on. All of them
// are recoverable: the Decoder has already skipped to the next delimiter.
var (
	// ErrBadCRC: the CRC-16 over header and payload does not match. Nothing
	// in the frame can be trusted, not even its sequence number.
	ErrBadCRC = errors.New("fwproto: bad CRC")
	// ErrOversize: more than MaxEncodedLen bytes arrived without a
	// delimiter. The decoder discards bytes up to the next 0x00.
	ErrOversize = errors.New("fwproto: frame too long")
	// ErrTruncated: the frame is shorter than a header and CRC, its length
	// field promises more payload than it carries, or the stream ended in
	// the middle of a frame.
	ErrTruncated = errors.New("fwproto: truncated frame")
	// ErrBadCOBS: the bytes between two delimiters are not a valid COBS
	// block (a code byte points past the end of the frame).
	ErrBadCOBS = errors.New("fwproto: bad COBS encoding")
	// ErrBadLength: the frame carries more bytes than its length field
	// says.
	ErrBadLength = errors.New("fwproto: length field does not match frame")
	// ErrVersion: the version byte is not Version. The CRC was good, so the
	// peer speaks another major version of the protocol.
	ErrVersion = errors.New("fwproto: unsupported protocol version")
	// ErrUnknownType: the message type is not one this package knows. The
	// CRC was good; FrameError.Type, Boot and Seq are valid, so a host can
	// acknowledge and skip an unknown sequenced event (PROTOCOL.md,
	// "Versioning").
	ErrUnknownType = errors.New("fwproto: unknown message type")
	// ErrBadPayload: the type is known but the payload is too short for its
	// fields or a field is out of range (a rank of 14, a suit of 9, a
	// string longer than its limit).
	ErrBadPayload = errors.New("fwproto: bad payload")
)

// FrameError reports one damaged frame in a stream. Offset is the byte
// offset in the stream (counted from 0 at NewDecoder) of the frame's first
// byte; Len is the number of encoded bytes the frame occupied (without the
// delimiter). Type, Boot and Seq are set only when HeaderValid is true
// (the CRC matched: ErrVersion, ErrUnknownType, ErrBadPayload, ErrBadLength
// and ErrTruncated for a length field that is too large).
type FrameError struct {
	Kind        error // one of the Err* sentinels above
	Offset      int64
	Len         int
	HeaderValid bool
	Type        Type
	Boot, Seq   uint32
	Detail      string
}

// Error formats the error as
// "fwproto: bad CRC at byte 1234 (17 bytes): got 0x1234, want 0x4321".
func (e *FrameError) Error() string {
	s := fmt.Sprintf("%v at byte %d (%d bytes)", e.Kind, e.Offset, e.Len)
	if e.HeaderValid {
		s += fmt.Sprintf(" %v boot %#08x seq %d", e.Type, e.Boot, e.Seq)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns Kind.
func (e *FrameError) Unwrap() error { return e.Kind }

// IsFrameError reports whether err is a damaged-frame error after which
// decoding can simply continue (as opposed to a read error from the
// underlying reader, or io.EOF).
func IsFrameError(err error) bool {
	var fe *FrameError
	return errors.As(err, &fe)
}
