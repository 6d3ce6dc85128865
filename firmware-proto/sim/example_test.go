package sim_test

import (
	"context"
	"fmt"
	"net"
	"strings"

	fwproto "github.com/sabot-table/sabot/firmware-proto"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
)

// A virtual shoe dealing a transcript to a host over an in-memory cable;
// the host acknowledges per fwproto.Receiver and prints each event.
func Example() {
	toks, _ := tableau.ParseTranscript(strings.NewReader("shoe 2H 3C 4D | 9S 3H KD 5C |"), "")
	shoe, _ := sim.New(sim.Options{Tokens: toks, Seed: 1})
	shoeEnd, hostEnd := net.Pipe()

	go func() { // the host
		var rcv fwproto.Receiver
		d, e := fwproto.NewDecoder(hostEnd), fwproto.NewEncoder(hostEnd)
		for {
			f, err := d.Decode()
			if err != nil {
				return
			}
			v := rcv.Receive(f)
			if v.Action == fwproto.Deliver {
				switch m := f.Msg.(type) {
				case *fwproto.Card:
					fmt.Println(f.Seq, "CARD", tableau.Card{Rank: tableau.Rank(m.Rank), Suit: tableau.Suit(m.Suit)})
				default:
					fmt.Println(f.Seq, f.Type())
				}
			}
			if v.Reply.Msg != nil {
				e.Encode(v.Reply)
			}
		}
	}()
	err := shoe.Run(context.Background(), sim.Stream(shoeEnd))
	fmt.Println("all acknowledged:", err == nil)
	// Output:
	// 1 HELLO
	// 2 SHOE_STATE
	// 3 CARD 2H
	// 4 CARD 3C
	// 5 CARD 4D
	// 6 BUTTON
	// 7 CARD 9S
	// 8 CARD 3H
	// 9 CARD KD
	// 10 CARD 5C
	// 11 BUTTON
	// all acknowledged: true
}
