package embedded

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"golang.org/x/time/rate"

	"github.com/sabot-table/sabot/drivers/testenv"
)

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
