package main

// sabot pit: the pit console (docs/pit.md).

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/sabot-table/sabot/drivers/mqtt"
)

func init() {
	register(&command{
		name:    "pit",
		summary: "serve the pit console: every table's status, coup, dealer and open alerts on one live page, with acknowledgement",
		run:     runPit,
	})
}

const pitUsage = `usage: sabot pit --broker URL [--broker URL ...] --users FILE [--listen ADDR] [flags]
       sabot pit --hash-password [--cost N] < password

Subscribes to every table's retained status, state and roads and to its
live alerts, coups and acknowledgements on the broker (several --broker:
the nodes of a cluster, tried in order), and serves one page: a tile per
table, the most urgent first, updated live, with the table's board page a
click away. A supervisor logged in acknowledges a table's alerts from it:
the console publishes the ack command with the user's name as operator
(the table must have [mqtt] commands = true). See docs/pit.md.

--hash-password reads a password (the first line of standard input) and
prints its bcrypt hash for the users file ("name:hash" a line).

Exit status: 0 stopped by a signal, 2 bad flags or files, 1 the server failed.

flags:
`

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// maxPitBoards bounds the board file's lines (one a table).
const maxPitBoards = 10000

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
		line := 0
		for sc.Scan() {
			line++
			text := strings.TrimSpace(sc.Text())
			if text == "" || strings.HasPrefix(text, "#") {
				continue
			}
			fields := strings.Fields(text)
			if len(fields) != 2 {
				return nil, fmt.Errorf("pit: --boards %s line %d: want \"TABLE URL\"", file, line)
			}
			if !validTableName(fields[0]) {
				return nil, fmt.Errorf("pit: --boards %s line %d: %q is not a table name", file, line, fields[0])
			}
			if err := checkBoardURL(fields[1]); err != nil {
				return nil, fmt.Errorf("pit: --boards %s line %d column %d: %w", file, line, strings.Index(sc.Text(), fields[1])+1, err)
			}
			if _, dup := boards[fields[0]]; dup {
				return nil, fmt.Errorf("pit: --boards %s line %d: table %s given twice", file, line, fields[0])
			}
			if len(boards) >= maxPitBoards {
				return nil, fmt.Errorf("pit: --boards %s line %d: more than %d tables", file, line, maxPitBoards)
			}
			boards[fields[0]] = fields[1]
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("pit: --boards %s line %d: %w", file, line+1, err)
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

func runPit(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, pitUsage); fs.PrintDefaults() }
	var brokers stringList
	fs.Var(&brokers, "broker", "broker URL (tcp://host:1883, ssl://host:8883, ws://host/mqtt); repeat for a cluster's nodes")
	listen := fs.String("listen", "127.0.0.1:8090", "address to serve the page on")
	usersFile := fs.String("users", "", "users file: one \"name:bcrypt-hash\" a line (make a hash with --hash-password)")
	tlsCert := fs.String("tls-cert", "", "serve HTTPS with this PEM certificate (with --tls-key)")
	tlsKey := fs.String("tls-key", "", "the PEM private key of --tls-cert")
	boardsFile := fs.String("boards", "", "file of \"TABLE URL\" lines: each table's board page")
	boardURL := fs.String("board-url", "", "board page of tables not in --boards, {table} replaced by the table (http://{table}.floor.lan:8080/)")
	prefix := fs.String("topic-prefix", mqtt.DefaultTopicPrefix, "the tables' topic prefix ([mqtt] topic_prefix)")
	clientID := fs.String("client-id", "", "MQTT client id (default sabot-pit-<random>)")
	username := fs.String("username", "", "MQTT user name")
	passwordFile := fs.String("password-file", "", "file whose first line is the MQTT password (default: $SABOT_MQTT_PASSWORD)")
	mqttCA := fs.String("mqtt-tls-ca", "", "PEM CA certificates to trust for ssl:// brokers")
	mqttCert := fs.String("mqtt-tls-cert", "", "PEM client certificate for the broker")
	mqttKey := fs.String("mqtt-tls-key", "", "PEM client key for the broker")
	mqttName := fs.String("mqtt-tls-server-name", "", "name in the broker's certificate")
	maxTables := fs.Int("max-tables", defaultPitTables, "most tables tracked (messages of more are dropped and counted)")
	refusal := fs.Duration("refusal-timeout", mqtt.DefaultRefusalTimeout, "a broker refusing the console's subscriptions this long is left for the next --broker (one broker is never left)")
	ttl := fs.Duration("session-ttl", defaultPitSessionTTL, "how long a login lasts")
	hashPw := fs.Bool("hash-password", false, "read a password from standard input, print its bcrypt hash, exit")
	cost := fs.Int("cost", pitHashCost, "bcrypt cost for --hash-password")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sabot pit: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *hashPw {
		h, err := hashPassword(stdin, *cost)
		if err != nil {
			fmt.Fprintln(stderr, "sabot", err)
			return 2
		}
		fmt.Fprintln(stdout, h)
		return 0
	}
	fail := func(err error) int { fmt.Fprintln(stderr, "sabot", err); return 2 }
	if len(brokers) == 0 {
		return fail(errors.New("pit: give at least one --broker"))
	}
	if *usersFile == "" {
		return fail(errors.New("pit: give --users FILE (users and bcrypt hashes; see --hash-password)"))
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return fail(errors.New("pit: --tls-cert and --tls-key go together"))
	}
	if *maxTables < 1 || *maxTables > 100000 {
		return fail(fmt.Errorf("pit: --max-tables %d: between 1 and 100000", *maxTables))
	}
	if *ttl < time.Minute {
		return fail(fmt.Errorf("pit: --session-ttl %v: at least 1m", *ttl))
	}
	if *refusal < minRefusalTimeout || *refusal > maxRefusalTimeout {
		return fail(fmt.Errorf("pit: --refusal-timeout %v: between %v and %v", *refusal, minRefusalTimeout, maxRefusalTimeout))
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	users, err := loadPitUsers(*usersFile, log)
	if err != nil {
		return fail(err)
	}
	boards, err := boardURLs(*boardsFile, *boardURL)
	if err != nil {
		return fail(err)
	}
	password := os.Getenv("SABOT_MQTT_PASSWORD")
	if *passwordFile != "" {
		b, err := os.ReadFile(*passwordFile)
		if err != nil {
			return fail(fmt.Errorf("pit: --password-file: %w", err))
		}
		password, _, _ = strings.Cut(string(b), "\n")
		password = strings.TrimRight(password, "\r")
	}
	mtls, err := pitTLS(*mqttCA, *mqttCert, *mqttKey, *mqttName)
	if err != nil {
		return fail(err)
	}
	var serverTLS *tls.Config
	if *tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			return fail(fmt.Errorf("pit: --tls-cert %s / --tls-key %s: %w", *tlsCert, *tlsKey, err))
		}
		serverTLS = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail(fmt.Errorf("pit: --listen: %w", err))
	}
	model := newPitModel(*maxTables, time.Now, boards)
	sub, err := newPitSubscriber(pitBrokerOptions{Brokers: brokers, ClientID: *clientID, Prefix: *prefix,
		Username: *username, Password: password, TLS: mtls, Logger: log, RefusalTimeout: *refusal}, model)
	if err != nil {
		ln.Close()
		return fail(err)
	}
	defer sub.Close()
	code := servePit(ctx, ln, serverTLS, model, sub, users, newPitSessions(*ttl, time.Now), log)
	return code
}

// servePit serves the console on ln until ctx ends.
func servePit(ctx context.Context, ln net.Listener, serverTLS *tls.Config, model *pitModel, acker pitAcker,
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
