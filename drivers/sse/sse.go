// Package sse writes server-sent event streams (the HTML Living Standard's
// text/event-stream) for the board page (sabotd) and the pit console
// (sabot pit): the response headers, the reconnection delay and events
// written whole within a write deadline, each flushed at once.
package sse

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Stream is one open event stream. It is not safe for concurrent use: one
// handler goroutine writes it.
type Stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

// Open starts an event stream on w: Content-Type text/event-stream,
// Cache-Control no-store, X-Accel-Buffering no (a proxy must not buffer
// it), status 200, then a "retry:" field telling the browser to reconnect
// after retry (whole milliseconds). Every write, this one included, must
// finish within writeTimeout (a client that stops reading is dropped
// rather than holding the handler). The error (prefixed "sse:") is the
// write's.
func Open(w http.ResponseWriter, retry, writeTimeout time.Duration) (*Stream, error) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &Stream{w: w, rc: http.NewResponseController(w), timeout: writeTimeout}
	if err := s.write([]byte("retry: " + strconv.FormatInt(retry.Milliseconds(), 10) + "\n\n")); err != nil {
		return nil, err
	}
	return s, nil
}

// Event writes one event: "event: NAME", one "data:" line holding the
// pieces of data joined, and the blank line that ends it; then flushes.
// Data must not contain a newline (compact JSON does not) and name must
// be a plain word; both are the callers' constants and encodings, and a
// newline is refused with an error rather than splitting the event.
func (s *Stream) Event(name string, data ...[]byte) error {
	for _, d := range data {
		if bytes.IndexByte(d, '\n') >= 0 {
			return fmt.Errorf("sse: event %q: data holds a newline", name)
		}
	}
	p := make([][]byte, 0, len(data)+2)
	p = append(p, []byte("event: "+name+"\ndata: "))
	p = append(p, data...)
	p = append(p, []byte("\n\n"))
	return s.write(p...)
}

// Wait blocks a stream's loop until it has something to do and reports
// whether the loop goes on. It is true once changed is closed (and then,
// when settle is positive, settle has passed too, so that changes within
// it go out in one event) and once a tick from hb has been written as an
// "hb" event with data "1" (keeping an idle stream alive); it is false
// when ctx is done, done is closed or the heartbeat could not be written.
func (s *Stream) Wait(ctx context.Context, changed, done <-chan struct{}, hb <-chan time.Time, settle time.Duration) bool {
	select {
	case <-changed:
		if settle <= 0 {
			return true
		}
		select {
		case <-time.After(settle):
			return true
		case <-ctx.Done():
			return false
		case <-done:
			return false
		}
	case <-hb:
		return s.Event("hb", []byte("1")) == nil
	case <-ctx.Done():
		return false
	case <-done:
		return false
	}
}

func (s *Stream) write(p ...[]byte) error {
	s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	for _, b := range p {
		if _, err := s.w.Write(b); err != nil {
			return fmt.Errorf("sse: %w", err)
		}
	}
	if err := s.rc.Flush(); err != nil {
		return fmt.Errorf("sse: %w", err)
	}
	return nil
}
