package embedded

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"golang.org/x/time/rate"

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
		if got := users[tc.user].verify([]byte(tc.pass)); got != tc.ok {
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
	if !users["pit"].verify([]byte("pit: secret")) || !users["T1"].verify([]byte("t1")) || users["pit"].verify([]byte("t1")) {
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

// The embedded broker's own rules: the daemon's own credentials reach
// every topic; no one takes over another user's session by its client
// id; anonymous clients, when allowed without an ACL, only read; a
// non-loopback address needs a password file; failed logins past the
// rate are refused unchecked.
func TestEmbeddedAuth(t *testing.T) {
	t.Parallel()
	b, err := Start(Options{PasswordFile: examplePasswd, ACLFile: exampleACL})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	user, pass := b.Credentials()
	if user != OwnUser || len(pass) < 32 {
		t.Fatalf("credentials %q %q", user, pass)
	}
	own := func(id string, lost func()) paho.Client {
		o := paho.NewClientOptions().AddBroker(b.URL()).SetClientID(id).SetUsername(user).SetPassword(pass).
			SetAutoReconnect(false).SetProtocolVersion(4)
		if lost != nil {
			o.SetConnectionLostHandler(func(paho.Client, error) { lost() })
		}
		c := paho.NewClient(o)
		if tok := c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Fatalf("own client: %v", tok.Error())
		}
		return c
	}
	var lostOwn atomic.Bool
	d := own("sabotd-T9", func() { lostOwn.Store(true) })
	defer d.Disconnect(50)
	sub := own("own-reader", nil)
	defer sub.Disconnect(50)
	var n atomic.Int32
	sub.Subscribe("#", 1, func(paho.Client, paho.Message) { n.Add(1) }).WaitTimeout(10 * time.Second)
	for _, tp := range []string{"sabot/T9/card", "sabot/T9/cmd/void", "anything/else"} {
		if tok := d.Publish(tp, 1, false, []byte("{}")); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Fatalf("own publish to %s: %v", tp, tok.Error())
		}
	}
	deadline := time.Now().Add(testenv.Deadline(10 * time.Second))
	for n.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n.Load() != 3 {
		t.Errorf("own reader got %d of 3", n.Load())
	}

	// T1, with its password, under the daemon's client id: refused, and
	// the daemon's connection stays.
	if c, err := exampleClient(b.URL(), "T1", "sabotd-T9", nil); err == nil {
		c.Disconnect(50)
		t.Error("T1 took over the daemon's session")
	}
	time.Sleep(100 * time.Millisecond)
	if lostOwn.Load() || !d.IsConnectionOpen() {
		t.Error("the daemon's client was disconnected by a takeover attempt")
	}
	// The wrong password for the own user.
	o := paho.NewClientOptions().AddBroker(b.URL()).SetClientID("x").SetUsername(user).SetPassword(pass + "x").
		SetAutoReconnect(false).SetProtocolVersion(4)
	if c := paho.NewClient(o); c.Connect().WaitTimeout(10*time.Second) && c.IsConnected() {
		t.Error("the own user was let in with a wrong password")
	}

	// Guessing: past the burst, logins are refused unchecked, even right
	// ones; the daemon's own clients still get in. The bucket's refill is
	// slowed to one an hour for this part: at authFailRate a machine that
	// takes 100 ms a refused login (a slow $7$ check on a busy CI core)
	// refills the bucket as fast as the guesses drain it, and the check
	// would hang on the machine's speed rather than on the mechanism.
	b.auth.fails.SetLimit(rate.Every(time.Hour))
	for i := range authFailBurst + 10 {
		o := paho.NewClientOptions().AddBroker(b.URL()).SetClientID(fmt.Sprintf("guess-%d", i)).SetUsername("pit").
			SetPassword(fmt.Sprintf("guess-%d", i)).SetAutoReconnect(false).SetProtocolVersion(4)
		paho.NewClient(o).Connect().WaitTimeout(10 * time.Second)
	}
	if _, unchecked := b.LoginsRefused(); unchecked == 0 {
		t.Error("no login was refused unchecked after a burst of guesses")
	}
	if c, err := exampleClient(b.URL(), "pit", "pit-after-guesses", nil); err == nil {
		c.Disconnect(50)
		t.Error("a right password was checked straight after the burst")
	}
	own("own-after-guesses", nil).Disconnect(50)

	// Anonymous clients allowed, without an ACL: they read, do not write.
	a, err := Start(Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	anon, err := exampleClient(a.URL(), "", "anon", nil)
	if err != nil {
		t.Fatalf("anonymous client refused: %v", err)
	}
	if tok := anon.Subscribe("sabot/#", 1, nil); !tok.WaitTimeout(10*time.Second) || tok.(*paho.SubscribeToken).Result()["sabot/#"] > 2 {
		t.Error("an anonymous client may not subscribe")
	}
	anon.Publish("sabot/T1/cmd/void", 1, false, []byte("{}")).WaitTimeout(5 * time.Second)
	time.Sleep(100 * time.Millisecond)
	if anon.IsConnectionOpen() {
		t.Error("an anonymous client's publish was taken (mochi-mqtt disconnects a refused MQTT 3.1.1 publisher)")
	}

	// Addresses.
	if _, err := Start(Options{Addr: "0.0.0.0:0"}); err == nil || !strings.Contains(err.Error(), "password file is needed") {
		t.Errorf("non-loopback without a password file: %v", err)
	}
	if _, err := Start(Options{Addr: "0.0.0.0:0", Open: true}); err == nil {
		t.Error("an open broker on a non-loopback address started")
	}
	if w, err := Start(Options{Addr: "0.0.0.0:0", PasswordFile: examplePasswd, ACLFile: exampleACL}); err != nil {
		t.Errorf("non-loopback with a password file: %v", err)
	} else {
		w.Close()
	}
}
