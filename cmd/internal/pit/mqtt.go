package pit

// The pit console's MQTT side: one client subscribed to every table's
// messages (drivers/mqtt/README.md is the contract), feeding the model,
// and publishing the ack command for a supervisor.

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/cmd/internal/mqttclient"
	"github.com/sabot-table/sabot/drivers/mqtt"
)

// pitTopics are the topics the console subscribes to under every table
// (<prefix>/+/<topic>), all at QoS 1, each with what the model does with a
// message on it (Model.Apply).
var pitTopics = []struct {
	topic string
	apply func(m *Model, t *pitTable, payload []byte) bool
}{
	{mqtt.TopicStatus, (*Model).applyStatus},
	{mqtt.TopicState, (*Model).applyState},
	{mqtt.TopicRoads, (*Model).applyRoads},
	{mqtt.TopicAlert, (*Model).applyAlert},
	{mqtt.TopicAlertAck, (*Model).applyAck},
	{mqtt.TopicCoup, (*Model).applyCoup},
	{mqtt.TopicVoid, (*Model).applyVoid},
	{mqtt.TopicCmd + "/" + mqtt.CmdAck + "/reply", (*Model).applyReply},
}

// BrokerOptions configures the console's MQTT client.
type BrokerOptions struct {
	// Brokers are tried in order (failover): tcp://, ssl://, ws://, wss://.
	Brokers []string
	// ClientID: "" makes "sabot-pit-<8 random hex>". The console uses a
	// clean session: on every (re)connection the retained status, state
	// and roads of every table come again, and the open alerts with them.
	ClientID string
	// Prefix is the topic prefix ("sabot").
	Prefix string
	// Username and Password are the MQTT credentials ("": none).
	Username, Password string
	// TLS is the configuration for ssl:// and wss:// brokers (nil: the
	// defaults).
	TLS *tls.Config
	// Logger receives the client's log (nil: discarded).
	Logger *slog.Logger
	// ConnectTimeout bounds one connection attempt (default 10 s).
	ConnectTimeout time.Duration
	// RefusalTimeout is how long a broker may grant none of the filters
	// asked for (refusing them all, or leaving the SUBSCRIBE unanswered)
	// while an essential one (pitEssential) is missing, before the
	// console disconnects and connects to the next of Brokers first
	// (default mqtt.DefaultRefusalTimeout). It doubles for each broker
	// left in a row without a link, up to pitSubscribeWait (60 s), and
	// is itself again once one links. A broker that grants some is slow,
	// not refusing, and is kept. A single broker is never left: the
	// refused filters are asked for again on the connection.
	RefusalTimeout time.Duration
}

// Subscriber is the console's MQTT client.
type Subscriber struct {
	model  *Model
	prefix string
	log    *slog.Logger
	id     string // request id prefix: "pit-<random>"
	reqN   atomic.Uint64

	done chan struct{} // closed by Close
	opts BrokerOptions

	mu         sync.Mutex
	gen        int // connections made (onConnect)
	conns      int // clients made (newClient)
	first      int // the index in Brokers the next client tries first
	client     paho.Client
	connected  bool
	attempting string // the broker of the last connection attempt
	broker     string // the broker connected to, "" when not
	leftInARow int    // brokers left for refusing since the last link
}

// pitAckTimeout is how long publishing a command waits for the broker's
// PUBACK.
const pitAckTimeout = 5 * time.Second

// NewSubscriber makes the client and starts connecting in the
// background (retrying forever; Close stops it).
func NewSubscriber(o BrokerOptions, model *Model) (*Subscriber, error) {
	if len(o.Brokers) == 0 {
		return nil, errors.New("pit: no --broker given")
	}
	for _, b := range o.Brokers {
		if why := mqtt.BrokerURLProblem(b); why != "" {
			return nil, fmt.Errorf("pit: --broker %q: %s", b, why)
		}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Prefix == "" {
		o.Prefix = mqtt.DefaultTopicPrefix
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.RefusalTimeout <= 0 {
		o.RefusalTimeout = mqtt.DefaultRefusalTimeout
	}
	rnd := make([]byte, 4)
	rand.Read(rnd)
	s := &Subscriber{model: model, prefix: o.Prefix, log: o.Logger, id: "pit-" + hex.EncodeToString(rnd),
		done: make(chan struct{})}
	if o.ClientID == "" {
		o.ClientID = "sabot-" + s.id
	}
	s.opts = o
	if bad := mqttclient.Unreachable(o.Brokers, 2*time.Second); len(bad) > 0 {
		s.log.Warn("pit: broker not answering; retrying in the background", "brokers", strings.Join(bad, "; "))
	}
	s.client = s.newClient()
	s.client.Connect() // retries in the background (SetConnectRetry)
	return s, nil
}

// newClient makes the client of the next connection. Each connection has
// a client id of its own (<ClientID>-<n> after the first): with a clean
// session nothing is lost by it, and NATS Server, which keeps a clean
// session's JetStream consumers under the client id until it has removed
// them, refused some subscriptions of a reconnection under the same id
// for a minute after a node's death (TestPitBrowserNATS). The brokers
// are tried from s.first on. Call with mu held or before the subscriber is
// shared.
func (s *Subscriber) newClient() paho.Client {
	o := s.opts
	id := o.ClientID
	if s.conns > 0 {
		id += "-" + strconv.Itoa(s.conns)
	}
	s.conns++
	co := paho.NewClientOptions()
	for i := range o.Brokers {
		co.AddBroker(o.Brokers[(s.first+i)%len(o.Brokers)])
	}
	co.SetClientID(id).SetCleanSession(true).SetOrderMatters(true).
		SetKeepAlive(30 * time.Second).SetConnectTimeout(o.ConnectTimeout).
		SetAutoReconnect(false).SetConnectRetry(true).SetConnectRetryInterval(time.Second).
		SetWriteTimeout(pitAckTimeout)
	if o.Username != "" {
		co.SetUsername(o.Username).SetPassword(o.Password)
	}
	if o.TLS != nil {
		co.SetTLSConfig(o.TLS)
	}
	co.SetConnectionAttemptHandler(func(u *url.URL, c *tls.Config) *tls.Config {
		s.mu.Lock()
		s.attempting = redactURL(u)
		s.mu.Unlock()
		return c
	})
	co.SetOnConnectHandler(s.onConnect)
	co.SetConnectionLostHandler(func(c paho.Client, err error) {
		s.mu.Lock()
		b := s.broker
		s.connected, s.broker = false, ""
		s.mu.Unlock()
		s.log.Warn("pit: lost the broker; reconnecting", "err", err)
		s.kick()
		go s.reconnect(c, b)
	})
	return paho.NewClient(co)
}

// reconnect replaces the client c, lost or left, with a new one, which
// connects (and retries) in the background, trying the broker after
// broker first (the one c was connected to: it may be gone, or refuse).
// It does nothing if c is no longer the console's client.
func (s *Subscriber) reconnect(c paho.Client, broker string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		return // Close, under mu after done, disconnects the client it finds
	default:
	}
	if s.client != c {
		return // replaced already
	}
	for i, u := range s.opts.Brokers {
		if p, err := url.Parse(u); err == nil && redactURL(p) == broker {
			s.first = (i + 1) % len(s.opts.Brokers)
		}
	}
	s.client = s.newClient()
	s.client.Connect() // returns at once: connects in the background
}

// redactURL drops a password from a broker URL for logs and the page.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// kick wakes the page's streams on a change of the broker link (the
// model's change channel carries tile changes; the link is not a tile).
func (s *Subscriber) kick() { s.model.Touch() }

// Subscription retries: filters the broker refuses (SUBACK 0x80: an ACL;
// NATS Server while its JetStream elects new leaders after a node's
// death) or does not answer within pitSubscribeWait are asked for again
// after pitSubscribeRetryMin, doubling up to pitSubscribeRetryMax while
// the broker grants none (back to pitSubscribeRetryMin when it grants
// some: a loaded NATS node grants a few at a time), as long as the
// connection lasts: with several brokers, until a broker that
// has granted none of them for RefusalTimeout, while an essential one is
// missing, is left for the next. The wait is long: NATS Server answers a
// SUBSCRIBE once it has made a JetStream consumer for each filter, and
// gives up on one after 4 s while it recovers from a node's death, so
// the console's 8 filters may take 32 s (up to 26 s measured under
// load); asking again sooner only queues more work on a node that is
// slow, not gone.
const (
	pitSubscribeWait     = 60 * time.Second
	pitSubscribeRetryMin = time.Second
	pitSubscribeRetryMax = 30 * time.Second
)

func (s *Subscriber) onConnect(c paho.Client) {
	pending := make(map[string]byte, len(pitTopics))
	for _, t := range pitTopics {
		pending[s.prefix+"/+/"+t.topic] = 1
	}
	s.mu.Lock()
	s.gen++
	gen := s.gen
	b := s.attempting
	s.mu.Unlock()
	s.log.Info("pit: connected; subscribing", "broker", b)
	// This connection's: a later connection (gen) subscribes itself.
	current := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.gen == gen && c.IsConnectionOpen()
	}
	go func() {
		delay := pitSubscribeRetryMin
		linked := false
		// Since when the broker has granted nothing asked for: the request
		// of the first answer that refused every filter asked for, or that
		// did not come within pitSubscribeWait; zero while the broker
		// grants some (it is slow, not refusing: a connection left would
		// have to ask for every filter again). With several brokers a
		// connection not linked is left when an answer (or its absence)
		// still grants nothing RefusalTimeout after that.
		var refusing time.Time
		bounded := len(s.opts.Brokers) > 1
		leave := func() {
			if !current() {
				return
			}
			names := make([]string, 0, len(pending))
			for f := range pending {
				names = append(names, f)
			}
			sort.Strings(names)
			s.log.Warn("pit: the broker refuses subscriptions; moving to the next broker", "broker", b,
				"for", time.Since(refusing).Round(time.Millisecond), "topics", names)
			// Ended before the next connection begins; the lost handler
			// does not run for it.
			c.Disconnect(250)
			s.reconnect(c, b)
		}
		// The bound of this connection: RefusalTimeout, doubled for each
		// broker left in a row without a link (up to pitSubscribeWait), so
		// that a floor whose every node is slow still links to one.
		s.mu.Lock()
		bound := mqttclient.RefusalBound(s.opts.RefusalTimeout, s.leftInARow, pitSubscribeWait)
		s.mu.Unlock()
		for {
			asked := time.Now()
			tok := c.SubscribeMultiple(pending, s.receive)
			// A SUBSCRIBE left unanswered counts as refused: with several
			// brokers a connection not linked stops waiting when the bound
			// is reached (a NATS node recovering from another's death
			// took 18 s to answer under load, run 10) and leaves.
			select {
			case <-tok.Done():
			case <-time.After(mqttclient.AnswerWait(pitSubscribeWait, bounded && !linked, refusing, asked, bound)):
			case <-s.done:
				return
			}
			if err := tok.Error(); err != nil || !mqtt.TokenDone(tok) {
				s.log.Warn("pit: subscribing: no answer from the broker; will retry", "broker", b, "err", err)
				if refusing.IsZero() {
					refusing = asked
				}
			} else {
				refused := mqttclient.Refused(tok, pending) // QoS 1, as all of pending
				if len(refused) < len(pending) {
					// Progress: ask for the rest again soon.
					refusing, delay = time.Time{}, pitSubscribeRetryMin
				} else if refusing.IsZero() {
					refusing = asked
				}
				if !linked && !s.essentialIn(refused) {
					// The tiles are right from here (status, state,
					// alerts); coups and voids only add the last result's
					// totals sooner.
					if !current() {
						return
					}
					linked = true
					s.mu.Lock()
					s.connected, s.broker, s.leftInARow = true, b, 0
					s.mu.Unlock()
					s.log.Info("pit: connected and subscribed", "broker", b)
					s.kick()
				}
				if len(refused) == 0 {
					return
				}
				names := make([]string, 0, len(refused))
				for f := range refused {
					names = append(names, f)
				}
				sort.Strings(names)
				s.log.Warn("pit: the broker refused subscriptions; will retry", "broker", b, "topics", names)
				pending = refused
			}
			if bounded && !linked && !refusing.IsZero() && time.Since(refusing) >= bound {
				s.mu.Lock()
				s.leftInARow++
				s.mu.Unlock()
				leave()
				return
			}
			select {
			case <-time.After(delay):
			case <-s.done:
				return
			}
			if !current() {
				return
			}
			delay = min(delay*2, pitSubscribeRetryMax)
		}
	}()
}

// pitEssential are the topics without which a tile can be wrong: the
// console is connected (the page's lamp) once they are subscribed.
var pitEssential = []string{mqtt.TopicStatus, mqtt.TopicState, mqtt.TopicAlert, mqtt.TopicAlertAck,
	mqtt.TopicCmd + "/" + mqtt.CmdAck + "/reply"}

// essentialIn reports whether filters hold an essential topic's filter.
func (s *Subscriber) essentialIn(filters map[string]byte) bool {
	for _, t := range pitEssential {
		if _, ok := filters[s.prefix+"/+/"+t]; ok {
			return true
		}
	}
	return false
}

// receive is the message handler (called in order, one at a time).
func (s *Subscriber) receive(_ paho.Client, m paho.Message) {
	table, topic, ok := s.splitTopic(m.Topic())
	if !ok {
		return
	}
	s.model.Apply(table, topic, m.Payload())
}

// splitTopic splits "<prefix>/<table>/<topic>" into the table and the
// topic relative to the table prefix.
func (s *Subscriber) splitTopic(full string) (table, topic string, ok bool) {
	rest, ok := strings.CutPrefix(full, s.prefix+"/")
	if !ok {
		return "", "", false
	}
	table, topic, ok = strings.Cut(rest, "/")
	return table, topic, ok && validTableName(table)
}

// Link reports whether the console is connected (and subscribed) and to
// which broker.
func (s *Subscriber) Link() (connected bool, broker string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connected, s.broker
}

// errPitNotConnected: the console has no broker to publish to.
var errPitNotConnected = errors.New("pit: not connected to a broker")

// Ack publishes the ack command to table with operator as the operator
// (drivers/mqtt/README.md "Commands"): QoS 1, not retained. It returns
// the request id once the broker has the command; the table's reply
// reaches the model.
func (s *Subscriber) Ack(ctx context.Context, table, operator string) (string, error) {
	if !validTableName(table) {
		return "", fmt.Errorf("pit: table %q: not a table name", table)
	}
	if !s.model.Has(table) {
		return "", fmt.Errorf("pit: table %q: not a table the console knows", table)
	}
	if c, _ := s.Link(); !c {
		return "", errPitNotConnected
	}
	id := s.id + "-" + strconv.FormatUint(s.reqN.Add(1), 10)
	cmd := mqtt.Command{RequestID: id, Operator: operator, Table: table}
	b, err := json.Marshal(cmd)
	if err != nil {
		return "", fmt.Errorf("pit: %w", err)
	}
	s.model.AckSent(table, id, operator)
	s.mu.Lock()
	client := s.client
	s.mu.Unlock()
	tok := client.Publish(s.prefix+"/"+table+"/"+mqtt.TopicCmd+"/"+mqtt.CmdAck, 1, false, b)
	select {
	case <-tok.Done():
	case <-time.After(pitAckTimeout):
	case <-ctx.Done():
	}
	if err := tok.Error(); err != nil || !mqtt.TokenDone(tok) {
		if err == nil {
			err = errors.New("the broker did not acknowledge it in time")
		}
		s.model.AckFailed(table, id, "not sent: "+err.Error())
		return id, fmt.Errorf("pit: publishing the ack command to %s: %w", table, err)
	}
	return id, nil
}

// Close disconnects.
func (s *Subscriber) Close() {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	c.Disconnect(250)
}
