package daemon

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sabot-table/sabot/cmd/internal/boardweb"
	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// boardNote records alerts and acknowledgements for the board, wakes the
// board's event streams and updates the terminal display's roads. The main
// loop calls it after every input (afterApply).
func (d *daemon) boardNote(outs []tableau.Output, v tableau.TableView) {
	d.terminalBoard(v)
	if d.web != nil {
		d.web.Note(outs)
	}
}

// boardStatus is the part of the board that changes outside the main loop.
func (d *daemon) boardStatus() boardweb.StatusKey {
	var k boardweb.StatusKey
	d.mu.Lock()
	k.ShoeOnline = d.shoeUp
	d.mu.Unlock()
	if d.pub != nil {
		st := d.pub.Status()
		k.Broker = st.Connected
		if st.Backlog >= boardweb.BacklogShown {
			k.Backlog = st.Backlog
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
		rows -= d.demoScreen.Reserve(cols, rows)
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
func (d *daemon) boardState() boardweb.State {
	v := d.currentView()
	f := boardweb.Facts{Table: d.cfg.Table, Game: boardweb.GameName(d.cfg), GameID: d.rules.Game.Name(), Lang: d.cfg.Board.Lang,
		Limits: boardweb.LimitsOf(d.cfg.Board), Assets: d.web.Version, Banque: d.rules.Game == baccarat.GameBanque}
	return boardweb.Build(f, v, d.boardStatus(), d.web.AlertList(v))
}

// encodeBoard builds and encodes the board state (one line of JSON, as an
// SSE data field needs).
func (d *daemon) encodeBoard() ([]byte, boardweb.StatusKey) {
	s := d.boardState()
	b, err := json.Marshal(s)
	if err != nil {
		d.log.Error("board: encoding the state", "err", err)
		b = []byte(`{}`)
	}
	return b, boardweb.StatusKey{ShoeOnline: s.ShoeOnline, Broker: s.Broker.Connected, Backlog: s.Broker.Backlog}
}

// startBoard starts the board's hub (before the HTTP server).
func (d *daemon) startBoard() *boardweb.Web {
	w := &boardweb.Web{}
	w.Files, w.Version = boardweb.Assets()
	d.web = w
	w.Hub = boardweb.NewHub(d.encodeBoard, d.cfg.Board.Display)
	w.Hub.Run(d.boardStatus)
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
		d.demoScreen.Pin(ls...)
		return
	}
	for _, l := range ls {
		fmt.Fprintln(d.stdout, l)
	}
}
