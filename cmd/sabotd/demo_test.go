package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
)

// TestDemoFast runs `sabotd --demo --demo-errors --demo-coups 60
// --demo-rate fast` in-process: the virtual shoe on a pty through the real
// serial driver (sabot protocol), the embedded broker, dealer errors
// injected; it must finish by itself with every coup, alert and void back
// from the broker, and print one line per coup and alert.
func TestDemoFast(t *testing.T) {
	m := NewMain()
	out, logs := &syncBuffer{}, &syncBuffer{}
	m.Stdout, m.Stderr = out, logs
	if err := m.ParseFlags(context.Background(), []string{"--demo", "--demo-errors", "--demo-coups", "60", "--demo-rate", "fast", "--demo-seed", "42"}); err != nil {
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
	text := out.String()
	coupLines := strings.Count(text, "  player ")
	if !strings.Contains(text, "received back from the broker") || coupLines < 50 {
		t.Fatalf("demo output (%d coup lines):\n%s", coupLines, text)
	}
	for _, want := range []string{"ALERT extra-card", "ALERT missing-card", "VOID (supervisor)", "acknowledged by the supervisor (ack-key)"} {
		if !strings.Contains(text, want) {
			t.Errorf("demo with dealer errors printed no %q line", want)
		}
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
		case tableau.EventCoup:
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
		if e.Kind == tableau.EventAlert {
			codes[string(e.Alert.Code)]++
		}
		if e.Kind == tableau.EventVoid {
			codes["void"]++
		}
	}
	if codes["extra-card"] == 0 || codes["void"] == 0 || codes["missing-card"] == 0 {
		t.Fatalf("dealer errors injected: %v", codes)
	}
}
