package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/drivers/sse"
	"github.com/sabot-table/sabot/drivers/webasset"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// The board page: a live scoreboard served at "/" (see boardState for what
// it shows). The page is read-only: its only routes are GET (and HEAD) of
// the page, its embedded assets, /board.json and the event stream
// /events. A browser keeps one server-sent-events stream open; every
// change of the board (a card, a coup, an alert, the shoe or broker going
// up or down) is sent as one whole state, so a client that missed
// anything is right again with the next event.
//
// Bounds: at most maxBoardClients streams at once (more are answered 503
// with Retry-After); each stream holds no queue of its own, only the
// newest state (one encoded state shared by every client, one shoe's worth
// of roads), so a slow client skips intermediate states instead of
// buffering them; a write that the client does not take within
// boardWriteTimeout drops the client (the browser reconnects by itself).
const (
	maxBoardClients = 32
	// maxBoardClientsPerAddr bounds one address's streams: 32 streams
	// from one client took every slot, and a real wall display showed
	// "Reconnecting…" with an empty table name.
	maxBoardClientsPerAddr = 4
	boardWriteTimeout      = 10 * time.Second
	// boardHeartbeat: an idle stream gets a comment line this often, so a
	// dead connection (a wall display switched off) is noticed and freed.
	boardHeartbeat = 15 * time.Second
	// boardRetryMS is the SSE "retry" field: how soon a browser reconnects
	// after the stream drops (a daemon restart).
	boardRetryMS = 1000
	// boardStatusPoll is how often the broker and shoe status are looked at
	// for changes that do not pass through the main loop.
	boardStatusPoll = time.Second
	// boardRecentAlerts bounds the alerts the board lists.
	boardRecentAlerts = 8
)

// boardState is the board page's data: the body of /board.json and of
// every "board" server-sent event.
type boardState struct {
	Table string `json:"table"`
	// Game is the game's name as the board shows it ([board] game, or the
	// rule profile's name).
	Game string `json:"game"`
	// GameID is the game's registry name ("punto-banco", "super6", "ez",
	// "chemin-de-fer", "banque"): the page's wording and layout follow it
	// (chemin de fer's punter; banque's right and left tableaux).
	GameID string `json:"game_id"`
	// Lang is the configured label language ("en" or "zh"); the page's
	// ?lang= overrides it.
	Lang   string      `json:"lang"`
	Limits boardLimits `json:"limits"`
	// Assets identifies the page's embedded assets: a page loaded from an
	// older build reloads itself when it changes.
	Assets string `json:"assets"`

	Shoe   int    `json:"shoe"`
	ShoeID string `json:"shoe_id"`
	// Phase is "no-shoe", "burn", "between" or "coup".
	Phase string `json:"phase"`
	Coup  int    `json:"coup"`
	// Player and Banker are the current coup's cards and totals (the last
	// coup's between coups).
	// In banque Player is the right tableau and Left the left one (nil in
	// the other games).
	Player boardHand  `json:"player"`
	Banker boardHand  `json:"banker"`
	Left   *boardHand `json:"left,omitempty"`
	// Waiting is the hand whose third card the tableau waits for (must or
	// may draw): "player-third", "banker-third", in banque "right-third",
	// "left-third", "banker-third"; or "" (none, or the coup is complete).
	Waiting string `json:"waiting,omitempty"`
	// Winner is "player", "banker" or "tie" once the coup is complete
	// (empty in banque, where each tableau has its own result).
	Winner string `json:"winner,omitempty"`
	// RightWinner and LeftWinner are a complete banque coup's results:
	// "right" (or "left"), "banker" or "tie".
	RightWinner string `json:"right_winner,omitempty"`
	LeftWinner  string `json:"left_winner,omitempty"`
	Natural     bool   `json:"natural"`
	Voided      bool   `json:"voided"`
	BurnDrawn   int    `json:"burn_drawn"`
	BurnWant    int    `json:"burn_want"`
	CutCard     bool   `json:"cut_card"`
	IsLastCoup  bool   `json:"is_last_coup"`
	CardsDrawn  int    `json:"cards_drawn"`
	CardsLeft   int    `json:"cards_left"`

	// Alerts are the most recent alerts of the daemon's run (at most
	// boardRecentAlerts, newest first) and the latched ones still awaiting
	// acknowledgement.
	Alerts []boardAlert `json:"alerts"`
	// AlertCount counts the alerts awaiting acknowledgement.
	AlertCount int `json:"alert_count"`

	ShoeOnline bool        `json:"shoe_online"`
	Broker     boardBroker `json:"broker"`

	// Roads are the current shoe's roads, ask-road and statistics: the
	// object `sabot roads` prints and MQTT publishes on
	// <prefix>/<table>/roads (display.BuildRoads; at most
	// display.MaxRoadsJSON bytes).
	Roads display.Roads `json:"roads"`
	// NoRoads: the game has no roads (banque, whose coups have a result
	// per tableau, not one winner): Roads is empty and the page shows none.
	NoRoads bool `json:"no_roads,omitempty"`
}

// boardLimits are the table limits shown on the board ([board] keys; 0:
// not shown).
type boardLimits struct {
	Currency string `json:"currency"`
	Min      int    `json:"min"`
	Max      int    `json:"max"`
	TieMax   int    `json:"tie_max"`
	PairMax  int    `json:"pair_max"`
}

func boardLimitsOf(b BoardConfig) boardLimits {
	return boardLimits{Currency: b.Currency, Min: b.MinBet, Max: b.MaxBet, TieMax: b.TieMax, PairMax: b.PairMax}
}

// boardHand is one hand on the board.
type boardHand struct {
	Cards []string `json:"cards"` // in dealing order, "9S", "TH", "7" (rank-only)
	Total int      `json:"total"`
}

// boardAlert is one alert on the board.
type boardAlert struct {
	ID   string `json:"id"`
	Code string `json:"code"` // "extra-card", ...
	// Display is the error code the LED display shows ("E1").
	Display string `json:"display"`
	Text    string `json:"text"`
	Shoe    int    `json:"shoe"`
	Coup    int    `json:"coup"`
	// Acknowledged: the supervisor has acknowledged it (or it did not wait
	// for acknowledgement).
	Acknowledged bool `json:"acknowledged"`
}

// boardBroker is the MQTT link's state.
type boardBroker struct {
	Connected bool `json:"connected"`
	// Backlog is the outbox backlog once it reaches boardBacklogShown
	// messages, else 0 (a message or two always in flight is not news, and
	// would change the board every few milliseconds).
	Backlog int `json:"backlog"`
}

// boardBacklogShown is the outbox backlog from which the board shows it.
const boardBacklogShown = 10

// boardHub keeps the newest encoded board state and wakes the event
// streams when it changes.
type boardHub struct {
	build func() ([]byte, statusKey)

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

// statusKey is what the hub polls for changes made outside the main loop.
type statusKey struct {
	shoeOnline, broker bool
	backlog            int
}

func newBoardHub(build func() ([]byte, statusKey)) *boardHub {
	h := &boardHub{build: build, kick: make(chan struct{}, 1),
		changed: make(chan struct{}), done: make(chan struct{})}
	h.state, _ = build()
	return h
}

// notify tells the hub the board changed; it never blocks (a pending
// notification covers any number of changes).
func (h *boardHub) notify() {
	if h == nil {
		return
	}
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// run rebuilds the state on every notification and polls the status,
// until close.
func (h *boardHub) run(status func() statusKey) {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(boardStatusPoll)
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

func (h *boardHub) set(b []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if bytes.Equal(b, h.state) {
		return
	}
	h.state = b
	close(h.changed)
	h.changed = make(chan struct{})
}

// current returns the newest state and a channel closed when it changes.
func (h *boardHub) current() ([]byte, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state, h.changed
}

// close ends every stream and the builder.
func (h *boardHub) close() {
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

// errBoardFull: the client limit is reached.
var errBoardFull = errors.New("board: too many event streams")

// errBoardAddrFull: one address has its maxBoardClientsPerAddr streams.
var errBoardAddrFull = errors.New("board: too many event streams from this address")

// join takes a stream slot for a client at addr (an IP): at most
// maxBoardClients in all, maxBoardClientsPerAddr per address, and the
// last slot only for the [board] display address when one is set.
func (h *boardHub) join(addr string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errors.New("board: stopping")
	}
	limit := maxBoardClients
	if h.display != "" && addr != h.display {
		limit--
	}
	if h.clients >= limit {
		return errBoardFull
	}
	if h.perAddr[addr] >= maxBoardClientsPerAddr {
		return errBoardAddrFull
	}
	if h.perAddr == nil {
		h.perAddr = map[string]int{}
	}
	h.perAddr[addr]++
	h.clients++
	h.wg.Add(1) // under mu: never after close's Wait has begun
	return nil
}

func (h *boardHub) leave(addr string) {
	h.mu.Lock()
	h.clients--
	if h.perAddr[addr]--; h.perAddr[addr] <= 0 {
		delete(h.perAddr, addr)
	}
	h.mu.Unlock()
	h.wg.Done()
}

// remoteIP is a request's client address without its port.
func remoteIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// serveEvents is GET /events: the server-sent event stream. Each event is
// "event: board" with the whole state as its data; an "hb" event every
// boardHeartbeat keeps an idle stream alive (and tells the page it is).
func (h *boardHub) serveEvents(w http.ResponseWriter, r *http.Request) {
	addr := remoteIP(r)
	if err := h.join(addr); err != nil {
		w.Header().Set("Retry-After", "5")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer h.leave(addr)
	st, err := sse.Open(w, boardRetryMS*time.Millisecond, boardWriteTimeout)
	if err != nil {
		return
	}
	hb := time.NewTicker(boardHeartbeat)
	defer hb.Stop()
	var sent []byte
	for {
		state, changed := h.current()
		if !bytes.Equal(state, sent) {
			if st.Event("board", state) != nil {
				return
			}
			sent = state
		}
		select {
		case <-changed:
		case <-hb.C:
			if st.Event("hb", []byte("1")) != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-h.done:
			return
		}
	}
}

// boardAssets returns the page's assets (index.html, board.css, board.js)
// and their version (a hash of their contents).
func boardAssets() (fs.FS, string) {
	a, err := webasset.Load(webFiles, "web")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory and its files
	}
	return a.FS, a.Version
}

// gameName is the game's name on the board: [board] game, or the game's
// usual name.
func gameName(cfg Config) string {
	if cfg.Board.Game != "" {
		return cfg.Board.Game
	}
	if cfg.Game == "" {
		return baccarat.GameTitle("punto-banco")
	}
	return baccarat.GameTitle(cfg.Game)
}

// boardWeb is the daemon's board page: the hub and the recent alerts.
type boardWeb struct {
	hub    *boardHub
	assets fs.FS
	// version identifies the embedded assets (boardState.Assets).
	version string

	mu     sync.Mutex
	alerts []boardAlert // the last boardRecentAlerts alerts, oldest first
}

// boardNote records alerts and acknowledgements for the board, wakes the
// board's event streams and updates the terminal display's roads. The main
// loop calls it after every input (afterApply).
func (d *daemon) boardNote(outs []tableau.Output, v tableau.TableView) {
	d.terminalBoard(v)
	w := d.web
	if w == nil {
		return
	}
	w.mu.Lock()
	for i := range outs {
		o := &outs[i]
		switch o.Kind {
		case tableau.OutputAlert:
			a := o.Event.Alert
			ba := boardAlert{ID: o.ID, Code: string(a.Code), Display: display.ErrorText(string(a.Code)),
				Text: o.Alert.Text, Shoe: a.Shoe, Coup: a.Coup, Acknowledged: !o.Alert.AwaitsAck}
			w.alerts = append(w.alerts, ba)
			if n := len(w.alerts); n > boardRecentAlerts {
				w.alerts = append(w.alerts[:0], w.alerts[n-boardRecentAlerts:]...)
			}
		case tableau.OutputAck:
			for j := range w.alerts {
				if w.alerts[j].ID == o.Ack.AlertID {
					w.alerts[j].Acknowledged = true
				}
			}
		}
	}
	w.mu.Unlock()
	w.hub.notify()
}

// boardStatus is the part of the board that changes outside the main loop.
func (d *daemon) boardStatus() statusKey {
	var k statusKey
	d.mu.Lock()
	k.shoeOnline = d.shoeUp
	d.mu.Unlock()
	if d.pub != nil {
		st := d.pub.Status()
		k.broker = st.Connected
		if st.Backlog >= boardBacklogShown {
			k.backlog = st.Backlog
		}
	}
	return k
}

// roadsOf computes the roads of the view's shoe (display.ViewRoads, as
// MQTT's roads message).
func roadsOf(v tableau.TableView) display.Roads { return display.ViewRoads(v) }

// terminalBoard gives the terminal display (display kind "terminal") the
// roads and the terminal's size, less the lines the demo keeps under it.
func (d *daemon) terminalBoard(v tableau.TableView) {
	if d.board == nil || d.board.Terminal == nil {
		return
	}
	cols, rows := terminalSize(d.stdout)
	if d.demoScreen != nil && rows > 0 {
		rows -= d.demoScreen.reserve(cols, rows)
	}
	if err := d.board.Terminal.SetSize(cols, rows); err != nil {
		d.log.Warn("terminal display", "err", err)
	}
	r := roadsOf(v)
	if err := d.board.Terminal.SetRoads(&r); err != nil {
		d.log.Warn("terminal display", "err", err)
	}
}

// terminalSize is w's size in characters when it is a terminal, else 0, 0.
func terminalSize(w io.Writer) (cols, rows int) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0
	}
	return int(ws.Col), int(ws.Row)
}

// boardState builds the board's state from the table's view.
func (d *daemon) boardState() boardState {
	v := d.currentView()
	k := d.boardStatus()
	s := boardState{
		Table: d.cfg.Table, Game: gameName(d.cfg), GameID: d.rules.Game.Name(), Lang: d.cfg.Board.Lang, Limits: boardLimitsOf(d.cfg.Board),
		Assets: d.web.version,
		Shoe:   v.Shoe, ShoeID: v.ShoeID, Phase: v.Phase, Coup: v.Coup,
		Voided: v.Voided, BurnDrawn: v.BurnDrawn, BurnWant: v.BurnWant, CutCard: v.CutCard,
		IsLastCoup: v.IsLastCoup, CardsDrawn: v.CardsDrawn, CardsLeft: v.Remaining,
		AlertCount: v.AlertCount, ShoeOnline: k.shoeOnline,
		Broker: boardBroker{Connected: k.broker, Backlog: k.backlog},
	}
	if d.rules.Game == baccarat.GameBanque {
		s.NoRoads = true
	} else {
		s.Roads = roadsOf(v)
	}
	if v.Phase == "coup" || v.Phase == "between" {
		s.Player = handOf(v.Player, v.PlayerTotal)
		s.Banker = handOf(v.Banker, v.BankerTotal)
		if v.Complete && !v.Voided {
			s.Winner = v.Winner.String()
			s.Natural = v.Natural
		} else if v.Waiting == "player-third" || v.Waiting == "banker-third" {
			s.Waiting = v.Waiting
		}
		if v.Voided {
			s.Player, s.Banker = boardHand{Cards: []string{}}, boardHand{Cards: []string{}}
		}
	} else {
		s.Player, s.Banker = boardHand{Cards: []string{}}, boardHand{Cards: []string{}}
	}
	if v.Banque {
		banqueBoard(&s, v)
	}
	s.Alerts = d.boardAlertList(v)
	return s
}

// boardAlertList merges the recent alerts with the latched ones (a latched
// alert raised before a restart is known only from the view), newest
// first, at most boardRecentAlerts.
func (d *daemon) boardAlertList(v tableau.TableView) []boardAlert {
	latched := map[string]bool{}
	for _, a := range v.Alerts {
		latched[a.ID] = true
	}
	out := []boardAlert{}
	seen := map[string]bool{}
	d.web.mu.Lock()
	for i := len(d.web.alerts) - 1; i >= 0; i-- {
		a := d.web.alerts[i]
		if latched[a.ID] {
			a.Acknowledged = false
		}
		out = append(out, a)
		seen[a.ID] = true
	}
	d.web.mu.Unlock()
	for i := len(v.Alerts) - 1; i >= 0 && len(out) < boardRecentAlerts; i-- {
		a := v.Alerts[i]
		if seen[a.ID] || a.Code == baccarat.AlertShoeOnline {
			continue
		}
		out = append(out, boardAlert{ID: a.ID, Code: string(a.Code), Display: display.ErrorText(string(a.Code)),
			Text: a.Text, Shoe: a.Shoe, Coup: a.Coup})
	}
	if len(out) > boardRecentAlerts {
		out = out[:boardRecentAlerts]
	}
	return out
}

// banqueBoard fills a banque table's parts of the board state: the left
// tableau, whose third card is awaited (right, left or banker: a banque
// coup's draws are options, so the tableau waits for a card or a stand),
// and each tableau's result once the coup is complete.
func banqueBoard(s *boardState, v tableau.TableView) {
	left := boardHand{Cards: []string{}}
	if (v.Phase == "coup" || v.Phase == "between") && !v.Voided {
		left = handOf(v.Left, v.LeftTotal)
	}
	s.Left = &left
	s.Winner, s.Natural = "", false
	side := func(w baccarat.Winner, name string) string {
		if w == baccarat.WinnerPlayer {
			return name
		}
		return w.String()
	}
	switch {
	case s.Phase != "coup" && s.Phase != "between", v.Voided:
	case v.Complete:
		s.RightWinner, s.LeftWinner = side(v.RightWinner, "right"), side(v.LeftWinner, "left")
		s.Natural = v.Natural
	default:
		switch v.Waiting {
		case "player-third":
			s.Waiting = "right-third"
		case "left-third", "banker-third":
			s.Waiting = v.Waiting
		}
	}
}

func handOf(h baccarat.Hand, total int) boardHand {
	b := boardHand{Cards: make([]string, 0, baccarat.MaxHandCards), Total: total}
	for i := 0; i < h.N && i < baccarat.MaxHandCards; i++ {
		b.Cards = append(b.Cards, h.Cards[i].String())
	}
	return b
}

// encodeBoard builds and encodes the board state (one line of JSON, as an
// SSE data field needs).
func (d *daemon) encodeBoard() ([]byte, statusKey) {
	s := d.boardState()
	b, err := json.Marshal(s)
	if err != nil {
		d.log.Error("board: encoding the state", "err", err)
		b = []byte(`{}`)
	}
	return b, statusKey{shoeOnline: s.ShoeOnline, broker: s.Broker.Connected, backlog: s.Broker.Backlog}
}

// startBoard starts the board's hub (before the HTTP server).
func (d *daemon) startBoard() *boardWeb {
	w := &boardWeb{}
	w.assets, w.version = boardAssets()
	d.web = w
	w.hub = newBoardHub(d.encodeBoard)
	w.hub.display = d.cfg.Board.Display
	w.hub.run(d.boardStatus)
	return w
}

// demoAnnounce prints where the demo's board and broker are (the demo logs
// only warnings, so the addresses would otherwise be hidden): pinned under
// the terminal display, or as plain lines first.
func (d *daemon) demoAnnounce() {
	var ls []string
	if d.http != nil {
		ls = append(ls, "board:  http://"+d.http.addr+"/  (?lang=zh for Chinese labels)")
	}
	if d.broker != nil {
		_, port, _ := net.SplitHostPort(strings.TrimPrefix(d.broker.URL(), "tcp://"))
		ls = append(ls, fmt.Sprintf("broker: %s  (mosquitto_sub -p %s -t '%s/%s/#' -v)",
			d.broker.URL(), port, d.cfg.MQTT.TopicPrefix, d.cfg.Table))
	}
	if d.demoScreen != nil {
		d.demoScreen.pin(ls...)
		return
	}
	for _, l := range ls {
		fmt.Fprintln(d.stdout, l)
	}
}
