package daemon

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestDaemonOperators: with [mqtt] operators, a command naming an
// operator off the list is refused with a reply naming it, and changes
// nothing; the same command from a listed operator is carried out.
func TestDaemonOperators(t *testing.T) {
	t.Parallel()
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	conf := fmt.Sprintf(`table = "T-OP"
[shoe]
device = %q
protocol = "lines"
[mqtt]
embedded_addr = "127.0.0.1:0"
commands = true
operators = ["alice", "bob"]
[display]
kind = "none"
[state]
dir = %q
`, tty.Name(), t.TempDir())
	m, _ := bootDaemon(t, conf)
	r := newReceived()
	cmds := subscribe(t, ownURL(m.d.broker), "sabot/T-OP", r)
	// The daemon subscribes to its commands once its client is connected,
	// after Run returns, and the broker drops a command no one is
	// subscribed to yet: send a probe (an operator off the list, refused
	// with a reply and changing nothing) until its reply shows the
	// subscription is there.
	probed := func() bool {
		for _, c := range r.kind("cmd") {
			if id, _ := c["request_id"].(string); strings.HasPrefix(id, "probe") && c["accepted"] == false {
				return true
			}
		}
		return false
	}
	for i := 0; !probed(); i++ {
		if i == 100 {
			t.Fatal("no reply to a probe command in 20 s: the daemon never subscribed to its commands")
		}
		cmds.Publish("sabot/T-OP/cmd/dealer", 1, false, fmt.Sprintf(`{"request_id":"probe%d","operator":"probe","dealer":"PROBE"}`, i)).WaitTimeout(time.Second)
		time.Sleep(200 * time.Millisecond)
	}
	for _, c := range []string{
		`{"request_id":"op1","operator":"mallory","dealer":"MALLORY"}`,
		`{"request_id":"op2","operator":"pit-boss-impersonated","dealer":"MALLORY"}`,
		`{"request_id":"op3","operator":"alice","dealer":"D-17"}`,
	} {
		if tok := cmds.Publish("sabot/T-OP/cmd/dealer", 1, false, c); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
	}
	replies := map[string]map[string]any{}
	waitFor(t, "three replies", 10*time.Second, func() bool {
		for _, c := range r.kind("cmd") {
			if id, _ := c["request_id"].(string); strings.HasPrefix(id, "op") {
				if _, reply := c["accepted"]; reply {
					replies[id] = c
				}
			}
		}
		return len(replies) == 3
	})
	for id, op := range map[string]string{"op1": "mallory", "op2": "pit-boss-impersonated"} {
		if replies[id]["accepted"] != false || !strings.Contains(fmt.Sprint(replies[id]["reason"]), fmt.Sprintf("operator %q is not authorised", op)) {
			t.Errorf("%s's command: reply %v", op, replies[id])
		}
	}
	if replies["op3"]["accepted"] != true {
		t.Errorf("alice's command: reply %v", replies["op3"])
	}
	waitFor(t, "the state with D-17", 10*time.Second, func() bool {
		s := r.kind("state")
		return len(s) > 0 && s[len(s)-1]["dealer"] == "D-17"
	})
	for _, s := range r.kind("state") {
		if s["dealer"] == "MALLORY" || s["dealer"] == "PROBE" {
			t.Fatal("a refused operator signed a dealer in")
		}
	}
}
