package journal

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestAppendReplay(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 4, 0, 0, 123456789, time.UTC)
	for i := 1; i <= 3; i++ {
		seq, err := j.Append(t0.Add(time.Duration(i)*time.Second), []byte(fmt.Sprintf("ev%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if seq != uint64(i) {
			t.Fatalf("seq = %d, want %d", seq, i)
		}
	}
	first, err := j.AppendBatch([]Entry{{Time: t0, Data: []byte("ev4")}, {Time: t0, Data: []byte("ev5")}})
	if err != nil || first != 4 {
		t.Fatalf("AppendBatch = %d, %v; want 4", first, err)
	}
	j.SetMark("applied", 5)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	j, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.Last() != 5 {
		t.Fatalf("Last = %d, want 5", j.Last())
	}
	if m, err := j.Mark("applied"); err != nil || m != 5 {
		t.Fatalf("Mark = %d, %v; want 5", m, err)
	}
	var got []string
	err = j.Replay(2, func(r Record) error {
		got = append(got, fmt.Sprintf("%d:%s", r.Seq, r.Data))
		if r.Seq == 2 && !r.Time.Equal(t0.Add(2*time.Second)) {
			t.Errorf("time = %v, want %v", r.Time, t0.Add(2*time.Second))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "[2:ev2 3:ev3 4:ev4 5:ev5]"
	if fmt.Sprint(got) != want {
		t.Fatalf("replay = %v, want %v", got, want)
	}
	stop := errors.New("stop")
	n := 0
	if err := j.Replay(0, func(Record) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("Replay with error = %v after %d; want stop after 1", err, n)
	}
}

func TestReplayManyChunks(t *testing.T) {
	j, err := Open(t.TempDir(), &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var batch []Entry
	for i := 1; i <= 2500; i++ {
		batch = append(batch, Entry{Time: time.Unix(int64(i), 0), Data: []byte(strconv.Itoa(i))})
	}
	if _, err := j.AppendBatch(batch); err != nil {
		t.Fatal(err)
	}
	next := uint64(1)
	err = j.Replay(1, func(r Record) error {
		if r.Seq != next || string(r.Data) != strconv.FormatUint(next, 10) || r.Time.Unix() != int64(next) {
			return fmt.Errorf("record %d: got seq %d data %q", next, r.Seq, r.Data)
		}
		next++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if next != 2501 {
		t.Fatalf("replayed %d records, want 2500", next-1)
	}
}

func TestSecondOpenLocked(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	_, err = Open(dir, &Options{LockTimeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
}

func TestUnwritableDir(t *testing.T) {
	dir := t.TempDir()
	f := dir + "/file"
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(f+"/state", nil)
	if err == nil {
		t.Fatal("Open under a regular file succeeded")
	}
	if want := f + "/state"; !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not name %s", err, want)
	}
}

func TestClosed(t *testing.T) {
	j, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if _, err := j.Append(time.Now(), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close = %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

// TestKill9MidWrite runs a child process that appends records as fast as it
// can and prints each sequence number once Append has returned, kills it
// with SIGKILL, reopens the journal and checks that every acknowledged record
// is there, intact and in order, and that nothing after it is torn. It does
// this several times on the same journal.
func TestKill9MidWrite(t *testing.T) {
	if os.Getenv("JOURNAL_CHILD_DIR") != "" {
		t.Skip("child")
	}
	dir := t.TempDir()
	acked := uint64(0)
	for round := 0; round < 4; round++ {
		cmd := selfCommand("-test.run=^TestJournalChild$", "-test.v=false")
		cmd.Env = append(os.Environ(), "JOURNAL_CHILD_DIR="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		n := 0
		for sc.Scan() && n < 40+round*17 {
			v, err := strconv.ParseUint(sc.Text(), 10, 64)
			if err != nil {
				continue
			}
			acked = v
			n++
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if n == 0 {
			t.Fatal("child wrote nothing")
		}

		j, err := Open(dir, nil)
		if err != nil {
			t.Fatalf("round %d: reopen after kill -9: %v", round, err)
		}
		if j.Last() < acked {
			t.Fatalf("round %d: journal has %d records, child acknowledged %d", round, j.Last(), acked)
		}
		next := uint64(1)
		err = j.Replay(1, func(r Record) error {
			if want := fmt.Sprintf("record %d payload", r.Seq); r.Seq != next || string(r.Data) != want {
				return fmt.Errorf("record %d: seq %d data %q", next, r.Seq, r.Data)
			}
			next++
			return nil
		})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if next-1 != j.Last() {
			t.Fatalf("round %d: replayed %d, Last %d", round, next-1, j.Last())
		}
		j.Close()
	}
}

// TestJournalChild is the child of TestKill9MidWrite; it does nothing in a
// normal run.
func TestJournalChild(t *testing.T) {
	dir := os.Getenv("JOURNAL_CHILD_DIR")
	if dir == "" {
		return
	}
	j, err := Open(dir, &Options{LockTimeout: 5 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	for {
		seq := j.Last() + 1
		got, err := j.Append(time.Now(), []byte(fmt.Sprintf("record %d payload", seq)))
		if err != nil || got != seq {
			fmt.Fprintln(os.Stderr, "append:", got, err)
			os.Exit(3)
		}
		fmt.Println(seq)
	}
}

func TestMetaAndReadOnly(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, &Options{ReadOnly: true}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read-only open of a missing journal = %v", err)
	}
	j, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.SetMeta("table", []byte(`{"decks":6}`)); err != nil {
		t.Fatal(err)
	}
	if err := j.SetMeta("format", nil); err == nil {
		t.Fatal("overwrote the format key")
	}
	j.Append(time.Unix(1, 0), []byte("x"))
	// A reader cannot open the journal while the writer holds it.
	if _, err := Open(dir, &Options{ReadOnly: true, LockTimeout: 50 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		t.Fatalf("read-only open beside a writer = %v", err)
	}
	j.Close()
	r, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, _ := r.Meta("table"); string(v) != `{"decks":6}` {
		t.Fatalf("Meta = %q", v)
	}
	if v, _ := r.Meta("absent"); v != nil {
		t.Fatalf("absent Meta = %q", v)
	}
	if r.Last() != 1 {
		t.Fatalf("Last = %d", r.Last())
	}
	if _, err := r.Append(time.Now(), nil); err == nil {
		t.Fatal("append to a read-only journal succeeded")
	}
}

// BenchmarkAppend is the durable write of one input event: one bbolt
// transaction, fsynced, on this machine's disk.
func BenchmarkAppend(b *testing.B) {
	j, err := Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	data := []byte(`{"kind":"card","card":"9H","source":"shoe","ref":"1:17"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := j.Append(time.Now(), data); err != nil {
			b.Fatal(err)
		}
	}
}

// selfCommand runs this test binary again with args. Under an emulator
// (.ci/arm-test runs the ARM test binaries under qemu-user, with no binfmt
// handler registered) SABOT_TEST_EMULATOR names it, and the child runs under
// it too.
func selfCommand(args ...string) *exec.Cmd {
	if emu := os.Getenv("SABOT_TEST_EMULATOR"); emu != "" {
		return exec.Command(emu, append([]string{os.Args[0]}, args...)...)
	}
	return exec.Command(os.Args[0], args...)
}
