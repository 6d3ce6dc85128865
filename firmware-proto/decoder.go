package fwproto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// Decoder reads frames from a byte stream. It buffers its reads, so it may
// read past the frame it returns. It is not safe for concurrent use.
//
// The Frame that Decode returns, its Msg and any byte slice inside it (UID,
// Ext) belong to the Decoder and are valid only until the next call to
// Decode; use Clone to keep one. This is what makes steady-state decoding
// allocation-free.
type Decoder struct {
	r io.Reader

	rbuf       [512]byte
	rpos, rend int
	off        int64 // stream offset of rbuf[rpos]
	readErr    error // deferred error from r.Read
	empty      int   // consecutive reads that returned no bytes and no error

	enc      [MaxEncodedLen]byte
	encN     int   // bytes of the current frame held in enc
	encTotal int   // bytes of the current frame seen, including dropped ones
	start    int64 // stream offset of the current frame's first byte
	raw      [MaxEncodedLen]byte

	hello          Hello
	card           Card
	cardUnreadable CardUnreadable
	button         Button
	cutCard        CutCard
	shoeState      ShoeState
	alarm          Alarm
	heartbeat      Heartbeat
	ack            Ack
	nak            Nak
	gate           Gate
	indicator      Indicator
	statusRequest  StatusRequest
	timeSync       TimeSync
	dealer         Dealer
}

// maxEmptyReads bounds the consecutive reads that return no bytes and no
// error (a serial port's read timeout passing on an idle line) within one
// Decode: after this many, Decode returns io.ErrNoProgress rather than
// spinning on the reader. The same limit as bufio's.
const maxEmptyReads = 100

// NewDecoder returns a Decoder reading r.
func NewDecoder(r io.Reader) *Decoder { return &Decoder{r: r} }

// Offset returns the number of stream bytes the Decoder has consumed
// (delivered as frames, errors or skipped delimiters).
func (d *Decoder) Offset() int64 { return d.off }

// Decode returns the next frame. Empty frames (consecutive 0x00 bytes) are
// skipped. Errors:
//   - *FrameError (errors.Is with ErrBadCRC, ErrOversize, ErrTruncated,
//     ErrBadCOBS, ErrBadLength, ErrVersion, ErrUnknownType, ErrBadPayload):
//     one frame was damaged; call Decode again to continue with the next.
//     A stream that ends inside a frame gives ErrTruncated, then io.EOF.
//   - io.EOF: the stream ended between frames.
//   - io.ErrNoProgress (wrapped): the reader returned no bytes and no error
//     100 times in a row (maxEmptyReads; a port whose read timeout passes
//     on an idle line). Nothing is lost, a partial frame included: call
//     Decode again to keep waiting.
//   - any other error: the reader failed (wrapped), and a partial frame
//     was discarded. The error is returned once; a later Decode reads
//     again, so a transient error (a read deadline) can be retried, while
//     a pulled cable or closed port keeps failing.
func (d *Decoder) Decode() (Frame, error) {
	for {
		if d.rpos == d.rend {
			if d.readErr != nil {
				err := d.readErr
				d.readErr = nil // not sticky: the next Decode reads again
				if d.encTotal > 0 {
					fe := d.frameErr(ErrTruncated, "stream ended inside a frame")
					d.resetFrame()
					if err == io.EOF {
						return Frame{}, fe
					}
				}
				if err == io.EOF {
					return Frame{}, io.EOF
				}
				return Frame{}, fmt.Errorf("fwproto: read: %w", err)
			}
			n, err := d.r.Read(d.rbuf[:])
			if n < 0 || n > len(d.rbuf) {
				n, err = 0, fmt.Errorf("invalid read count %d", n)
			}
			d.rpos, d.rend = 0, n
			if err != nil {
				d.readErr = err
			}
			if n > 0 || err != nil {
				d.empty = 0
				continue
			}
			if d.empty++; d.empty >= maxEmptyReads {
				d.empty = 0
				return Frame{}, fmt.Errorf("fwproto: read: %d reads returned nothing: %w", maxEmptyReads, io.ErrNoProgress)
			}
		}
		chunk := d.rbuf[d.rpos:d.rend]
		i := bytes.IndexByte(chunk, 0)
		if i < 0 {
			d.take(chunk)
			d.rpos = d.rend
			continue
		}
		d.take(chunk[:i])
		d.rpos += i + 1
		d.off++ // the delimiter
		if d.encTotal == 0 {
			d.start = d.off
			continue // empty frame
		}
		f, err := d.finish()
		d.resetFrame()
		return f, err
	}
}

// take appends bytes of the current frame, counting but dropping what does
// not fit.
func (d *Decoder) take(p []byte) {
	if len(p) == 0 {
		return
	}
	if d.encTotal == 0 {
		d.start = d.off
	}
	room := len(d.enc) - d.encN
	if room > len(p) {
		room = len(p)
	}
	copy(d.enc[d.encN:], p[:room])
	d.encN += room
	d.encTotal += len(p)
	d.off += int64(len(p))
}

func (d *Decoder) resetFrame() {
	d.encN, d.encTotal = 0, 0
	d.start = d.off
}

func (d *Decoder) frameErr(kind error, detail string) *FrameError {
	return &FrameError{Kind: kind, Offset: d.start, Len: d.encTotal, Detail: detail}
}

// finish decodes the frame held in enc.
func (d *Decoder) finish() (Frame, error) {
	if d.encTotal > MaxEncodedLen {
		return Frame{}, d.frameErr(ErrOversize, fmt.Sprintf("%d bytes without a delimiter, limit %d", d.encTotal, MaxEncodedLen))
	}
	n, ok := decodeCOBS(d.raw[:], d.enc[:d.encN])
	if !ok {
		return Frame{}, d.frameErr(ErrBadCOBS, "a code byte points past the end of the frame")
	}
	raw := d.raw[:n]
	if n < HeaderLen+CRCLen {
		return Frame{}, d.frameErr(ErrTruncated, fmt.Sprintf("%d bytes after COBS, a frame has at least %d", n, HeaderLen+CRCLen))
	}
	got := binary.LittleEndian.Uint16(raw[n-CRCLen:])
	if want := CRC16(raw[:n-CRCLen]); got != want {
		return Frame{}, d.frameErr(ErrBadCRC, fmt.Sprintf("frame says %#04x, computed %#04x", got, want))
	}
	if raw[0] != Version {
		return Frame{}, d.frameErr(ErrVersion, fmt.Sprintf("version byte %d, this decoder speaks %d", raw[0], Version))
	}
	t := Type(raw[1])
	f := Frame{Boot: binary.LittleEndian.Uint32(raw[2:]), Seq: binary.LittleEndian.Uint32(raw[6:])}
	hdrErr := func(kind error, detail string) *FrameError {
		fe := d.frameErr(kind, detail)
		fe.HeaderValid, fe.Type, fe.Boot, fe.Seq = true, t, f.Boot, f.Seq
		return fe
	}
	plen, actual := int(raw[HeaderLen-1]), n-HeaderLen-CRCLen
	if plen > actual {
		return Frame{}, hdrErr(ErrTruncated, fmt.Sprintf("length field says %d payload bytes, frame carries %d", plen, actual))
	}
	if plen < actual {
		return Frame{}, hdrErr(ErrBadLength, fmt.Sprintf("length field says %d payload bytes, frame carries %d", plen, actual))
	}
	m := d.message(t)
	if m == nil {
		return Frame{}, hdrErr(ErrUnknownType, fmt.Sprintf("type byte %#02x", uint8(t)))
	}
	if err := m.decode(raw[HeaderLen : HeaderLen+plen]); err != nil {
		return Frame{}, hdrErr(ErrBadPayload, err.Error())
	}
	f.Msg = m
	return f, nil
}

// message returns the Decoder's own message value for t.
func (d *Decoder) message(t Type) Message {
	switch t {
	case TypeHello:
		return &d.hello
	case TypeCard:
		return &d.card
	case TypeCardUnreadable:
		return &d.cardUnreadable
	case TypeButton:
		return &d.button
	case TypeCutCard:
		return &d.cutCard
	case TypeShoeState:
		return &d.shoeState
	case TypeAlarm:
		return &d.alarm
	case TypeHeartbeat:
		return &d.heartbeat
	case TypeAck:
		return &d.ack
	case TypeNak:
		return &d.nak
	case TypeGate:
		return &d.gate
	case TypeIndicator:
		return &d.indicator
	case TypeStatusRequest:
		return &d.statusRequest
	case TypeTimeSync:
		return &d.timeSync
	case TypeDealer:
		return &d.dealer
	}
	return nil
}

// Clone returns a deep copy of f that does not share memory with the
// Decoder (or anything else), safe to keep after the next Decode. Every
// field is copied as it is, out-of-range values included (a message the
// caller edited or built by hand is copied, not re-encoded).
func Clone(f Frame) Frame {
	f.Msg = cloneMessage(f.Msg)
	return f
}

// cloneBytes returns a copy of b (nil for nil).
func cloneBytes(b HexBytes) HexBytes {
	if b == nil {
		return nil
	}
	return append(make(HexBytes, 0, len(b)), b...)
}

// hexBytesType is the type of the byte-string fields cloneMessage copies.
var hexBytesType = reflect.TypeFor[HexBytes]()

// cloneMessage copies m and the byte slices it holds: every HexBytes field
// (UID, Badge, Ext) of this package's message types; strings are immutable
// and shared.
func cloneMessage(m Message) Message {
	if m == nil {
		return nil
	}
	if c := NewMessage(m.Type()); c != nil && reflect.TypeOf(c) == reflect.TypeOf(m) {
		cv := reflect.ValueOf(c).Elem()
		cv.Set(reflect.ValueOf(m).Elem())
		for i := range cv.NumField() {
			if f := cv.Field(i); f.Type() == hexBytesType {
				f.Set(reflect.ValueOf(cloneBytes(f.Interface().(HexBytes))))
			}
		}
		return c
	}
	// A type outside the package (one embedding a Message): copy it
	// through its payload if that round-trips, else keep it as it is.
	if c := NewMessage(m.Type()); c != nil && c.decode(m.AppendPayload(nil)) == nil {
		return c
	}
	return m
}

// Decode decodes exactly one frame from b, which holds one COBS-encoded
// frame with or without its trailing 0x00 delimiter. The Frame is freshly
// allocated (it does not alias b). Errors are as for Decoder.Decode, with
// io.EOF turned into ErrTruncated for empty input.
func Decode(b []byte) (Frame, error) {
	if len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return Frame{}, &FrameError{Kind: ErrBadCOBS, Len: len(b), Detail: "0x00 inside a frame"}
	}
	d := NewDecoder(bytes.NewReader(append(b[:len(b):len(b)], 0)))
	f, err := d.Decode()
	if errors.Is(err, io.EOF) {
		return Frame{}, &FrameError{Kind: ErrTruncated, Detail: "no frame"}
	}
	if err != nil {
		return Frame{}, err
	}
	return Clone(f), nil
}

// Feed is the push form of Decode, for callers that are handed bytes (a
// serial driver's read loop) rather than an io.Reader: it consumes all of
// p and calls fn for each frame completed (err nil) or damaged frame (err a
// *FrameError), in order. A frame may span several calls. If fn returns an
// error, Feed stops and returns it; the rest of p is dropped (a shoe
// retransmits unacknowledged events). The Frame passed to fn is valid only
// during the call. Use either Feed or Decode on a Decoder, not both; a
// Decoder for Feed can be made with NewDecoder(nil).
func (d *Decoder) Feed(p []byte, fn func(Frame, error) error) error {
	for len(p) > 0 {
		i := bytes.IndexByte(p, 0)
		if i < 0 {
			d.take(p)
			return nil
		}
		d.take(p[:i])
		p = p[i+1:]
		d.off++
		if d.encTotal == 0 {
			d.start = d.off
			continue
		}
		f, err := d.finish()
		d.resetFrame()
		if e := fn(f, err); e != nil {
			return e
		}
	}
	return nil
}
