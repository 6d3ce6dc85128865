package boardweb

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"sync"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/drivers/webasset"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// webFiles are the board page's assets: hand-written HTML, CSS and
// JavaScript, no external resource of any kind (the page works with no
// network beyond the daemon).
//
//go:embed web
var webFiles embed.FS

// Assets returns the page's assets (index.html, board.css, board.js)
// and their version (a hash of their contents).
func Assets() (fs.FS, string) {
	a, err := webasset.Load(webFiles, "web")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory and its files
	}
	return a.FS, a.Version
}

// Web is the board page: its hub, its assets and the recent alerts.
type Web struct {
	// Hub serves the event streams.
	Hub *Hub
	// Files are the page's assets (Assets).
	Files fs.FS
	// Version identifies the embedded assets (State.Assets).
	Version string

	mu     sync.Mutex
	alerts []Alert // the last RecentAlerts alerts, oldest first
}

// Note records the alerts and acknowledgements among outs (at most
// RecentAlerts kept) and wakes the event streams.
func (w *Web) Note(outs []tableau.Output) {
	w.mu.Lock()
	for i := range outs {
		o := &outs[i]
		switch o.Kind {
		case tableau.OutputAlert:
			a := o.Event.Alert
			ba := Alert{ID: o.ID, Code: string(a.Code), Display: display.ErrorText(string(a.Code)),
				Text: o.Alert.Text, Shoe: a.Shoe, Coup: a.Coup, Acknowledged: !o.Alert.AwaitsAck}
			w.alerts = append(w.alerts, ba)
			if n := len(w.alerts); n > RecentAlerts {
				w.alerts = append(w.alerts[:0], w.alerts[n-RecentAlerts:]...)
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
	w.Hub.Notify()
}

// AlertList merges the recent alerts with the latched ones (a latched
// alert raised before a restart is known only from the view), newest
// first, at most RecentAlerts.
func (w *Web) AlertList(v tableau.TableView) []Alert {
	latched := map[string]bool{}
	for _, a := range v.Alerts {
		latched[a.ID] = true
	}
	out := []Alert{}
	seen := map[string]bool{}
	w.mu.Lock()
	for i := len(w.alerts) - 1; i >= 0; i-- {
		a := w.alerts[i]
		if latched[a.ID] {
			a.Acknowledged = false
		}
		out = append(out, a)
		seen[a.ID] = true
	}
	w.mu.Unlock()
	for i := len(v.Alerts) - 1; i >= 0 && len(out) < RecentAlerts; i-- {
		a := v.Alerts[i]
		if seen[a.ID] || a.Code == baccarat.AlertShoeOnline {
			continue
		}
		out = append(out, Alert{ID: a.ID, Code: string(a.Code), Display: display.ErrorText(string(a.Code)),
			Text: a.Text, Shoe: a.Shoe, Coup: a.Coup})
	}
	if len(out) > RecentAlerts {
		out = out[:RecentAlerts]
	}
	return out
}

// Register adds the board's routes to mux, each wrapped by secure: the
// page at "/", its assets under /assets/, /board.json (the newest state),
// /events (the event stream) and the old address /scoreboard (a
// redirect). Every route is GET (and HEAD); the redirect is not wrapped. The error
// is the assets..
func (w *Web) Register(mux *http.ServeMux, secure func(http.Handler) http.Handler) error {
	index, err := fs.ReadFile(w.Files, "index.html")
	if err != nil {
		return fmt.Errorf("http: board page: %w", err)
	}
	mux.Handle("GET /{$}", secure(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.Header().Set("Cache-Control", "no-cache")
		rw.Write(index)
	})))
	mux.Handle("GET /assets/", secure(http.StripPrefix("/assets/", webasset.Assets{FS: w.Files}.Files(""))))
	mux.Handle("GET /board.json", secure(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		state, _ := w.Hub.Current()
		rw.Header().Set("Content-Type", "application/json")
		rw.Header().Set("Cache-Control", "no-store")
		rw.Write(state)
	})))
	mux.Handle("GET /events", secure(http.HandlerFunc(w.Hub.ServeEvents)))
	// The page's old address.
	mux.HandleFunc("GET /scoreboard", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "/", http.StatusMovedPermanently)
	})
	return nil
}
