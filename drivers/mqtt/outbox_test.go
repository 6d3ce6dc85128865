package mqtt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func msg(topic, payload string) Message { return Message{Topic: topic, Payload: []byte(payload)} }

func readAll(t *testing.T, o *outbox) []record {
	t.Helper()
	recs, err := o.read(0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestOutboxOrderRemoveReopen(t *testing.T) {
	dir := t.TempDir()
	o, err := openOutbox(dir, 100)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := o.append(ctx, []Message{msg("card", "c1"), msg("card", "c2")}, false); err != nil {
		t.Fatal(err)
	}
	if err := o.append(ctx, []Message{msg("coup", "k1")}, false); err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, o)
	var got []string
	for _, r := range recs {
		got = append(got, r.topic+"="+string(r.payload))
	}
	if strings.Join(got, ",") != "card=c1,card=c2,coup=k1" {
		t.Fatalf("order %v", got)
	}
	if err := o.remove([]uint64{recs[0].seq}); err != nil {
		t.Fatal(err)
	}
	if err := o.close(); err != nil {
		t.Fatal(err)
	}
	// A new process on the same directory sees the rest, in order.
	o, err = openOutbox(dir, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	if o.Len() != 2 {
		t.Fatalf("Len after reopen = %d, want 2", o.Len())
	}
	recs = readAll(t, o)
	if len(recs) != 2 || string(recs[0].payload) != "c2" || string(recs[1].payload) != "k1" || recs[0].seq <= 1 {
		t.Fatalf("after reopen: %+v", recs)
	}
	// Sequence numbers keep growing across restarts.
	if err := o.append(ctx, []Message{msg("coup", "k2")}, false); err != nil {
		t.Fatal(err)
	}
	recs = readAll(t, o)
	if string(recs[2].payload) != "k2" || recs[2].seq <= recs[1].seq {
		t.Fatalf("after append: %+v", recs)
	}
	// read(after) resumes after a sequence number.
	tail, _ := o.read(recs[0].seq, 10)
	if len(tail) != 2 || string(tail[0].payload) != "k1" {
		t.Fatalf("read(after) = %+v", tail)
	}
}

func TestOutboxRetainedLatestWins(t *testing.T) {
	o, err := openOutbox(t.TempDir(), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	ctx := context.Background()
	st := func(p string) Message { return Message{Topic: "state", Payload: []byte(p), Retained: true} }
	for _, m := range []Message{st("s1"), msg("card", "c1"), st("s2"), msg("coup", "k1"), st("s3")} {
		if err := o.append(ctx, []Message{m}, false); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, r := range readAll(t, o) {
		got = append(got, string(r.payload))
	}
	if strings.Join(got, ",") != "c1,k1,s3" || o.Len() != 3 {
		t.Fatalf("queue = %v (Len %d), want c1,k1,s3", got, o.Len())
	}
}

func TestOutboxBacklogFull(t *testing.T) {
	o, err := openOutbox(t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	ctx := context.Background()
	if err := o.append(ctx, []Message{msg("card", "1"), msg("card", "2")}, false); err != nil {
		t.Fatal(err)
	}
	err = o.append(ctx, []Message{msg("card", "3"), msg("card", "4")}, false)
	if !errors.Is(err, ErrBacklogFull) || !strings.Contains(err.Error(), "2 of 3") {
		t.Fatalf("err = %v, want ErrBacklogFull naming 2 of 3", err)
	}
	if o.Len() != 2 {
		t.Fatalf("a refused batch was partly stored: Len = %d", o.Len())
	}
	if err := o.append(ctx, []Message{msg("card", "3")}, false); err != nil {
		t.Fatal(err)
	}
	// Reserve (the backlog alert itself) may exceed the limit.
	if err := o.append(ctx, []Message{msg("alert", "a")}, true); err != nil {
		t.Fatal(err)
	}
	if o.Len() != 4 {
		t.Fatalf("Len = %d, want 4", o.Len())
	}
}

// Requests that arrive while a transaction is being written are committed
// together in the next one: one fsync for the lot.
func TestOutboxGroupCommit(t *testing.T) {
	o, err := openOutbox(t.TempDir(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	// Hold bbolt's writer lock so the writer goroutine blocks in its first
	// transaction while the other requests queue up.
	tx, err := o.db.Begin(true)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() // before o.close, if the test fails early
	batches := make(chan int, 4)
	o.beforeCommit = func(n int) { batches <- n }
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	send := func(i int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- o.append(context.Background(), []Message{msg("card", fmt.Sprint(i))}, false)
		}()
	}
	// The first request alone: the writer takes it and goes on to its
	// transaction, which blocks on the held lock.
	send(0)
	if first := <-batches; first != 1 {
		t.Fatalf("first batch has %d requests, want 1", first)
	}
	// Everything sent now must wait in the queue behind that transaction.
	for i := 1; i < n; i++ {
		send(i)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(o.reqs) < n-1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	queued := len(o.reqs)
	if queued != n-1 {
		t.Fatalf("%d of %d requests queued behind the writer, want %d", queued, n, n-1)
	}
	tx.Rollback()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if o.Len() != n {
		t.Fatalf("Len = %d", o.Len())
	}
	if second := <-batches; second != n-1 {
		t.Fatalf("second batch has %d requests, want %d", second, n-1)
	}
	if c := o.commits.Load(); c != 2 {
		t.Fatalf("%d requests took %d commits, want 2 (the writer's first batch, then the %d queued behind it together)", n, c, queued)
	}
}

func TestOutboxStateDirErrors(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "plain-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "state")
	_, err := openOutbox(bad, 10)
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("err = %v, want one naming %s", err, bad)
	}
	_, err = New(Options{Table: "T1", StateDir: bad})
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("New: err = %v, want one naming %s", err, bad)
	}
	// A second publisher on the same state directory is refused, naming it.
	dir := filepath.Join(base, "state")
	o, err := openOutbox(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	outboxLockTimeout = 200 * time.Millisecond
	defer func() { outboxLockTimeout = 2 * time.Second }()
	_, err = openOutbox(dir, 10)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, OutboxFile)) || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("second open: err = %v", err)
	}
}
