package mqtt

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// This file makes test traffic: recorded shoes (testdata/*.shoe, copies of
// tableau's samples: a clean 8-deck shoe, an extra card, voids) run through
// the real table controller (tableau.Table) and Builder, as the groups of
// messages the daemon publishes per input (a card with the new state, a
// coup, an alert, an acknowledgement, a void, the roads). Times derive from the input
// sequence number, so every process gets byte-identical messages, as a
// daemon replaying its journal would.

var shoeBase = time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)

func readTokens(t testing.TB, file string) []tableau.Token {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	toks, err := tableau.ParseTranscript(f, file)
	if err != nil {
		t.Fatal(err)
	}
	return toks
}

// tableEvents runs the transcripts through a Table and returns, per input,
// the messages published for it (outputs, then the state if it changed).
// After each input that raised alerts, an ack input follows.
func tableEvents(t testing.TB, table string, files ...string) [][]Message {
	t.Helper()
	rules := baccarat.Rules{Game: baccarat.GamePuntoBanco}
	tbl, err := tableau.NewTable(tableau.TableConfig{Table: table, Fold: tableau.Options{Decks: 8, Rules: rules, Markers: true}})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(table, rules)
	var inputs []tableau.Input
	for _, f := range files {
		for _, tok := range readTokens(t, f) {
			inputs = append(inputs, tableau.TokenInput(tok))
		}
	}
	var events [][]Message
	var seq uint64
	var outs []tableau.Output
	lastState := ""
	apply := func(in tableau.Input) (alerts int) {
		seq++
		at := shoeBase.Add(time.Duration(seq) * time.Second)
		outs = tbl.Apply(seq, at, in, outs[:0])
		var ev []Message
		for _, o := range outs {
			m, ok, err := b.Output(o)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				ev = append(ev, m)
			}
			if o.Kind == tableau.OutputAlert {
				alerts++
			}
		}
		st, err := b.State(tbl.View(), seq, at)
		if err != nil {
			t.Fatal(err)
		}
		// Publish the state only when it changed (its id holds seq).
		var sp StatePayload
		json.Unmarshal(st.Payload, &sp)
		sp.Envelope = Envelope{}
		key, _ := json.Marshal(sp)
		if string(key) != lastState {
			lastState = string(key)
			ev = append(ev, st)
		}
		// The roads after every coup and void and at a new shoe.
		rm, ok, err := b.Roads(outs, tbl.View(), seq, at)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			ev = append(ev, rm)
		}
		if len(ev) > 0 {
			events = append(events, ev)
		}
		return alerts
	}
	for _, in := range inputs {
		if apply(in) > 0 {
			apply(tableau.Input{Kind: tableau.InputAck, Operator: "pit-boss", Source: "gpio"})
		}
	}
	return events
}

// shoeEvents is the standard test traffic: a full 8-deck shoe, then a shoe
// with an extra card and one with voids.
func shoeEvents(t testing.TB, table string) [][]Message {
	return tableEvents(t, table, "testdata/clean-8deck.shoe", "testdata/extra-card.shoe", "testdata/void.shoe")
}

// expectedIDs lists, in order, the ids of the non-retained messages of events.
func expectedIDs(t testing.TB, events [][]Message) []string {
	t.Helper()
	var ids []string
	for _, ev := range events {
		for _, m := range ev {
			if !m.Retained {
				ids = append(ids, payloadID(t, m.Payload))
			}
		}
	}
	return ids
}

func payloadID(t testing.TB, p []byte) string {
	t.Helper()
	var e Envelope
	if err := json.Unmarshal(p, &e); err != nil || e.ID == "" {
		t.Fatalf("payload without id (%v): %s", err, p)
	}
	return e.ID
}

// received is one message a test subscriber got.
type received struct {
	topic    string // relative to the table prefix
	payload  []byte
	retained bool
}

// collector gathers messages from a subscriber's handler without blocking.
type collector struct {
	mu   sync.Mutex
	msgs []received
}

func (c *collector) add(r received) {
	c.mu.Lock()
	c.msgs = append(c.msgs, r)
	c.mu.Unlock()
}

func (c *collector) snapshot() []received {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.msgs)
}

// dedupe returns the ids of non-retained, non-command messages in first-seen
// order, failing the test if one id came with two different payloads or a
// payload breaks its schema.
func dedupe(t testing.TB, msgs []received) []string {
	t.Helper()
	seen := map[string][]byte{}
	var ids []string
	for _, m := range msgs {
		if err := validatePayload(t, m.topic, m.payload); err != nil {
			t.Errorf("%s payload fails its schema: %v\n%s", m.topic, err, m.payload)
		}
		if m.topic == TopicStatus || m.topic == TopicState || strings.HasPrefix(m.topic, TopicCmd+"/") {
			continue
		}
		id := payloadID(t, m.payload)
		if prev, ok := seen[id]; ok {
			if string(prev) != string(m.payload) {
				t.Errorf("id %s came with two payloads:\n%s\n%s", id, prev, m.payload)
			}
			continue
		}
		seen[id] = m.payload
		ids = append(ids, id)
	}
	return ids
}

// containsAll reports whether got holds every id of want.
func containsAll(got, want []string) bool {
	set := make(map[string]bool, len(got))
	for _, id := range got {
		set[id] = true
	}
	for _, id := range want {
		if !set[id] {
			return false
		}
	}
	return true
}

func TestShoeEventsAreAFullShoe(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	events := shoeEvents(t, "T1")
	again := shoeEvents(t, "T1")
	if len(again) != len(events) {
		t.Fatal("the same inputs gave different events")
	}
	topics := map[string]int{}
	for i, ev := range events {
		for j, m := range ev {
			if string(m.Payload) != string(again[i][j].Payload) {
				t.Fatalf("event %d differs between runs", i)
			}
			if err := validatePayload(t, m.Topic, m.Payload); err != nil {
				t.Fatalf("event %d %s: %v\n%s", i, m.Topic, err, m.Payload)
			}
			topics[m.Topic]++
		}
	}
	if topics[TopicCoup] < 80 || topics[TopicCard] < 400 || topics[TopicAlert] == 0 || topics[TopicAlertAck] == 0 || topics[TopicVoid] == 0 || topics[TopicState] == 0 {
		t.Fatalf("traffic by topic: %v", topics)
	}
	ids := expectedIDs(t, events)
	set := map[string]bool{}
	for _, id := range ids {
		if set[id] {
			t.Fatalf("duplicate id %s", id)
		}
		set[id] = true
	}
	t.Logf("%d events, %d QoS 1 messages: %v", len(events), len(ids), topics)
}
