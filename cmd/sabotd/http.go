package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are sabotd's Prometheus metrics, on their own registry (with the
// Go and process collectors) served at /metrics.
type metrics struct {
	reg           *prometheus.Registry
	events        *prometheus.CounterVec
	coups         *prometheus.CounterVec
	alerts        *prometheus.CounterVec
	voids         prometheus.Counter
	journal       prometheus.Gauge
	shoeOnline    prometheus.Gauge
	latchedAlerts prometheus.Gauge
	cardToDisplay prometheus.Histogram
	cardToAck     prometheus.Histogram
	backlog       prometheus.Gauge
	gate          *prometheus.CounterVec
	encodeErrors  prometheus.Counter // sabot_mqtt_encode_errors_total
}

func newMetrics() *metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	lat := []float64{50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 1}
	m := &metrics{
		reg: reg,
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sabot_input_events_total", Help: "Input events journaled and applied, by kind (card, button, cut, ...).",
		}, []string{"kind"}),
		coups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sabot_coups_total", Help: "Completed coups by winner.",
		}, []string{"winner"}),
		alerts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sabot_alerts_total", Help: "Alerts raised, by code.",
		}, []string{"code"}),
		voids:         prometheus.NewCounter(prometheus.CounterOpts{Name: "sabot_voids_total", Help: "Coups voided."}),
		journal:       prometheus.NewGauge(prometheus.GaugeOpts{Name: "sabot_journal_records", Help: "Records in the event journal."}),
		shoeOnline:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "sabot_shoe_online", Help: "1 while the shoe link is up."}),
		latchedAlerts: prometheus.NewGauge(prometheus.GaugeOpts{Name: "sabot_alerts_unacknowledged", Help: "Alerts awaiting acknowledgement."}),
		cardToDisplay: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "sabot_card_to_display_seconds", Help: "Card event received to display frame written.", Buckets: lat,
		}),
		cardToAck: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "sabot_card_to_broker_ack_seconds",
			Help:    "Card event received to its MQTT card message acknowledged by the broker (PUBACK).",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14), // 0.5 ms … 4 s
		}),
		gate: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sabot_gate_commands_total", Help: "Gate commands sent to the shoe, by state (locked, unlocked).",
		}, []string{"state"}),
		backlog: prometheus.NewGauge(prometheus.GaugeOpts{Name: "sabot_outbox_backlog", Help: "MQTT messages waiting for a broker acknowledgement."}),
		encodeErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "sabot_mqtt_encode_errors_total",
			Help: "MQTT messages not published because they could not be encoded (e.g. a payload past the size limit); each is logged with its id."}),
	}
	reg.MustRegister(m.events, m.coups, m.alerts, m.voids, m.journal, m.shoeOnline, m.latchedAlerts, m.cardToDisplay, m.cardToAck, m.backlog, m.gate, m.encodeErrors)
	return m
}

// httpServer serves /metrics, /healthz, /scoreboard and /scoreboard.json.
type httpServer struct {
	srv  *http.Server
	ln   net.Listener
	addr string
}

// health is /healthz's JSON body.
type health struct {
	OK         bool   `json:"ok"`
	Table      string `json:"table"`
	Version    string `json:"version"`
	ShoeOnline bool   `json:"shoe_online"`
	Broker     bool   `json:"broker_connected"`
	Backlog    int    `json:"outbox_backlog"`
	Journal    uint64 `json:"journal_records"`
	Problem    string `json:"problem,omitempty"`
}

// startHTTP listens on addr (port 0 picks a free port) and serves. status
// and board are called per request.
func startHTTP(addr string, m *metrics, status func() health, board func() any, log *slog.Logger) (*httpServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("http.addr %q: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		h := status()
		w.Header().Set("Content-Type", "application/json")
		if !h.OK {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		json.NewEncoder(w).Encode(h)
	})
	mux.HandleFunc("GET /scoreboard.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(board())
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/scoreboard", http.StatusFound)
	})
	mux.HandleFunc("GET /scoreboard", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := scoreboardPage.Execute(w, board()); err != nil {
			log.Warn("scoreboard page", "err", err)
		}
	})
	s := &httpServer{
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second},
		ln:   ln,
		addr: ln.Addr().String(),
	}
	go func() {
		if err := s.srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Error("http server", "err", err)
		}
	}()
	return s, nil
}

func (s *httpServer) close(ctx context.Context) error {
	if s == nil {
		return nil
	}
	return s.srv.Shutdown(ctx)
}

var scoreboardPage = template.Must(template.New("scoreboard").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>Sabot {{.Table}}</title>
<style>
body{font-family:sans-serif;background:#063;color:#fff}
table{border-collapse:collapse}td{width:1.6em;height:1.6em;text-align:center;border:1px solid #ccc;border-radius:50%}
.player{background:#14c}.banker{background:#c11}.tie{background:#1a1}
</style></head><body>
<h1>Table {{.Table}} — shoe {{.Shoe}}, coup {{.Coup}}</h1>
<p>Player {{.PlayerTotal}} · Banker {{.BankerTotal}} {{if .Waiting}}· waiting for {{.Waiting}}{{end}}</p>
{{if .Alerts}}<p><b>Alerts:</b>{{range .Alerts}} {{.}}{{end}}</p>{{end}}
<p>Player {{.Wins.Player}} · Banker {{.Wins.Banker}} · Tie {{.Wins.Tie}}</p>
<h2>Bead plate</h2>
<table>{{range .BeadRows}}<tr>{{range .}}<td class="{{.}}">{{if eq . "player"}}P{{else if eq . "banker"}}B{{else if eq . "tie"}}T{{end}}</td>{{end}}</tr>{{end}}</table>
</body></html>
`))

// scoreboardData is /scoreboard.json and the page's data: the table's
// current view, the shoe's results, wins per side and the bead plate
// (results column by column, six rows).
type scoreboardData struct {
	Table       string               `json:"table"`
	Shoe        int                  `json:"shoe"`
	ShoeID      string               `json:"shoe_id"`
	Coup        int                  `json:"coup"`
	PlayerTotal int                  `json:"player_total"`
	BankerTotal int                  `json:"banker_total"`
	Waiting     string               `json:"waiting,omitempty"`
	Alerts      []string             `json:"alerts"`
	Wins        winCounts            `json:"wins"`
	Results     []tableau.CoupResult `json:"results"`
	BeadRows    [][]string           `json:"bead_plate"`
	Roads       display.Roads        `json:"roads"` // as on MQTT <prefix>/roads
	Display     string               `json:"display,omitempty"`
	View        tableau.TableView    `json:"view"`
}

// winCounts counts the shoe's coups won by each side and its ties.
type winCounts struct {
	Player int `json:"player"`
	Banker int `json:"banker"`
	Tie    int `json:"tie"`
}

func (d *daemon) scoreboard() any {
	d.mu.Lock()
	v := d.view
	d.mu.Unlock()
	s := scoreboardData{Table: d.cfg.Table, Shoe: v.Shoe, ShoeID: v.ShoeID, Coup: v.Coup,
		PlayerTotal: v.PlayerTotal, BankerTotal: v.BankerTotal, Results: v.Results, View: v}
	if v.Phase == "coup" && !v.Complete {
		s.Waiting = v.Waiting
	}
	s.Alerts = []string{}
	for _, a := range v.Alerts {
		s.Alerts = append(s.Alerts, string(a.Code))
	}
	if s.Results == nil {
		s.Results = []tableau.CoupResult{}
	}
	// The roads come from display, as on MQTT and in sabot roads.
	s.Roads = display.ViewRoads(v)
	s.Wins = winCounts{Player: s.Roads.Stats.Player, Banker: s.Roads.Stats.Banker, Tie: s.Roads.Stats.Tie}
	s.BeadRows = make([][]string, len(s.Roads.Grids.BeadPlate))
	for r, row := range s.Roads.Grids.BeadPlate {
		s.BeadRows[r] = make([]string, len(row))
		for c, cell := range row {
			if cell != "" {
				s.BeadRows[r][c] = map[byte]string{'P': "player", 'B': "banker", 'T': "tie"}[cell[0]]
			}
		}
	}
	s.Display = d.fakeFrame()
	return s
}
