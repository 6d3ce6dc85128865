package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sabotOut runs the built sabot with args and returns its stdout, stderr
// and exit status.
func sabotOut(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(builtSabot(t), args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if x, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), x.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// What a new user tripped on (issue 22, section 6), through the binary:
// --version is a command; an unknown flag is complained about once;
// floor-sim's help has no panic.
func TestNewUserFlags(t *testing.T) {
	for _, a := range [][]string{{"--version"}, {"version"}} {
		out, errs, code := sabotOut(t, a...)
		if code != 0 || !strings.HasPrefix(out, "sabot ") || len(strings.TrimSpace(out)) <= len("sabot") || errs != "" {
			t.Errorf("sabot %s: exit %d, stdout %q, stderr %q", a[0], code, out, errs)
		}
	}
	for _, c := range []string{"odds", "floor-sim", "check", "roads", "export", "recall", "doctor", "pit", "shoe-sim"} {
		_, errs, code := sabotOut(t, c, "--bogus")
		if n := strings.Count(errs, "flag provided but not defined: -bogus"); code != 2 || n != 1 {
			t.Errorf("sabot %s --bogus: exit %d, complained %d times:\n%s", c, code, n, errs)
		}
	}
	_, errs, code := sabotOut(t, "floor-sim", "--help")
	if code != 0 || strings.Contains(errs, "panic") || !strings.Contains(errs, "--broker") {
		t.Errorf("floor-sim --help: exit %d:\n%s", code, errs)
	}
}

// Broker URLs, through the binary: sabot floor-sim and sabot pit check
// them as sabotd does (a URL without a port is refused, naming it);
// floor-sim stops at once, with the dial's error, when no broker answers
// (it waited 30 s, then printed "<nil>"); sabot pit logs a broker it
// cannot reach and goes on retrying.
func TestNewUserBrokerURLs(t *testing.T) {
	sabotd := builtSabotd(t)
	_, errs, code := sabotOut(t, "floor-sim", "--sabotd", sabotd, "--broker", "tcp://127.0.0.1")
	if code != 2 || !strings.Contains(errs, `--broker "tcp://127.0.0.1": no port`) {
		t.Errorf("floor-sim, no port: exit %d:\n%s", code, errs)
	}
	start := time.Now()
	_, errs, code = sabotOut(t, "floor-sim", "--sabotd", sabotd, "--broker", "tcp://127.0.0.1:1", "--tables", "1")
	if code == 0 || !strings.Contains(errs, "tcp://127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused") || strings.Contains(errs, "<nil>") {
		t.Errorf("floor-sim, refused: exit %d:\n%s", code, errs)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("floor-sim took %v to give up on a refused broker", d)
	}
	users := usersFile(t, "alice:pw")
	_, errs, code = sabotOut(t, "pit", "--broker", "tcp://127.0.0.1", "--users", users)
	if code != 2 || !strings.Contains(errs, `--broker "tcp://127.0.0.1": no port`) {
		t.Errorf("pit, no port: exit %d:\n%s", code, errs)
	}
	_, log := startProc(t, "sabot pit", "pit: serving", builtSabot(t), "pit", "--broker", "tcp://127.0.0.1:1", "--users", users, "--listen", "127.0.0.1:0")
	if l := log.String(); !strings.Contains(l, "pit: broker not answering; retrying in the background") || !strings.Contains(l, "connection refused") {
		t.Errorf("pit did not log the broker it cannot reach:\n%s", l)
	}
}

// The audit commands only read: sabot export, export --verify and recall
// on a state directory that does not exist say so and create nothing.
func TestNewUserAuditCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	for _, a := range [][]string{{"export", "--state"}, {"export", "--verify", "--state"}, {"recall", "--state"}} {
		state := filepath.Join(dir, strings.Join(a[:len(a)-1], "-"))
		_, errs, code := sabotOut(t, append(a, state)...)
		if code == 0 || !strings.Contains(errs, "no such file or directory") {
			t.Errorf("sabot %v %s: exit %d:\n%s", a, state, code, errs)
		}
		if _, err := os.Stat(state); !os.IsNotExist(err) {
			t.Errorf("sabot %v made %s (%v)", a, state, err)
		}
	}
}

// sabot doctor, for a user that does not exist, does not say that user
// may write in the state directory: it says it cannot tell.
func TestNewUserDoctorNoSuchUser(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o750); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "sabotd.toml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("table = \"DOC-2\"\n[shoe]\ndevice = \"/dev/null\"\n[display]\nkind = \"none\"\n[state]\ndir = %q\n", state)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, _ := sabotOut(t, "doctor", "--config", conf, "--user", "sabot-no-such-user")
	all := out + errs
	if strings.Contains(all, "sabot-no-such-user may write in it") || !strings.Contains(all, "the user sabot-no-such-user does not exist, so whether it may write in it is not known") {
		t.Errorf("doctor for a missing user:\n%s", all)
	}
}

// A transcript that deals nothing is refused by shoe-sim at once (it
// waited without a word); a byte that is not UTF-8 is named by its value.
func TestNewUserTranscripts(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.shoe")
	os.WriteFile(empty, []byte("# nothing but a comment\n"), 0o644)
	_, errs, code := sabotOut(t, "shoe-sim", "--transcript", empty, "--link", filepath.Join(dir, "tty"))
	if code != 2 || !strings.Contains(errs, empty+": no token to deal") {
		t.Errorf("shoe-sim on an empty transcript: exit %d:\n%s", code, errs)
	}
	bad := filepath.Join(dir, "bad.shoe")
	os.WriteFile(bad, []byte("shoe AS \xff |\n"), 0o644)
	_, errs, code = sabotOut(t, "check", bad)
	if code != 2 || !strings.Contains(errs, bad+":1:9: unknown token") || !strings.Contains(errs, "byte 0xFF at its byte 1 is not UTF-8") || strings.Contains(errs, `\xff`) {
		t.Errorf("check with a 0xFF byte: exit %d:\n%s", code, errs)
	}
}
