package tableau_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau"
)

// fuzzInputs decodes bytes into table inputs: each byte picks an input
// kind (mostly cards), the next one the card or the UID.
func fuzzInputs(data []byte) []tableau.Input {
	var ins []tableau.Input
	for i := 0; i < len(data); i++ {
		b := data[i]
		next := byte(0)
		if i+1 < len(data) {
			next = data[i+1]
		}
		switch k := b % 32; {
		case k < 18:
			c := tableau.Card{Rank: tableau.Rank(1 + next%13), Suit: tableau.Suit(next / 13 % 5)}
			in := tableau.Input{Kind: tableau.InputCard, Card: c}
			if b&0x20 != 0 {
				in.UID = string(rune('a' + next%8))
			}
			ins = append(ins, in)
			i++
		case k < 22:
			ins = append(ins, tableau.Input{Kind: tableau.InputButton})
		default:
			kinds := []tableau.InputKind{tableau.InputCut, tableau.InputVoid, tableau.InputShoe, tableau.InputUnreadable,
				tableau.InputAlarm, tableau.InputOffline, tableau.InputOnline, tableau.InputAck, tableau.InputBetsOpen, tableau.InputBetsClosed}
			ins = append(ins, tableau.Input{Kind: kinds[int(k-22)%len(kinds)]})
		}
	}
	return ins
}

// FuzzTable feeds arbitrary input sequences to a Table with every daemon
// option on: nothing panics, every output id is unique and every coup,
// alert and void encodes as JSON, the view stays within bounds, and
// replaying the same inputs gives the same outputs.
func FuzzTable(f *testing.F) {
	f.Add([]byte("\x01\x05\x02\x10\x03\x20\x14\x04\x11\x05\x12\x06\x13\x07\x14"))
	f.Add([]byte{0x15, 0x01, 0x33, 0x02, 0x35, 0x02, 0x16, 0x1a, 0x17, 0x1d})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1500 {
			data = data[:1500] // a long shoe; longer inputs only slow the search
		}
		ins := fuzzInputs(data)
		cfg := tableau.TableConfig{Table: "F", Fold: tableau.Options{Markers: len(data) > 0 && data[0]&1 == 0, Decks: 1},
			RequireBetsClosed: true, Gate: true, Misdeal: tableau.MisdealPolicy(len(data) % 2),
			Registry: map[string]tableau.Card{"a": {Rank: card.RankAce, Suit: card.Spades}}}
		run := func() []tableau.Output {
			tb, err := tableau.NewTable(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var all []tableau.Output
			at := time.Unix(1_800_000_000, 0)
			for i, in := range ins {
				all = tb.Apply(uint64(i+1), at.Add(time.Duration(i)*time.Second), in, all)
				v := tb.View()
				if v.PlayerTotal < 0 || v.PlayerTotal > 9 || v.BankerTotal < 0 || v.BankerTotal > 9 || v.Player.N > 3 || v.Banker.N > 3 {
					t.Fatalf("view out of bounds: %+v", v)
				}
			}
			return all
		}
		outs := run()
		seen := map[string]bool{}
		for _, o := range outs {
			if o.Kind == tableau.OutputGate {
				continue
			}
			if seen[o.ID] {
				t.Fatalf("id %s output twice", o.ID)
			}
			seen[o.ID] = true
			switch o.Kind {
			case tableau.OutputCoup, tableau.OutputAlert, tableau.OutputVoid:
				if _, err := json.Marshal(o.Event); err != nil {
					t.Fatalf("%s: %v", o.ID, err)
				}
			}
		}
		again := run()
		if len(again) != len(outs) {
			t.Fatalf("replay gave %d outputs, first run %d", len(again), len(outs))
		}
		for i := range outs {
			if outs[i].ID != again[i].ID || outs[i].Event.String() != again[i].Event.String() {
				t.Fatalf("output %d differs on replay: %s vs %s", i, outs[i].ID, again[i].ID)
			}
		}
	})
}
