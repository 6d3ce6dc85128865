package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

func recallRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"recall"}, args...), nil, &out, &errb)
	return out.String(), errb.String(), code
}

// TestRecallCommand: `sabot recall` of a journal holding the contract
// transcript check-void.shoe (with a shoe alarm and an ack journaled after
// the fifth card): the two coups, one JSON object a line, every card at
// its record's time, coup 1 voided with the alarm and the extra card as
// alerts, coup 2 the natural tie; --last 1 gives the last; --text the
// human form; --last out of 1..1000 is refused.
func TestRecallCommand(t *testing.T) {
	dir := journalFrom(t, "shoe 2H 3C 4D | 5S 5H AC 2D 7C void | 9S 9H 9C 9D |\n", tableau.Options{Decks: 8, Markers: true})
	out, errs, code := recallRun(t, "--state", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	var c1, c2 tableau.RecallCoup
	json.Unmarshal([]byte(lines[0]), &c1)
	json.Unmarshal([]byte(lines[1]), &c2)
	at := func(seq uint64) time.Time { return time.Date(2026, 11, 30, 22, 0, int(seq-1), 0, time.UTC) }
	var got []string
	for _, k := range c1.Cards {
		got = append(got, k.Card.String()+"/"+string(k.Position))
		if !k.Time.Equal(at(k.Seq)) {
			t.Errorf("card %s of record %d at %v", k.Card, k.Seq, k.Time)
		}
	}
	if strings.Join(got, " ") != "5S/player 5H/banker AC/player 2D/banker 7C/none" || c1.Cards[1].Seq != 9 {
		t.Fatalf("coup 1 cards %v (%+v)", got, c1.Cards)
	}
	if c1.Result != "void" || c1.PlayerTotal != 6 || c1.BankerTotal != 7 || len(c1.Alerts) != 2 ||
		c1.Alerts[0].Code != baccarat.AlertShoeAlarm || c1.Alerts[0].Seq != 7 || c1.Alerts[1].Code != baccarat.AlertExtraCard || !c1.Alerts[1].Time.Equal(at(12)) {
		t.Fatalf("coup 1 %+v", c1)
	}
	if c2.Coup != 2 || c2.Result != "tie" || !c2.Natural || c2.PlayerTotal != 8 || len(c2.Cards) != 4 || !c2.Cards[3].Time.Equal(at(18)) {
		t.Fatalf("coup 2 %+v", c2)
	}
	if out, _, code := recallRun(t, "--state", dir, "--last", "1"); code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"coup":2`) {
		t.Fatalf("--last 1: %d %s", code, out)
	}
	out, _, code = recallRun(t, "--state", dir, "--text")
	if code != 0 || !strings.Contains(out, "coup 1: void, player 6, banker 7") ||
		!strings.Contains(out, "2026-11-30T22:00:11.000Z  alert    extra-card") ||
		!strings.Contains(out, "2026-11-30T22:00:14.000Z  player 1 9S  (record 15)") {
		t.Fatalf("--text: %d\n%s", code, out)
	}
	for _, n := range []string{"0", "1001"} {
		if _, errs, code := recallRun(t, "--state", dir, "--last", n); code != 2 || !strings.Contains(errs, "want 1 to 1000") {
			t.Errorf("--last %s: %d %s", n, code, errs)
		}
	}
}
