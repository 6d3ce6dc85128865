package testenv

import (
	"strings"
	"testing"
)

// TestLogBufferTail: with Tail, the buffer keeps the end of the log.
func TestLogBufferTail(t *testing.T) {
	l := &LogBuffer{Tail: 8}
	for _, s := range []string{"abc", "defgh", "ijk"} {
		if n, err := l.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := l.String(); got != "defghijk" {
		t.Fatalf("String() = %q, want the last 8 bytes %q", got, "defghijk")
	}
}

// TestLogBufferHead: without Tail, the buffer keeps the start of the log
// and drops what comes after MaxLogBuffer.
func TestLogBufferHead(t *testing.T) {
	var l LogBuffer
	big := strings.Repeat("x", MaxLogBuffer)
	l.Write([]byte(big))
	if n, err := l.Write([]byte("dropped")); n != 7 || err != nil {
		t.Fatalf("Write past the bound = %d, %v", n, err)
	}
	if got := l.String(); got != big {
		t.Fatalf("String() has %d bytes, want the first %d", len(got), MaxLogBuffer)
	}
}
