package fwproto

import (
	"io"
	"testing"
)

var errEOF = io.EOF

func TestCRC16CheckValue(t *testing.T) {
	// The catalogue check value of CRC-16/CCITT-FALSE (also called
	// CRC-16/IBM-3740).
	if got := CRC16([]byte("123456789")); got != 0x29B1 {
		t.Fatalf("CRC16(123456789) = %#04x, want 0x29b1", got)
	}
	if got := CRC16(nil); got != 0xFFFF {
		t.Fatalf("CRC16(empty) = %#04x, want 0xffff", got)
	}
}

func TestCOBSKnown(t *testing.T) {
	// Examples worked by hand from the COBS definition.
	cases := []struct{ in, out string }{
		{"", "\x01"},
		{"\x00", "\x01\x01"},
		{"\x00\x00", "\x01\x01\x01"},
		{"\x11\x22\x00\x33", "\x03\x11\x22\x02\x33"},
		{"\x11\x22\x33\x44", "\x05\x11\x22\x33\x44"},
		{"\x11\x00\x00\x00", "\x02\x11\x01\x01\x01"},
	}
	for _, c := range cases {
		got := appendCOBS(nil, []byte(c.in))
		if string(got) != c.out {
			t.Errorf("encode %x = %x, want %x", c.in, got, c.out)
		}
		buf := make([]byte, len(c.out))
		n, ok := decodeCOBS(buf, []byte(c.out))
		if !ok || string(buf[:n]) != c.in {
			t.Errorf("decode %x = %x %v, want %x", c.out, buf[:n], ok, c.in)
		}
	}
}
