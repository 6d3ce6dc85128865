package mqtt

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// The dealer rides on coups, alerts and voids and in the state's shift
// counts, valid against the schemas; a worst-case shift (MaxShiftDealers
// dealers of 32-byte ids, every alert code each) still fits the state's
// MaxPayload, the earliest dealers summed into others with the totals kept.
func TestDealerPayloads(t *testing.T) {
	b := NewBuilder("T1", baccarat.Rules{})
	ts, _ := tableau.ParseCard("TS")
	hand := baccarat.Hand{Cards: [3]tableau.Card{ts, ts}, N: 2}
	for _, o := range []tableau.Output{
		{Kind: tableau.OutputCoup, Event: tableau.Event{Kind: baccarat.EventCoup, Coup: baccarat.CoupEvent{Type: baccarat.EventCoup, Shoe: 1, Coup: 2,
			Player: hand, Banker: hand, Winner: baccarat.WinnerTie, Cards: 4, Dealer: "D1042",
			Settlement: baccarat.Settlement{Player: baccarat.Payout{Outcome: baccarat.Push}, Banker: baccarat.Payout{Outcome: baccarat.Push}, Tie: baccarat.Payout{Outcome: baccarat.Win, Net: 8},
				PlayerPair: baccarat.Payout{Outcome: baccarat.Win, Net: 11}, BankerPair: baccarat.Payout{Outcome: baccarat.Win, Net: 11}}}}},
		{Kind: tableau.OutputAlert, Event: tableau.Event{Kind: baccarat.EventAlert, Alert: tableau.AlertEvent{Type: baccarat.EventAlert, Shoe: 1, Coup: 2,
			Code: baccarat.AlertExtraCard, Card: ts, Dealer: "D1042"}}, Alert: baccarat.AlertExtraCard.Info("x")},
		{Kind: tableau.OutputVoid, Event: tableau.Event{Kind: baccarat.EventVoid, Void: tableau.VoidEvent{Type: baccarat.EventVoid, Shoe: 1, Coup: 2, Dealer: "D1042"}}},
	} {
		o.ID, o.ShoeID, o.Time = "T1/s/2/x/1", "s", t0
		m, ok, err := b.Output(o)
		if err != nil || !ok {
			t.Fatalf("%v: %v %v", o.Kind, ok, err)
		}
		if err := validatePayload(t, m.Topic, m.Payload); err != nil {
			t.Fatalf("%s: %v\n%s", m.Topic, err, m.Payload)
		}
		if !strings.Contains(string(m.Payload), `"dealer":"D1042"`) {
			t.Fatalf("%s without the dealer: %s", m.Topic, m.Payload)
		}
	}

	shift := tableau.ShiftView{Start: time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC)}
	wantCoups, wantAlerts := 0, 0
	for i := range tableau.MaxShiftDealers {
		c := tableau.DealerCounts{Dealer: fmt.Sprintf("%032d", i), Coups: 1000 + i, Voids: i, Alerts: map[baccarat.AlertCode]int{}}
		for _, a := range baccarat.Alerts() {
			c.Alerts[a.Code] = 100 + i
			wantAlerts += 100 + i
		}
		wantCoups += c.Coups
		shift.Dealers = append(shift.Dealers, c)
	}
	v := tableau.TableView{Table: "T1", ShoeID: "s", Phase: "coup", Waiting: "player", Dealer: shift.Dealers[11].Dealer, Shift: shift}
	m, err := b.State(v, 7, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := validatePayload(t, m.Topic, m.Payload); err != nil {
		t.Fatalf("state: %v\n%s", err, m.Payload)
	}
	var sp StatePayload
	if err := json.Unmarshal(m.Payload, &sp); err != nil {
		t.Fatal(err)
	}
	got := sp.Shift
	if len(got.Dealers) == 0 || len(got.Dealers) == tableau.MaxShiftDealers || got.Dealers[len(got.Dealers)-1].Dealer != v.Dealer {
		t.Fatalf("state lists %d dealers (want fewer than all, the newest last)", len(got.Dealers))
	}
	coups, alerts := got.Others.Coups, 0
	for _, n := range got.Others.Alerts {
		alerts += n
	}
	for _, d := range got.Dealers {
		coups += d.Coups
		for _, n := range d.Alerts {
			alerts += n
		}
	}
	if coups != wantCoups || alerts != wantAlerts || sp.Dealer != v.Dealer {
		t.Fatalf("totals %d coups, %d alerts; want %d, %d", coups, alerts, wantCoups, wantAlerts)
	}
	t.Logf("worst-case shift: state %d bytes, %d dealers listed", len(m.Payload), len(got.Dealers))

	// A realistic shift is listed whole.
	v.Shift.Dealers = shift.Dealers[:4]
	for i := range v.Shift.Dealers {
		v.Shift.Dealers[i].Alerts = map[baccarat.AlertCode]int{baccarat.AlertExtraCard: 2, baccarat.AlertMissingCard: 1}
	}
	m, _ = b.State(v, 8, t0)
	var sp2 StatePayload
	if err := json.Unmarshal(m.Payload, &sp2); err != nil || len(sp2.Shift.Dealers) != 4 || strings.Contains(string(m.Payload), "others") {
		t.Fatalf("realistic shift folded: %s", m.Payload)
	}
}

// The dealer command's validation (the broker path is the same as every
// command's, tested in TestMosquittoCommands and sabotd's TestDaemonDealer):
// a valid id or "-" is accepted, a missing or bad id is refused naming it,
// and the other commands refuse a dealer field.
func TestDealerCommand(t *testing.T) {
	p := &Publisher{opts: Options{Table: "T1", Now: time.Now}, recentCmds: map[string]bool{}}
	for i, c := range []struct{ name, payload, reason, dealer string }{
		{CmdDealer, `{"operator":"pit","dealer":"D1042"}`, "", "D1042"},
		{CmdDealer, `{"operator":"pit","dealer":"-"}`, "", "-"},
		{CmdDealer, `{"operator":"pit"}`, `missing field dealer (the dealer's id, or "-" to sign out)`, ""},
		{CmdDealer, `{"operator":"pit","dealer":"D 1"}`, `dealer "D 1": byte 2 is ' ' (want letters, digits, '.', '_', '-')`, ""},
		{CmdDealer, `{"operator":"pit","dealer":"` + strings.Repeat("9", 33) + `"}`, "33 bytes, longer than 32", ""},
		{CmdDealer, `{"operator":"pit","dealer":7}`, "bad JSON", ""},
		{CmdAck, `{"operator":"pit","dealer":"D1"}`, "field dealer belongs to the dealer command, not ack", ""},
	} {
		payload := strings.Replace(c.payload, "{", fmt.Sprintf(`{"request_id":"r%d",`, i), 1)
		cmd, reason := p.validateCommand(c.name, []byte(payload), false)
		if c.reason == "" && (reason != "" || cmd.Dealer != c.dealer) {
			t.Errorf("%s: refused %q (dealer %q)", payload, reason, cmd.Dealer)
		}
		if c.reason != "" && !strings.Contains(reason, c.reason) {
			t.Errorf("%s: reason %q, want %q", payload, reason, c.reason)
		}
	}
}
