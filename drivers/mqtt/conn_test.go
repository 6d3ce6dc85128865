package mqtt

import (
	"strings"
	"testing"
)

// Connection numbers grow by one past the last stored, across a reopen of
// the state directory, and never fall below the floor (the clock); the
// instance id is made once and kept.
func TestOutboxConnNumbers(t *testing.T) {
	dir := t.TempDir()
	o, err := openOutbox(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	inst := o.instance
	if len(inst) != 16 {
		t.Fatalf("instance %q, want 16 hex digits", inst)
	}
	for i, c := range []struct{ floor, want uint64 }{{0, 1}, {0, 2}, {1000, 1000}, {5, 1001}} {
		n, err := o.nextConn(c.floor)
		if err != nil || n != c.want {
			t.Fatalf("nextConn %d (floor %d) = %d, %v; want %d", i, c.floor, n, err, c.want)
		}
	}
	if err := o.close(); err != nil {
		t.Fatal(err)
	}
	o, err = openOutbox(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	if n, err := o.nextConn(0); err != nil || n != 1002 {
		t.Fatalf("after reopen nextConn = %d, %v; want 1002", n, err)
	}
	if o.instance != inst {
		t.Fatalf("instance %q after reopen, want %q", o.instance, inst)
	}
	other, err := openOutbox(t.TempDir(), 10)
	if err != nil {
		t.Fatal(err)
	}
	defer other.close()
	if other.instance == inst {
		t.Fatal("two state directories share an instance id")
	}
}

// The status schema requires conn and instance, so a consumer can always
// order statuses.
func TestStatusSchemaConn(t *testing.T) {
	good := `{"schema":1,"id":"T1/status/x/1","table":"T1","shoe_id":"","time":"2026-11-30T05:00:00Z","status":"offline","version":"1","shoe_state":"","conn":17,"instance":"0123456789abcdef"}`
	if err := validatePayload(t, TopicStatus, []byte(good)); err != nil {
		t.Fatalf("good status rejected: %v", err)
	}
	for name, r := range map[string][2]string{
		"no conn":      {`,"conn":17`, ``},
		"conn 0":       {`"conn":17`, `"conn":0`},
		"no instance":  {`,"instance":"0123456789abcdef"`, ``},
		"bad instance": {`"0123456789abcdef"`, `"host-1"`},
	} {
		p := strings.Replace(good, r[0], r[1], 1)
		if p == good {
			t.Fatalf("%s: replacement did not apply", name)
		}
		if err := validatePayload(t, TopicStatus, []byte(p)); err == nil {
			t.Errorf("%s: accepted %s", name, p)
		}
	}
}
