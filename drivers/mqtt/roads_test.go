package mqtt

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// The roads message follows every coup and void and every new shoe, is
// retained, passes its schema, and its bead plate is the shoe's coup
// payloads less the voided ones (worked out here from the coup and void
// messages, not from the builder).
func TestRoadsMessages(t *testing.T) {
	events := shoeEvents(t, "T1") // three shoes: clean 8-deck, extra card, voids
	var beads []string            // the current shoe's coups so far, from coup/void payloads
	var coups []int
	shoe, roadsSeen, shoes := 0, 0, 0
	for i, ev := range events {
		var roads *Message
		coupOrVoid := false
		for j := range ev {
			m := ev[j]
			switch m.Topic {
			case TopicCoup:
				var c CoupPayload
				if err := json.Unmarshal(m.Payload, &c); err != nil {
					t.Fatal(err)
				}
				if c.Shoe != shoe {
					shoe, beads, coups = c.Shoe, nil, nil
				}
				beads = append(beads, strings.ToUpper(c.Winner.String()[:1]))
				coups = append(coups, c.Coup)
				coupOrVoid = true
			case TopicVoid:
				var v VoidPayload
				if err := json.Unmarshal(m.Payload, &v); err != nil {
					t.Fatal(err)
				}
				for k := len(coups) - 1; k >= 0; k-- {
					if coups[k] == v.Coup {
						coups = append(coups[:k], coups[k+1:]...)
						beads = append(beads[:k], beads[k+1:]...)
						break
					}
				}
				coupOrVoid = true
			case TopicState:
				var st StatePayload
				if err := json.Unmarshal(m.Payload, &st); err != nil {
					t.Fatal(err)
				}
				if st.Shoe != shoe {
					shoe, beads, coups = st.Shoe, nil, nil
					shoes++
					if roads == nil && !hasTopic(ev[j:], TopicRoads) {
						t.Errorf("event %d: new shoe %d without a roads message", i, st.Shoe)
					}
				}
			case TopicRoads:
				roads = &ev[j]
			}
		}
		if coupOrVoid && roads == nil {
			t.Errorf("event %d: a coup or void without a roads message", i)
		}
		if roads == nil {
			continue
		}
		roadsSeen++
		if !roads.Retained {
			t.Errorf("event %d: roads not retained", i)
		}
		if err := validatePayload(t, TopicRoads, roads.Payload); err != nil {
			t.Errorf("event %d: %v\n%s", i, err, roads.Payload)
		}
		var rp RoadsPayload
		if err := json.Unmarshal(roads.Payload, &rp); err != nil {
			t.Fatal(err)
		}
		if want := strings.Join(beads, ""); rp.BeadPlate != want || rp.Shoe != shoe {
			t.Errorf("event %d: roads shoe %d bead plate %q, want shoe %d %q", i, rp.Shoe, rp.BeadPlate, shoe, want)
		}
		if !strings.Contains(rp.ID, "/roads/") || rp.Table != "T1" || rp.Time == "" {
			t.Errorf("event %d: envelope %+v", i, rp.Envelope)
		}
	}
	if shoes != 3 || roadsSeen < 80 {
		t.Errorf("%d shoes, %d roads messages", shoes, roadsSeen)
	}
	// No roads without a coup, a void or a new shoe: fewer roads messages
	// than states.
	states := 0
	for _, ev := range events {
		if hasTopic(ev, TopicState) {
			states++
		}
	}
	if roadsSeen >= states/2 {
		t.Errorf("%d roads messages for %d states: published without a change", roadsSeen, states)
	}
}

func hasTopic(ev []Message, topic string) bool {
	for _, m := range ev {
		if m.Topic == topic {
			return true
		}
	}
	return false
}

// longShoe feeds a table one shoe of n coups with no new-shoe event (a
// Bee-Tek shoe whose new-shoe key is never pressed) and returns the last
// state and roads messages, and the state at coup 1,000.
func longShoe(t *testing.T, n int) (state1000, state, roads Message) {
	t.Helper()
	rules := baccarat.Rules{Game: baccarat.GamePuntoBanco}
	tbl, err := tableau.NewTable(tableau.TableConfig{Table: "T1", Fold: tableau.Options{Decks: 8, Rules: rules}})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder("T1", rules)
	card := func(s string) tableau.Input {
		c, err := tableau.ParseCard(s)
		if err != nil {
			t.Fatal(err)
		}
		return tableau.TokenInput(tableau.Token{Kind: tableau.TokCard, Card: c})
	}
	coupCards := map[byte][]string{
		'P': {"9S", "3H", "KD", "5C"}, // player 9, banker 8
		'B': {"3H", "9S", "5C", "KD"}, // player 8, banker 9
		'T': {"9S", "9H", "9C", "9D"}, // 8 all
	}
	var seq uint64
	var outs []tableau.Output
	apply := func(in tableau.Input, build bool) {
		seq++
		at := shoeBase.Add(time.Duration(seq) * time.Second)
		outs = tbl.Apply(seq, at, in, outs[:0])
		for _, o := range outs {
			if _, _, err := b.Output(o); err != nil {
				t.Fatalf("input %d: %v", seq, err)
			}
		}
		if !build {
			return
		}
		v := tbl.View()
		if state, err = b.State(v, seq, at); err != nil {
			t.Fatalf("state after input %d (coup %d): %v", seq, v.Coup, err)
		}
		m, ok, err := b.Roads(outs, v, seq, at)
		if err != nil {
			t.Fatalf("roads after input %d (coup %d): %v", seq, v.Coup, err)
		}
		if ok {
			roads = m
		}
	}
	apply(tableau.TokenInput(tableau.Token{Kind: tableau.TokShoe}), false)
	for _, c := range []string{"2H", "3C", "4D"} {
		apply(card(c), false)
	}
	const pattern = "PPBPBBBTPB"
	for i := range n {
		// The messages of a coup's last card, at coup 100 and at the end.
		for j, c := range coupCards[pattern[i%len(pattern)]] {
			apply(card(c), j == 3 && (i == 999 || i == n-1))
		}
		if i == 999 {
			state1000 = state
		}
	}
	return state1000, state, roads
}

// Issue 11: the state payload carried the whole shoe's bead plate, so a
// shoe without a new-shoe event passed MaxPayload after about 3,500 coups
// and could not be encoded. It is now bounded by a constant: after 5,000
// coups it is as long as after 1,000 (the same alerts are open: composition
// and shoe-overrun), give or take the digits of its numbers; the roads
// payload stays under MaxRoadsPayload, with the oldest coups dropped and
// counted.
func TestLongShoePayloadsBounded(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	const n = 5000
	state1000, state, roads := longShoe(t, n)
	for _, m := range []Message{state, roads} {
		if err := validatePayload(t, m.Topic, m.Payload); err != nil {
			t.Errorf("%s: %v\n%.2000s", m.Topic, err, m.Payload)
		}
	}
	t.Logf("state %d bytes at coup 1000, %d at coup %d; roads %d bytes", len(state1000.Payload), len(state.Payload), n, len(roads.Payload))
	if d := len(state.Payload) - len(state1000.Payload); d > 64 {
		t.Errorf("state grew by %d bytes from coup 1000 to coup %d", d, n)
	}
	var rp RoadsPayload
	if err := json.Unmarshal(roads.Payload, &rp); err != nil {
		t.Fatal(err)
	}
	// The table keeps the last tableau.MaxShoeResults results of a shoe
	// and sums up the others (TableView.ResultsDropped), so the statistics
	// count every coup; the roads draw the last MaxRoadCoups and count
	// every other coup as dropped.
	if rp.Stats.Coups != n || rp.DroppedCoups != n-display.MaxRoadCoups || len(rp.BeadPlate) != display.MaxRoadCoups {
		t.Errorf("roads: %d coups, %d dropped, bead plate of %d", rp.Stats.Coups, rp.DroppedCoups, len(rp.BeadPlate))
	}
	if !strings.HasSuffix(rp.ID, "/"+strconv.Itoa(n)+"/roads/"+strconv.Itoa(1+3+4*n)) {
		t.Errorf("roads id %q", rp.ID)
	}
}

// The largest roads payload (the longest table name, shoe id and id, a
// big road of one cell per column, every mark) stays under
// MaxRoadsPayload.
func TestWorstCaseRoadsPayload(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	var results []tableau.CoupResult
	for i := range 3 * display.MaxRoadCoups {
		w := baccarat.WinnerBanker
		if i%2 == 1 {
			w = baccarat.WinnerPlayer
		}
		results = append(results, tableau.CoupResult{Coup: i + 1, Winner: w, Natural: true, PlayerPair: true, BankerPair: true})
	}
	b := NewBuilder(long(64), baccarat.Rules{})
	v := tableau.TableView{Table: long(64), Shoe: 1 << 30, ShoeID: long(128), Phase: "coup", Coup: 1 << 30, Remaining: 416, Results: results}
	m, ok, err := b.Roads([]tableau.Output{{Kind: tableau.OutputCoup}}, v, 1<<60, t0)
	if err != nil || !ok {
		t.Fatalf("roads: %v %v", ok, err)
	}
	t.Logf("roads: %d bytes (limit %d)", len(m.Payload), MaxRoadsPayload)
	if err := validatePayload(t, TopicRoads, m.Payload); err != nil {
		t.Error(err)
	}
	// Nothing changed: no message.
	if _, ok, _ := b.Roads([]tableau.Output{{Kind: tableau.OutputCard}}, v, 1<<60+1, t0); ok {
		t.Error("roads published without a coup, a void or a new shoe")
	}
	// The input that started the shoe (its sequence number ends the shoe
	// id) publishes the new shoe's empty roads; the next does not.
	v = tableau.TableView{Table: "T1", Shoe: 2, ShoeID: "20261130T040001Z-7", Phase: "burn", Remaining: 416}
	if m, ok, err := b.Roads(nil, v, 7, t0); err != nil || !ok || !strings.Contains(string(m.Payload), `"bead_plate":""`) {
		t.Errorf("new shoe: %v %v %s", ok, err, m.Payload)
	}
	if _, ok, _ := b.Roads(nil, v, 8, t0); ok {
		t.Error("roads published again after the new shoe")
	}
	if _, ok, _ := b.Roads(nil, v, 17, t0); ok {
		t.Error("seq 17 taken for the shoe started at 7")
	}
}
