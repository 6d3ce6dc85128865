package mochihook

import (
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// TestRefuse: the filter is refused the given number of times, then
// granted; publishes and other filters are never refused nor counted.
func TestRefuse(t *testing.T) {
	h := RefuseSubscribe("sabot/+/state", 2)
	var got []bool
	for range 3 {
		got = append(got, h.OnACLCheck(nil, "sabot/+/state", false))
		if !h.OnACLCheck(nil, "sabot/+/state", true) || !h.OnACLCheck(nil, "sabot/+/coup", false) {
			t.Fatal("a publish or another filter refused")
		}
	}
	if got[0] || got[1] || !got[2] {
		t.Errorf("granted %v, want [false false true]", got)
	}
	if n := h.Asked(); n != 3 {
		t.Errorf("asked %d, want 3", n)
	}
}

// TestWithholdPubacks: while on, QoS 1 publishes get no PUBACK and reach
// no subscriber; off again, they are acknowledged and delivered. The
// connections are counted by client id.
func TestWithholdPubacks(t *testing.T) {
	h := RefuseSubscribe("", 0)
	url := Serve(t, h)
	connect := func(id string) paho.Client {
		c := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID(id))
		if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatalf("connect %s: %v", id, tok.Error())
		}
		t.Cleanup(func() { c.Disconnect(50) })
		return c
	}
	got := make(chan string, 10)
	sub := connect("sub")
	if tok := sub.Subscribe("t", 1, func(_ paho.Client, m paho.Message) { got <- string(m.Payload()) }); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	pub := connect("pub")
	h.WithholdPubacks(true)
	tok := pub.Publish("t", 1, false, "withheld")
	for deadline := time.Now().Add(5 * time.Second); h.Withheld() < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the publish did not reach the hook")
		}
	}
	// The broker has dropped it: no PUBACK can come any more.
	if isDone(tok) {
		t.Fatalf("a PUBACK while withheld (%v)", tok.Error())
	}
	h.WithholdPubacks(false)
	if tok := pub.Publish("t", 1, false, "acked"); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("no PUBACK once released: %v", tok.Error())
	}
	select {
	case m := <-got:
		if m != "acked" {
			t.Errorf("delivered %q, want only the acknowledged one", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the acknowledged publish was not delivered")
	}
	if a, b := h.Connects("pub"), h.Connects("sub"); a != 1 || b != 1 {
		t.Errorf("connects pub %d, sub %d; want 1 and 1", a, b)
	}
}

func isDone(t paho.Token) bool {
	select {
	case <-t.Done():
		return true
	default:
		return false
	}
}
