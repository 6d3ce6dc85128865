package main

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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/mqtt"
)

// pitTopics are the topics the console subscribes to under every table
// (<prefix>/+/<topic>), all at QoS 1.
var pitTopics = []string{
	mqtt.TopicStatus, mqtt.TopicState, mqtt.TopicRoads, mqtt.TopicAlert, mqtt.TopicAlertAck,
	mqtt.TopicCoup, mqtt.TopicVoid, mqtt.TopicCmd + "/" + mqtt.CmdAck + "/reply",
}

// pitBrokerOptions configures the console's MQTT client.
type pitBrokerOptions struct {
	// Brokers are tried in order (failover): tcp://, ssl://, ws://, wss://.
	Brokers []string
	// ClientID: "" makes "sabot-pit-<8 random hex>". The console uses a
	// clean session: on every (re)connection the retained status, state
	// and roads of every table come again, and the open alerts with them.
	ClientID string
	// Prefix is the topic prefix ("sabot").
	Prefix             string
	Username, Password string
	TLS                *tls.Config
	Logger             *slog.Logger
	// ConnectTimeout bounds one connection attempt (default 10 s).
	ConnectTimeout time.Duration
}

// pitSubscriber is the console's MQTT client.
type pitSubscriber struct {
	model  *pitModel
	client paho.Client
	prefix string
	log    *slog.Logger
	id     string // request id prefix: "pit-<random>"
	reqN   atomic.Uint64

	mu         sync.Mutex
	connected  bool
	attempting string // the broker of the last connection attempt
	broker     string // the broker connected to, "" when not
}

// pitAckTimeout is how long publishing a command waits for the broker's
// PUBACK.
const pitAckTimeout = 5 * time.Second

// newPitSubscriber makes the client and starts connecting in the
// background (retrying forever; Close stops it).
func newPitSubscriber(o pitBrokerOptions, model *pitModel) (*pitSubscriber, error) {
	if len(o.Brokers) == 0 {
		return nil, errors.New("pit: no --broker given")
	}
	for _, b := range o.Brokers {
		u, err := url.Parse(b)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("pit: --broker %q: not a broker URL (tcp://host:1883, ssl://host:8883, ws://host/mqtt)", b)
		}
		switch u.Scheme {
		case "tcp", "ssl", "tls", "ws", "wss", "mqtt", "mqtts":
		default:
			return nil, fmt.Errorf("pit: --broker %q: scheme %q not supported (tcp, ssl, ws, wss)", b, u.Scheme)
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
	rnd := make([]byte, 4)
	rand.Read(rnd)
	s := &pitSubscriber{model: model, prefix: o.Prefix, log: o.Logger, id: "pit-" + hex.EncodeToString(rnd)}
	if o.ClientID == "" {
		o.ClientID = "sabot-" + s.id
	}
	co := paho.NewClientOptions()
	for _, b := range o.Brokers {
		co.AddBroker(b)
	}
	co.SetClientID(o.ClientID).SetCleanSession(true).SetOrderMatters(true).
		SetKeepAlive(30 * time.Second).SetConnectTimeout(o.ConnectTimeout).
		SetAutoReconnect(true).SetConnectRetry(true).SetConnectRetryInterval(time.Second).
		SetMaxReconnectInterval(10 * time.Second).SetWriteTimeout(pitAckTimeout)
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
	co.SetConnectionLostHandler(func(_ paho.Client, err error) {
		s.mu.Lock()
		s.connected, s.broker = false, ""
		s.mu.Unlock()
		s.log.Warn("pit: lost the broker; reconnecting", "err", err)
		s.kick()
	})
	s.client = paho.NewClient(co)
	s.client.Connect() // retries in the background (SetConnectRetry)
	return s, nil
}

// redactURL drops a password from a broker URL for logs and the page.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// kick wakes the page's streams on a change of the broker link (the
// model's change channel carries tile changes; the link is not a tile).
func (s *pitSubscriber) kick() { s.model.Touch() }

func (s *pitSubscriber) onConnect(c paho.Client) {
	filters := make(map[string]byte, len(pitTopics))
	for _, t := range pitTopics {
		filters[s.prefix+"/+/"+t] = 1
	}
	tok := c.SubscribeMultiple(filters, s.receive)
	go func() {
		if !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
			s.log.Error("pit: subscribing failed; reconnecting", "err", tok.Error())
			// A connection without the subscriptions shows nothing:
			// drop it, the client reconnects and subscribes again.
			c.Disconnect(0)
			c.Connect()
			return
		}
		s.mu.Lock()
		s.connected, s.broker = true, s.attempting
		b := s.broker
		s.mu.Unlock()
		s.log.Info("pit: connected and subscribed", "broker", b)
		s.kick()
	}()
}

// receive is the message handler (called in order, one at a time).
func (s *pitSubscriber) receive(_ paho.Client, m paho.Message) {
	table, topic, ok := s.splitTopic(m.Topic())
	if !ok {
		return
	}
	s.model.Apply(table, topic, m.Payload())
}

// splitTopic splits "<prefix>/<table>/<topic>" into the table and the
// topic relative to the table prefix.
func (s *pitSubscriber) splitTopic(full string) (table, topic string, ok bool) {
	rest, ok := strings.CutPrefix(full, s.prefix+"/")
	if !ok {
		return "", "", false
	}
	table, topic, ok = strings.Cut(rest, "/")
	return table, topic, ok && validTableName(table)
}

// Link reports whether the console is connected (and subscribed) and to
// which broker.
func (s *pitSubscriber) Link() (connected bool, broker string) {
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
func (s *pitSubscriber) Ack(ctx context.Context, table, operator string) (string, error) {
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
	tok := s.client.Publish(s.prefix+"/"+table+"/"+mqtt.TopicCmd+"/"+mqtt.CmdAck, 1, false, b)
	select {
	case <-tok.Done():
	case <-time.After(pitAckTimeout):
	case <-ctx.Done():
	}
	if err := tok.Error(); err != nil || !isDone(tok) {
		if err == nil {
			err = errors.New("the broker did not acknowledge it in time")
		}
		s.model.AckFailed(table, id, "not sent: "+err.Error())
		return id, fmt.Errorf("pit: publishing the ack command to %s: %w", table, err)
	}
	return id, nil
}

func isDone(t paho.Token) bool {
	select {
	case <-t.Done():
		return true
	default:
		return false
	}
}

// Close disconnects.
func (s *pitSubscriber) Close() { s.client.Disconnect(250) }
