package sse

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestStream reads a stream as a browser would, byte for byte: headers,
// the retry field and two events, each flushed as it is written.
func TestStream(t *testing.T) {
	wrote := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := Open(w, 2500*time.Millisecond, time.Second)
		if err != nil {
			t.Error(err)
			return
		}
		if err := s.Event("board", []byte(`{"a":`), []byte(`1}`)); err != nil {
			t.Error(err)
		}
		if err := s.Event("hb", []byte("1")); err != nil {
			t.Error(err)
		}
		if err := s.Event("bad", []byte("two\nlines")); err == nil || !strings.Contains(err.Error(), "newline") {
			t.Errorf("a data newline: err %v", err)
		}
		<-wrote // the client read the events before the handler returns: they were flushed
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for k, v := range map[string]string{"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	want := "retry: 2500\n\nevent: board\ndata: {\"a\":1}\n\nevent: hb\ndata: 1\n\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(resp.Body, got); err != nil {
		t.Fatal(err)
	}
	close(wrote)
	if string(got) != want {
		t.Errorf("stream %q, want %q", got, want)
	}
}

// TestWait covers each way out of Wait: a change (with and without a
// settle time), a heartbeat written as an "hb" event, the request's end
// and the server's.
func TestWait(t *testing.T) {
	rec := httptest.NewRecorder()
	s, err := Open(rec, time.Second, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	closed := make(chan struct{})
	close(closed)
	never := make(chan struct{})
	if !s.Wait(ctx, closed, never, nil, 0) {
		t.Error("a change: false")
	}
	start := time.Now()
	if !s.Wait(ctx, closed, never, nil, 20*time.Millisecond) {
		t.Error("a change with a settle time: false")
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("a change with a settle time returned after %v", d)
	}
	if s.Wait(ctx, closed, closed, nil, time.Hour) {
		t.Error("done while settling: true")
	}
	tick := make(chan time.Time, 1)
	tick <- time.Now()
	if !s.Wait(ctx, never, never, tick, 0) {
		t.Error("a heartbeat: false")
	}
	if s.Wait(ctx, never, closed, nil, 0) {
		t.Error("done: true")
	}
	cancel()
	if s.Wait(ctx, never, never, nil, 0) {
		t.Error("request ended: true")
	}
	if got, want := rec.Body.String(), "retry: 1000\n\nevent: hb\ndata: 1\n\n"; got != want {
		t.Errorf("stream %q, want %q", got, want)
	}
}
