package fwproto

import (
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestProtocolDocFrames keeps PROTOCOL.md honest: every "wire:" frame in
// it decodes cleanly and is byte-identical to a test vector, and the CARD
// frame of section 6.1 is the one the examples print.
func TestProtocolDocFrames(t *testing.T) {
	doc, err := os.ReadFile("PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	vectors := map[string]bool{}
	for _, v := range loadVectors(t) {
		vectors[v.Hex] = true
	}
	wires := regexp.MustCompile(`(?m)^wire:\s+([0-9a-f ]+)$`).FindAllStringSubmatch(string(doc), -1)
	if len(wires) < 4 {
		t.Fatalf("only %d wire: lines", len(wires))
	}
	for _, w := range wires {
		h := strings.ReplaceAll(strings.TrimSpace(w[1]), " ", "")
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatalf("%q: %v", w[1], err)
		}
		if _, err := Decode(b); err != nil {
			t.Errorf("PROTOCOL.md frame %s: %v", w[1], err)
		}
		if !vectors[h] {
			t.Errorf("PROTOCOL.md frame %s is not a test vector", w[1])
		}
	}
	grouped := regexp.MustCompile(`(?m)^08 01 02 01 70 b0 5a 03 \|[0-9a-f |]+$`).FindString(string(doc))
	if h := strings.NewReplacer(" ", "", "|", "").Replace(grouped); h != exampleCardHex {
		t.Errorf("section 6.1 wire bytes %q, want %s", grouped, exampleCardHex)
	}
}
