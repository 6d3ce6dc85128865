package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/testenv"
	fwproto "github.com/sabot-table/sabot/firmware-proto"
	"github.com/sabot-table/sabot/firmware-proto/sim"
)

// TestShoeSimCommand boots `sabot shoe-sim --link` on a transcript, plays a
// host on the printed device, and expects exit 0 once everything is acked.
func TestShoeSimCommand(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "shoe.txt")
	os.WriteFile(tr, []byte("shoe 2H 3C 4D | 5S 5H 2C 2D | cut 9S 9H 9C 9D |\n"), 0o644)
	link := filepath.Join(dir, "ttySHOE")
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"shoe-sim", "--link", link, "--transcript", tr, "--rate", "200", "--faults", "dup=0.2,split=0.2"}, nil, outW, &stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("no device printed: %v (stderr %s)", err, stderr.String())
	}
	go io.Copy(io.Discard, outR)
	dev := strings.TrimSpace(line)
	if target, _ := os.Readlink(link); target != dev || !strings.HasPrefix(dev, "/dev/pts/") {
		t.Fatalf("printed %q, link points to %q", dev, target)
	}
	host, err := os.OpenFile(link, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	sim.MakeRaw(host)
	var rcv fwproto.Receiver
	var cards []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		d := fwproto.NewDecoder(host)
		e := fwproto.NewEncoder(host)
		for {
			f, err := d.Decode()
			var v fwproto.Verdict
			if err != nil {
				if !fwproto.IsFrameError(err) {
					return
				}
				v = rcv.Damaged(err)
			} else {
				v = rcv.Receive(f)
				if c, ok := f.Msg.(*fwproto.Card); ok && v.Action == fwproto.Deliver {
					cards = append(cards, string("?A23456789TJQK"[c.Rank])+string("?SHDC"[c.Suit]))
				}
			}
			if v.Reply.Msg != nil {
				e.Encode(v.Reply)
			}
		}
	}()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d, stderr:\n%s", c, stderr.String())
		}
	case <-ctx.Done():
		t.Fatalf("shoe-sim did not finish; stderr:\n%s", stderr.String())
	}
	host.Close()
	<-done
	if got := strings.Join(cards, " "); got != "2H 3C 4D 5S 5H 2C 2D 9S 9H 9C 9D" {
		t.Fatalf("cards %q", got)
	}
	if !strings.Contains(stderr.String(), "done: 17 events acknowledged (11 cards") {
		t.Fatalf("stderr %q", stderr.String())
	}
	if _, err := os.Lstat(link); !os.IsNotExist(err) {
		t.Fatalf("link left behind: %v", err)
	}
}

func TestShoeSimInterrupted(t *testing.T) {
	link := filepath.Join(t.TempDir(), "ttySHOE")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	// Nobody acknowledges: the shoe runs until interrupted.
	c := run(ctx, []string{"shoe-sim", "--link", link, "--seed", "3", "--decks", "1"}, nil, &stdout, &stderr)
	if c != 1 || !strings.Contains(stderr.String(), "interrupted") || !strings.HasPrefix(stdout.String(), "/dev/pts/") {
		t.Fatalf("exit %d, stdout %q, stderr %q", c, stdout.String(), stderr.String())
	}
}

func TestShoeSimBadFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.shoe")
	os.WriteFile(bad, []byte("shoe 2H ZZ\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{}, "exactly one of --link"},
		{[]string{"--link", "a", "--port", "b"}, "exactly one of --link"},
		{[]string{"--link", "a", "--decks", "9"}, "--decks 9"},
		{[]string{"--link", "a", "--faults", "jam=1"}, `unknown fault "jam"`},
		{[]string{"--link", "a", "--rate", "-1"}, "--rate -1"},
		{[]string{"--link", "a", "--boot-id", "4294967296"}, "--boot-id 4294967296"},
		{[]string{"--link", "a", "--transcript", bad}, bad + ":1:9: unknown token \"ZZ\""},
		{[]string{"--link", "a", "--transcript", filepath.Join(dir, "missing")}, "no such file"},
		{[]string{"--link", "a", "--dealer", "D 7"}, `--dealer "D 7": byte 2 is ' '`},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"shoe-sim"}, c.args...), nil, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args, code, stderr.String(), c.want)
		}
	}
}

func TestShoeSimWriteTranscript(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "dealt.shoe")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	run(ctx, []string{"shoe-sim", "--link", filepath.Join(dir, "l"), "--seed", "9", "--decks", "1", "--write-transcript", out}, nil, &stdout, &stderr)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := sim.DealShoes(9, 1, 1)
	if n := len(strings.Fields(string(b))); n != len(want) {
		t.Fatalf("transcript has %d tokens, deal has %d", n, len(want))
	}
	// sabot check accepts it without alerts.
	var cout, cerr bytes.Buffer
	if c := run(context.Background(), []string{"check", "--decks", "1", out}, nil, &cout, &cerr); c != 0 {
		t.Fatalf("check exit %d: %s %s", c, cout.String(), cerr.String())
	}
}

// TestShoeSimSerialPort drives --port: socat makes a linked pair of
// pseudo-terminals; shoe-sim opens one end through go.bug.st/serial, the
// test plays the host on the other.
func TestShoeSimSerialPort(t *testing.T) {
	socat := testenv.NeedProgram(t, "socat")
	dir := t.TempDir()
	shoeEnd, hostEnd := filepath.Join(dir, "shoe"), filepath.Join(dir, "host")
	cmd := exec.Command(socat, "pty,raw,echo=0,link="+shoeEnd, "pty,raw,echo=0,link="+hostEnd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	for i := 0; ; i++ {
		_, e1 := os.Stat(shoeEnd)
		_, e2 := os.Stat(hostEnd)
		if e1 == nil && e2 == nil {
			break
		}
		if i > 200 {
			t.Fatal("socat did not create the pty pair")
		}
		time.Sleep(10 * time.Millisecond)
	}
	host, err := os.OpenFile(hostEnd, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	sim.MakeRaw(host)
	go func() {
		var rcv fwproto.Receiver
		d, e := fwproto.NewDecoder(host), fwproto.NewEncoder(host)
		for {
			f, err := d.Decode()
			var v fwproto.Verdict
			if err != nil {
				if !fwproto.IsFrameError(err) {
					return
				}
				v = rcv.Damaged(err)
			} else {
				v = rcv.Receive(f)
			}
			if v.Reply.Msg != nil {
				e.Encode(v.Reply)
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"shoe-sim", "--port", shoeEnd, "--baud", "115200", "--seed", "4", "--decks", "1"}, nil, &stdout, &stderr)
	if code != 0 || !strings.Contains(stderr.String(), "done:") {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
}

// TestShoeSimDealer: --dealer ID signs the dealer in with a DEALER event
// (protocol minor version 1) before the first token; a transcript's own
// "dealer" tokens follow as DEALER events where they stand.
func TestShoeSimDealer(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "shoe.txt")
	os.WriteFile(tr, []byte("shoe 2H 3C 4D | dealer K.LEE 5S 5H 2C 2D | dealer -\n"), 0o644)
	link := filepath.Join(dir, "ttySHOE")
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"shoe-sim", "--link", link, "--transcript", tr, "--dealer", "D7"}, nil, outW, &stderr)
		outW.Close()
	}()
	if _, err := bufio.NewReader(outR).ReadString('\n'); err != nil {
		t.Fatalf("no device printed: %v (stderr %s)", err, stderr.String())
	}
	go io.Copy(io.Discard, outR)
	host, err := os.OpenFile(link, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	sim.MakeRaw(host)
	var rcv fwproto.Receiver
	var got []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		d, e := fwproto.NewDecoder(host), fwproto.NewEncoder(host)
		for {
			f, err := d.Decode()
			if err != nil {
				if !fwproto.IsFrameError(err) {
					return
				}
				if v := rcv.Damaged(err); v.Reply.Msg != nil {
					e.Encode(v.Reply)
				}
				continue
			}
			v := rcv.Receive(f)
			if v.Action == fwproto.Deliver {
				switch m := f.Msg.(type) {
				case *fwproto.Hello:
					got = append(got, fmt.Sprintf("hello/%d", m.Minor))
				case *fwproto.Dealer:
					got = append(got, fmt.Sprintf("dealer/%d/%s", m.Action, m.ID))
				case *fwproto.Card:
					got = append(got, "card")
				}
			}
			if v.Reply.Msg != nil {
				e.Encode(v.Reply)
			}
		}
	}()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d, stderr:\n%s", c, stderr.String())
		}
	case <-ctx.Done():
		t.Fatalf("shoe-sim did not finish; stderr:\n%s", stderr.String())
	}
	host.Close()
	<-done
	want := "hello/1 dealer/1/D7 card card card dealer/1/K.LEE card card card card dealer/0/"
	if g := strings.Join(got, " "); g != want {
		t.Fatalf("delivered %s\nwant      %s", g, want)
	}
}
