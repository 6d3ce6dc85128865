package fwproto

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// compileC builds the C codec with the program src into dir and returns
// the binary's path. The flags are the ones the issue requires firmware
// code to pass.
func compileC(t *testing.T, src string) string {
	t.Helper()
	gcc := testenv.NeedProgram(t, "gcc")
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(src, ".c"))
	cmd := exec.Command(gcc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2",
		"-o", out, filepath.Join("c", src), filepath.Join("c", "sabot_proto.c"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", src, err, b)
	}
	return out
}

// TestCCodecVectors runs the C codec over every vector, as one stream, and
// checks it agrees with the Go codec byte for byte: the same frames (type,
// boot, sequence, payload), the same re-encoding (the vector's bytes), the
// same error kinds, and the C builders produce the vectors' bytes.
func TestCCodecVectors(t *testing.T) {
	bin := compileC(t, "test_vectors.c")
	vs := loadVectors(t)
	var in bytes.Buffer
	var want []string
	for _, v := range vs {
		fmt.Fprintf(&in, "%s %s\n", v.Name, v.Hex)
		f, err := Decode(v.bytes(t))
		if err != nil {
			kind := ""
			for k, e := range errorKinds {
				if errors.Is(err, e) {
					kind = k
				}
			}
			want = append(want, fmt.Sprintf("%s error %s", v.Name, kind))
			continue
		}
		p := hex.EncodeToString(f.Msg.AppendPayload(nil))
		if p == "" {
			p = "-"
		}
		want = append(want, fmt.Sprintf("%s frame %d %d %d %s %s", v.Name, f.Type(), f.Boot, f.Seq, p, v.Hex))
	}
	path := filepath.Join(t.TempDir(), "vectors.txt")
	if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, path).Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < len(want) {
		t.Fatalf("C printed %d lines, want at least %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("C and Go differ:\n   C: %s\n  Go: %s", lines[i], w)
		}
	}
	byName := map[string]string{}
	for _, v := range vs {
		byName[v.Name] = v.Hex
	}
	builds := 0
	crc := false
	for _, l := range lines[len(want):] {
		f := strings.Fields(l)
		switch {
		case len(f) == 3 && f[0] == "build":
			builds++
			if byName[f[1]] != f[2] {
				t.Errorf("C builder %s:\n   C: %s\nwant: %s", f[1], f[2], byName[f[1]])
			}
		case l == "crc-check 29b1":
			crc = true
		default:
			t.Errorf("unexpected C output %q", l)
		}
	}
	if builds < 20 || !crc {
		t.Fatalf("%d builder lines, crc check %v", builds, crc)
	}
}

// exampleCardHex is the CARD frame both examples print.
const exampleCardHex = "0801020170b05a03010105080a02610102010103c92900"

// TestCExampleMatchesGo: c/example_card.c prints the same bytes as
// ExampleAppendFrame.
func TestCExampleMatchesGo(t *testing.T) {
	out, err := exec.Command(compileC(t, "example_card.c")).Output()
	if err != nil {
		t.Fatal(err)
	}
	b, err := AppendFrame(nil, Frame{Boot: 0x5AB07001, Seq: 3, Msg: &Card{Rank: 10, Suit: SuitHearts, Quality: 97, Clock: 65536}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != hex.EncodeToString(b) || got != exampleCardHex {
		t.Fatalf("C example %s, Go %x, want %s", got, b, exampleCardHex)
	}
}

// TestCCodecIncludes: the codec itself uses only <stdint.h> and <string.h>
// and no dynamic memory.
func TestCCodecIncludes(t *testing.T) {
	inc := regexp.MustCompile(`(?m)^\s*#\s*include\s*([<"][^>"]+[>"])`)
	for _, name := range []string{"sabot_proto.h", "sabot_proto.c"} {
		src, err := os.ReadFile(filepath.Join("c", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range inc.FindAllStringSubmatch(string(src), -1) {
			switch m[1] {
			case "<stdint.h>", "<string.h>", `"sabot_proto.h"`:
			default:
				t.Errorf("%s includes %s", name, m[1])
			}
		}
		for _, bad := range []string{"malloc", "calloc", "realloc", "free("} {
			if bytes.Contains(src, []byte(bad)) {
				t.Errorf("%s uses %s", name, bad)
			}
		}
	}
}

// TestCCodecDifferential feeds the same pseudo-random streams (valid
// frames, frames with flipped bytes, cut frames, line noise) to the C and
// Go decoders and checks they report exactly the same frames and errors.
func TestCCodecDifferential(t *testing.T) {
	bin := compileC(t, "test_vectors.c")
	var frames [][]byte
	for _, v := range loadVectors(t) {
		frames = append(frames, v.bytes(t))
	}
	rng := rand.New(rand.NewPCG(2026, 11))
	var in bytes.Buffer
	var want []string
	d := NewDecoder(nil)
	for line := range 400 {
		var p []byte
		for range 1 + rng.IntN(4) {
			f := append([]byte(nil), frames[rng.IntN(len(frames))]...)
			switch rng.IntN(5) {
			case 0: // flip bytes
				for range 1 + rng.IntN(3) {
					f[rng.IntN(len(f))] ^= byte(1 + rng.IntN(255))
				}
			case 1: // cut
				f = f[:rng.IntN(len(f))]
			case 2: // noise
				f = make([]byte, rng.IntN(40))
				for i := range f {
					f[i] = byte(rng.IntN(256))
				}
			}
			p = append(p, f...)
		}
		name := fmt.Sprintf("l%d", line)
		fmt.Fprintf(&in, "%s %x\n", name, p)
		n := 0
		d.Feed(p, func(f Frame, err error) error {
			n++
			if err != nil {
				kind := "?"
				for k, e := range errorKinds {
					if errors.Is(err, e) {
						kind = k
					}
				}
				want = append(want, name+" error "+kind)
				return nil
			}
			pl := hex.EncodeToString(f.Msg.AppendPayload(nil))
			if pl == "" {
				pl = "-"
			}
			w, err := AppendFrame(nil, f)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, fmt.Sprintf("%s frame %d %d %d %s %x", name, f.Type(), f.Boot, f.Seq, pl, w))
			return nil
		})
		if n == 0 {
			want = append(want, name+" none")
		}
	}
	path := filepath.Join(t.TempDir(), "stream.txt")
	if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, path).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	nframes, errs := 0, 0
	for i, w := range want {
		if i >= len(lines) || lines[i] != w {
			got := "(missing)"
			if i < len(lines) {
				got = lines[i]
			}
			t.Fatalf("line %d: C and Go differ:\n   C: %s\n  Go: %s", i, got, w)
		}
		if strings.Contains(w, " frame ") {
			nframes++
		} else if strings.Contains(w, " error ") {
			errs++
		}
	}
	if nframes < 100 || errs < 100 {
		t.Fatalf("weak stream: %d frames, %d errors", nframes, errs)
	}
}
