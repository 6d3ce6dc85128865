package mqtt

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// gameOutputs folds a transcript through a table of game g and returns the
// messages the Builder makes of its coups and alerts.
func gameOutputs(t *testing.T, g baccarat.Game, decks int, transcript string) []Message {
	t.Helper()
	rules := baccarat.Rules{Game: g}
	tb, err := tableau.NewTable(tableau.TableConfig{Table: "T1", Fold: tableau.Options{Decks: decks, Rules: rules, Markers: true}})
	if err != nil {
		t.Fatal(err)
	}
	toks, err := tableau.ParseTranscript(strings.NewReader(transcript), "t")
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder("T1", rules)
	var msgs []Message
	var outs []tableau.Output
	for i, tok := range toks {
		outs = tb.Apply(uint64(i+1), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), tableau.TokenInput(tok), outs[:0])
		for _, o := range outs {
			if o.Kind != tableau.OutputCoup && o.Kind != tableau.OutputAlert {
				continue
			}
			m, ok, err := b.Output(o)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				msgs = append(msgs, m)
			}
		}
	}
	return msgs
}

// TestGameCoupPayloads: chemin de fer and banque coups are published with
// their own keys (banque: right, left, banker, each tableau's winner and
// the natural of each hand; both: options) and the coup schema accepts
// them; the alerts of those games are accepted by the alert schema.
func TestGameCoupPayloads(t *testing.T) {
	cases := []struct {
		name  string
		game  baccarat.Game
		decks int
		shoe  string
		want  []string // in the first coup's payload
	}{
		{"chemin de fer", baccarat.GameCheminDeFer, 6,
			"shoe 3C 4D 9H 2S | 4H 3D AC KS stand 5C | AD 2H 3S AH 8D 7C |",
			[]string{`"game":"chemin-de-fer"`, `"options":[{"hand":"player","total":5,"choice":"stand"}]`, `"rules":"chemin-de-fer"`, `"banker":["3D","KS","5C"]`}},
		{"banque", baccarat.GameBanque, 3,
			"shoe 2C 8D 4S | 5S 2H 9D KC AC 8H stand 4D 6H | 3C 6D 8S 2C AH JS 5D |",
			[]string{`"game":"banque"`, `"right":["5S","KC"]`, `"left":["2H","AC","4D"]`, `"banker":["9D","8H","6H"]`,
				`"right_total":5`, `"left_total":7`, `"banker_total":3`, `"right_winner":"right"`, `"left_winner":"left"`,
				`"natural":{"right":false,"left":false,"banker":false}`, `"schema":1`, `"id":"T1/`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msgs := gameOutputs(t, c.game, c.decks, c.shoe)
			for _, m := range msgs {
				for _, k := range []string{`"dragon7"`, `"panda8"`, `"banker_wins_on_6"`} {
					if m.Topic == TopicCoup && strings.Contains(string(m.Payload), k) {
						t.Errorf("%s coup has punto banco's %s: %s", c.name, k, m.Payload)
					}
				}
			}
			var coups, alerts int
			for _, m := range msgs {
				if err := validatePayload(t, m.Topic, m.Payload); err != nil {
					t.Errorf("%s: %v\n%s", m.Topic, err, m.Payload)
				}
				var v map[string]any
				if err := json.Unmarshal(m.Payload, &v); err != nil {
					t.Fatal(err)
				}
				switch m.Topic {
				case TopicCoup:
					if coups == 0 {
						for _, w := range c.want {
							if !strings.Contains(string(m.Payload), w) {
								t.Errorf("coup lacks %s:\n%s", w, m.Payload)
							}
						}
					}
					coups++
				case TopicAlert:
					alerts++
				}
			}
			if coups != 2 || alerts != 1 { // the second coup's surplus card
				t.Errorf("%d coups, %d alerts", coups, alerts)
			}
		})
	}
}

// TestCoupSchemaByGame: the coup schema asks each game for its own keys,
// and accepts the side bets a punto banco table offers.
func TestCoupSchemaByGame(t *testing.T) {
	banque := gameOutputs(t, baccarat.GameBanque, 3, "shoe 2C 8D 4S | 5S 2H 9D KC AC 8H stand 4D 6H |")[0].Payload
	pb := gameOutputs(t, baccarat.GamePuntoBanco, 8, "shoe 2C 8D 4S | 5S 2H 4D KC |")[0].Payload
	cdf := gameOutputs(t, baccarat.GameCheminDeFer, 6, "shoe 2C 8D 4S | 5S 2H 4D KC |")[0].Payload
	if err := validatePayload(t, TopicCoup, cdf); err != nil {
		t.Errorf("chemin de fer: %v\n%s", err, cdf)
	}
	for name, bad := range map[string]string{
		"banque without right_winner":   strings.Replace(string(banque), `"right_winner":"right",`, ``, 1),
		"banque with a boolean natural": strings.Replace(string(banque), `"natural":{"right":false,"left":false,"banker":false}`, `"natural":false`, 1),
		"banque right_winner player":    strings.Replace(string(banque), `"right_winner":"right"`, `"right_winner":"player"`, 1),
		"punto banco without tie_pays":  strings.Replace(string(pb), `,"tie_pays":8`, ``, 1),
		"punto banco without tie":       strings.Replace(string(pb), `"tie":{"result":"lose","net":-1},`, ``, 1),
		"punto banco without dragon7":   strings.Replace(string(pb), `"dragon7":false,`, ``, 1),
		"chemin de fer with dragon7":    strings.Replace(string(cdf), `"cards":`, `"dragon7":false,"cards":`, 1),
	} {
		if bad == string(banque) || bad == string(pb) || bad == string(cdf) {
			t.Fatalf("%s: replacement did not apply", name)
		}
		if validatePayload(t, TopicCoup, []byte(bad)) == nil {
			t.Errorf("%s: schema accepted %s", name, bad)
		}
	}
	// Side bets in the settlement.
	side, _ := baccarat.ParseSideSet("all")
	rules := baccarat.Rules{Side: baccarat.SideRules{Offered: side}}
	tb, _ := tableau.NewTable(tableau.TableConfig{Table: "T1", Fold: tableau.Options{Rules: rules, Markers: true}})
	toks, _ := tableau.ParseTranscript(strings.NewReader("shoe 2C 8D 4S | 5S 2H 4D KC |"), "t")
	var outs []tableau.Output
	b := NewBuilder("T1", rules)
	n := 0
	for i, tok := range toks {
		for _, o := range tb.Apply(uint64(i+1), time.Unix(0, 0), tableau.TokenInput(tok), outs[:0]) {
			if o.Kind != tableau.OutputCoup {
				continue
			}
			m, _, err := b.Output(o)
			if err != nil {
				t.Fatal(err)
			}
			n++
			if err := validatePayload(t, TopicCoup, m.Payload); err != nil || !strings.Contains(string(m.Payload), `"lucky6":`) {
				t.Errorf("side bets: %v\n%s", err, m.Payload)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d coups", n)
	}
}

// TestStateBanque: a banque table's retained state carries the left
// tableau and, once complete, each tableau's result; the schema accepts
// it at every card (waiting "left", "left-third" included).
func TestStateBanque(t *testing.T) {
	rules := baccarat.Rules{Game: baccarat.GameBanque}
	tb, _ := tableau.NewTable(tableau.TableConfig{Table: "T1", Fold: tableau.Options{Rules: rules, Decks: 3, Markers: true}})
	toks, _ := tableau.ParseTranscript(strings.NewReader("shoe 2C 8D 4S | 5S 2H 9D KC AC 8H stand 4D 6H |"), "t")
	b := NewBuilder("T1", rules)
	var outs []tableau.Output
	var last Message
	for i, tok := range toks {
		outs = tb.Apply(uint64(i+1), time.Unix(0, 0), tableau.TokenInput(tok), outs[:0])
		m, err := b.State(tb.View(), uint64(i+1), time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		if err := validatePayload(t, TopicState, m.Payload); err != nil {
			t.Fatalf("after %v: %v\n%s", tok, err, m.Payload)
		}
		last = m
	}
	for _, w := range []string{`"left":["2H","AC","4D"]`, `"left_total":7`, `"right_winner":"right"`, `"left_winner":"left"`, `"player":["5S","KC"]`} {
		if !strings.Contains(string(last.Payload), w) {
			t.Errorf("state lacks %s:\n%s", w, last.Payload)
		}
	}
	pb := baccarat.Rules{}
	tp, _ := tableau.NewTable(tableau.TableConfig{Table: "T1", Fold: tableau.Options{Rules: pb, Markers: true}})
	m, _ := NewBuilder("T1", pb).State(tp.View(), 1, time.Unix(0, 0))
	if strings.Contains(string(m.Payload), `"left`) {
		t.Errorf("punto banco state with banque keys: %s", m.Payload)
	}
}

// TestRoadsByGame: a chemin de fer table's retained roads are punto
// banco's (punter, banker, tie on the bead plate); a banque table, whose
// coups have a result per tableau and no one winner, publishes no roads
// (empty roads would say no coup was dealt).
func TestRoadsByGame(t *testing.T) {
	for _, c := range []struct {
		game  baccarat.Game
		decks int
		shoe  string
		bead  string // "" for no roads message
	}{
		// Punter 7 beats banker 6; punter 5 stands, the banker draws to 7
		// and wins; punter 7, banker 7: tie.
		{baccarat.GameCheminDeFer, 6, "shoe 2C 8D 4S | 7H 2C KD 4S | 4D 2C AS KH stand 5S | 7S 7H KC KD |", "PBT"},
		{baccarat.GameBanque, 3, "shoe 2C 8D 4S | 4H 7C 2D 3S QH 5C | 5S 2H 9D KC AC 8H stand 4D 6H | 3C 6D 8S 2C AH JS 5D |", ""},
	} {
		shoe := c.shoe
		rules := baccarat.Rules{Game: c.game}
		tb, err := tableau.NewTable(tableau.TableConfig{Table: "T1", Fold: tableau.Options{Decks: c.decks, Rules: rules, Markers: true}})
		if err != nil {
			t.Fatal(err)
		}
		toks, _ := tableau.ParseTranscript(strings.NewReader(shoe), "t")
		b := NewBuilder("T1", rules)
		var last *Message
		coups := 0
		for i, tok := range toks {
			outs := tb.Apply(uint64(i+1), time.Unix(0, 0), tableau.TokenInput(tok), nil)
			for _, o := range outs {
				if o.Kind == tableau.OutputCoup {
					coups++
				}
			}
			m, ok, err := b.Roads(outs, tb.View(), uint64(i+1), time.Unix(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				last = &m
			}
		}
		if coups < 2 {
			t.Fatalf("%s: %d coups", c.game, coups)
		}
		if c.bead == "" {
			if last != nil {
				t.Errorf("%s: roads published: %s", c.game, last.Payload)
			}
			continue
		}
		if last == nil {
			t.Fatalf("%s: no roads", c.game)
		}
		if err := validatePayload(t, TopicRoads, last.Payload); err != nil {
			t.Errorf("%s: %v", c.game, err)
		}
		var r struct {
			Bead string `json:"bead_plate"`
		}
		if err := json.Unmarshal(last.Payload, &r); err != nil || r.Bead != c.bead {
			t.Errorf("%s: bead plate %q, want %s: %s", c.game, r.Bead, c.bead, last.Payload)
		}
	}
}
