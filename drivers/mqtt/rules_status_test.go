package mqtt

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestStatusRules: the retained status carries the house rules in force
// (defaults filled in, the names of sabotd's [rules] keys), accepted by
// the status schema; a status without Options.Rules has none.
func TestStatusRules(t *testing.T) {
	c4, _ := baccarat.ParseCommission("4%")
	side, _ := baccarat.ParseSideSet("dragon-banker,lucky6")
	chemin, err := baccarat.NewCheminDeFer(baccarat.MustDraw, baccarat.FreeTable)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		rules *baccarat.Rules
		want  string
	}{
		{"none", nil, ""},
		{"defaults", &baccarat.Rules{}, `{"game":"punto-banco","commission":0.05,"tie_pays":8,"pair_pays":11,"side_bets":[]}`},
		{"house", &baccarat.Rules{Commission: c4, TiePays: 9, PairPays: 12,
			Side: baccarat.SideRules{Offered: side, Pays: baccarat.SidePays{Lucky6Three: 23}}},
			`{"game":"punto-banco","commission":0.04,"tie_pays":9,"pair_pays":12,"side_bets":["dragon-banker","lucky6"],` +
				`"pays_dragon":[30,10,6,4,2,1],"pays_dragon_natural":1,"pays_lucky6":[12,23]}`},
		{"suited pair", &baccarat.Rules{PairPays: 12, PairSuitedPays: 25},
			`{"game":"punto-banco","commission":0.05,"tie_pays":8,"pair_pays":12,"pair_suited_pays":25,"side_bets":[]}`},
		{"suited pair pays the same", &baccarat.Rules{PairSuitedPays: 11}, `{"game":"punto-banco","commission":0.05,"tie_pays":8,"pair_pays":11,"side_bets":[]}`},
		{"super6", &baccarat.Rules{Game: baccarat.GameSuper6}, `{"game":"super6","commission":0,"tie_pays":8,"pair_pays":11,"side_bets":[]}`},
		{"chemin de fer", &baccarat.Rules{Game: chemin}, `{"game":"chemin-de-fer","commission":0.05,"tie_pays":8,"pair_pays":11,"side_bets":[],"punter_five":"draw","banker_table":"free"}`},
		{"banque", &baccarat.Rules{Game: baccarat.GameBanque}, `{"game":"banque","commission":0,"tie_pays":8,"pair_pays":11,"side_bets":[]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := testOptions("T1", t.TempDir())
			o.Rules = c.rules
			p, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close(context.Background())
			p.mu.Lock()
			p.conn = 1 // as once connected
			p.mu.Unlock()
			payload, _, _ := p.statusPayload(StatusOnline)
			if err := validatePayload(t, TopicStatus, payload); err != nil {
				t.Fatalf("schema: %v\n%s", err, payload)
			}
			var got struct {
				Rules json.RawMessage `json:"rules"`
			}
			if err := json.Unmarshal(payload, &got); err != nil || string(got.Rules) != c.want {
				t.Errorf("rules %s, want %s (%v)", got.Rules, c.want, err)
			}
		})
	}
	// The schema refuses what no table deals.
	good := `"rules":{"game":"punto-banco","commission":0.05,"tie_pays":8,"pair_pays":11,"side_bets":[]}`
	o := testOptions("T1", t.TempDir())
	o.Rules = &baccarat.Rules{}
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	p.mu.Lock()
	p.conn = 1
	p.mu.Unlock()
	payload, _, _ := p.statusPayload(StatusOnline)
	for name, bad := range map[string]string{
		"commission 5 (meant 5%)": strings.Replace(good, `0.05`, `5`, 1),
		"tie 7":                   strings.Replace(good, `"tie_pays":8`, `"tie_pays":7`, 1),
		"unknown side bet":        strings.Replace(good, `[]`, `["tiger"]`, 1),
		"no commission":           strings.Replace(good, `"commission":0.05,`, ``, 1),
		"unknown key":             strings.Replace(good, `"side_bets":[]`, `"side_bets":[],"tiger":1`, 1),
		"zero pay":                strings.Replace(good, `"side_bets":[]`, `"side_bets":["big"],"pays_big":0`, 1),
	} {
		s := strings.Replace(string(payload), good, bad, 1)
		if s == string(payload) {
			t.Fatalf("%s: replacement did not apply to %s", name, payload)
		}
		if validatePayload(t, TopicStatus, []byte(s)) == nil {
			t.Errorf("%s: schema accepted %s", name, s)
		}
	}
}
