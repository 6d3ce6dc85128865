package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/cmd/internal/pit"
	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
	"github.com/sabot-table/sabot/drivers/testenv"
)

// TestPitLoginLimitBinary: the login bounds hold through the real `sabot
// pit` program, over TCP, from two loopback addresses: five wrong
// passwords for bob from one address lock that pair out (his right
// password then gets 429 there), twenty failures lock the address out
// whatever the names, and bob still logs in from the other address. A
// users file others may read is refused at start.
func TestPitLoginLimitBinary(t *testing.T) {
	t.Parallel()
	sabot := builtSabot(t)
	b, err := embedded.StartOpen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	users := usersFile(t, "alice:right", "bob:right")
	port := testenv.FreePort(t)
	startProc(t, "sabot pit", "pit: serving", sabot, "pit", "--users", users, "--broker", b.URL(),
		"--listen", fmt.Sprintf("127.0.0.1:%d", port))

	// A client whose connections come from the loopback address from.
	from := func(addr string) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addr)}, Timeout: 5 * time.Second}
		return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, a string) (net.Conn, error) { return d.DialContext(ctx, network, a) }}}
	}
	attacker, other := from("127.0.0.66"), from("127.0.0.10")
	login := func(c *http.Client, user, pw string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", fmt.Sprintf("http://127.0.0.1:%d/api/login", port),
			strings.NewReader(fmt.Sprintf(`{"user":%q,"password":%q}`, user, pw)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range pit.LoginFailures {
		if code := login(attacker, "bob", "guess"); code != http.StatusUnauthorized {
			t.Fatalf("guess %d at bob: %d", i+1, code)
		}
	}
	if code := login(attacker, "bob", "right"); code != http.StatusTooManyRequests {
		t.Errorf("bob's right password after %d guesses from one address: %d, want 429", pit.LoginFailures, code)
	}
	checked := pit.LoginFailures
	for i := range 3 * pit.SourceFailures {
		switch code := login(attacker, fmt.Sprintf("name-%d", i), "x"); code {
		case http.StatusUnauthorized:
			checked++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("login %d: %d", i, code)
		}
	}
	if checked != pit.SourceFailures {
		t.Errorf("%d failed logins checked from one address, want %d", checked, pit.SourceFailures)
	}
	if code := login(attacker, "alice", "right"); code != http.StatusTooManyRequests {
		t.Errorf("alice from the locked-out address: %d, want 429", code)
	}
	if code := login(other, "bob", "right"); code != http.StatusOK {
		t.Errorf("bob from another address: %d, want 200", code)
	}

	// A users file others may read: refused at start, naming it.
	loose := filepath.Join(t.TempDir(), "users")
	data, err := os.ReadFile(users)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(loose, data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(loose, 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, sabot, "pit", "--users", loose, "--broker", b.URL(), "--listen", "127.0.0.1:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), loose) {
		t.Errorf("a users file readable by others: err %v, output %s", err, out)
	}
}
