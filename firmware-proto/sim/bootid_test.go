package sim

import (
	"fmt"
	"testing"
	"time"
)

// bootIDs returns the boot ids of the first boot and of n reboots.
func bootIDs(t *testing.T, opts Options, n int) []uint32 {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var ids []uint32
	for i := 0; i <= n; i++ {
		s.reboot(now, i > 0)
		ids = append(ids, s.boot)
	}
	return ids
}

// Two runs with the same seed are two boots: each run draws its own boot
// id, so a host that saw the first run does not take the second for its
// retransmission. The deal itself is the same.
func TestBootIDRandomPerRun(t *testing.T) {
	a := bootIDs(t, Options{Seed: 7}, 3)
	b := bootIDs(t, Options{Seed: 7}, 3)
	for i := range a {
		if a[i] == 0 || b[i] == 0 {
			t.Fatalf("boot id 0: %x %x", a, b)
		}
		if a[i] == b[i] {
			t.Fatalf("boot %d has id %#x in both runs of seed 7", i, a[i])
		}
	}
	s1, _ := New(Options{Seed: 7, Decks: 1})
	s2, _ := New(Options{Seed: 7, Decks: 1})
	if fmt.Sprint(s1.Tokens()) != fmt.Sprint(s2.Tokens()) {
		t.Fatal("the same seed dealt two different shoes")
	}
}

// Options.BootID fixes the first boot id, and the reboots' ids follow from
// it: a run can be reproduced exactly.
func TestBootIDFixed(t *testing.T) {
	a := bootIDs(t, Options{Seed: 7, BootID: 0x5AB07001}, 4)
	b := bootIDs(t, Options{Seed: 99, BootID: 0x5AB07001}, 4)
	if a[0] != 0x5AB07001 {
		t.Fatalf("first boot id %#x, want 0x5ab07001", a[0])
	}
	seen := map[uint32]bool{}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("boot %d: %#x and %#x with the same BootID", i, a[i], b[i])
		}
		if seen[a[i]] || a[i] == 0 {
			t.Fatalf("boot id %#x repeated or zero: %x", a[i], a)
		}
		seen[a[i]] = true
	}
}
