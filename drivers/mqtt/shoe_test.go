package mqtt

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// This file makes test traffic: a whole shoe dealt from a seeded 8-deck
// shoe by the punto banco tableau, as the groups of messages the daemon
// publishes per event (a card with the new state, a coup with the new state,
// an alert, a void). The same seed gives byte-identical messages in every
// process, as a daemon replaying its journal would.

const testShoeID = "20261130-1"

var shoeBase = time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)

func cardValue(c string) int {
	switch c[0] {
	case 'A':
		return 1
	case 'T', 'J', 'Q', 'K':
		return 0
	}
	return int(c[0] - '0')
}

func handTotal(h []string) int {
	t := 0
	for _, c := range h {
		t += cardValue(c)
	}
	return t % 10
}

// bankerDraws is the punto banco banker rule given the player's third card
// value (-1 when the player stood).
func bankerDraws(b, p3 int) bool {
	if p3 < 0 {
		return b <= 5
	}
	switch b {
	case 0, 1, 2:
		return true
	case 3:
		return p3 != 8
	case 4:
		return p3 >= 2 && p3 <= 7
	case 5:
		return p3 >= 4 && p3 <= 7
	case 6:
		return p3 == 6 || p3 == 7
	}
	return false
}

// shoeEvents deals a shoe for table and returns its events (groups of
// messages published together) and, for each event, the coup it belongs to.
func shoeEvents(t testing.TB, table string, seed uint64) (events [][]Message, coupOf []int) {
	t.Helper()
	var deck []string
	for range 8 {
		for _, s := range "SHDC" {
			for _, r := range "A23456789TJQK" {
				deck = append(deck, string(r)+string(s))
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x5ab07))
	rng.Shuffle(len(deck), func(i, j int) { deck[i], deck[j] = deck[j], deck[i] })
	remaining := map[string]int{}
	for _, c := range deck {
		remaining[c[:1]]++
	}
	must := func(m Message, err error) Message {
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	seq, coup := 0, 0
	at := func(n int) time.Time { return shoeBase.Add(time.Duration(n) * time.Second) }
	var player, banker []string
	state := func(waiting string) Message {
		return must(StateMessage(StatePayload{
			Envelope: NewEnvelope(table, EventID(table, testShoeID, coup, "state", seq), testShoeID, at(seq)),
			Shoe:     1, Coup: coup, Player: slices.Clone(player), Banker: slices.Clone(banker),
			PlayerTotal: handTotal(player), BankerTotal: handTotal(banker), Waiting: waiting,
			CardsDealt: seq, Remaining: maps(remaining),
		}))
	}
	draw := func(pos string, index int, waiting string) string {
		c := deck[seq]
		seq++
		remaining[c[:1]]--
		n := index
		if pos == PositionBurn {
			n = seq
		}
		switch pos {
		case PositionPlayer:
			player = append(player, c)
		case PositionBanker:
			banker = append(banker, c)
		}
		card := must(CardMessage(CardPayload{
			Envelope: NewEnvelope(table, EventID(table, testShoeID, coup, "card-"+pos, n), testShoeID, at(seq)),
			Shoe:     1, Coup: coup, Seq: seq, Position: pos, Index: index,
			Card: c, Rank: c[:1], Suit: c[1:], Value: cardValue(c),
			PlayerTotal: handTotal(player), BankerTotal: handTotal(banker),
		}))
		events = append(events, []Message{card, state(waiting)})
		coupOf = append(coupOf, coup)
		return c
	}
	burn := draw(PositionBurn, 0, "burn")
	nb := cardValue(burn)
	if nb == 0 {
		nb = 10
	}
	for range nb {
		draw(PositionBurn, 0, "burn")
	}
	for len(deck)-seq > 14 {
		coup++
		player, banker = nil, nil
		draw(PositionPlayer, 1, "deal")
		draw(PositionBanker, 1, "deal")
		draw(PositionPlayer, 2, "deal")
		draw(PositionBanker, 2, "deal")
		p, b := handTotal(player), handTotal(banker)
		natural := p >= 8 || b >= 8
		if !natural {
			p3 := -1
			if p <= 5 {
				p3 = cardValue(draw(PositionPlayer, 3, "player-third"))
			}
			if bankerDraws(b, p3) {
				draw(PositionBanker, 3, "banker-third")
			}
		}
		p, b = handTotal(player), handTotal(banker)
		winner := "tie"
		if p > b {
			winner = "player"
		} else if b > p {
			winner = "banker"
		}
		c := CheckCoup{Type: "coup", Shoe: 1, Coup: coup, Player: slices.Clone(player), Banker: slices.Clone(banker),
			PlayerTotal: p, BankerTotal: b, Winner: winner, Natural: natural,
			PlayerPair: player[0][0] == player[1][0], BankerPair: banker[0][0] == banker[1][0]}
		coupMsg := must(CoupMessage(CoupPayload{
			Envelope:  NewEnvelope(table, EventID(table, testShoeID, coup, "coup", 1), testShoeID, at(seq)),
			CheckCoup: c, Rules: "punto-banco",
			SideBets: SideBets{PlayerPair: c.PlayerPair, BankerPair: c.BankerPair, EitherPair: c.PlayerPair || c.BankerPair,
				Super6: winner == "banker" && b == 6},
			Settlement: []BetSettlement{{Bet: "player", Outcome: map[bool]string{true: "win", false: "lose"}[winner == "player"], Net: 1}},
		}))
		events = append(events, []Message{coupMsg, state("deal")})
		coupOf = append(coupOf, coup)
		if coup%10 == 0 {
			a := NewAlertPayload(NewEnvelope(table, EventID(table, testShoeID, coup, "alert", 1), testShoeID, at(seq)),
				CheckAlert{Type: "alert", Shoe: 1, Coup: coup, Code: "extra-card", Card: player[0]}, SeverityCritical,
				fmt.Sprintf("extra card %s after coup %d", player[0], coup), true)
			events = append(events, []Message{must(AlertMessage(a))})
			coupOf = append(coupOf, coup)
		}
		if coup%25 == 0 {
			v := VoidPayload{Envelope: NewEnvelope(table, EventID(table, testShoeID, coup, "void", 1), testShoeID, at(seq)),
				CheckVoid: CheckVoid{Type: "void", Shoe: 1, Coup: coup}, Published: true, Operator: "pit-1"}
			events = append(events, []Message{must(VoidMessage(v))})
			coupOf = append(coupOf, coup)
		}
	}
	return events, coupOf
}

func maps(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
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
	events, coupOf := shoeEvents(t, "T1", 1)
	a, b := shoeEvents(t, "T1", 1)
	if len(a) != len(events) || len(b) != len(coupOf) {
		t.Fatal("same seed gave a different shoe")
	}
	coups := 0
	for i, ev := range events {
		for j, m := range ev {
			if string(m.Payload) != string(a[i][j].Payload) {
				t.Fatalf("event %d differs between runs", i)
			}
			if err := validatePayload(t, m.Topic, m.Payload); err != nil {
				t.Fatalf("event %d %s: %v\n%s", i, m.Topic, err, m.Payload)
			}
			if m.Topic == TopicCoup {
				coups++
			}
		}
	}
	if coups < 60 || coups > 90 {
		t.Fatalf("%d coups in an 8-deck shoe", coups)
	}
	ids := expectedIDs(t, events)
	set := map[string]bool{}
	for _, id := range ids {
		if set[id] {
			t.Fatalf("duplicate id %s", id)
		}
		set[id] = true
	}
	t.Logf("%d events, %d coups, %d QoS 1 messages", len(events), coups, len(ids))
}
