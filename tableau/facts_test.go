package tableau_test

import (
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestCoupEventMatchesMethods: the coup line's facts, computed once for
// speed, equal the Coup methods of the same names on every prefix of every
// coup of shuffled shoes (complete or not), and SettleAll equals Settle
// bet by bet under every profile.
func TestCoupEventMatchesMethods(t *testing.T) {
	profiles := []baccarat.Rules{{Game: baccarat.GamePuntoBanco}, {Game: baccarat.GameSuper6, TiePays: 9}, {Game: baccarat.GameEZ}}
	n := 0
	for seed := uint64(1); seed <= 50; seed++ {
		shoe := shuffledShoe(8, seed)
		var c baccarat.Coup
		for _, card := range shoe {
			if c.Complete() {
				c.Reset()
			}
			c.Deal(card)
			e := c.Event(1, 1)
			if e.Winner != c.Winner() || e.PlayerTotal != c.PlayerTotal() || e.BankerTotal != c.BankerTotal() ||
				e.PlayerPair != c.PlayerPair() || e.BankerPair != c.BankerPair() || e.Dragon7 != c.Dragon7() ||
				e.Panda8 != c.Panda8() || e.BankerWinsOn6 != c.BankerWinsOn6() || e.Natural != c.Natural() || e.Cards != c.Cards() {
				t.Fatalf("coup %v %v: event %+v", c.Player, c.Banker, e)
			}
			for _, r := range profiles {
				all, err := r.SettleAll(c)
				if (err != nil) != !c.Complete() {
					t.Fatalf("SettleAll error %v on complete=%v", err, c.Complete())
				}
				if err != nil {
					continue
				}
				n++
				for _, b := range baccarat.Bets {
					p, err := r.Settle(c, b)
					if !r.Offers(b) {
						if err == nil || all.Of(b) != (baccarat.Payout{}) {
							t.Fatalf("%s not offered under %s: %v, %v", b, r, err, all.Of(b))
						}
						continue
					}
					if err != nil || p != all.Of(b) {
						t.Fatalf("%s under %s on %v/%v: Settle %v %v, SettleAll %v", b, r, c.Player, c.Banker, p, err, all.Of(b))
					}
				}
			}
		}
	}
	if n < 10000 {
		t.Errorf("%d settlements compared", n)
	}
}
