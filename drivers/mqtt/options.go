package mqtt

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// Defaults for Options fields left zero.
const (
	DefaultTopicPrefix    = "sabot"
	DefaultKeepAlive      = 30 * time.Second
	DefaultConnectTimeout = 10 * time.Second
	DefaultReconnectMin   = 500 * time.Millisecond
	DefaultReconnectMax   = 30 * time.Second
	// DefaultTakeoverBackoff is how long the publisher stays away from the
	// broker after another daemon took its session over (see Takeover).
	DefaultTakeoverBackoff = 10 * time.Minute
	DefaultAckTimeout      = 10 * time.Second
	DefaultWindow          = 64
	// DefaultRefusalTimeout is how long a broker may refuse before the
	// publisher moves to the next one (Options.RefusalTimeout). A NATS
	// Server cluster that lost a node refuses every new QoS 1 subscription
	// on the survivors while JetStream elects new leaders, each refusal
	// taking 4 s: measured on the 2-core test machine, 5–14 s on both
	// survivors after a meta leader's death, so a shorter bound would move
	// for nothing; but one survivor went on refusing for 18 s while the
	// other served within 1 s, and a loaded machine saw more than 50 s on
	// one node, which 10 s escapes.
	DefaultRefusalTimeout = 10 * time.Second
	// DefaultMaxBacklog holds a week of a busy table with margin: 120 coups
	// an hour around the clock is 20,160 coups; at about 8 messages a coup
	// (cards, coup, state, the odd alert) that is 161,280 messages.
	DefaultMaxBacklog = 250_000
	// BacklogAlertFraction of MaxBacklog raises the outbox-backlog alert.
	BacklogAlertFraction = 0.8
)

// TLSOptions configures TLS for ssl:// (and wss://) brokers. Paths are
// files; all are optional (no CA file: the system roots).
type TLSOptions struct {
	CAFile     string // PEM CA certificates to trust for the broker
	CertFile   string // PEM client certificate (with KeyFile)
	KeyFile    string // PEM client private key
	ServerName string // name to verify in the broker's certificate (default: the URL host)
}

func (t TLSOptions) enabled() bool {
	return t.CAFile != "" || t.CertFile != "" || t.KeyFile != "" || t.ServerName != ""
}

// Command is a command received on <prefix>/cmd/<name>.
type Command struct {
	// Name is CmdAck, CmdVoid, CmdNewShoe, CmdBetsOpen, CmdBetsClosed or
	// CmdDealer.
	Name      string `json:"-"`
	RequestID string `json:"request_id"`
	Operator  string `json:"operator"`
	// Table, if given by the sender, must equal Options.Table.
	Table string `json:"table,omitempty"`
	// Dealer is CmdDealer's dealer: an id signing in
	// (tableau.ValidateDealerID) or "-" signing out; required for
	// CmdDealer, refused on the other commands.
	Dealer string `json:"dealer,omitempty"`
	// Received is when the daemon received the command.
	Received time.Time `json:"-"`
}

// BacklogAlert reports the outbox crossing BacklogAlertFraction of its
// limit (Raised) or falling back below 7/8 of that level (not Raised).
type BacklogAlert struct {
	Queued, Max int
	Raised      bool   // true when crossing upwards, false when cleared
	Text        string // a human description, for the alert's text
}

// Options configures a Publisher. Table and StateDir are required; every
// other zero field takes the default named beside it.
type Options struct {
	// Table names the table: letters, digits, '-' and '_' (TableProblem).
	// It is part of topics, ids and the client id.
	Table string
	// TopicPrefix is the first topic level (default "sabot"): topics are
	// <TopicPrefix>/<Table>/<suffix>.
	TopicPrefix string
	// Brokers lists broker URLs tried in order (failover): tcp://host:port,
	// ssl://host:port (TLS; also tls://, mqtts://), ws://host:port/path,
	// wss://. Empty: no broker; the caller should start an EmbeddedBroker.
	Brokers []string
	// ClientID defaults to "sabotd-<Table>".
	ClientID string
	// Username for the broker; the password comes from Password,
	// PasswordFile (first line) or the environment variable PasswordEnv,
	// in that order. The password is never logged.
	Username     string
	Password     string
	PasswordFile string
	PasswordEnv  string
	TLS          TLSOptions

	KeepAlive      time.Duration // default DefaultKeepAlive
	ConnectTimeout time.Duration // per broker attempt; default DefaultConnectTimeout
	ReconnectMin   time.Duration // first retry delay; default DefaultReconnectMin
	ReconnectMax   time.Duration // backoff cap; default DefaultReconnectMax
	// AckTimeout is how long a PUBACK may take; a timeout counts as "not
	// delivered" and the message is sent again. Default DefaultAckTimeout.
	AckTimeout time.Duration
	// Window is how many messages may await PUBACK at once (default
	// DefaultWindow).
	Window int
	// RefusalTimeout is how long the broker of a connection may refuse
	// the command subscription (a SUBACK failure, or no SUBACK) or leave
	// the messages published to it without a PUBACK (none arriving while
	// some await one) before the publisher disconnects and connects to
	// the next broker of Brokers first (default DefaultRefusalTimeout).
	// With a single broker it keeps asking on the same connection: one
	// that refuses for ever has an ACL problem. Nothing is lost either
	// way: a message leaves the outbox only once a broker acknowledged it.
	RefusalTimeout time.Duration

	// StateDir holds the outbox database (OutboxFile). Created if missing;
	// unwritable is an error from New.
	StateDir string
	// MaxBacklog is the outbox limit in messages (default DefaultMaxBacklog).
	MaxBacklog int
	// OnBacklog, if set, is called when the backlog crosses
	// BacklogAlertFraction of MaxBacklog (Raised) and when it falls back
	// below 7/8 of that level (not Raised); also from Start when the outbox
	// left by a previous run is above that level. The publisher raises no
	// alert itself: the daemon turns Raised into a tableau.InputBacklog, so
	// that its table raises the outbox-backlog alert (journaled, latched,
	// displayed, published with a stable id). It is called synchronously from
	// Publish or from the delivery goroutine, so it must not block nor call
	// Publish: hand the event to the daemon's loop (a buffered channel).
	OnBacklog func(BacklogAlert)
	// OnAck, if set, is called from the delivery goroutine for every
	// outbox message once the broker has acknowledged it (PUBACK), in
	// order, with its topic (without the prefix, e.g. TopicCard) and
	// payload. It must not block nor keep payload; the daemon uses it for
	// the card → broker-acknowledged latency metric. Messages acknowledged
	// before a crash and resent after it are reported again.
	OnAck func(topic string, payload []byte)
	// OnTakeover, if set, is called from the connection goroutine when
	// another daemon publishes as this table (see Takeover), once per
	// episode (again only after a normal connection in between). The daemon
	// turns it into the session-takeover alert. It may block briefly (it
	// delays the next probe), and must not call Close.
	OnTakeover func(Takeover)
	// TakeoverBackoff is how long the publisher stays away from the broker
	// once it has seen a takeover, before it looks again (default
	// DefaultTakeoverBackoff). The outbox keeps everything meanwhile.
	TakeoverBackoff time.Duration
	// NoTakeoverProbe skips the look before each connection (Takeover), for
	// a broker no other daemon can reach (sabotd's embedded broker on
	// loopback).
	NoTakeoverProbe bool

	// Version is the sabotd version published in the status payload.
	Version string
	// Software is the running binary's SHA-256 (hex) published in the
	// status payload; "" leaves it out.
	Software string
	// Rules are the table's house rules, published in the status payload
	// (StatusPayload.Rules); nil leaves them out.
	Rules *baccarat.Rules

	// Commands enables the command topics <prefix>/cmd/<name> for the
	// names CmdAck, CmdVoid, CmdNewShoe, CmdBetsOpen, CmdBetsClosed (off by
	// default).
	Commands bool
	// Operators, if not empty, is the list of operators whose commands are
	// accepted; others are rejected as unauthorised.
	Operators []string
	// OnCommand is called, one command at a time and never from the MQTT
	// client's own goroutine, for each valid command. The daemon journals it
	// as an audit record and carries it out; a non-nil error rejects it and
	// its text is the reply's reason.
	OnCommand func(Command) error
	// OnCommandRejected, if set, is called for each command rejected by
	// validation (for the audit journal).
	OnCommandRejected func(c Command, reason string)
	// OnUndeliverable, if set, is called (from the delivery goroutine; it
	// must not wait on the publisher) for each outbox message dropped
	// because no broker can ever take it: its topic relative to the table
	// prefix (at most 64 bytes), its payload's size and checkMessage's
	// error. The daemon journals an outbox-dropped event.
	OnUndeliverable func(topic string, size int, err error)

	// Logger receives connection and delivery logs (default: discard).
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func redactURLs(urls []string) []string {
	out := make([]string, len(urls))
	for i, s := range urls {
		if u, err := url.Parse(s); err == nil {
			s = u.Redacted()
		}
		out[i] = s
	}
	return out
}

// LogValue implements slog.LogValuer, so logging Options never shows the
// password.
func (o Options) LogValue() slog.Value {
	pw := ""
	if o.Password != "" {
		pw = "(set)"
	}
	return slog.GroupValue(
		slog.String("table", o.Table),
		slog.String("topic_prefix", o.TopicPrefix),
		slog.Any("brokers", redactURLs(o.Brokers)),
		slog.String("client_id", o.ClientID),
		slog.String("username", o.Username),
		slog.String("password", pw),
		slog.String("password_file", o.PasswordFile),
		slog.String("password_env", o.PasswordEnv),
		slog.String("state_dir", o.StateDir),
		slog.Bool("commands", o.Commands),
	)
}

// normalize validates o and fills defaults. It reads the password file and
// environment and builds the TLS configuration.
func (o *Options) normalize() (*tls.Config, error) {
	if why := TableProblem(o.Table); why != "" {
		return nil, fmt.Errorf("mqtt: table %q: %s", o.Table, why)
	}
	if o.TopicPrefix == "" {
		o.TopicPrefix = DefaultTopicPrefix
	}
	if why := TopicPrefixProblem(o.TopicPrefix); why != "" {
		return nil, fmt.Errorf("mqtt: topic_prefix %q: %s", o.TopicPrefix, why)
	}
	if o.ClientID == "" {
		o.ClientID = "sabotd-" + o.Table
	}
	positiveOr(&o.KeepAlive, DefaultKeepAlive)
	positiveOr(&o.ConnectTimeout, DefaultConnectTimeout)
	positiveOr(&o.ReconnectMin, DefaultReconnectMin)
	positiveOr(&o.ReconnectMax, DefaultReconnectMax)
	if o.ReconnectMax < o.ReconnectMin {
		o.ReconnectMax = o.ReconnectMin
	}
	positiveOr(&o.AckTimeout, DefaultAckTimeout)
	positiveOr(&o.Window, DefaultWindow)
	positiveOr(&o.RefusalTimeout, DefaultRefusalTimeout)
	positiveOr(&o.TakeoverBackoff, DefaultTakeoverBackoff)
	positiveOr(&o.MaxBacklog, DefaultMaxBacklog)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	tlsNeeded := false
	for _, b := range o.Brokers {
		u, err := url.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("mqtt: broker URL %q: %w", b, err)
		}
		switch u.Scheme {
		case "tcp", "mqtt", "ws":
		case "ssl", "tls", "mqtts", "tcps", "wss":
			tlsNeeded = true
		default:
			return nil, fmt.Errorf("mqtt: broker URL %q: scheme %q not supported (tcp, ssl, ws, wss)", b, u.Scheme)
		}
		if u.Host == "" {
			return nil, fmt.Errorf("mqtt: broker URL %q: no host", b)
		}
	}
	if o.Password == "" && o.PasswordFile != "" {
		b, err := os.ReadFile(o.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("mqtt: password_file: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		o.Password = strings.TrimRight(line, "\r")
		if o.Password == "" {
			return nil, fmt.Errorf("mqtt: password_file %s: first line is empty", o.PasswordFile)
		}
	}
	if o.Password == "" && o.PasswordEnv != "" {
		v, ok := os.LookupEnv(o.PasswordEnv)
		if !ok || v == "" {
			return nil, fmt.Errorf("mqtt: password_env: environment variable %s is not set", o.PasswordEnv)
		}
		o.Password = v
	}
	if o.Password != "" && o.Username == "" {
		return nil, errors.New("mqtt: a password is set but no username")
	}
	if !tlsNeeded && !o.TLS.enabled() {
		return nil, nil
	}
	return o.TLS.config()
}

// positiveOr sets *v to d when *v is zero or negative (an option left
// unset).
func positiveOr[T int | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

func (t TLSOptions) config() (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("mqtt: tls_ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("mqtt: tls_ca %s: no PEM certificate found", t.CAFile)
		}
		c.RootCAs = pool
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return nil, errors.New("mqtt: tls_cert and tls_key must be given together")
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("mqtt: tls_cert %s / tls_key %s: %w", t.CertFile, t.KeyFile, err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}
