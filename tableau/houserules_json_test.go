package tableau_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
)

// TestCommissionCoupJSON: the coup line carries the net the commission
// gives (the JSON fast path for usual nets and the general one agree).
func TestCommissionCoupJSON(t *testing.T) {
	c := dealtest.DealCoup(t, baccarat.Game{}, []string{"5H", "4D", "2C", "5S"})
	for _, cm := range []struct{ in, net string }{{"", `"net":0.95`}, {"4%", `"net":0.96`}, {"2.5%", `"net":0.975`}, {"0", `"net":1`}} {
		var e baccarat.CoupEvent
		c.SettledEvent(&e, baccarat.Rules{Commission: mustCommission(t, cm.in)}, 1, 1)
		ev := tableau.Event{Kind: baccarat.EventCoup, Coup: e}
		fast, err := ev.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		slow, _ := json.Marshal(e)
		if !strings.Contains(string(fast), `"banker":{"result":"win",`+cm.net+`}`) || string(fast) != string(slow) {
			t.Errorf("commission %q:\nfast %s\nslow %s", cm.in, fast, slow)
		}
	}
}
