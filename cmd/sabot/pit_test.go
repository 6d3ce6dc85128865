package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

func TestPitHashPassword(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"pit", "--hash-password", "--cost", "4"}, strings.NewReader("s3cret pass\n"), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	h := strings.TrimSpace(out.String())
	if bcrypt.CompareHashAndPassword([]byte(h), []byte("s3cret pass")) != nil {
		t.Errorf("hash %q does not match the password", h)
	}
	if c, _ := bcrypt.Cost([]byte(h)); c != 4 {
		t.Errorf("cost %d", c)
	}
	for _, in := range []string{"", "\n", strings.Repeat("x", 73) + "\n"} {
		if code := run(context.Background(), []string{"pit", "--hash-password", "--cost", "4"}, strings.NewReader(in), &out, &errb); code != 2 {
			t.Errorf("password %q: exit %d", in, code)
		}
	}
}

// sabot pit refuses bad flags and files with exit status 2 and a
// "pit: " message.
func TestPitFlags(t *testing.T) {
	users := usersFile(t, "alice:x")
	for _, args := range [][]string{
		{"pit", "--users", users},
		{"pit", "--broker", "tcp://127.0.0.1:1"},
		{"pit", "--broker", "tcp://127.0.0.1:1", "--users", users, "--tls-cert", "x"},
		{"pit", "--broker", "tcp://127.0.0.1:1", "--users", users, "--max-tables", "0"},
		{"pit", "--broker", "tcp://127.0.0.1:1", "--users", users, "--refusal-timeout", "500ms"},
		{"pit", "--broker", "tcp://127.0.0.1:1", "--users", users, "--refusal-timeout", "11m"},
		{"pit", "--broker", "nonsense", "--users", users, "--listen", "127.0.0.1:0"},
		{"pit", "--broker", "tcp://127.0.0.1:1", "--users", "/nonexistent/users"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "pit: ") {
			t.Errorf("%v: exit %d: %s", args, code, errb.String())
		}
	}
}

// usersFile writes a users file with the given name:password pairs
// (hashed at bcrypt's minimum cost, for speed).
func usersFile(t *testing.T, pairs ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# pit users\n\n")
	for _, p := range pairs {
		name, pw, _ := strings.Cut(p, ":")
		h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:%s\n", name, h)
	}
	path := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// statusMsg is a table's status payload (as the pit console's tests make
// it).
func statusMsg(status string, conn uint64, instance, shoeState string, extra string) []byte {
	return []byte(fmt.Sprintf(`{"schema":1,"id":"T/status/x/%d-%s","table":"T","shoe_id":"","time":"2026-12-01T10:00:00Z",`+
		`"status":%q,"version":"0.1.0","shoe_state":%q,"conn":%d,"instance":%q%s}`, conn, status, status, shoeState, conn, instance, extra))
}
