package mqtt

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	paho "github.com/eclipse/paho.mqtt.golang"
	"golang.org/x/time/rate"

	"github.com/sabot-table/sabot/drivers/internal/ctxsleep"
)

// Publisher publishes a table's messages through the durable outbox: every
// message is fsynced to the outbox before it is handed to the MQTT client
// and removed only when the broker has acknowledged it (PUBACK). On connect
// (and after a restart on the same state directory) the backlog goes first,
// in order, then live messages. Delivery is at least once: consumers discard
// duplicates by Envelope.ID.
//
// The zero value is not usable; call New, then Start, and Close at the end.
// Methods are safe for concurrent use.
type Publisher struct {
	opts   Options
	prefix string // <TopicPrefix>/<Table>
	tls    *tls.Config
	box    *outbox
	bootID string
	// brokersLog is Brokers with any password in a URL redacted.
	brokersLog []string
	// rules is Options.Rules as the status publishes them (nil: none).
	rules *RulesStatus

	notify chan struct{}     // cap 1: new message queued or connected
	cmds   chan paho.Message // commands waiting for commandLoop; cap cmdQueue
	busy   chan string       // names of commands refused as busy, to reply to; cap cmdQueue
	cancel context.CancelFunc
	wg     sync.WaitGroup

	statusMu sync.Mutex // publishStatus: one status at a time

	mu        sync.Mutex
	cur       paho.Client // nil when not connected
	refused   *refusal    // what cur's broker refuses
	broker    string      // broker of cur (or last attempted)
	lastErr   error
	attempts  int
	shoeID    string
	shoeState string
	head      *JournalHead // SetJournalHead; nil before the first
	statusN   int
	conn      uint64 // the current (or last attempted) connection's number
	// first is the index in Brokers tried first: the one after the broker
	// whose connection was lost last, so a node that went silent does not
	// cost a connect timeout at every reconnection.
	first        int
	takenOver    bool // a takeover was reported and no normal connection since
	backlogAlert bool
	started      bool
	closed       bool
	checking     string // the command topic heldRetained is asking about, "" when none
	retainUnsure bool   // heldRetained could not tell once (logged once)
	recentCmds   map[string]bool
	recentOrder  []string
	cmdsDropped  int // commands dropped unanswered: both command queues full
	cmdsRefused  int // commands refused (validation), recorded or not
	cmdsQuiet    int // ... of which beyond the refusal rate: only counted
	quietSince   int // ... since the last recorded refusal
	rejectLimit  *rate.Limiter
	undelivered  int // outbox messages dropped as undeliverable (checkMessage)
	// waitSince is since when messages have awaited a PUBACK with none
	// coming (zero when none awaits one), across reconnections.
	waitSince time.Time

	// acked holds acknowledged messages not yet removed from the outbox
	// (owned by the sendLoop goroutine).
	acked    map[uint64]bool
	ackedMax uint64 // the highest seq in acked
}

// Status is a snapshot of the publisher's state, for health checks.
type Status struct {
	Connected bool
	// Broker is the broker connected to (or last tried).
	Broker string
	// LastError is the last connection or delivery error ("" if none since
	// the last successful connect).
	LastError string
	// ConnectAttempts counts failed connection attempts since the last
	// successful connect.
	ConnectAttempts int
	// Backlog is the number of messages awaiting PUBACK; MaxBacklog its limit.
	Backlog, MaxBacklog int
	// CommandsDropped counts commands dropped without a reply because the
	// command queue and the busy-reply queue were both full (a flood).
	CommandsDropped int
	// CommandsRefused counts commands refused (bad topic level, bad
	// payload, a reply, ...); CommandsRefusedQuietly those of them beyond
	// the refusal rate (5 a second, bursts of 20), refused with neither a
	// record, a log line nor a reply.
	CommandsRefused, CommandsRefusedQuietly int
	// Undeliverable counts outbox messages dropped because no broker can
	// ever take them (checkMessage: a topic over MaxTopic, a payload over
	// its limit), each reported to Options.OnUndeliverable.
	Undeliverable int
	// AckWait is how long messages have awaited a PUBACK with none coming,
	// across reconnections (0 when none awaits one): a broker that is
	// connected but takes nothing (frozen, refusing) shows here.
	AckWait time.Duration
	// TakenOver: another daemon publishes as this table, and this one
	// stays off the broker (Takeover); false again once connected.
	TakenOver bool
}

// New validates opts, reads the password, loads TLS files and opens the
// outbox in opts.StateDir. It does not connect: Start does, in the
// background. Errors name the offending option or path.
func New(opts Options) (*Publisher, error) {
	tlsConf, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	if opts.StateDir == "" {
		return nil, errors.New("mqtt: state directory not set (Options.StateDir)")
	}
	box, err := openOutbox(opts.StateDir, opts.MaxBacklog)
	if err != nil {
		return nil, err
	}
	p := &Publisher{
		opts:        opts,
		prefix:      opts.TopicPrefix + "/" + opts.Table,
		tls:         tlsConf,
		box:         box,
		bootID:      strconv.FormatInt(opts.Now().UnixNano(), 36),
		notify:      make(chan struct{}, 1),
		cmds:        make(chan paho.Message, cmdQueue),
		busy:        make(chan string, cmdQueue),
		recentCmds:  map[string]bool{},
		acked:       map[uint64]bool{},
		rejectLimit: rate.NewLimiter(rejectRate, rejectBurst),
	}
	p.brokersLog = redactURLs(opts.Brokers)
	if opts.Rules != nil {
		p.rules = NewRulesStatus(*opts.Rules)
	}
	box.onAppend = p.signal
	return p, nil
}

// Start connects in the background (retrying with capped backoff for as long
// as it takes; the daemon works meanwhile) and starts delivering the
// backlog. With no broker configured it only queues. Start returns at once.
func (p *Publisher) Start(ctx context.Context) {
	p.mu.Lock()
	if p.started || p.closed {
		p.mu.Unlock()
		return
	}
	p.started = true
	ctx, p.cancel = context.WithCancel(ctx)
	p.mu.Unlock()
	if n := p.box.Len(); n > 0 {
		p.opts.Logger.Info("mqtt: outbox backlog from a previous run", "messages", n, "path", p.box.path)
	}
	// A backlog above the alert level from a previous run: tell the daemon
	// again (its table decides whether the alert is still latched), and
	// clear it later.
	p.checkBacklog()
	if len(p.opts.Brokers) > 0 {
		p.wg.Add(2)
		go p.connLoop(ctx)
		go p.sendLoop(ctx)
	}
	if p.opts.Commands {
		p.wg.Add(1)
		go p.commandLoop(ctx)
	}
}

// Publish stores msgs durably in the outbox, in order, and returns once they
// are fsynced (one fsync for all messages published at the same moment). The
// messages are then delivered in the background. It fails with
// ErrBacklogFull when the outbox is full (nothing stored; the caller keeps
// the events in its journal), or if a message is invalid (topic empty or with
// wildcards, payload of PayloadLimit(topic) bytes or more).
func (p *Publisher) Publish(ctx context.Context, msgs ...Message) error {
	for _, m := range msgs {
		if err := checkMessage(m); err != nil {
			return err
		}
	}
	if err := p.box.append(ctx, msgs, false); err != nil {
		if errors.Is(err, ErrBacklogFull) {
			p.opts.Logger.Error("mqtt: outbox full, message not queued", "err", err)
		}
		return err
	}
	p.checkBacklog()
	return nil
}

// MaxTopic is the longest topic a message may have, relative to the table
// prefix, in bytes. Sabot's own are under 32; MQTT allows 65,535 for the
// whole topic, and a longer one is cut by the client library, not refused.
const MaxTopic = 256

// checkMessage says why m can never be published ("mqtt: " and the topic,
// at most its first 64 bytes): an empty, absolute or over-long topic
// (MaxTopic), one that is not UTF-8 or holds a wildcard or NUL, or a
// payload at or over PayloadLimit.
func checkMessage(m Message) error {
	if m.Topic == "" || len(m.Topic) > MaxTopic || !utf8.ValidString(m.Topic) || strings.ContainsAny(m.Topic, "+#\x00") || strings.HasPrefix(m.Topic, "/") {
		return fmt.Errorf("mqtt: message topic %q (%d bytes): want a non-empty relative UTF-8 topic of at most %d bytes without wildcards or NUL", truncateUTF8(m.Topic, 64), len(m.Topic), MaxTopic)
	}
	if limit := PayloadLimit(m.Topic); len(m.Payload) >= limit {
		return fmt.Errorf("mqtt: %s payload is %d bytes, limit %d", m.Topic, len(m.Payload), limit)
	}
	return nil
}

// checkBacklog reports the outbox crossing the alert level
// (BacklogAlertFraction of MaxBacklog) upwards, and falling back below 7/8
// of it, to Options.OnBacklog. The publisher raises no alert of its own: the
// daemon's table does (tableau.InputBacklog), so the alert is journaled,
// latched, displayed and published like every other.
func (p *Publisher) checkBacklog() {
	n := p.box.Len()
	limit := int(float64(p.opts.MaxBacklog) * BacklogAlertFraction)
	p.mu.Lock()
	raise := !p.backlogAlert && n >= limit
	clear := p.backlogAlert && n < limit*7/8
	if raise {
		p.backlogAlert = true
	}
	if clear {
		p.backlogAlert = false
	}
	p.mu.Unlock()
	switch {
	case clear:
		p.opts.Logger.Info("mqtt: outbox backlog back below the alert level", "queued", n, "max", p.opts.MaxBacklog)
		if p.opts.OnBacklog != nil {
			p.opts.OnBacklog(BacklogAlert{Queued: n, Max: p.opts.MaxBacklog, Text: "MQTT outbox backlog back to normal"})
		}
	case raise:
		p.opts.Logger.Error("mqtt: outbox backlog above the alert level", "queued", n, "max", p.opts.MaxBacklog, "path", p.box.path)
		if p.opts.OnBacklog != nil {
			p.opts.OnBacklog(BacklogAlert{Queued: n, Max: p.opts.MaxBacklog, Raised: true,
				Text: fmt.Sprintf("MQTT outbox holds %d of at most %d undelivered messages; the broker has not acknowledged them. At the limit new messages are refused.", n, p.opts.MaxBacklog)})
		}
	}
}

// SetShoe records the current shoe id (used in status payloads) and the
// shoe driver's state ("online", "offline", "alarm"); when either changes
// and the publisher is connected, the retained status is published again.
func (p *Publisher) SetShoe(shoeID, state string) {
	p.mu.Lock()
	changed := p.shoeID != shoeID || p.shoeState != state
	p.shoeID, p.shoeState = shoeID, state
	c := p.cur
	p.mu.Unlock()
	if changed && c != nil {
		go p.publishStatus(context.Background(), c, StatusOnline, p.opts.AckTimeout)
	}
}

// SetJournalHead records the journal's hash-chain head for the status
// payload (and the last will of the next connection); when publish is set
// and the publisher is connected, the retained status is published again
// with it (sabotd does at each coup and significant event, not at every
// card: a retained message per card would double the broker's traffic).
func (p *Publisher) SetJournalHead(seq uint64, sha256Hex string, publish bool) {
	p.mu.Lock()
	p.head = &JournalHead{Seq: seq, SHA256: sha256Hex}
	c := p.cur
	p.mu.Unlock()
	if publish && c != nil {
		go p.publishStatus(context.Background(), c, StatusOnline, p.opts.AckTimeout)
	}
}

// Flush waits until the broker has acknowledged every queued message, or ctx
// ends (then it returns ctx's error wrapped, with the number left).
func (p *Publisher) Flush(ctx context.Context) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		n := p.box.Len()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("mqtt: flush: %d messages still queued: %w", n, ctx.Err())
		case <-t.C:
		}
	}
}

// Status returns a snapshot of the connection and the backlog.
func (p *Publisher) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Status{Connected: p.cur != nil, Broker: p.broker, ConnectAttempts: p.attempts, Backlog: p.box.Len(), MaxBacklog: p.opts.MaxBacklog,
		CommandsDropped: p.cmdsDropped, CommandsRefused: p.cmdsRefused, CommandsRefusedQuietly: p.cmdsQuiet,
		Undeliverable: p.undelivered, TakenOver: p.takenOver}
	if p.lastErr != nil {
		s.LastError = p.lastErr.Error()
	}
	if !p.waitSince.IsZero() {
		s.AckWait = p.opts.Now().Sub(p.waitSince)
	}
	return s
}

// Close stops the publisher cleanly: it waits (until ctx ends) for the
// backlog to be acknowledged, publishes the retained "offline" status,
// disconnects and closes the outbox. What is not acknowledged stays in the
// outbox for the next start.
func (p *Publisher) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	started := p.started
	p.mu.Unlock()
	var ferr error
	if started && len(p.opts.Brokers) > 0 {
		ferr = p.Flush(ctx)
	}
	if p.cancel != nil {
		p.cancel()
	}
	p.mu.Lock()
	c := p.cur
	p.cur = nil
	p.mu.Unlock()
	if c != nil {
		p.publishStatus(context.Background(), c, StatusOffline, min(p.opts.AckTimeout, time.Second))
		c.Disconnect(250)
	}
	p.wg.Wait()
	if err := p.box.close(); err != nil {
		return fmt.Errorf("mqtt: close outbox %s: %w", p.box.path, err)
	}
	if ferr != nil {
		p.opts.Logger.Warn("mqtt: stopped with undelivered messages kept in the outbox", "err", ferr)
	}
	return nil
}

func (p *Publisher) signal() {
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

// statusPayload builds a status payload of the current connection (Conn)
// and returns the shoe id and state it carries.
func (p *Publisher) statusPayload(status string) (payload []byte, shoeID, state string) {
	p.mu.Lock()
	p.statusN++
	n := p.statusN
	shoeID, state = p.shoeID, p.shoeState
	head := p.head
	conn := p.conn
	p.mu.Unlock()
	backlog := 0
	if status == StatusOnline {
		backlog = p.box.Len()
	}
	id := p.opts.Table + "/status/" + p.bootID + "/" + strconv.Itoa(n)
	m, _ := Encode(TopicStatus, true, StatusPayload{
		Envelope:       NewEnvelope(p.opts.Table, id, shoeID, p.opts.Now()),
		Status:         status,
		Version:        p.opts.Version,
		ShoeState:      state,
		SoftwareSHA256: p.opts.Software,
		JournalHead:    head,
		Conn:           conn,
		Instance:       p.box.instance,
		Backlog:        backlog,
		Rules:          p.rules,
	})
	return m.Payload, shoeID, state
}

// publishStatus publishes the retained status and waits for its PUBACK up
// to wait; failure is logged (the status is refreshed on the next
// connect) and returned. It returns the shoe id and state the status
// carried.
func (p *Publisher) publishStatus(ctx context.Context, c paho.Client, status string, wait time.Duration) (shoeID, state string, err error) {
	// Built and handed to the client under statusMu: statuses published
	// from several goroutines reach the broker in the order of their
	// numbers, so the retained one is the newest.
	p.statusMu.Lock()
	payload, shoeID, state := p.statusPayload(status)
	tok := c.Publish(p.prefix+"/"+TopicStatus, 1, true, payload)
	p.statusMu.Unlock()
	if err = waitToken(ctx, tok, wait); err != nil {
		p.opts.Logger.Warn("mqtt: status not acknowledged", "status", status, "err", err)
	}
	return shoeID, state, err
}

// errNoAck is a token that did not complete in time: not delivered.
var errNoAck = errors.New("mqtt: no answer from the broker in time")

// waitToken waits for tok up to d, or until ctx ends: never a bare Wait.
func waitToken(ctx context.Context, tok paho.Token, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-tok.Done():
		return tok.Error()
	case <-t.C:
		return fmt.Errorf("%w (%v)", errNoAck, d)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *Publisher) clientOptions(lost chan<- error) *paho.ClientOptions {
	o := paho.NewClientOptions()
	p.mu.Lock()
	first := p.first
	p.mu.Unlock()
	for i := range p.opts.Brokers {
		o.AddBroker(p.opts.Brokers[(first+i)%len(p.opts.Brokers)])
	}
	o.SetClientID(p.opts.ClientID)
	o.SetCleanSession(true) // the outbox, not the session, carries unacknowledged messages
	o.SetAutoReconnect(false)
	o.SetConnectRetry(false)
	// Handlers run in order on paho's goroutine; the command handler only
	// hands the message to a channel, so it never blocks the client.
	o.SetOrderMatters(true)
	o.SetKeepAlive(p.opts.KeepAlive)
	o.SetPingTimeout(min(p.opts.KeepAlive, 10*time.Second))
	o.SetConnectTimeout(p.opts.ConnectTimeout)
	o.SetWriteTimeout(p.opts.AckTimeout)
	if p.opts.Username != "" {
		o.SetUsername(p.opts.Username)
		o.SetPassword(p.opts.Password)
	}
	if p.tls != nil {
		o.SetTLSConfig(p.tls)
	}

	o.SetConnectionAttemptHandler(func(broker *url.URL, c *tls.Config) *tls.Config {
		p.mu.Lock()
		p.broker = broker.Redacted()
		p.mu.Unlock()
		return c
	})
	if lost == nil {
		return o // the takeover probe: no will, nobody to tell of a loss
	}
	// The will is the offline of this connection: same Conn as the online
	// published once connected (its Time is now, before that online's).
	will, _, _ := p.statusPayload(StatusOffline)
	o.SetBinaryWill(p.prefix+"/"+TopicStatus, will, 1, true)
	o.SetConnectionLostHandler(func(_ paho.Client, err error) {
		select {
		case lost <- err:
		default:
		}
	})
	return o
}

// refusal records what the broker of one connection refuses, and for how
// long: the command subscription (refused in its SUBACK, or not answered
// in AckTimeout) from the first refused request to the latest refusal,
// so that the broker's latest answer is a refusal; and PUBACKs (messages
// awaiting one, none arriving) until now. A zero time is no refusal.
// connLoop leaves a broker that refuses for RefusalTimeout.
type refusal struct {
	mu      sync.Mutex
	sub     time.Time // the first refused subscription's request, since when none was granted
	subLast time.Time // the latest refusal of it
	ack     time.Time // since when messages await a PUBACK and none came
}

// subscribed records the command subscription asked for at asked:
// granted (ok) or not, as known now.
func (r *refusal) subscribed(asked, now time.Time, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ok {
		r.sub, r.subLast = time.Time{}, time.Time{}
		return
	}
	if r.sub.IsZero() {
		r.sub = asked
	}
	r.subLast = now
}

// sent records a message handed to the client at now.
func (r *refusal) sent(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ack.IsZero() {
		r.ack = now
	}
}

// acked records a PUBACK at now; waiting tells whether other messages
// still await theirs.
func (r *refusal) acked(now time.Time, waiting bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ack = time.Time{}
	if waiting {
		r.ack = now
	}
}

// longest returns the refusal that has lasted longest at now (what is
// refused and for how long), or "" if the broker refuses nothing.
func (r *refusal) longest(now time.Time) (what string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.sub.IsZero() {
		what, d = "the command subscription", r.subLast.Sub(r.sub)
	}
	if !r.ack.IsZero() && (what == "" || now.Sub(r.ack) > d) {
		what, d = "PUBACKs", now.Sub(r.ack)
	}
	return what, d
}

// tryNextAfter makes the broker after broker (a redacted URL of Brokers)
// the first one tried by the next connection. Call with mu held.
func (p *Publisher) tryNextAfter(broker string) {
	if i := slices.Index(p.brokersLog, broker); i >= 0 {
		p.first = (i + 1) % len(p.opts.Brokers)
	}
}

// connLoop keeps one connection up: connect (trying every broker in order),
// on failure wait with doubling delay capped at ReconnectMax, on loss
// reconnect. A fresh client per connection gives a fresh last will. With
// several brokers, a broker that refuses (refusal) for RefusalTimeout is
// left for the next one.
func (p *Publisher) connLoop(ctx context.Context) {
	defer p.wg.Done()
	delay := p.opts.ReconnectMin
	afterLoss := false
	for ctx.Err() == nil {
		// Look before connecting under the table's client id: if another
		// daemon is online as this table, connecting would take its
		// session over (and it would take ours back): stay away instead.
		if !p.awaitNoTakeover(ctx, afterLoss) {
			return
		}
		afterLoss = false
		p.newConn()
		lost := make(chan error, 1)
		c := paho.NewClient(p.clientOptions(lost))
		tok := c.Connect()
		wait := p.opts.ConnectTimeout*time.Duration(len(p.opts.Brokers)) + time.Second
		err := waitToken(ctx, tok, wait)
		if err != nil && (errors.Is(err, errNoAck) || ctx.Err() != nil) {
			// Abandon the attempt; close the client whenever it ends.
			go func() { tok.WaitTimeout(wait); c.Disconnect(0) }()
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			p.mu.Lock()
			p.lastErr = fmt.Errorf("mqtt: connect %v: %w", p.brokersLog, err)
			p.attempts++
			n := p.attempts
			p.mu.Unlock()
			p.opts.Logger.Warn("mqtt: cannot connect; will retry", "brokers", p.brokersLog, "username", p.opts.Username,
				"client_id", p.opts.ClientID, "err", err, "attempt", n, "retry_in", delay)
			if !ctxsleep.Sleep(ctx, delay) {
				return
			}
			delay = min(delay*2, p.opts.ReconnectMax)
			continue
		}
		delay = p.opts.ReconnectMin
		// The online status counts for the refusal bound like the outbox's
		// messages: a broker that does not acknowledge it refuses.
		r := &refusal{}
		r.sent(time.Now())
		sentID, sentState, err := p.publishStatus(ctx, c, StatusOnline, p.opts.AckTimeout)
		if err == nil {
			r.acked(time.Now(), false)
		}
		if p.opts.Commands {
			p.subscribeCommands(ctx, c, r)
		}
		p.mu.Lock()
		p.cur, p.refused = c, r
		p.lastErr = nil
		p.attempts = 0
		p.takenOver = false
		broker := p.broker
		// SetShoe while the online was going out saw no connection:
		// publish the newer shoe state now.
		stale := p.shoeID != sentID || p.shoeState != sentState
		p.mu.Unlock()
		if stale {
			p.publishStatus(ctx, c, StatusOnline, p.opts.AckTimeout)
		}
		p.opts.Logger.Info("mqtt: connected", "broker", broker, "client_id", p.opts.ClientID, "backlog", p.box.Len())
		p.signal()
		loss, ok := p.awaitEnd(ctx, c, r, lost, broker)
		if !ok || !ctxsleep.Sleep(ctx, delay) {
			return // Close publishes offline and disconnects
		}
		// After a loss the broker may have closed the connection because
		// another client connected with our client id (MQTT 3.1.1 gives
		// no reason): probe as after a loss. After leaving a broker that
		// refused, the connection was ours until then (a daemon taking
		// the session over would have closed it): the probe looks at the
		// retained status only.
		afterLoss = loss
	}
}

// awaitEnd waits while c, connected to broker, is the current connection,
// until it is lost (loss true), or its broker has refused (r) for
// RefusalTimeout and there is another broker to move to: c is then
// disconnected and the broker after it made the first to try. ok is false
// when ctx ended.
func (p *Publisher) awaitEnd(ctx context.Context, c paho.Client, r *refusal, lost <-chan error, broker string) (loss, ok bool) {
	// Checked at a quarter of the bound, at most every second; with one
	// broker there is none to move to.
	var check <-chan time.Time
	if len(p.opts.Brokers) > 1 {
		t := time.NewTicker(min(p.opts.RefusalTimeout/4, time.Second))
		defer t.Stop()
		check = t.C
	}
	for {
		select {
		case err := <-lost:
			p.mu.Lock()
			if p.cur == c {
				p.cur, p.refused = nil, nil
			}
			p.lastErr = fmt.Errorf("mqtt: connection to %s lost: %w", broker, err)
			// Try the next broker first: the lost one may be gone or
			// cut off, and a silent one costs ConnectTimeout per try.
			p.tryNextAfter(broker)
			p.mu.Unlock()
			p.opts.Logger.Warn("mqtt: connection lost; reconnecting", "broker", broker, "err", err, "backlog", p.box.Len())
			return true, true
		case now := <-check:
			what, d := r.longest(now)
			if what == "" || d < p.opts.RefusalTimeout {
				continue
			}
			// The broker is up but refuses (NATS Server while its
			// JetStream elects leaders after a node's death): move on.
			// This connection ends before the next begins, so the two
			// never hold our client id's session at once; what it did not
			// acknowledge stays in the outbox for the next.
			d = d.Round(time.Millisecond)
			p.mu.Lock()
			if p.cur == c {
				p.cur, p.refused = nil, nil
			}
			p.lastErr = fmt.Errorf("mqtt: %s refused %s for %v", broker, what, d)
			p.tryNextAfter(broker)
			next := p.brokersLog[p.first]
			p.mu.Unlock()
			p.opts.Logger.Warn("mqtt: the broker refuses; moving to the next broker", "broker", broker, "refused", what,
				"for", d, "next", next, "backlog", p.box.Len())
			c.Disconnect(250)
			return false, true
		case <-ctx.Done():
			return false, false
		}
	}
}

// newConn numbers the next connection (StatusPayload.Conn), durably in the
// outbox. If the outbox cannot be written the number is still raised in
// memory (the statuses stay ordered within this run) and the error logged.
func (p *Publisher) newConn() {
	floor := uint64(max(p.opts.Now().UnixMilli(), 0))
	n, err := p.box.nextConn(floor)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		n = max(p.conn+1, floor)
		p.opts.Logger.Error("mqtt: cannot store the connection number; status order across restarts may suffer", "err", err, "conn", n)
	}
	p.conn = n
}

func (p *Publisher) current() (paho.Client, *refusal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cur, p.refused
}

// ackRemoveDelay is how long acknowledged messages may wait before they are
// removed from the outbox together: one transaction (one fsync) for the
// acknowledgements of a burst instead of one per message. A crash in between
// only sends them again (duplicates are allowed; losses are not).
const ackRemoveDelay = 100 * time.Millisecond

// removeAcked removes the acknowledged messages from the outbox.
func (p *Publisher) removeAcked(ctx context.Context) {
	if len(p.acked) == 0 {
		return
	}
	seqs := make([]uint64, 0, len(p.acked))
	for seq := range p.acked {
		seqs = append(seqs, seq)
	}
	if err := p.box.remove(seqs); err != nil {
		p.opts.Logger.Error("mqtt: cannot remove acknowledged messages from the outbox; they will be sent again", "err", err)
		return
	}
	clear(p.acked)
	p.ackedMax = 0
	p.checkBacklog()
}

// sendLoop delivers the outbox whenever connected.
func (p *Publisher) sendLoop(ctx context.Context) {
	defer p.wg.Done()
	defer p.removeAcked(ctx)
	var removeTimer <-chan time.Time
	for ctx.Err() == nil {
		if c, r := p.current(); c != nil {
			err := p.drain(ctx, c, r)
			if err != nil && ctx.Err() == nil {
				p.removeAcked(ctx)
				p.mu.Lock()
				p.lastErr = err
				p.mu.Unlock()
				p.opts.Logger.Warn("mqtt: delivery interrupted; unacknowledged messages will be sent again", "err", err, "backlog", p.box.Len())
				if !ctxsleep.Sleep(ctx, p.opts.ReconnectMin) {
					return
				}
				continue
			}
		}
		if len(p.acked) > 0 && removeTimer == nil {
			removeTimer = time.After(ackRemoveDelay)
		}
		select {
		case <-p.notify:
		case <-removeTimer:
			removeTimer = nil
			p.removeAcked(ctx)
		case <-ctx.Done():
			return
		}
	}
}

type inflight struct {
	seq     uint64
	tok     paho.Token
	topic   string // without the prefix, for OnAck
	payload []byte
}

// TokenDone reports whether the paho token tok has completed (its Done
// channel is closed), without waiting. It says nothing of success: that is
// tok.Error().
func TokenDone(tok paho.Token) bool {
	select {
	case <-tok.Done():
		return true
	default:
		return false
	}
}

// drain publishes every queued message not yet acknowledged, in order,
// keeping up to Window awaiting PUBACK, and records each acknowledged one in
// p.acked (removed from the outbox in batches) and in r (for the refusal
// bound). It returns nil when nothing is left to send, or the first delivery
// error (timeout = not delivered).
func (p *Publisher) drain(ctx context.Context, c paho.Client, r *refusal) error {
	var window []inflight
	waitOldest := func() error {
		f := window[0]
		window = window[1:]
		if err := waitToken(ctx, f.tok, p.opts.AckTimeout); err != nil {
			return fmt.Errorf("mqtt: outbox message %d not delivered (no PUBACK): %w", f.seq, err)
		}
		r.acked(time.Now(), len(window) > 0)
		p.mu.Lock()
		p.waitSince = time.Time{}
		if len(window) > 0 {
			p.waitSince = p.opts.Now()
		}
		p.mu.Unlock()
		p.acked[f.seq] = true
		p.ackedMax = max(p.ackedMax, f.seq)
		if p.opts.OnAck != nil {
			p.opts.OnAck(f.topic, f.payload)
		}
		if len(p.acked) >= 256 {
			p.removeAcked(ctx)
		}
		return nil
	}
	// Messages are acknowledged in order, so everything up to ackedMax is
	// acknowledged (or superseded): start after it.
	after := p.ackedMax
	for {
		recs, err := p.box.read(after, 256)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			for len(window) > 0 {
				if err := waitOldest(); err != nil {
					return err
				}
			}
			if recs, err = p.box.read(after, 1); err != nil || len(recs) == 0 {
				return err
			}
			continue
		}
		for _, rec := range recs {
			after = rec.seq
			if p.acked[rec.seq] {
				continue // acknowledged, removal pending
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !c.IsConnectionOpen() {
				return errors.New("mqtt: not connected")
			}
			// Collect acknowledgements that have already arrived, so that
			// they are recorded (and OnAck called) when they happen, not
			// only when the window is full.
			for len(window) > 0 && TokenDone(window[0].tok) {
				if err := waitOldest(); err != nil {
					return err
				}
			}
			if err := checkMessage(Message{Topic: rec.topic, Payload: rec.payload}); err != nil {
				// Written by an older version, or by a bug: sending it
				// would fail, or be cut, at every connection for ever.
				p.acked[rec.seq] = true
				p.mu.Lock()
				p.undelivered++
				p.mu.Unlock()
				p.opts.Logger.Error("mqtt: outbox message can never be delivered; dropped", "seq", rec.seq, "bytes", len(rec.payload), "err", err)
				if p.opts.OnUndeliverable != nil {
					p.opts.OnUndeliverable(truncateUTF8(rec.topic, 64), len(rec.payload), err)
				}
				continue
			}
			tok := c.Publish(p.prefix+"/"+rec.topic, 1, rec.retained, rec.payload)
			r.sent(time.Now())
			p.mu.Lock()
			if p.waitSince.IsZero() {
				p.waitSince = p.opts.Now()
			}
			p.mu.Unlock()
			window = append(window, inflight{rec.seq, tok, rec.topic, rec.payload})
			if len(window) >= p.opts.Window {
				if err := waitOldest(); err != nil {
					return err
				}
			}
		}
	}
}
