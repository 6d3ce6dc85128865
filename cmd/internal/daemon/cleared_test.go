package daemon

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// A table switched to banque clears the retained roads its punto banco
// days left on the broker (banque publishes none): a new subscriber gets
// no roads, where it got the old game's.
func TestBanqueClearsOldRoads(t *testing.T) {
	t.Parallel()
	mq := testenv.StartMosquitto(t)
	old := paho.NewClient(paho.NewClientOptions().AddBroker(mq.URL).SetClientID("old-roads").SetProtocolVersion(4))
	if tok := old.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	if tok := old.Publish("sabot/T-G/roads", 1, true, `{"old":"punto banco roads"}`); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	old.Disconnect(50)
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	conf := fmt.Sprintf("table = \"T-G\"\ngame = \"banque\"\n[shoe]\ndevice = %q\nprotocol = \"lines\"\n[mqtt]\nbrokers = [%q]\n[display]\nkind = \"none\"\n[state]\ndir = %q\n",
		tty.Name(), mq.URL, t.TempDir())
	m, _ := bootDaemon(t, conf)
	waitFor(t, "the outbox delivered", 20*time.Second, func() bool {
		st := m.d.pub.Status()
		return st.Connected && st.Backlog == 0
	})
	// Roads first, then the status: the broker sends what it holds for
	// each in order, so once the retained status has come, roads would
	// have too.
	var roads, status atomic.Int32
	sub := paho.NewClient(paho.NewClientOptions().AddBroker(mq.URL).SetClientID("new-board").SetProtocolVersion(4))
	if tok := sub.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	defer sub.Disconnect(50)
	sub.Subscribe("sabot/T-G/roads", 1, func(_ paho.Client, msg paho.Message) {
		if len(msg.Payload()) > 0 {
			roads.Add(1)
		}
	}).WaitTimeout(10 * time.Second)
	sub.Subscribe("sabot/T-G/status", 1, func(paho.Client, paho.Message) { status.Add(1) }).WaitTimeout(10 * time.Second)
	waitFor(t, "the retained status", 10*time.Second, func() bool { return status.Load() > 0 })
	if roads.Load() != 0 {
		t.Error("the old game's retained roads are still on the broker")
	}
}

// The retained status carries the shoe in progress: after a new shoe its
// shoe_id is that shoe's, with no change of the shoe's link (it said ""
// until the link next changed).
func TestStatusFollowsTheShoe(t *testing.T) {
	t.Parallel()
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	conf := fmt.Sprintf("table = \"T-ST\"\n[shoe]\ndevice = %q\nprotocol = \"lines\"\n[mqtt]\nembedded_addr = \"127.0.0.1:0\"\n[display]\nkind = \"none\"\n[state]\ndir = %q\n",
		tty.Name(), t.TempDir())
	m, _ := bootDaemon(t, conf)
	waitShoeOnline(t, m)
	r := newReceived()
	subscribe(t, ownURL(m.d.broker), "sabot/T-ST", r)
	for _, tok := range strings.Fields("shoe 2C 8D 4S | 9S 3H KD 5C 7H |") {
		fmt.Fprintf(ptmx, "%s\r\n", tok)
	}
	waitFor(t, "the coup", 10*time.Second, func() bool { return len(r.kind("coup")) == 1 })
	shoe := r.kind("coup")[0]["shoe_id"]
	waitFor(t, "a status with the shoe", 10*time.Second, func() bool {
		st := r.kind("status")
		return len(st) > 0 && st[len(st)-1]["shoe_id"] == shoe && shoe != ""
	})
}
