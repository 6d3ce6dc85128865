package sim_test

import (
	"context"
	"testing"
	"time"

	fwproto "github.com/sabot-table/sabot/firmware-proto"
	"github.com/sabot-table/sabot/firmware-proto/sim"
)

func TestDbgRestart(t *testing.T) {
	s, _ := sim.New(sim.Options{Seed: 8, Decks: 1, RetransmitTimeout: 20 * time.Millisecond, ReopenDelay: 5 * time.Millisecond})
	link := newPipeLink()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	go func() {
		c := <-link.hostEnds
		var rcv fwproto.Receiver
		d, e := fwproto.NewDecoder(c), fwproto.NewEncoder(c)
		n := 0
		for n < 20 {
			f, err := d.Decode()
			if err != nil {
				continue
			}
			v := rcv.Receive(f)
			if v.Action == fwproto.Deliver {
				n++
			}
			if v.Reply.Msg != nil {
				e.Encode(v.Reply)
			}
		}
		c.Close()
		c2 := <-link.hostEnds
		var rcv2 fwproto.Receiver
		d, e = fwproto.NewDecoder(c2), fwproto.NewEncoder(c2)
		for i := 0; i < 40; i++ {
			f, err := d.Decode()
			if err != nil {
				t.Logf("B err %v", err)
				continue
			}
			v := rcv2.Receive(f)
			t.Logf("B %v -> %v %v", f, v.Action, v.Reply)
			if v.Reply.Msg != nil {
				e.Encode(v.Reply)
			}
		}
	}()
	s.Run(ctx, link)
}
