package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sabot-table/sabot/cmd/internal/boardweb"
	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/drivers/webasset"
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
	dealers       *dealerStats       // sabot_dealer_*: the current shift's per-dealer counts
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
	m.dealers = newDealerStats()
	reg.MustRegister(m.events, m.coups, m.alerts, m.voids, m.journal, m.shoeOnline, m.latchedAlerts, m.cardToDisplay, m.cardToAck, m.backlog, m.gate, m.encodeErrors, m.dealers)
	return m
}

// httpServer serves /metrics, /healthz and the board page (see board.go).
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
	// BrokerAcking is false while the broker is connected but has
	// acknowledged none of the waiting messages for longer than
	// [mqtt] refusal_timeout (a frozen or refusing broker).
	BrokerAcking bool `json:"broker_acknowledging"`
	// Commands refused since the start (by validation or as busy), those
	// of them refused beyond the refusal rate with no record, log line or
	// reply, and those dropped with both command queues full; outbox
	// messages dropped because no broker can take them (mqtt.Status).
	CommandsRefused        int    `json:"commands_refused"`
	CommandsRefusedQuietly int    `json:"commands_refused_quietly"`
	CommandsDropped        int    `json:"commands_dropped"`
	Undeliverable          int    `json:"outbox_undeliverable"`
	Journal                uint64 `json:"journal_records"`
	Problem                string `json:"problem,omitempty"`
	// The audit trail (audit.go): the running binary's SHA-256 and the
	// journal's hash-chain head.
	Software    string            `json:"software_sha256,omitempty"`
	JournalHead *mqtt.JournalHead `json:"journal_head,omitempty"`
}

// boardCSP is the board's Content-Security-Policy: nothing but its own
// origin, no inline script, no forms.
const boardCSP = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'"

// Bounds of the HTTP server's connections.
const (
	httpHeaderTimeout = 5 * time.Second
	httpIdleTimeout   = 15 * time.Second
	httpMaxHeader     = 16 << 10
)

// startHTTP listens on addr (port 0 picks a free port) and serves. status
// is called per request; web is the board page.
//
// Every route is GET (and HEAD): nothing served here changes the table.
// Other methods are answered 405 by the mux.
//
// recallFrom is [http] recall: who may read /recall ("loopback", "all",
// "off"). Connections are bounded: request headers httpMaxHeader bytes,
// read within httpHeaderTimeout, an idle keep-alive connection closed
// after httpIdleTimeout (the unit's LimitNOFILE=1024 caps descriptors).
func startHTTP(addr string, m *metrics, status func() health, web *boardweb.Web, log *slog.Logger, recall http.HandlerFunc, recallFrom string) (*httpServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("http.addr %q: %w", addr, err)
	}
	mux := http.NewServeMux()
	secure := func(h http.Handler) http.Handler {
		return webasset.Secure(h, webasset.Headers{CSP: boardCSP, Referrer: "no-referrer"})
	}
	mux.Handle("GET /metrics", secure(promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})))
	if recallFrom != "off" {
		// Game recall (recall.go): the last coups with every card and its
		// time, for the pit and regulators; loopback clients only unless
		// [http] recall = "all".
		mux.Handle("GET /recall", secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if ip := net.ParseIP(boardweb.RemoteIP(r)); recallFrom != "all" && (ip == nil || !ip.IsLoopback()) {
				http.Error(w, "recall: served to this machine only ([http] recall = \"loopback\")", http.StatusForbidden)
				return
			}
			recall(w, r)
		})))
	}
	mux.Handle("GET /healthz", secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := status()
		w.Header().Set("Content-Type", "application/json")
		if !h.OK {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		json.NewEncoder(w).Encode(h)
	})))
	if err := web.Register(mux, secure); err != nil {
		ln.Close()
		return nil, err
	}
	s := &httpServer{
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: httpHeaderTimeout, IdleTimeout: httpIdleTimeout,
			MaxHeaderBytes: httpMaxHeader},
		ln:   ln,
		addr: ln.Addr().String(),
	}
	// Event streams never go idle: end them when the server shuts down.
	s.srv.RegisterOnShutdown(web.Hub.Close)
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
