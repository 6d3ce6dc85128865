package fwproto

import (
	"bytes"
	"encoding/hex"
	"io"
	"testing"
)

func addVectorSeeds(f *testing.F) {
	for _, v := range loadVectors(f) {
		b, err := hex.DecodeString(v.Hex)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzDecode: decoding any byte stream never panics, every error is either
// a *FrameError or io.EOF, the decoder always makes progress, and every
// frame decoded re-encodes to exactly the bytes it was decoded from.
func FuzzDecode(f *testing.F) {
	addVectorSeeds(f)
	f.Add([]byte{0, 0, 0})
	f.Add(bytes.Repeat([]byte{0xff}, 300))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(bytes.NewReader(data))
		for i := 0; ; i++ {
			if i > len(data)+1 {
				t.Fatalf("decoder made no progress after %d calls on %d bytes", i, len(data))
			}
			start := d.Offset()
			fr, err := d.Decode()
			if err == io.EOF {
				return
			}
			if err != nil {
				if !IsFrameError(err) {
					t.Fatalf("non-frame error %v", err)
				}
				continue
			}
			// The bytes this frame came from: from the frame start (after
			// any skipped delimiters) up to and including its delimiter.
			src := data[start:d.Offset()]
			src = bytes.TrimLeft(src, "\x00")
			re, err := AppendFrame(nil, fr)
			if err != nil {
				t.Fatalf("decoded %v does not re-encode: %v", fr, err)
			}
			if !bytes.Equal(re, src) {
				t.Fatalf("re-encode differs\n got %x\nwant %x", re, src)
			}
		}
	})
}

// FuzzRoundTrip: any frame that decodes from a single buffer re-encodes to
// the same bytes, and the one-shot Decode agrees with the stream decoder.
func FuzzRoundTrip(f *testing.F) {
	addVectorSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := Decode(data)
		if err != nil {
			if !IsFrameError(err) {
				t.Fatalf("non-frame error %v", err)
			}
			return
		}
		re, err := AppendFrame(nil, fr)
		if err != nil {
			t.Fatal(err)
		}
		want := data
		if len(want) == 0 || want[len(want)-1] != 0 {
			want = append(want[:len(want):len(want)], 0)
		}
		if !bytes.Equal(re, want) {
			t.Fatalf("re-encode differs\n got %x\nwant %x", re, want)
		}
	})
}
