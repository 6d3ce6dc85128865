package testenv

import (
	"sync"
	"testing"
	"time"
)

// Wait polls cond every 10 ms until it holds, and fails the test (naming
// what) once d has passed without it.
func Wait(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// MaxLogBuffer is what a LogBuffer keeps, in bytes: a test's worth of log.
const MaxLogBuffer = 4 << 20

// LogBuffer is a log written by a client or a process and read by the
// test, safe for concurrent use. It keeps the first MaxLogBuffer bytes
// (about: the write that crosses the bound is kept whole) and accepts, and
// drops, the rest; with Tail set, the last Tail bytes instead.
type LogBuffer struct {
	// Tail, if positive, is how many bytes to keep of the end of the log
	// (a long-running process, whose last lines say why it stopped).
	Tail int

	mu sync.Mutex
	b  []byte
}

// Write appends p while the buffer holds less than MaxLogBuffer bytes (or,
// with Tail, appends p and drops all but the last Tail bytes); it never
// fails.
func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.Tail > 0:
		l.b = append(l.b, p...)
		if len(l.b) > l.Tail {
			l.b = append([]byte(nil), l.b[len(l.b)-l.Tail:]...)
		}
	case len(l.b) < MaxLogBuffer:
		l.b = append(l.b, p...)
	}
	return len(p), nil
}

// String is what has been kept so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}
