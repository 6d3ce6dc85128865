// Package boardweb is the board page's web side: the live scoreboard's
// state (State, built from the table's view by Build), the hub that keeps
// the newest encoded state and serves it as server-sent events to a
// bounded number of browsers (Hub), the page's embedded assets (Assets)
// and its routes (Web.Register). The daemon (cmd/internal/daemon) owns the
// HTTP server and calls Build, Note and Notify from its main loop.
package boardweb

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/sabot-table/sabot/drivers/sse"
)

// The board page: a live scoreboard served at "/" (see State for what
// it shows). The page is read-only: its only routes are GET (and HEAD) of
// the page, its embedded assets, /board.json and the event stream
// /events. A browser keeps one server-sent-events stream open; every
// change of the board (a card, a coup, an alert, the shoe or broker going
// up or down) is sent as one whole state, so a client that missed
// anything is right again with the next event.
//
// Bounds: at most MaxClients streams at once (more are answered 503
// with Retry-After); each stream holds no queue of its own, only the
// newest state (one encoded state shared by every client, one shoe's worth
// of roads), so a slow client skips intermediate states instead of
// buffering them; a write that the client does not take within
// writeTimeout drops the client (the browser reconnects by itself).
const (
	MaxClients = 32
	// MaxClientsPerAddr bounds one address's streams: 32 streams
	// from one client took every slot, and a real wall display showed
	// "Reconnecting…" with an empty table name.
	MaxClientsPerAddr = 4
	writeTimeout      = 10 * time.Second
	// heartbeat: an idle stream gets a comment line this often, so a
	// dead connection (a wall display switched off) is noticed and freed.
	heartbeat = 15 * time.Second
	// retryMS is the SSE "retry" field: how soon a browser reconnects
	// after the stream drops (a daemon restart).
	retryMS = 1000
	// statusPoll is how often the broker and shoe status are looked at
	// for changes that do not pass through the main loop.
	statusPoll = time.Second
	// RecentAlerts bounds the alerts the board lists.
	RecentAlerts = 8
)

// Hub keeps the newest encoded board state and wakes the event
// streams when it changes.
type Hub struct {
	build func() ([]byte, StatusKey)

	kick chan struct{} // cap 1: the board changed

	mu      sync.Mutex
	state   []byte        // newest encoded state (JSON, one line)
	changed chan struct{} // closed and replaced when state changes
	clients int
	perAddr map[string]int // streams by client address
	display string         // [board] display: one slot kept for it ("" none)
	closed  bool
	done    chan struct{}
	wg      sync.WaitGroup
}

// StatusKey is what the hub polls for changes made outside the main loop:
// the shoe link, the broker link and the outbox backlog (0 below
// BacklogShown).
type StatusKey struct {
	ShoeOnline, Broker bool
	Backlog            int
}

// NewHub returns a hub holding build's state; display is [board] display,
// the address one stream slot is kept for ("" none). Start it with Run.
func NewHub(build func() ([]byte, StatusKey), display string) *Hub {
	h := &Hub{build: build, display: display, kick: make(chan struct{}, 1),
		changed: make(chan struct{}), done: make(chan struct{})}
	h.state, _ = build()
	return h
}

// Notify tells the hub the board changed; it never blocks (a pending
// notification covers any number of changes).
func (h *Hub) Notify() {
	if h == nil {
		return
	}
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// Run rebuilds the state on every notification and polls the status,
// until close.
func (h *Hub) Run(status func() StatusKey) {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(statusPoll)
		defer t.Stop()
		_, last := h.build()
		for {
			select {
			case <-h.done:
				return
			case <-h.kick:
			case <-t.C:
				if status() == last {
					continue
				}
			}
			var b []byte
			b, last = h.build()
			h.set(b)
		}
	}()
}

// set stores a new encoded state and wakes the streams when it differs.
func (h *Hub) set(b []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if bytes.Equal(b, h.state) {
		return
	}
	h.state = b
	close(h.changed)
	h.changed = make(chan struct{})
}

// Current returns the newest state and a channel closed when it changes.
func (h *Hub) Current() ([]byte, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state, h.changed
}

// Close ends every stream and the builder.
func (h *Hub) Close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
	h.mu.Unlock()
	h.wg.Wait()
}

// errFull: the client limit (MaxClients) is reached.
var errFull = errors.New("board: too many event streams")

// errAddrFull: one address has its MaxClientsPerAddr streams.
var errAddrFull = errors.New("board: too many event streams from this address")

// join takes a stream slot for a client at addr (an IP): at most
// MaxClients in all, MaxClientsPerAddr per address, and the
// last slot only for the [board] display address when one is set.
func (h *Hub) join(addr string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errors.New("board: stopping")
	}
	limit := MaxClients
	if h.display != "" && addr != h.display {
		limit--
	}
	if h.clients >= limit {
		return errFull
	}
	if h.perAddr[addr] >= MaxClientsPerAddr {
		return errAddrFull
	}
	if h.perAddr == nil {
		h.perAddr = map[string]int{}
	}
	h.perAddr[addr]++
	h.clients++
	h.wg.Add(1) // under mu: never after close's Wait has begun
	return nil
}

// leave frees the slot join took.
func (h *Hub) leave(addr string) {
	h.mu.Lock()
	h.clients--
	if h.perAddr[addr]--; h.perAddr[addr] <= 0 {
		delete(h.perAddr, addr)
	}
	h.mu.Unlock()
	h.wg.Done()
}

// RemoteIP is a request's client address without its port.
func RemoteIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// ServeEvents is GET /events: the server-sent event stream. Each event is
// "event: board" with the whole state as its data; an "hb" event every
// heartbeat keeps an idle stream alive (and tells the page it is).
func (h *Hub) ServeEvents(w http.ResponseWriter, r *http.Request) {
	addr := RemoteIP(r)
	if err := h.join(addr); err != nil {
		w.Header().Set("Retry-After", "5")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer h.leave(addr)
	st, err := sse.Open(w, retryMS*time.Millisecond, writeTimeout)
	if err != nil {
		return
	}
	hb := time.NewTicker(heartbeat)
	defer hb.Stop()
	var sent []byte
	for {
		state, changed := h.Current()
		if !bytes.Equal(state, sent) {
			if st.Event("board", state) != nil {
				return
			}
			sent = state
		}
		if !st.Wait(r.Context(), changed, h.done, hb.C, 0) {
			return
		}
	}
}

// Clients is the number of open event streams.
func (h *Hub) Clients() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.clients
}
