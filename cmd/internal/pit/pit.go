// Package pit is the pit console (sabot pit, docs/pit.md): a model of
// every table built from the MQTT messages the tables publish (model.go),
// the MQTT client that feeds it and publishes acknowledgements (mqtt.go),
// the web page with its logins (web.go, auth.go, the embedded pitweb/
// assets), and Serve, which puts them together.
package pit

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/sabot-table/sabot/cmd/internal/mqttclient"
)

// maxPitBoards bounds the board file's lines (one a table).
const maxPitBoards = 10000

// scanLines calls fn with each line of sc that is neither blank nor a
// "#" comment, trimmed, and its number from 1 (the --boards and users
// files' syntax), up to fn's first error, which it returns. A line that
// cannot be read (sc.Err: too long, a read error) is the error "WHAT line
// N: err".
func scanLines(sc *bufio.Scanner, what string, fn func(line int, text string) error) error {
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if err := fn(line, text); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s line %d: %w", what, line+1, err)
	}
	return nil
}

// boardURLs returns the board page of each table: the --boards file's
// entry, else the --board-url template with {table} replaced, else "".
func boardURLs(file, template string) (func(string) string, error) {
	boards := map[string]string{}
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("pit: --boards: %w", err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		err = scanLines(sc, "pit: --boards "+file, func(line int, text string) error {
			fields := strings.Fields(text)
			if len(fields) != 2 {
				return fmt.Errorf("pit: --boards %s line %d: want \"TABLE URL\"", file, line)
			}
			if !validTableName(fields[0]) {
				return fmt.Errorf("pit: --boards %s line %d: %q is not a table name", file, line, fields[0])
			}
			if err := checkBoardURL(fields[1]); err != nil {
				return fmt.Errorf("pit: --boards %s line %d column %d: %w", file, line, strings.Index(sc.Text(), fields[1])+1, err)
			}
			if _, dup := boards[fields[0]]; dup {
				return fmt.Errorf("pit: --boards %s line %d: table %s given twice", file, line, fields[0])
			}
			if len(boards) >= maxPitBoards {
				return fmt.Errorf("pit: --boards %s line %d: more than %d tables", file, line, maxPitBoards)
			}
			boards[fields[0]] = fields[1]
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if template != "" {
		if !strings.Contains(template, "{table}") {
			return nil, fmt.Errorf("pit: --board-url %q: has no {table}", template)
		}
		if err := checkBoardURL(strings.ReplaceAll(template, "{table}", "T1")); err != nil {
			return nil, fmt.Errorf("pit: --board-url: %w", err)
		}
	}
	return func(table string) string {
		if u, ok := boards[table]; ok {
			return u
		}
		if template != "" {
			return strings.ReplaceAll(template, "{table}", url.PathEscape(table))
		}
		return ""
	}, nil
}

func checkBoardURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("board URL %q: %w", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("board URL %q: want http://host[:port]/ or https://…", s)
	}
	return nil
}

// isLoopback reports whether a listen address only listens on loopback.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Options are the console's settings: the flags of sabot pit
// (docs/pit.md), the hash-password ones aside.
type Options struct {
	// Brokers are the broker URLs (tcp://, ssl://, ws://, wss://), tried
	// in order: the nodes of a cluster (--broker, at least one).
	Brokers []string
	// Listen is the address the page is served on (--listen).
	Listen string
	// UsersFile is the users file, "name:bcrypt-hash" a line (--users).
	UsersFile string
	// TLSCert and TLSKey are the PEM certificate and key to serve HTTPS
	// with (--tls-cert, --tls-key: both or neither).
	TLSCert, TLSKey string
	// BoardsFile is the file of "TABLE URL" lines (--boards), BoardURL
	// the template of the other tables' board page, {table} replaced
	// (--board-url); "" for none.
	BoardsFile, BoardURL string
	// Prefix is the tables' topic prefix (--topic-prefix).
	Prefix string
	// ClientID is the MQTT client id, "" for sabot-pit-<random>
	// (--client-id).
	ClientID string
	// Username is the MQTT user name (--username); PasswordFile the file
	// whose first line is the MQTT password, "" to take
	// $SABOT_MQTT_PASSWORD (--password-file).
	Username, PasswordFile string
	// MQTTCA, MQTTCert, MQTTKey and MQTTServerName are the TLS settings
	// for ssl:// and wss:// brokers (--mqtt-tls-ca, --mqtt-tls-cert,
	// --mqtt-tls-key, --mqtt-tls-server-name).
	MQTTCA, MQTTCert, MQTTKey, MQTTServerName string
	// MaxTables is the most tables tracked, 1 to 100000 (--max-tables).
	MaxTables int
	// RefusalTimeout is how long a broker refusing the console's
	// subscriptions is kept, mqttclient.MinRefusalTimeout to
	// mqttclient.MaxRefusalTimeout (--refusal-timeout).
	RefusalTimeout time.Duration
	// SessionTTL is how long a login lasts, at least a minute
	// (--session-ttl).
	SessionTTL time.Duration
	// Log receives the console's log (text lines; the program's
	// standard error).
	Log io.Writer
}

// ErrServeFailed is returned by Serve when the HTTP server failed once
// serving; the failure has been logged (sabot pit exits 1 on it).
var ErrServeFailed = errors.New("pit: server failed")

// Serve checks o, reads the users and boards files, connects to the
// brokers and serves the console until ctx ends (nil). An error in o or
// its files is returned before anything is served ("pit: ..."; sabot pit
// exits 2 on it); ErrServeFailed when the server failed.
func Serve(ctx context.Context, o Options) error {
	if len(o.Brokers) == 0 {
		return errors.New("pit: give at least one --broker")
	}
	if o.UsersFile == "" {
		return errors.New("pit: give --users FILE (users and bcrypt hashes; see --hash-password)")
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return errors.New("pit: --tls-cert and --tls-key go together")
	}
	if o.MaxTables < 1 || o.MaxTables > 100000 {
		return fmt.Errorf("pit: --max-tables %d: between 1 and 100000", o.MaxTables)
	}
	if o.SessionTTL < time.Minute {
		return fmt.Errorf("pit: --session-ttl %v: at least 1m", o.SessionTTL)
	}
	if o.RefusalTimeout < mqttclient.MinRefusalTimeout || o.RefusalTimeout > mqttclient.MaxRefusalTimeout {
		return fmt.Errorf("pit: --refusal-timeout %v: between %v and %v", o.RefusalTimeout, mqttclient.MinRefusalTimeout, mqttclient.MaxRefusalTimeout)
	}
	log := slog.New(slog.NewTextHandler(o.Log, &slog.HandlerOptions{Level: slog.LevelInfo}))
	users, err := loadPitUsers(o.UsersFile, log)
	if err != nil {
		return err
	}
	boards, err := boardURLs(o.BoardsFile, o.BoardURL)
	if err != nil {
		return err
	}
	password := os.Getenv("SABOT_MQTT_PASSWORD")
	if o.PasswordFile != "" {
		b, err := os.ReadFile(o.PasswordFile)
		if err != nil {
			return fmt.Errorf("pit: --password-file: %w", err)
		}
		password, _, _ = strings.Cut(string(b), "\n")
		password = strings.TrimRight(password, "\r")
	}
	mtls, err := pitTLS(o.MQTTCA, o.MQTTCert, o.MQTTKey, o.MQTTServerName)
	if err != nil {
		return err
	}
	var serverTLS *tls.Config
	if o.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return fmt.Errorf("pit: --tls-cert %s / --tls-key %s: %w", o.TLSCert, o.TLSKey, err)
		}
		serverTLS = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("pit: --listen: %w", err)
	}
	model := NewModel(o.MaxTables, time.Now, boards)
	sub, err := NewSubscriber(BrokerOptions{Brokers: o.Brokers, ClientID: o.ClientID, Prefix: o.Prefix,
		Username: o.Username, Password: password, TLS: mtls, Logger: log, RefusalTimeout: o.RefusalTimeout}, model)
	if err != nil {
		ln.Close()
		return err
	}
	defer sub.Close()
	if servePit(ctx, ln, serverTLS, model, sub, users, newPitSessions(o.SessionTTL, time.Now), log) != 0 {
		return ErrServeFailed
	}
	return nil
}

// servePit serves the console on ln until ctx ends.
func servePit(ctx context.Context, ln net.Listener, serverTLS *tls.Config, model *Model, acker pitAcker,
	users *pitUsers, sessions *pitSessions, log *slog.Logger) int {
	srv := newPitServer(model, acker, users, sessions, serverTLS != nil, log)
	hs := &http.Server{Handler: srv.handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: maxPitHeader, TLSConfig: serverTLS,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	scheme := "http"
	if serverTLS != nil {
		scheme = "https"
		ln = tls.NewListener(ln, serverTLS)
	} else if !isLoopback(ln.Addr().String()) {
		log.Warn("pit: serving plain HTTP on a non-loopback address: passwords and session cookies cross the network in clear; give --tls-cert and --tls-key",
			"addr", ln.Addr().String())
	}
	log.Info("pit: serving", "url", scheme+"://"+ln.Addr().String()+"/")
	expire := time.NewTicker(time.Second)
	defer expire.Stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	for {
		select {
		case <-expire.C:
			model.Expire()
		case err := <-errc:
			srv.close()
			log.Error("pit: server failed", "err", err)
			return 1
		case <-ctx.Done():
			srv.close()
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			hs.Shutdown(sctx)
			cancel()
			log.Info("pit: stopped")
			return 0
		}
	}
}
