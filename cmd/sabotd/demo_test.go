package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestDemoFast runs `sabotd --demo --demo-errors --demo-coups 60
// --demo-rate fast` in-process: the virtual shoe on a pty through the real
// serial driver (sabot protocol), the embedded broker, dealer errors
// injected; it must finish by itself with every coup, alert and void back
// from the broker, and print one line per coup and alert.
func TestDemoFast(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	text := runDemo(t, "42")
	coupLines := strings.Count(text, "  player ")
	if !strings.Contains(text, "received back from the broker") || coupLines < 50 {
		t.Fatalf("demo output (%d coup lines):\n%s", coupLines, text)
	}
	for _, want := range []string{"ALERT extra-card", "ALERT missing-card", "VOID (supervisor)", "acknowledged by the supervisor (" + demoOperator + ")"} {
		if !strings.Contains(text, want) {
			t.Errorf("demo with dealer errors printed no %q line", want)
		}
	}
	// The summary counts the coups a missing card ended without a result
	// among the 60 dealt (it said 58 coups).
	dead := strings.Count(text, "ALERT missing-card")
	want := fmt.Sprintf("demo: 60 coups dealt: %d with a result, %d ended by a missing card without one;", 60-dead, dead)
	if !strings.Contains(text, want) {
		t.Errorf("demo summary: want %q in:\n%s", want, text[max(0, len(text)-600):])
	}
}

// TestDemoInterrupted: `sabotd --demo --demo-coups 200`, stopped by SIGINT
// or SIGTERM after two coups, exits 1 saying how far it got: a smoke test
// stopped by a timeout must not pass (it exited 0 without a word).
func TestDemoInterrupted(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(binaries(t), "sabotd")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(bin, "--demo", "--demo-coups", "200", "--demo-rate", "fast", "--demo-seed", "5")
		out, errs := &syncBuffer{}, &syncBuffer{}
		cmd.Stdout, cmd.Stderr = out, errs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "two coups", 30*time.Second, func() bool { return strings.Count(out.String(), "  player ") >= 2 })
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var x *exec.ExitError
		if !errors.As(err, &x) || x.ExitCode() != 1 || !strings.Contains(errs.String(), "demo: interrupted after") || !strings.Contains(errs.String(), "of the 200 asked for") {
			t.Errorf("%v after two coups: %v\nstderr:\n%s", sig, err, errs.String())
		}
	}
}

// runDemo runs `sabotd --demo --demo-errors --demo-coups 60 --demo-rate
// fast --demo-seed seed` in-process and returns what it printed.
func runDemo(t *testing.T, seed string) string {
	t.Helper()
	m := NewMain()
	out, logs := &syncBuffer{}, &syncBuffer{}
	m.Stdout, m.Stderr = out, logs
	if err := m.ParseFlags(context.Background(), []string{"--demo", "--demo-errors", "--demo-coups", "60", "--demo-rate", "fast", "--demo-seed", seed}); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.Done():
	case <-time.After(60 * time.Second):
		m.Close()
		t.Fatalf("demo did not finish; log:\n%s", logs.String())
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Err(); err != nil {
		t.Fatalf("demo failed: %v\n%s", err, logs.String())
	}
	return out.String()
}

// demoEvents keeps the demo's lines about the deal: coups, alerts, voids
// and acknowledgements, without the shoe link's own alerts (shoe-offline,
// shoe-online), which follow the machine's load, not the seed.
func demoEvents(text string) []string {
	var evs []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "shoe ") || strings.Contains(l, "shoe-offline") || strings.Contains(l, "shoe-online") {
			continue
		}
		evs = append(evs, l)
	}
	return evs
}

// The same seed gives the same run: the same coups, alerts, voids and
// acknowledgements, in the same order (the supervisor's acknowledgement
// counts cards, not time).
func TestDemoSeedRepeats(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	a, b := demoEvents(runDemo(t, "7")), demoEvents(runDemo(t, "7"))
	if len(a) < 60 {
		t.Fatalf("%d demo lines:\n%s", len(a), strings.Join(a, "\n"))
	}
	acks := 0
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			t.Fatalf("runs differ at line %d:\nfirst:\n%s\nsecond:\n%s", i+1, strings.Join(a, "\n"), strings.Join(b, "\n"))
		}
		if strings.Contains(a[i], "acknowledged by the supervisor") {
			acks++
		}
	}
	if acks == 0 {
		t.Fatalf("no acknowledgement in the run:\n%s", strings.Join(a, "\n"))
	}
}

func TestDemoTokens(t *testing.T) {
	clean, err := demoTokens(1, 30, false)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := tableau.FoldTokens(tableau.Options{Markers: true}, clean)
	if err != nil {
		t.Fatal(err)
	}
	coups := 0
	for _, e := range evs {
		switch e.Kind {
		case baccarat.EventCoup:
			coups++
		default:
			t.Fatalf("clean demo shoe raised %s", e)
		}
	}
	if coups != 30 {
		t.Fatalf("%d coups, want 30", coups)
	}
	errs, _ := demoTokens(1, 30, true)
	evs, _ = tableau.FoldTokens(tableau.Options{Markers: true}, errs)
	codes := map[string]int{}
	for _, e := range evs {
		if e.Kind == baccarat.EventAlert {
			codes[string(e.Alert.Code)]++
		}
		if e.Kind == baccarat.EventVoid {
			codes["void"]++
		}
	}
	if codes["extra-card"] == 0 || codes["void"] == 0 || codes["missing-card"] == 0 {
		t.Fatalf("dealer errors injected: %v", codes)
	}
}
