package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// --link PATH must never replace or delete what it did not create: a
// regular file (or a device node: anything but a symbolic link) at PATH is
// refused with an error naming PATH, and is left as it was.
func TestShoeSimLinkRefusesRegularFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ttySHOE")
	if err := os.WriteFile(path, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"shoe-sim", "--link", path, "--seed", "3", "--decks", "1"}, nil, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), path) || !strings.Contains(stderr.String(), "not a symbolic link") {
		t.Errorf("exit %d, stderr %q: want 2 and an error naming %s", code, stderr.String(), path)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q: no device should be made", stdout.String())
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "precious\n" {
		t.Fatalf("the file at --link is now %q (%v)", b, err)
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the file at --link is no longer a regular file: %v %v", fi, err)
	}
}

// A symbolic link already at PATH (a stale one from an earlier run) is
// replaced; the file it pointed to is untouched; on exit the link this run
// made is removed, and only that.
func TestShoeSimLinkReplacesSymlinkOnly(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ttySHOE")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"shoe-sim", "--link", path, "--seed", "3", "--decks", "1"}, nil, &stdout, &stderr)
	dev := strings.TrimSpace(stdout.String())
	if code != 1 || !strings.HasPrefix(dev, "/dev/pts/") || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("the link this run made is left behind: %v", err)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "keep\n" {
		t.Fatalf("the old link's target is now %q (%v)", b, err)
	}
}

// If something else takes PATH during the run, the exit leaves it alone.
func TestShoeSimLinkKeepsWhatReplacedIt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ttySHOE")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"shoe-sim", "--link", path, "--seed", "3", "--decks", "1"}, nil, outW, &stderr)
		outW.Close()
	}()
	if _, err := bufio.NewReader(outR).ReadString('\n'); err != nil {
		t.Fatalf("no device printed: %v", err)
	}
	go io.Copy(io.Discard, outR)
	other := filepath.Join(dir, "other")
	if err := os.Symlink("/dev/null", other); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil { // someone else's link now
		t.Fatal(err)
	}
	cancel()
	if c := <-code; c != 1 {
		t.Fatalf("exit %d, stderr %q", c, stderr.String())
	}
	if dst, err := os.Readlink(path); err != nil || dst != "/dev/null" {
		t.Fatalf("someone else's link at --link was changed: %q %v", dst, err)
	}
}
