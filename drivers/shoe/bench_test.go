package shoe

import (
	"testing"
	"time"

	fwproto "github.com/sabot-table/sabot/firmware-proto"
)

type discardSender struct{ n int }

func (d *discardSender) Send(p []byte) error { d.n += len(p); return nil }

// BenchmarkSabotCardFrame: the bytes of one CARD frame in → one card Event
// out (decode, reliability rules, Event, ACK encoded and queued). Target:
// ≤ 5 µs and ≤ 1 allocation per event.
func BenchmarkSabotCardFrame(b *testing.B) {
	benchSabotCards(b, nil)
}

// BenchmarkSabotCardFrameUID: the same with 7-byte RFID UIDs, the cards of
// an 8-deck shoe coming round again (the UID strings are reused).
func BenchmarkSabotCardFrameUID(b *testing.B) {
	benchSabotCards(b, []byte{0x04, 0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6})
}

func benchSabotCards(b *testing.B, uid []byte) {
	const boot = 0x5AB07
	s := NewSabot(ProtocolConfig{Logger: quietLogger()})
	out := &discardSender{}
	now := time.Now()
	cards := 0
	emit := func(ev Event) error {
		if ev.Kind == KindCard {
			cards++
		}
		return nil
	}
	if err := s.Connect(out, now, emit); err != nil {
		b.Fatal(err)
	}
	hello, _ := fwproto.AppendFrame(nil, fwproto.Frame{Boot: boot, Seq: 1, Msg: &fwproto.Hello{Caps: fwproto.CapSuit, Model: "BENCH"}})
	if err := s.Feed(hello, now, emit); err != nil {
		b.Fatal(err)
	}
	// Encode the frames first: b.N CARD frames with sequences 2, 3, ...
	// With UIDs: the 416 cards of an 8-deck shoe, dealt round and round.
	wire := make([]byte, 0, b.N*(32+len(uid)))
	ends := make([]int, b.N)
	for i := 0; i < b.N; i++ {
		var u []byte
		if uid != nil {
			u = append([]byte(nil), uid...)
			u[5], u[6] = byte(i%416>>8), byte(i%416)
		}
		wire, _ = fwproto.AppendFrame(wire, fwproto.Frame{Boot: boot, Seq: uint32(i + 2),
			Msg: &fwproto.Card{Rank: uint8(1 + i%13), Suit: fwproto.Suit(1 + i%4), Quality: 97, Clock: uint32(i), UID: u}})
		ends[i] = len(wire)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(wire) / max(b.N, 1)))
	b.ResetTimer()
	start := 0
	for i := 0; i < b.N; i++ {
		if err := s.Feed(wire[start:ends[i]], now, emit); err != nil {
			b.Fatal(err)
		}
		start = ends[i]
	}
	b.StopTimer()
	if cards != b.N {
		b.Fatalf("%d cards out of %d frames", cards, b.N)
	}
}

// BenchmarkBeetekCard: one Bee-Tek card record in → one Event out.
func BenchmarkBeetekCard(b *testing.B) {
	p := NewBeetek(ProtocolConfig{Logger: quietLogger()})
	rec := []byte(" [Game]<Card:TH> ")
	n := 0
	emit := func(Event) error { n++; return nil }
	b.ReportAllocs()
	b.SetBytes(int64(len(rec)))
	for i := 0; i < b.N; i++ {
		if err := p.Feed(rec, time.Time{}, emit); err != nil {
			b.Fatal(err)
		}
	}
	if n != b.N {
		b.Fatalf("%d events", n)
	}
}
