package daemon

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/sabot-table/sabot/cmd/internal/recall"
	"github.com/sabot-table/sabot/tableau"
)

// Game recall: the daemon keeps the last recallKept coups (every card and
// its time, totals, result, alerts: tableau.Recall) in memory, fed by the
// main loop once each record is journaled, and served at /recall?last=N.
//
// Across restarts the ring travels in the journal snapshot (daemonSnap's
// "recall"): a start restores it with the table and replays the records
// after the snapshot into it, so retention and snapshot pruning never make
// the last coups unrecallable, and a start reads no archive. (Replaying
// further back instead would mean reading archives at start, unbounded.)
// The cost: a snapshot grows by about 700 bytes a coup, 140 kB for
// recallKept coups, written once a shoe. `sabot recall` reads the whole
// journal instead and goes back to tableau.MaxRecall coups.

// recallKept is how many coups the daemon keeps recallable (at least the
// last 100 across a restart, as GLI-29-style recall asks), and the
// largest N of /recall?last=N.
const recallKept = 200

// recallDefault is N when /recall has no last parameter.
const recallDefault = 10

// recallRing is the daemon's recall, safe for the HTTP handler beside the
// main loop.
type recallRing struct {
	mu sync.Mutex
	r  *tableau.Recall
}

func newRecallRing() *recallRing { return &recallRing{r: tableau.NewRecall(recallKept)} }

func (g *recallRing) add(outs []tableau.Output) {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.r.Add(outs)
	g.mu.Unlock()
}

func (g *recallRing) last(n int) []tableau.RecallCoup {
	if g == nil {
		return []tableau.RecallCoup{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.r.Last(n)
}

// snapshot encodes the ring as it will be after outs (the outputs of the
// record the snapshot is taken after, not yet added).
func (g *recallRing) snapshot(outs []tableau.Output) (json.RawMessage, error) {
	if g == nil {
		return nil, nil
	}
	g.mu.Lock()
	c := g.r.Clone()
	g.mu.Unlock()
	c.Add(outs)
	return json.Marshal(c)
}

// restore replaces the ring by an encoded one (nil: empty).
func (g *recallRing) restore(raw json.RawMessage) error {
	r := tableau.NewRecall(recallKept)
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, r); err != nil {
			return err
		}
	}
	g.mu.Lock()
	g.r = r
	g.mu.Unlock()
	return nil
}

// writeRecallConfig stores the recall settings in the journal meta
// (cmd/internal/recall: what `sabot recall` reads back).
func (d *daemon) writeRecallConfig() error {
	b, _ := json.Marshal(recall.ConfigOf(d.table.Config()))
	return d.journal.SetMeta(recall.MetaConfig, b)
}

// serveRecall answers /recall?last=N (1 ≤ N ≤ recallKept, default
// recallDefault) with the last N coups, oldest first, as a JSON array of
// tableau.RecallCoup; ?format=text gives the human-readable form.
func serveRecall(last func(int) []tableau.RecallCoup) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n := recallDefault
		if s := r.URL.Query().Get("last"); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < 1 || v > recallKept {
				http.Error(w, fmt.Sprintf("recall: last=%q: want a number from 1 to %d", s, recallKept), http.StatusBadRequest)
				return
			}
			n = v
		}
		coups := last(n)
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Query().Get("format") == "text" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write([]byte(tableau.RecallText(coups)))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(coups)
	}
}
