//go:build linux

package sim_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	fwproto "github.com/sabot-table/sabot/firmware-proto"
	"github.com/sabot-table/sabot/firmware-proto/sim"
)

func openHost(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.MakeRaw(f); err != nil { // as a serial library does
		t.Fatal(err)
	}
	return f
}

func readFull(t *testing.T, r io.Reader, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPTYAllBytes: all 256 byte values pass unchanged in both directions
// (0x00 delimiters, XON 0x11, XOFF 0x13, CR 0x0d, LF 0x0a, ^C 0x03, DEL).
func TestPTYAllBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shoe")
	link := sim.NewPTY(path)
	var dev string
	link.OnOpen = func(d string) { dev = d }
	conn, err := link.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if target, _ := os.Readlink(path); target != dev || dev == "" || link.Device() != dev {
		t.Fatalf("symlink %s -> %q, device %q", path, target, dev)
	}
	host := openHost(t, path)
	defer host.Close()
	var all []byte
	for i := range 256 {
		all = append(all, byte(i))
	}
	all = append(all, bytes.Repeat([]byte{0x11, 0x13, 0x0d, 0x0a, 0x00, 0x03, 0x04, 0x1a, 0x7f, 0xff}, 20)...)
	go conn.Write(all)
	if got := readFull(t, host, len(all)); !bytes.Equal(got, all) {
		t.Fatalf("shoe → host changed bytes:\n got %x\nwant %x", got, all)
	}
	go host.Write(all)
	if got := readFull(t, conn, len(all)); !bytes.Equal(got, all) {
		t.Fatalf("host → shoe changed bytes:\n got %x\nwant %x", got, all)
	}
}

// TestPTYPull: after the shoe closes its side, the host's read fails; a new
// Open re-points the path and the host reaches the shoe by reopening it.
func TestPTYPull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shoe")
	link := sim.NewPTY(path)
	c1, err := link.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dev1 := link.Device()
	host := openHost(t, path)
	c1.Close()
	buf := make([]byte, 10)
	host.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := host.Read(buf)
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("host read after pull: %d, %v; want EIO or EOF", n, err)
	}
	t.Logf("host read after pull: %v", err)
	host.Close()
	c2, err := link.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	host2 := openHost(t, path)
	defer host2.Close()
	if _, err := c2.Write([]byte("ok\x00")); err != nil {
		t.Fatal(err)
	}
	if got := readFull(t, host2, 3); string(got) != "ok\x00" {
		t.Fatalf("after reopen: %q (device %s, was %s)", got, link.Device(), dev1)
	}
	if err := link.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("link not removed: %v", err)
	}
}

// TestPTYSimWithPulls: the virtual shoe on a PTY, with cable pulls, and a
// host that reopens the path after each hangup.
func TestPTYSimWithPulls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shoe")
	link := sim.NewPTY(path)
	s, err := sim.New(sim.Options{Seed: 11, Decks: 1, Faults: sim.Faults{Pull: 0.05, Corrupt: 0.001},
		RetransmitTimeout: 20 * time.Millisecond, PullTime: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h := &testHost{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOCTTY, 0)
			if err != nil {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			sim.MakeRaw(f)
			go func() { <-ctx.Done(); f.Close() }()
			h.conn(f)
			f.Close()
		}
	}()
	err = s.Run(ctx, link)
	cancel()
	<-done
	if err != nil {
		t.Fatalf("Run: %v (%+v)", err, s.Stats())
	}
	checkExactlyOnce(t, s, h)
	if st := s.Stats(); st.Pulls == 0 || st.Reopens < st.Pulls {
		t.Fatalf("stats %+v", st)
	}
	_ = fwproto.Version
}
