package mqtt

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
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

// Every `sabot check` line of the contract, embedded in its payload, keeps
// every key with the same value, and the payload passes its schema.
func TestPayloadsCarryCheckLines(t *testing.T) {
	f, err := os.Open("testdata/check-lines.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	kinds := map[string]int{}
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		var want map[string]any
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		kind := want["type"].(string)
		kinds[kind]++
		env := NewEnvelope("T1", EventID("T1", "s1", int(want["coup"].(float64)), kind, kinds[kind]), "s1", t0)
		var m Message
		switch kind {
		case "coup":
			var c CheckCoup
			if err := json.Unmarshal(line, &c); err != nil {
				t.Fatal(err)
			}
			m, err = CoupMessage(CoupPayload{Envelope: env, CheckCoup: c, Rules: "punto-banco",
				Settlement: []BetSettlement{{Bet: "player", Outcome: "lose", Net: -1}, {Bet: "banker", Outcome: "win", Net: 0.95}}})
		case "alert":
			var a CheckAlert
			if err := json.Unmarshal(line, &a); err != nil {
				t.Fatal(err)
			}
			m, err = AlertMessage(NewAlertPayload(env, a, SeverityCritical, "dealer error: "+a.Code, true))
		case "void":
			var v CheckVoid
			if err := json.Unmarshal(line, &v); err != nil {
				t.Fatal(err)
			}
			m, err = VoidMessage(VoidPayload{Envelope: env, CheckVoid: v, Published: true, Operator: "pit-1"})
		default:
			t.Fatalf("line %d: unknown type %q", n, kind)
		}
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if m.Topic != kind || m.Retained {
			t.Errorf("line %d: topic %q retained %v", n, m.Topic, m.Retained)
		}
		var got map[string]any
		if err := json.Unmarshal(m.Payload, &got); err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("line %d: key %q = %v, check says %v", n, k, got[k], v)
			}
		}
		if got["id"] != env.ID || got["table"] != "T1" || got["shoe_id"] != "s1" {
			t.Errorf("line %d: envelope lost: %s", n, m.Payload)
		}
		if err := validatePayload(t, m.Topic, m.Payload); err != nil {
			t.Errorf("line %d: %v\n%s", n, err, m.Payload)
		}
	}
	if kinds["coup"] == 0 || kinds["alert"] == 0 || kinds["void"] == 0 {
		t.Fatalf("contract lines cover %v; want coups, alerts and voids", kinds)
	}
}

// The largest payloads the daemon can build stay under MaxPayload.
func TestWorstCasePayloadSizes(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	env := NewEnvelope(long(64), long(256), long(128), t0)
	bets := []string{"player", "banker", "tie", "player_pair", "banker_pair", "either_pair", "super6", "dragon7", "panda8"}
	var settle []BetSettlement
	for _, b := range bets {
		settle = append(settle, BetSettlement{Bet: b, Outcome: "push", Net: 0.123456789})
	}
	coup, err := CoupMessage(CoupPayload{Envelope: env, CheckCoup: CheckCoup{Shoe: 999, Coup: 999,
		Player: []string{"TS", "TH", "TD"}, Banker: []string{"TS", "TH", "TD"}, Winner: "banker"},
		Rules: long(32), Settlement: settle})
	if err != nil {
		t.Fatal(err)
	}
	alert, err := AlertMessage(NewAlertPayload(env, CheckAlert{Code: long(40), Card: "TS"}, SeverityCritical, strings.Repeat("é", 2000), true))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 50 {
		ids = append(ids, long(256))
	}
	rem := map[string]int{}
	for _, r := range "A23456789TJQK" {
		rem[string(r)] = 32
	}
	state, err := StateMessage(StatePayload{Envelope: env, Player: []string{"TS", "TH", "TD"}, Banker: []string{"TS", "TH", "TD"},
		Waiting: "coup-end", Remaining: rem, OpenAlerts: ids})
	if err != nil {
		t.Fatal(err)
	}
	card, err := CardMessage(CardPayload{Envelope: env, Position: PositionPlayer, Index: 3, Card: "TS", Rank: "T", Suit: "S", UID: long(128)})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Message{coup, alert, state, card} {
		t.Logf("%s: %d bytes", m.Topic, len(m.Payload))
		if len(m.Payload) >= MaxPayload {
			t.Errorf("%s: %d bytes", m.Topic, len(m.Payload))
		}
	}
	var sp StatePayload
	if err := json.Unmarshal(state.Payload, &sp); err != nil {
		t.Fatal(err)
	}
	if len(sp.OpenAlerts) != MaxStateAlerts || sp.OpenAlertCount != 50 {
		t.Errorf("state lists %d open alerts, count %d; want %d, 50", len(sp.OpenAlerts), sp.OpenAlertCount, MaxStateAlerts)
	}
	var ap AlertPayload
	if err := json.Unmarshal(alert.Payload, &ap); err != nil {
		t.Fatal(err)
	}
	if len(ap.Text) > MaxAlertText || !strings.HasPrefix(ap.Text, "éé") || strings.ContainsRune(ap.Text, '\uFFFD') {
		t.Errorf("alert text %d bytes, cut badly", len(ap.Text))
	}
	if _, err := Encode(TopicAlert, false, map[string]string{"x": long(MaxPayload)}); err == nil || !strings.Contains(err.Error(), "limit 4096") {
		t.Errorf("oversized payload: err = %v", err)
	}
}
