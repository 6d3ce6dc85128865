package fwproto_test

import (
	"bytes"
	"errors"
	"fmt"

	fwproto "github.com/sabot-table/sabot/firmware-proto"
)

// Encoding a CARD frame: the ten of hearts, event 3 of boot 0x5AB07001.
// c/example_card.c builds the same frame with the C codec and prints the
// same bytes (TestCExampleMatchesGo checks it).
func ExampleAppendFrame() {
	wire, err := fwproto.AppendFrame(nil, fwproto.Frame{
		Boot: 0x5AB07001,
		Seq:  3,
		Msg:  &fwproto.Card{Rank: 10, Suit: fwproto.SuitHearts, Quality: 97, Clock: 65536},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%x\n", wire)
	// Output:
	// 0801020170b05a03010105080a02610102010103c92900
}

// A host reading a stream: damaged frames are reported and skipped, the
// Receiver decides what to deliver and what to answer.
func ExampleDecoder() {
	var stream bytes.Buffer
	enc := fwproto.NewEncoder(&stream)
	enc.Encode(fwproto.Frame{Boot: 7, Seq: 1, Msg: &fwproto.Hello{Model: "X"}})
	stream.WriteString("line noise\x00")
	enc.Encode(fwproto.Frame{Boot: 7, Seq: 2, Msg: &fwproto.Card{Rank: 1, Suit: fwproto.SuitSpades}})
	enc.Encode(fwproto.Frame{Boot: 7, Seq: 2, Msg: &fwproto.Card{Rank: 1, Suit: fwproto.SuitSpades}}) // a retransmission

	d := fwproto.NewDecoder(&stream)
	var rcv fwproto.Receiver
	for {
		f, err := d.Decode()
		if err != nil {
			if fwproto.IsFrameError(err) {
				fmt.Println("damaged:", errors.Unwrap(err), "→ reply", rcv.Damaged(err).Reply.Type())
				continue
			}
			break // io.EOF, or the port failed
		}
		v := rcv.Receive(f)
		fmt.Println(f.Type(), f.Seq, v.Action, "→ reply", v.Reply.Type(), v.Reply.Msg.(*fwproto.Ack).Seq)
	}
	// Output:
	// HELLO 1 deliver → reply ACK 1
	// damaged: fwproto: bad COBS encoding → reply NAK
	// CARD 2 deliver → reply ACK 2
	// CARD 2 duplicate → reply ACK 2
}
