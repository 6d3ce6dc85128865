package fwproto

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// vector is one entry of testdata/vectors.json.
type vector struct {
	Name    string      `json:"name"`
	Message *vecMessage `json:"message"`
	Hex     string      `json:"hex"`
	Error   string      `json:"error"`
	Note    string      `json:"note"`
}

type vecMessage struct {
	Type    string          `json:"type"`
	Boot    uint32          `json:"boot"`
	Seq     uint32          `json:"seq"`
	Payload json.RawMessage `json:"payload"`
}

var errorKinds = map[string]error{
	"bad-crc": ErrBadCRC, "oversize": ErrOversize, "truncated": ErrTruncated,
	"bad-cobs": ErrBadCOBS, "bad-length": ErrBadLength, "version": ErrVersion,
	"unknown-type": ErrUnknownType, "bad-payload": ErrBadPayload,
}

func loadVectors(tb testing.TB) []vector {
	tb.Helper()
	b, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		tb.Fatal(err)
	}
	var file struct{ Vectors []vector }
	if err := json.Unmarshal(b, &file); err != nil {
		tb.Fatalf("testdata/vectors.json: %v", err)
	}
	if len(file.Vectors) < 20 {
		tb.Fatalf("only %d vectors", len(file.Vectors))
	}
	return file.Vectors
}

// frame builds the vector's Frame from its JSON message.
func (v vector) frame(tb testing.TB) Frame {
	tb.Helper()
	t, ok := ParseType(v.Message.Type)
	if !ok {
		tb.Fatalf("%s: unknown type %q", v.Name, v.Message.Type)
	}
	m := NewMessage(t)
	if err := json.Unmarshal(v.Message.Payload, m); err != nil {
		tb.Fatalf("%s: payload: %v", v.Name, err)
	}
	return Frame{Boot: v.Message.Boot, Seq: v.Message.Seq, Msg: m}
}

func (v vector) bytes(tb testing.TB) []byte {
	tb.Helper()
	b, err := hex.DecodeString(v.Hex)
	if err != nil {
		tb.Fatalf("%s: hex: %v", v.Name, err)
	}
	return b
}

// canon renders a frame as JSON for comparison (nil and empty slices alike).
func canon(tb testing.TB, f Frame) string {
	tb.Helper()
	b, err := json.Marshal(struct {
		T    string
		B, S uint32
		M    Message
	}{f.Type().String(), f.Boot, f.Seq, f.Msg})
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func TestVectorsEncode(t *testing.T) {
	n := 0
	for _, v := range loadVectors(t) {
		if v.Message == nil {
			continue
		}
		n++
		got, err := AppendFrame(nil, v.frame(t))
		if err != nil {
			t.Errorf("%s: encode: %v", v.Name, err)
			continue
		}
		if h := hex.EncodeToString(got); h != v.Hex {
			t.Errorf("%s: encode\n got %s\nwant %s", v.Name, h, v.Hex)
		}
	}
	if n < 20 {
		t.Fatalf("only %d message vectors", n)
	}
}

func TestVectorsDecode(t *testing.T) {
	for _, v := range loadVectors(t) {
		b := v.bytes(t)
		f, err := Decode(b)
		if v.Error != "" {
			kind := errorKinds[v.Error]
			if kind == nil {
				t.Fatalf("%s: unknown error kind %q", v.Name, v.Error)
			}
			if !errors.Is(err, kind) {
				t.Errorf("%s: got %v, want %v", v.Name, err, kind)
			}
			if !IsFrameError(err) {
				t.Errorf("%s: %v is not a *FrameError", v.Name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: decode: %v", v.Name, err)
			continue
		}
		if got, want := canon(t, f), canon(t, v.frame(t)); got != want {
			t.Errorf("%s: decode\n got %s\nwant %s", v.Name, got, want)
		}
	}
}

// TestVectorsStream decodes every vector as one stream, with garbage in
// between, and checks that each frame or error comes out in order.
func TestVectorsStream(t *testing.T) {
	vs := loadVectors(t)
	var stream []byte
	for _, v := range vs {
		stream = append(stream, v.bytes(t)...)
	}
	d := NewDecoder(&chunkReader{b: stream, n: 7})
	for _, v := range vs {
		f, err := d.Decode()
		if v.Error != "" {
			if !errors.Is(err, errorKinds[v.Error]) {
				t.Fatalf("%s: got %v, want %s", v.Name, err, v.Error)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if got, want := canon(t, f), canon(t, v.frame(t)); got != want {
			t.Fatalf("%s: got %s want %s", v.Name, got, want)
		}
	}
	if _, err := d.Decode(); err == nil || err.Error() != "EOF" {
		t.Fatalf("at end: got %v, want EOF", err)
	}
	if d.Offset() != int64(len(stream)) {
		t.Fatalf("offset %d, want %d", d.Offset(), len(stream))
	}
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, errEOF
	}
	k := min(len(p), r.n, len(r.b))
	copy(p, r.b[:k])
	r.b = r.b[k:]
	return k, nil
}

// TestVectorsFeed pushes the vectors' stream through Feed in chunks of
// every size from 1 to 40 bytes and checks each frame or error in order.
func TestVectorsFeed(t *testing.T) {
	vs := loadVectors(t)
	var stream []byte
	for _, v := range vs {
		stream = append(stream, v.bytes(t)...)
	}
	for chunk := 1; chunk <= 40; chunk++ {
		d := NewDecoder(nil)
		i := 0
		fn := func(f Frame, err error) error {
			v := vs[i]
			i++
			if v.Error != "" {
				if !errors.Is(err, errorKinds[v.Error]) {
					t.Fatalf("chunk %d %s: got %v, want %s", chunk, v.Name, err, v.Error)
				}
				return nil
			}
			if err != nil {
				t.Fatalf("chunk %d %s: %v", chunk, v.Name, err)
			}
			if got, want := canon(t, f), canon(t, v.frame(t)); got != want {
				t.Fatalf("chunk %d %s: got %s want %s", chunk, v.Name, got, want)
			}
			return nil
		}
		for p := stream; len(p) > 0; {
			n := min(chunk, len(p))
			if err := d.Feed(p[:n], fn); err != nil {
				t.Fatal(err)
			}
			p = p[n:]
		}
		if i != len(vs) || d.Offset() != int64(len(stream)) {
			t.Fatalf("chunk %d: %d frames of %d, offset %d", chunk, i, len(vs), d.Offset())
		}
	}
	// fn's error stops Feed.
	stop := errors.New("stop")
	n := 0
	err := NewDecoder(nil).Feed(stream, func(Frame, error) error { n++; return stop })
	if err != stop || n != 1 {
		t.Fatalf("Feed after an fn error: %v, %d calls", err, n)
	}
}
