package shoe

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Claim takes the device's lock before Run: a second opener is refused
// from then on, Run uses the claimed port (no second open), and a Claim on
// a device another opener holds fails with ErrBusy.
func TestClaimHoldsTheLockForRun(t *testing.T) {
	p := newPTY(t)
	co := &countingOpen{open: OpenSerial}
	s, err := New(Options{Path: p.dev, Protocol: "beetek", Open: co.Open, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Claim(); err != nil {
		t.Fatalf("Claim: %v", err)
	}
	if _, err := OpenSerial(ptyConfig(p.dev)); !errors.Is(err, ErrBusy) {
		t.Fatalf("open after Claim: %v, want ErrBusy", err)
	}
	second, err := New(Options{Path: p.dev, Protocol: "beetek", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Claim(); !errors.Is(err, ErrBusy) {
		t.Fatalf("second Claim: %v, want ErrBusy", err)
	}
	rec := newRecorder()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), rec.handle) }()
	rec.expect(t, "online", 5*time.Second)
	if opens, _, _ := co.counts(); opens != 1 {
		t.Fatalf("%d opens, want 1 (Run must use the claimed port)", opens)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	// Released: the device can be opened again.
	port, err := OpenSerial(ptyConfig(p.dev))
	if err != nil {
		t.Fatalf("open after Close: %v", err)
	}
	port.Close()
}

// Close releases a claimed port that Run never took.
func TestClaimReleasedByClose(t *testing.T) {
	p := newPTY(t)
	s, err := New(Options{Path: p.dev, Protocol: "beetek", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Claim(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	port, err := OpenSerial(ptyConfig(p.dev))
	if err != nil {
		t.Fatalf("open after Close: %v", err)
	}
	port.Close()
	if err := s.Claim(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Claim after Close: %v, want ErrClosed", err)
	}
}
