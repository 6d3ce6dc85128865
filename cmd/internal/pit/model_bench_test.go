package pit

import (
	"fmt"
	"testing"

	"github.com/sabot-table/sabot/drivers/mqtt"
)

// BenchmarkPitApplyState: one retained state message (a real table's,
// with an open alert) applied to a console tracking 500 tables: what
// every card of every table costs the console.
func BenchmarkPitApplyState(b *testing.B) {
	f := newPitFeed(b, "T1")
	var state []byte
	for _, m := range f.transcript("../../../drivers/mqtt/testdata/extra-card.shoe") {
		if m.Topic == mqtt.TopicState {
			state = m.Payload
		}
	}
	m := NewModel(0, nil, nil)
	for i := range 500 {
		m.Apply(fmt.Sprintf("T%d", i), mqtt.TopicStatus, statusMsg("online", 1, "00000000000000aa", "online", ""))
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(state)))
	for i := 0; b.Loop(); i++ {
		m.Apply(fmt.Sprintf("T%d", i%500), mqtt.TopicState, state)
	}
}

// BenchmarkPitTiles500: every tile of 500 tables, sorted by urgency: an
// event stream's first event (and, for changed tiles, a share of every
// later one).
func BenchmarkPitTiles500(b *testing.B) {
	m := NewModel(0, nil, nil)
	for i := range 500 {
		tb := fmt.Sprintf("T%d", i)
		m.Apply(tb, mqtt.TopicStatus, statusMsg("online", 1, "00000000000000aa", "online", ""))
		if i%10 == 0 {
			m.Apply(tb, mqtt.TopicAlert, []byte(fmt.Sprintf(`{"id":"%s/s/1/alert/1","time":"2026-12-01T10:00:00Z","shoe":1,"coup":1,`+
				`"code":"extra-card","severity":"error","text":"x","awaits_ack":true}`, tb)))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if tiles, _ := m.Tiles(0); len(tiles) != 500 {
			b.Fatal(len(tiles))
		}
	}
}
