package pit

// The pit console's web side: one page (embedded, no CDN), a login, the
// tiles as server-sent events, and the acknowledgement.
//
// Routes:
//
//	GET  /, /pit.css, /pit.js    the page (no login needed: it holds no data)
//	GET  /api/session            {"user","csrf"} of the login, or 401
//	POST /api/login              {"user","password"} → {"user","csrf"} and the session cookie
//	POST /api/logout             ends the session
//	GET  /events                 the event stream (login needed)
//	POST /api/ack                {"table"} → 202 {"request_id"} (login and CSRF token needed)
//
// CSRF: every POST must carry Content-Type application/json (a form on
// another site cannot send it without a CORS preflight, which the console
// never grants), an Origin, if any, equal to the console's own, and,
// once logged in, the session's CSRF token in the X-CSRF-Token header
// (the page reads it from /api/session; another site cannot). The cookie
// is HttpOnly and SameSite=Strict, and Secure (named __Host-sabot-pit)
// over HTTPS.

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/sabot-table/sabot/drivers/sse"
	"github.com/sabot-table/sabot/drivers/webasset"
)

//go:embed pitweb
var pitWebFiles embed.FS

// Bounds of the web side (docs/operations.md's bounds table).
const (
	// maxPitClients bounds the event streams open at once; more are
	// answered 503 with Retry-After.
	maxPitClients = 64
	// maxPitBody bounds a POST body (bytes): a login or an ack is far
	// smaller.
	maxPitBody = 4096
	// maxPitHeader bounds a request's header (http.Server.MaxHeaderBytes).
	maxPitHeader = 16 << 10
	// pitWriteTimeout: a stream write the client does not take within it
	// drops the client (the browser reconnects by itself).
	pitWriteTimeout = 10 * time.Second
	// pitHeartbeat: an idle stream gets an event this often.
	pitHeartbeat = 15 * time.Second
	// pitEventInterval: a stream sends changed tiles at most this often
	// (a floor of tables changes on every card).
	pitEventInterval = 200 * time.Millisecond
	// pitRetryMS is the SSE retry field.
	pitRetryMS = 1000
)

// pitAcker publishes acknowledgements (Subscriber).
type pitAcker interface {
	Ack(ctx context.Context, table, operator string) (string, error)
	Link() (connected bool, broker string)
}

// pitServer serves the page.
type pitServer struct {
	model    *Model
	acker    pitAcker
	users    *pitUsers
	sessions *pitSessions
	secure   bool // served over HTTPS
	log      *slog.Logger
	assets   webasset.Assets // the page and its version

	bcrypt   chan struct{} // pitBcryptParallel slots
	throttle *pitThrottle

	mu      sync.Mutex
	clients int
	closed  bool
	done    chan struct{}
}

func newPitServer(model *Model, acker pitAcker, users *pitUsers, sessions *pitSessions, secure bool, log *slog.Logger) *pitServer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	assets, err := webasset.Load(pitWebFiles, "pitweb")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory and its files
	}
	return &pitServer{model: model, acker: acker, users: users, sessions: sessions, secure: secure, log: log,
		assets: assets,
		bcrypt: make(chan struct{}, pitBcryptParallel), throttle: newPitThrottle(sessions.now), done: make(chan struct{})}
}

// close ends every event stream.
func (s *pitServer) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
}

func (s *pitServer) cookieName() string {
	if s.secure {
		return "__Host-sabot-pit"
	}
	return "sabot-pit"
}

// handler is the console's HTTP handler.
func (s *pitServer) handler() http.Handler {
	mux := http.NewServeMux()
	static := s.assets.Files("no-cache")
	mux.Handle("GET /{$}", static)
	mux.Handle("GET /pit.css", static)
	mux.Handle("GET /pit.js", static)
	mux.HandleFunc("GET /api/session", s.serveSession)
	mux.HandleFunc("POST /api/login", s.post(false, s.serveLogin))
	mux.HandleFunc("POST /api/logout", s.post(true, s.serveLogout))
	mux.HandleFunc("POST /api/ack", s.post(true, s.serveAck))
	mux.HandleFunc("GET /events", s.serveEvents)
	return webasset.Secure(mux, webasset.Headers{
		CSP: "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
			"img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
		Referrer:   "same-origin",
		DenyFrames: true,
		HSTS:       s.secure,
	})
}

// session returns the request's session.
func (s *pitServer) session(r *http.Request) (pitSession, string, bool) {
	c, err := r.Cookie(s.cookieName())
	if err != nil {
		return pitSession{}, "", false
	}
	sess, ok := s.sessions.get(c.Value)
	return sess, c.Value, ok
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func jsonError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

// sameOrigin reports whether a request's Origin (when it has one) names
// the host the request was sent to (its Host header: behind a TLS proxy,
// which must pass Host on, the scheme differs, so only the host and port
// are compared), and its Sec-Fetch-Site (when it has one) is not
// cross-site.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

// post wraps a POST handler: JSON body of at most maxPitBody bytes, same
// origin, and with auth a live session whose CSRF token the request
// carries.
func (s *pitServer) post(auth bool, h func(http.ResponseWriter, *http.Request, pitSession, string, []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); strings.TrimSpace(ct) != "application/json" {
			jsonError(w, http.StatusUnsupportedMediaType, "the body must be application/json")
			return
		}
		if !sameOrigin(r) {
			jsonError(w, http.StatusForbidden, "cross-origin request refused")
			return
		}
		var sess pitSession
		var token string
		if auth {
			var ok bool
			sess, token, ok = s.session(r)
			if !ok {
				jsonError(w, http.StatusUnauthorized, "not logged in")
				return
			}
			if !csrfOK(sess, r.Header.Get("X-CSRF-Token")) {
				jsonError(w, http.StatusForbidden, "missing or wrong CSRF token")
				return
			}
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPitBody))
		if err != nil {
			jsonError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", maxPitBody))
			return
		}
		h(w, r, sess, token, body)
	}
}

func (s *pitServer) serveSession(w http.ResponseWriter, r *http.Request) {
	sess, _, ok := s.session(r)
	if !ok {
		jsonError(w, http.StatusUnauthorized, "not logged in")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"user": sess.user, "csrf": sess.csrf, "assets": s.assets.Version})
}

func (s *pitServer) serveLogin(w http.ResponseWriter, r *http.Request, _ pitSession, _ string, body []byte) {
	var req struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		jsonError(w, http.StatusBadRequest, "want {\"user\":…,\"password\":…}: "+err.Error())
		return
	}
	source := r.RemoteAddr
	if host, _, err := net.SplitHostPort(source); err == nil {
		source = host
	}
	if locked, until := s.throttle.locked(req.User, source); locked {
		w.Header().Set("Retry-After", fmt.Sprint(int(time.Until(until).Seconds())+1))
		s.log.Warn("pit: login refused: too many failures", "user", req.User, "remote", r.RemoteAddr)
		jsonError(w, http.StatusTooManyRequests, fmt.Sprintf("too many failed logins from this address; try again after %s", until.UTC().Format(time.TimeOnly)))
		return
	}
	select {
	case s.bcrypt <- struct{}{}:
	default:
		w.Header().Set("Retry-After", "1")
		jsonError(w, http.StatusServiceUnavailable, "too many logins at once; try again")
		return
	}
	// check first: an invalid name takes as long as any other.
	ok := s.users.check(req.User, req.Password) && validUserName(req.User)
	<-s.bcrypt
	if !ok {
		s.throttle.failed(req.User, source)
		s.log.Warn("pit: failed login", "user", req.User, "remote", r.RemoteAddr)
		jsonError(w, http.StatusUnauthorized, "wrong user name or password")
		return
	}
	s.throttle.succeeded(req.User, source)
	token, sess := s.sessions.create(req.User)
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: token, Path: "/", HttpOnly: true, Secure: s.secure,
		SameSite: http.SameSiteStrictMode, MaxAge: int(s.sessions.ttl / time.Second)})
	s.log.Info("pit: login", "user", req.User, "remote", r.RemoteAddr)
	writeJSON(w, http.StatusOK, map[string]string{"user": sess.user, "csrf": sess.csrf, "assets": s.assets.Version})
}

func (s *pitServer) serveLogout(w http.ResponseWriter, _ *http.Request, sess pitSession, token string, _ []byte) {
	s.sessions.drop(token)
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: "", Path: "/", HttpOnly: true, Secure: s.secure,
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
	s.log.Info("pit: logout", "user", sess.user)
	writeJSON(w, http.StatusOK, map[string]string{})
}

func (s *pitServer) serveAck(w http.ResponseWriter, r *http.Request, sess pitSession, _ string, body []byte) {
	var req struct {
		Table string `json:"table"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || !validTableName(req.Table) {
		jsonError(w, http.StatusBadRequest, "want {\"table\":\"<table name>\"}")
		return
	}
	if !s.model.Has(req.Table) {
		jsonError(w, http.StatusNotFound, fmt.Sprintf("table %s: not known to the console", req.Table))
		return
	}
	id, err := s.acker.Ack(r.Context(), req.Table, sess.user)
	if err != nil {
		s.log.Warn("pit: ack not sent", "table", req.Table, "user", sess.user, "err", err)
		jsonError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	s.log.Info("pit: ack sent", "table", req.Table, "user", sess.user, "request_id", id)
	writeJSON(w, http.StatusAccepted, map[string]string{"request_id": id})
}

// pitEvent is the data of a "tiles" event: the tiles changed since the
// stream's last event (all of them in the first), the link to the
// broker, and the server's clock (the page reckons alert ages with it).
type pitEvent struct {
	Now     string    `json:"now"`
	Full    bool      `json:"full"`
	Link    pitLink   `json:"link"`
	Dropped uint64    `json:"dropped"`
	Assets  string    `json:"assets"`
	Tiles   []pitTile `json:"tiles"`
}

type pitLink struct {
	Connected bool   `json:"connected"`
	Broker    string `json:"broker"`
}

var errPitFull = errors.New("pit: too many event streams")

func (s *pitServer) join() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("pit: stopping")
	}
	if s.clients >= maxPitClients {
		return errPitFull
	}
	s.clients++
	return nil
}

func (s *pitServer) leave() {
	s.mu.Lock()
	s.clients--
	s.mu.Unlock()
}

// serveEvents is GET /events: "tiles" events (pitEvent), an "hb" event
// every pitHeartbeat, a "logout" event when the session ends.
func (s *pitServer) serveEvents(w http.ResponseWriter, r *http.Request) {
	_, token, ok := s.session(r)
	if !ok {
		jsonError(w, http.StatusUnauthorized, "not logged in")
		return
	}
	if err := s.join(); err != nil {
		w.Header().Set("Retry-After", "5")
		jsonError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	defer s.leave()
	st, err := sse.Open(w, pitRetryMS*time.Millisecond, pitWriteTimeout)
	if err != nil {
		return
	}
	hb := time.NewTicker(pitHeartbeat)
	defer hb.Stop()
	var sent uint64
	var lastLink pitLink
	full := true
	for {
		if _, ok := s.sessions.get(token); !ok {
			st.Event("logout", []byte("1"))
			return
		}
		_, changed := s.model.Changed()
		tiles, v := s.model.Tiles(sent)
		c, b := s.acker.Link()
		link := pitLink{Connected: c, Broker: b}
		if full || len(tiles) > 0 || link != lastLink {
			ev := pitEvent{Now: time.Now().UTC().Format(time.RFC3339Nano), Full: full, Link: link,
				Dropped: s.model.Dropped(), Assets: s.assets.Version, Tiles: tiles}
			data, err := json.Marshal(ev)
			if err != nil {
				s.log.Error("pit: encoding an event", "err", err)
				return
			}
			if st.Event("tiles", data) != nil {
				return
			}
			full, lastLink = false, link
		}
		sent = v
		// Coalesce: changes within pitEventInterval go out together.
		if !st.Wait(r.Context(), changed, s.done, hb.C, pitEventInterval) {
			return
		}
	}
}
