package mosqauth

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// The hashes of testdata/mosquitto-made.passwd were made by Mosquitto
// 2.0.11's mosquitto_passwd: alice's with its default ($7$, PBKDF2-SHA512,
// 101 iterations), bob's with -H sha512 ($6$). Both check, and nothing
// else does.
func TestPasswordFileMosquittoHashes(t *testing.T) {
	users, err := LoadPasswordFile("testdata/mosquitto-made.passwd")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		user, pass string
		ok         bool
	}{
		{"alice", "correct horse", true},
		{"alice", "correct horse ", false},
		{"alice", "battery staple", false},
		{"bob", "battery staple", true},
		{"bob", "Battery staple", false},
		{"bob", "", false},
	} {
		if got := users[tc.user].Verify([]byte(tc.pass)); got != tc.ok {
			t.Errorf("%s with %q: %v, want %v", tc.user, tc.pass, got, tc.ok)
		}
	}
	if users["alice"].kind != 7 || users["alice"].iterations != 101 || users["bob"].kind != 6 {
		t.Errorf("hash kinds: alice %+v, bob %+v", users["alice"], users["bob"])
	}
}

// A password file made now by the installed mosquitto_passwd checks too
// (under CI the tool must be there).
func TestPasswordFileFreshMosquittoPasswd(t *testing.T) {
	bin := testenv.NeedProgram(t, "mosquitto_passwd")
	f := filepath.Join(t.TempDir(), "p")
	for i, a := range [][]string{{"-c", "-b", f, "pit", "pit: secret"}, {"-H", "sha512", "-b", f, "T1", "t1"}} {
		if out, err := exec.Command(bin, a...).CombinedOutput(); err != nil {
			t.Fatalf("mosquitto_passwd %d: %v\n%s", i, err, out)
		}
	}
	users, err := LoadPasswordFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if !users["pit"].Verify([]byte("pit: secret")) || !users["T1"].Verify([]byte("t1")) || users["pit"].Verify([]byte("t1")) {
		t.Errorf("fresh hashes do not check as they should: %+v", users)
	}
}

// Bad password files are refused with the file and line.
func TestPasswordFileErrors(t *testing.T) {
	good := "alice:$7$101$FAWWPePp0j2gJMgK$uBEpSJGPkUZruwbU5BLTzth++BSwA7sPqqyUhDBpjRhFaxGjJOm2BPMNoQ3lMOYJeaSPXKRMjavuflanWx/Sxg=="
	for _, tc := range []struct{ name, text, want string }{
		{"no colon", "# users\nalice\n", ":2: want \"username:hash\""},
		{"plain text", "alice:secret\n", ":1: user \"alice\": not a Mosquitto password hash"},
		{"unknown type", "alice:$2y$10$abc\n", ":1: user \"alice\": hash type $2y$ not supported"},
		{"iterations", "alice:$7$99999999$FAWWPePp0j2gJMgK$uBEp\n", ":1: user \"alice\": $7$ iterations \"99999999\""},
		{"bad base64", "alice:$7$101$!!!$uBEp\n", `salt "!!!" is not base64`},
		{"twice", good + "\n\n" + good + "\n", ":3: user \"alice\" named twice"},
		{"own user", "sabotd:" + good[len("alice:"):] + "\n", `:1: user "sabotd" is the daemon's own`},
		{"long line", "alice:" + strings.Repeat("A", 5000) + "\n", ":1: line over 4096 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "passwd")
			os.WriteFile(f, []byte(tc.text), 0o600)
			_, err := LoadPasswordFile(f)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "embedded: password file "+f) {
				t.Errorf("error %v, want one naming %s and %q", err, f, tc.want)
			}
		})
	}
	if _, err := LoadPasswordFile(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing file loads")
	}
}

// filterCovers against MQTT 3.1.1 section 4.7's matching, as topic names
// and as subscription filters.
func TestFilterCovers(t *testing.T) {
	for _, tc := range []struct {
		filter, sub string
		want        bool
	}{
		{"sabot/#", "sabot/T1/card", true},
		{"sabot/#", "sabot", true}, // "#" matches its parent level (4.7.1.2)
		{"sabot/#", "sabotx/T1", false},
		{"sabot/+/card", "sabot/T1/card", true},
		{"sabot/+/card", "sabot/T1/coup", false},
		{"sabot/+/card", "sabot/T1/card/x", false},
		{"sabot/+", "sabot", false},
		{"sabot/T1/#", "sabot/+/state", false}, // a subscription wider than the grant
		{"sabot/+/#", "sabot/+/state", true},
		{"sabot/#", "sabot/#", true},
		{"sabot/+/cmd/+", "sabot/+/cmd/+", true},
		{"sabot/+/cmd/+", "sabot/+/cmd/#", false},
		{"sabot/T1/+", "sabot/T1/+", true},
		{"sabot/T1/+", "sabot/T1/cmd/void", false},
		{"#", "$SYS/broker/uptime", false}, // 4.7.2
		{"+/broker/uptime", "$SYS/broker/uptime", false},
		{"$SYS/#", "$SYS/broker/uptime", true},
		{"#", "sabot/T1/card", true},
		{"a//b", "a//b", true},
		{"a/+/b", "a//b", true},
	} {
		if got := filterCovers(tc.filter, tc.sub); got != tc.want {
			t.Errorf("filterCovers(%q, %q) = %v, want %v", tc.filter, tc.sub, got, tc.want)
		}
	}
}

// An ACL file's users, anonymous part, patterns and denies, in
// Mosquitto's rules.
func TestACLFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "acl")
	os.WriteFile(f, []byte(`# anonymous clients
topic read sabot/+/status

user pit
topic read sabot/#
topic write sabot/+/cmd/+
topic deny sabot/SECRET/#

user T1
topic write sabot/T1/+
topic read sabot/T1/cmd/+
topic sabot/T1/own

pattern read sabot/%u/mine/%c
`), 0o600)
	a, err := LoadACLFile(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		user, client, topic string
		write, want         bool
	}{
		{"", "x", "sabot/T1/status", false, true},
		{"", "x", "sabot/T1/status", true, false},
		{"", "x", "sabot/+/status", false, true},
		{"", "x", "sabot/#", false, true}, // a subscription: granted, each message checked
		{"", "x", "foo/#", false, false},  // nothing it matches may be read
		{"T1", "c", "sabot/+/cmd/+", false, true},
		{"T1", "c", "sabot/T2/#", false, false},
		{"pit", "p", "sabot/SECRET/#", false, false}, // a deny covering all of it
		{"pit", "p", "sabot/T1/card", false, true},
		{"pit", "p", "sabot/#", false, true},
		{"pit", "p", "sabot/T1/cmd/void", true, true},
		{"pit", "p", "sabot/T1/card", true, false},
		{"pit", "p", "sabot/SECRET/card", false, false}, // deny wins over read sabot/#
		{"pit", "p", "sabot/SECRET/cmd/void", true, false},
		{"T1", "c", "sabot/T1/card", true, true},
		{"T1", "c", "sabot/T2/card", true, false},
		{"T1", "c", "sabot/T1/cmd/void", true, false},
		{"T1", "c", "sabot/T1/cmd/void", false, true},
		{"T1", "c", "sabot/T1/card", false, false},
		{"T1", "c", "sabot/T1/own", false, true}, // no access word: readwrite
		{"T1", "c", "sabot/T1/own", true, true},
		{"T1", "c", "sabot/T1/mine/c", false, true}, // the pattern
		{"T1", "c", "sabot/T1/mine/d", false, false},
		{"T2", "c", "sabot/T2/mine/c", false, true}, // patterns for every user
		{"T2", "c", "sabot/T2/card", true, false},
		{"", "c", "sabot//mine/c", false, false}, // %u of an anonymous client
		{"a/b", "c", "sabot/a/b/mine/c", false, false},
		{"+", "c", "sabot/+/mine/c", false, false},
		{"nobody", "c", "sabot/T1/status", false, false}, // a user gets no anonymous grant
	} {
		if got := a.Allows(tc.user, tc.client, tc.topic, tc.write); got != tc.want {
			t.Errorf("%q (client %q) %s %q: %v, want %v", tc.user, tc.client, map[bool]string{false: "read", true: "write"}[tc.write], tc.topic, got, tc.want)
		}
	}
}

// Bad ACL files are refused with the file and line.
func TestACLFileErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"topic read\n", ":1: topic read: no topic"},
		{"user pit\ntopics read sabot/#\n", `:2: "topics": want user, topic or pattern`},
		{"user\n", `:1: "user" without a name`},
		{"# c\n\ntopic read sabot/#/x\n", `:3: topic "sabot/#/x": "#" must be the last level`},
		{"pattern write sabot/a+/x\n", `:1: pattern "sabot/a+/x": level "a+"`},
		{"topic read " + strings.Repeat("a", 5000) + "\n", ":1: line over 4096 bytes"},
	} {
		f := filepath.Join(t.TempDir(), "acl")
		os.WriteFile(f, []byte(tc.text), 0o600)
		_, err := LoadACLFile(f)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "embedded: acl file "+f) {
			t.Errorf("%q: error %v, want one naming %s and %q", tc.text, err, f, tc.want)
		}
	}
}

// filtersMeet: whether two filters match a topic in common.
func TestFiltersMeet(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"sabot/T2/cmd/+", "sabot/+/cmd/+", true},
		{"sabot/T2/cmd/+", "sabot/T1/#", false},
		{"sabot/T2/status", "sabot/#", true},
		{"sabot/#", "sabot", true},
		{"sabot", "sabot/#", true},
		{"sabot/+", "sabot", false},
		{"a/b/c", "a/+/c", true},
		{"a/b/c", "a/+", false},
		{"a/+/c", "+/b/+", true},
		{"#", "$SYS/x", false},
		{"$SYS/#", "$SYS/x", true},
		{"a/b", "a/c", false},
	} {
		if got := filtersMeet(tc.a, tc.b); got != tc.want {
			t.Errorf("filtersMeet(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := filtersMeet(tc.b, tc.a); got != tc.want {
			t.Errorf("filtersMeet(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}
