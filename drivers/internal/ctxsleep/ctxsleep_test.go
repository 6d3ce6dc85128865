package ctxsleep

import (
	"context"
	"testing"
	"time"
)

func TestSleepFull(t *testing.T) {
	if !Sleep(context.Background(), time.Millisecond) {
		t.Fatal("Sleep on a live context reported false")
	}
}

func TestSleepCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if Sleep(ctx, time.Hour) {
		t.Fatal("Sleep on a cancelled context reported true")
	}
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("Sleep on a cancelled context took %v", d)
	}
}
