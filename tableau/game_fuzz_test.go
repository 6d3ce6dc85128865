package tableau_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// FuzzGameCoup feeds one coup of each game with bytes: a card (rank and
// suit from the byte) or, for bytes of 0xf0 and up, a stand. Nothing may
// panic or allocate past the coup's bounds; Need, Decision and Complete
// must agree; a dead coup takes no card; the options recorded are at most
// one per hand, each at an option of the hand's total; a complete coup's
// line encodes (AppendJSON giving json.Marshal's bytes) and decodes back.
func FuzzGameCoup(f *testing.F) {
	f.Add([]byte{0x13, 0x42, 0x23, 0x31, 0xf0, 0x55}, uint8(3))
	f.Add([]byte{0x01, 0x22, 0x11, 0x3a, 0x49, 0xf0}, uint8(4))
	f.Add([]byte{0x45, 0x12, 0x29, 0x3d, 0x41, 0x18, 0xf0, 0x34, 0x26}, uint8(5))
	f.Add([]byte{0xf0, 0xf0, 0xf0}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, game uint8) {
		g := fuzzGames[int(game)%len(fuzzGames)]
		c := baccarat.NewCoup(g)
		maxCards := 6
		if g == baccarat.GameBanque {
			maxCards = 9
		}
		for _, b := range data {
			before := c
			var alert baccarat.AlertCode
			if b >= 0xf0 {
				_, alert = c.Stand()
				if alert != "" && alert != baccarat.AlertMissingCard {
					t.Fatalf("stand raised %s", alert)
				}
				if alert == baccarat.AlertMissingCard && !c.Dead() {
					t.Fatalf("missing-card from a stand, but the coup is not dead")
				}
			} else {
				card := tableau.Card{Rank: tableau.Rank(1 + int(b&0x0f)%13), Suit: tableau.Suit(1 + int(b>>4)%4)}
				_, alert = c.Deal(card)
				if before.Dead() && alert != baccarat.AlertExtraCard {
					t.Fatalf("a dead coup took a card")
				}
				if alert == "" && c.Cards() != before.Cards()+1 || alert != "" && c.Cards() != before.Cards() {
					t.Fatalf("cards %d → %d with alert %q", before.Cards(), c.Cards(), alert)
				}
				if alert == baccarat.AlertExtraCard && !before.Complete() && !before.Dead() {
					t.Fatalf("extra card on a coup needing %s", before.Need())
				}
			}
			if c.Cards() > maxCards || len(c.Options()) > baccarat.MaxOptions {
				t.Fatalf("%d cards, %d options", c.Cards(), len(c.Options()))
			}
			d, ok := c.Decision()
			if ok && (c.Complete() || c.Dead()) {
				t.Fatalf("decision %+v on a complete or dead coup", d)
			}
			if c.Complete() != (c.Need() == baccarat.NeedNone && !c.Dead()) {
				t.Fatalf("Complete %v, Need %s, Dead %v", c.Complete(), c.Need(), c.Dead())
			}
			if !g.HasOptions() && len(c.Options()) > 0 {
				t.Fatalf("options %v in %s", c.Options(), g)
			}
		}
		seen := map[baccarat.OptionHand]bool{}
		for _, o := range c.Options() {
			if seen[o.Hand] || o.Total < 0 || o.Total > 7 {
				t.Fatalf("options %+v", c.Options())
			}
			seen[o.Hand] = true
		}
		if !c.Complete() {
			return
		}
		r := baccarat.Rules{Game: g}
		if _, err := r.SettleAll(c); err != nil {
			t.Fatalf("SettleAll on a complete coup: %v", err)
		}
		e := tableau.Event{Kind: baccarat.EventCoup, Coup: c.Event(1, 1)}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if fast, err := e.AppendJSON(nil); err != nil || !bytes.Equal(fast, b) {
			t.Fatalf("AppendJSON %s (%v), json.Marshal %s", fast, err, b)
		}
		var back tableau.Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if b2, _ := json.Marshal(back); !bytes.Equal(b2, b) {
			t.Fatalf("round trip:\n%s\n%s", b, b2)
		}
	})
}
