package mqtt

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

var t0 = time.Date(2026, 11, 30, 5, 0, 0, 123456789, time.FixedZone("CET", 3600))

func TestEnvelopeAndEventID(t *testing.T) {
	id := EventID("T1", "20261130-1", 12, "alert", 2)
	if id != "T1/20261130-1/12/alert/2" {
		t.Fatalf("EventID = %q", id)
	}
	e := NewEnvelope("T1", id, "20261130-1", t0)
	if e.Time != "2026-11-30T04:00:00.123456789Z" || e.Schema != 1 {
		t.Fatalf("envelope = %+v", e)
	}
}

// Every `sabot check` line of tableau's samples, published through the
// table controller and Builder, keeps every key with the same value, and
// every payload passes its schema.
func TestPayloadsCarryCheckLines(t *testing.T) {
	for _, name := range []string{"clean-8deck", "extra-card", "void"} {
		t.Run(name, func(t *testing.T) {
			events := tableEvents(t, "T1", "testdata/"+name+".shoe")
			var got []map[string]any
			for _, ev := range events {
				for _, m := range ev {
					if err := validatePayload(t, m.Topic, m.Payload); err != nil {
						t.Errorf("%s: %v\n%s", m.Topic, err, m.Payload)
					}
					switch m.Topic {
					case TopicCoup, TopicAlert, TopicVoid:
						var v map[string]any
						if err := json.Unmarshal(m.Payload, &v); err != nil {
							t.Fatal(err)
						}
						got = append(got, v)
					}
				}
			}
			f, err := os.Open("testdata/" + name + ".expected.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			n := 0
			for ; sc.Scan(); n++ {
				var want map[string]any
				if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
					t.Fatalf("line %d: %v", n+1, err)
				}
				if n >= len(got) {
					t.Fatalf("check line %d has no payload: %s", n+1, sc.Bytes())
				}
				for k, v := range want {
					if !reflect.DeepEqual(got[n][k], v) {
						t.Errorf("line %d: key %q = %v, sabot check says %v", n+1, k, got[n][k], v)
					}
				}
			}
			if n == 0 || n != len(got) {
				t.Fatalf("%d check lines, %d coup/alert/void payloads", n, len(got))
			}
		})
	}
}

// The void payload tells whether the coup was already published.
func TestVoidPublishedFlag(t *testing.T) {
	var voids []VoidPayload
	for _, ev := range tableEvents(t, "T1", "testdata/void.shoe") {
		for _, m := range ev {
			if m.Topic == TopicVoid {
				var v VoidPayload
				if err := json.Unmarshal(m.Payload, &v); err != nil {
					t.Fatal(err)
				}
				voids = append(voids, v)
			}
		}
	}
	// void.shoe: coup 1 voided in progress, coup 2 voided after completing
	// (its coup line was emitted).
	if len(voids) != 2 || voids[0].Coup != 1 || voids[0].Published || voids[1].Coup != 2 || !voids[1].Published {
		t.Fatalf("voids = %+v", voids)
	}
}

// The largest payloads the daemon can build stay under MaxPayload.
func TestWorstCasePayloadSizes(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	ts, _ := tableau.ParseCard("TS")
	hand := baccarat.Hand{Cards: [3]tableau.Card{ts, ts, ts}, N: 3}
	rules := baccarat.Rules{Game: baccarat.GameEZ, TiePays: 9}
	b := NewBuilder(long(64), rules)
	coup := baccarat.CoupEvent{Type: baccarat.EventCoup, Shoe: 999, Coup: 999, Player: hand, Banker: hand,
		Winner: baccarat.WinnerBanker, Cards: 6}
	pay := baccarat.Payout{Outcome: baccarat.Push, Net: 0.123456789}
	coup.Settlement = baccarat.Settlement{Player: pay, Banker: pay, Tie: pay, PlayerPair: pay, BankerPair: pay, Dragon7: pay, Panda8: pay}
	id, shoeID := long(300), long(128)
	var msgs []Message
	add := func(o tableau.Output) {
		o.ID, o.ShoeID, o.Time = id, shoeID, t0
		m, ok, err := b.Output(o)
		if err != nil || !ok {
			t.Fatalf("%v: %v %v", o.Kind, ok, err)
		}
		msgs = append(msgs, m)
	}
	add(tableau.Output{Kind: tableau.OutputCoup, Event: tableau.Event{Kind: baccarat.EventCoup, Coup: coup}})
	add(tableau.Output{Kind: tableau.OutputAlert, Event: tableau.Event{Kind: baccarat.EventAlert,
		Alert: tableau.AlertEvent{Type: baccarat.EventAlert, Code: baccarat.AlertCode(long(40)), Card: ts}},
		Alert: baccarat.AlertInfo{Severity: SeverityError, Text: strings.Repeat("é", 2000), AwaitsAck: true}})
	add(tableau.Output{Kind: tableau.OutputCard, Card: tableau.CardPlay{Card: ts, UID: long(128), Position: baccarat.PositionPlayer, Index: 3}})
	add(tableau.Output{Kind: tableau.OutputAck, Ack: tableau.AckInfo{AlertID: long(300), LastAlertID: long(300), Count: math.MaxInt, Code: "x", Operator: long(64)}})
	var alerts []tableau.LatchedAlert
	for range 50 {
		alerts = append(alerts, tableau.LatchedAlert{ID: long(300), Code: baccarat.AlertCode(long(40))})
	}
	// Realistic ids: all MaxStateAlerts fit.
	v := tableau.TableView{Alerts: slices.Clone(alerts[:20])}
	for i := range v.Alerts {
		v.Alerts[i].ID = "T1/20261130T040000Z-1/12/alert/1"
	}
	if m, err := b.State(v, 1, t0); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(m.Payload, new(StatePayload)); err != nil || !strings.Contains(string(m.Payload), `"open_alert_count":20`) || strings.Count(string(m.Payload), "alert/1") != MaxStateAlerts {
		t.Fatalf("state with 20 short alert ids: %s", m.Payload)
	}
	rem := map[string]int{}
	for _, r := range "A23456789TJQK" {
		rem[string(r)] = 32
	}
	var results []tableau.CoupResult
	for range 100 {
		results = append(results, tableau.CoupResult{Winner: baccarat.WinnerTie})
	}
	st, err := b.State(tableau.TableView{Table: long(64), ShoeID: shoeID, Player: hand, Banker: hand, ByRank: rem,
		Alerts: alerts, Results: results, Phase: "coup", Waiting: "complete", Advantage: allAdvantages()}, 1<<60, t0)
	if err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, st)
	for _, m := range msgs {
		t.Logf("%s: %d bytes", m.Topic, len(m.Payload))
		if len(m.Payload) >= MaxPayload {
			t.Errorf("%s: %d bytes", m.Topic, len(m.Payload))
		}
	}
	var sp StatePayload
	if err := json.Unmarshal(st.Payload, &sp); err != nil {
		t.Fatal(err)
	}
	if len(sp.OpenAlerts) < 4 || sp.OpenAlertCount != 50 {
		t.Errorf("state lists %d open alerts, count %d", len(sp.OpenAlerts), sp.OpenAlertCount)
	}
	var ap AlertPayload
	if err := json.Unmarshal(msgs[1].Payload, &ap); err != nil {
		t.Fatal(err)
	}
	if len(ap.Text) > MaxAlertText || !strings.HasPrefix(ap.Text, "éé") || strings.ContainsRune(ap.Text, '\uFFFD') {
		t.Errorf("alert text %d bytes, cut badly", len(ap.Text))
	}
	if _, err := Encode(TopicAlert, false, map[string]string{"x": long(MaxPayload)}); err == nil || !strings.Contains(err.Error(), "limit 4096") {
		t.Errorf("oversized payload: err = %v", err)
	}
}

// allAdvantages is a live advantage list with every bet, each with a long
// expectation: the largest the state payload can carry.
func allAdvantages() []odds.AdvantageBet {
	var a []odds.AdvantageBet
	for _, bet := range []string{"banker", "player", "tie", "player_pair", "banker_pair", "dragon7", "panda8"} {
		a = append(a, odds.AdvantageBet{Bet: bet, EV: 0.012345678901234567})
	}
	return a
}

// The live advantage check travels in the state payload, valid against
// its schema, and is left out when empty.
func TestStateAdvantage(t *testing.T) {
	b := NewBuilder("T1", baccarat.Rules{Game: baccarat.GameEZ, TiePays: 8})
	v := tableau.TableView{Table: "T1", ShoeID: "S1", Phase: "coup", Waiting: "player",
		Advantage: []odds.AdvantageBet{{Bet: "dragon7", EV: 0.0521}}}
	m, err := b.State(v, 7, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := validatePayload(t, TopicState, m.Payload); err != nil {
		t.Fatalf("state with advantage fails its schema: %v\n%s", err, m.Payload)
	}
	if !strings.Contains(string(m.Payload), `"advantage":[{"bet":"dragon7","ev":0.0521}]`) {
		t.Errorf("state payload lacks the advantage list: %s", m.Payload)
	}
	v.Advantage = nil
	if m, err = b.State(v, 8, t0); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(m.Payload), `"advantage"`) {
		t.Errorf("empty advantage list published: %s", m.Payload)
	}
	v.Advantage = []odds.AdvantageBet{{Bet: "baccarat", EV: 1}}
	if m, err = b.State(v, 9, t0); err != nil {
		t.Fatal(err)
	}
	if validatePayload(t, TopicState, m.Payload) == nil {
		t.Errorf("schema accepts an unknown bet name: %s", m.Payload)
	}
}
