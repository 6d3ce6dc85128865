package embedded

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"
	"golang.org/x/time/rate"

	"github.com/sabot-table/sabot/drivers/mqtt/embedded/mosqauth"
)

// Broker is an in-process MQTT broker (mochi-mqtt) for when no
// broker is configured and for --demo, so the product works out of the
// box. It lets in the daemon's own clients (Credentials), a Mosquitto
// password file's users and, if allowed, anonymous clients, and gives each
// what a Mosquitto ACL file says (Options).
type Broker struct {
	srv  *mochi.Server
	ln   *loopbackListener
	addr string
	auth *embeddedAuth
}

// StartOpen starts a broker open to every client on addr, which
// must be a loopback address ("" means "127.0.0.1:0": a free port): any
// local program may connect, publish and subscribe. It is for tests and
// examples; the daemon starts its broker with Start.
func StartOpen(addr string, logger *slog.Logger) (*Broker, error) {
	return Start(Options{Addr: addr, Logger: logger, Open: true})
}

// Start starts a broker as o says. Errors: an address that does
// not parse, or is not loopback without o.PasswordFile; a password or ACL
// file that cannot be read or has a bad line (file:line, LoadPasswordFile,
// LoadACLFile); Open with files or anonymous access; a port in use.
func Start(o Options) (*Broker, error) {
	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("embedded: embedded broker address %q: %w", addr, err)
	}
	if o.Open && (o.PasswordFile != "" || o.ACLFile != "" || o.AllowAnonymous) {
		return nil, errors.New("embedded: embedded broker: Open takes no password file, ACL file or anonymous access")
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) && (o.Open || o.PasswordFile == "") {
		return nil, fmt.Errorf("embedded: embedded broker address %q: not loopback, so a password file is needed (embedded_password_file)", addr)
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	a := &embeddedAuth{open: o.Open, anonymous: o.AllowAnonymous, log: logger,
		fails: rate.NewLimiter(authFailRate, authFailBurst), logLim: rate.NewLimiter(1, 1)}
	if !o.Open {
		pass := make([]byte, 24)
		rand.Read(pass)
		a.ownPass = []byte(hex.EncodeToString(pass))
	}
	if o.PasswordFile != "" {
		if a.users, err = mosqauth.LoadPasswordFile(o.PasswordFile); err != nil {
			return nil, err
		}
	}
	if o.ACLFile != "" {
		if a.acl, err = mosqauth.LoadACLFile(o.ACLFile); err != nil {
			return nil, err
		}
	}
	caps := mochi.NewDefaultServerCapabilities()
	caps.MaximumPacketSize = MaxPacket
	caps.MaximumClients = MaxClients
	srv := mochi.New(&mochi.Options{InlineClient: false, Logger: logger, Capabilities: caps})
	a.srv = srv
	if err := srv.AddHook(a, nil); err != nil {
		return nil, fmt.Errorf("embedded: embedded broker: %w", err)
	}
	if err := srv.AddHook(&retainLimit{srv: srv, max: MaxRetained, log: logger, lim: rate.NewLimiter(1, 1)}, nil); err != nil {
		return nil, fmt.Errorf("embedded: embedded broker: %w", err)
	}
	// Last, so that no hook after it can refuse a packet it has locked for.
	guard := &retainGuard{aliasMax: srv.Options.Capabilities.TopicAliasMaximum, held: map[*mochi.Client]int{}}
	if err := srv.AddHook(guard, nil); err != nil {
		return nil, fmt.Errorf("embedded: embedded broker: %w", err)
	}
	l := &loopbackListener{id: "sabot-embedded", address: addr, conns: make(map[net.Conn]struct{})}
	if err := srv.AddListener(l); err != nil {
		return nil, fmt.Errorf("embedded: embedded broker listen on %s: %w", addr, err)
	}
	if err := srv.Serve(); err != nil {
		srv.Close()
		return nil, fmt.Errorf("embedded: embedded broker: %w", err)
	}
	return &Broker{srv: srv, ln: l, addr: l.Address(), auth: a}, nil
}

// Credentials are the username (OwnUser) and password of the
// daemon's own clients, which may read and write every topic; the
// password is drawn at random when the broker starts and is never
// written anywhere. An open broker (StartOpen) gives "", "".
func (b *Broker) Credentials() (username, password string) {
	if b.auth.open {
		return "", ""
	}
	return OwnUser, string(b.auth.ownPass)
}

// LoginsRefused is how many logins the broker has refused: all of them,
// and those refused unchecked because failures came faster than
// authFailRate a second.
func (b *Broker) LoginsRefused() (all, unchecked uint64) {
	return b.auth.failed.Load(), b.auth.refused.Load()
}

// Addr returns the host:port the broker listens on.
func (b *Broker) Addr() string { return b.addr }

// URL returns the broker URL, "tcp://host:port", for Options.Brokers.
func (b *Broker) URL() string { return "tcp://" + b.addr }

// Close stops the broker and disconnects its clients. It first stops the
// listener, disconnects every client and waits until the broker has let go
// of each connection, and only then closes the broker: mochi-mqtt v2.7.9's
// Server.Close races (go test -race) with a connection being established
// or served at the same time (upstream issue 541).
func (b *Broker) Close() error {
	b.ln.shutdown()
	if err := b.srv.Close(); err != nil {
		return fmt.Errorf("embedded: embedded broker: %w", err)
	}
	return nil
}

// loopbackListener is the embedded broker's TCP listener (a
// listeners.Listener). Unlike mochi-mqtt's own TCP listener it keeps track of
// the connections it hands to the broker, so that shutdown can close them
// and wait until the broker's handler for each has returned.
type loopbackListener struct {
	id      string
	address string
	ln      net.Listener

	mu      sync.Mutex
	closed  bool
	conns   map[net.Conn]struct{} // connections handed to the broker, not yet returned
	serving sync.WaitGroup        // one per connection in conns
}

var _ listeners.Listener = (*loopbackListener)(nil)

// Init opens the listening socket.
func (l *loopbackListener) Init(*slog.Logger) error {
	ln, err := net.Listen("tcp", l.address)
	if err != nil {
		return err
	}
	l.ln = ln
	return nil
}

// ID returns the listener's id.
func (l *loopbackListener) ID() string { return l.id }

// Address returns the address listened on (with the port chosen for ":0").
func (l *loopbackListener) Address() string {
	if l.ln != nil {
		return l.ln.Addr().String()
	}
	return l.address
}

// Protocol returns "tcp".
func (l *loopbackListener) Protocol() string { return "tcp" }

// Serve accepts connections and hands each to establish (which serves it
// until it ends) until the listener is shut down.
func (l *loopbackListener) Serve(establish listeners.EstablishFn) {
	for {
		conn, err := l.ln.Accept()
		if err != nil {
			return // closed by shutdown (or Close)
		}
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			conn.Close()
			return
		}
		conn = newQueuedConn(conn, brokerWriteQueue, brokerWriteTimeout)
		l.conns[conn] = struct{}{}
		l.serving.Add(1)
		l.mu.Unlock()
		go func() {
			defer l.serving.Done()
			_ = establish(l.id, conn) // a client's error ends only that client
			l.mu.Lock()
			delete(l.conns, conn)
			l.mu.Unlock()
		}()
	}
}

// shutdown stops accepting, closes every connection and waits until the
// broker has returned from each. Safe to call more than once.
func (l *loopbackListener) shutdown() {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		if l.ln != nil {
			l.ln.Close()
		}
	}
	for c := range l.conns {
		if q, ok := c.(*queuedConn); ok {
			q.abort()
		} else {
			c.Close()
		}
	}
	l.mu.Unlock()
	l.serving.Wait()
}

// Close is called by the broker's Close: shut down, then let the broker
// drop what it still holds for this listener's clients.
func (l *loopbackListener) Close(closeClients listeners.CloseFn) {
	l.shutdown()
	closeClients(l.id)
}

// Limits of the embedded broker. A packet over MaxPacket bytes
// (fixed header included) is refused before it is read, and its client
// disconnected: three retained 64 MiB messages took sabotd from 17.5 to
// 478 MB, past the unit's MemoryMax=128M. Sabot's largest message is
// under 17 KiB (roads). At most MaxClients clients are connected
// at once, and at most MaxRetained topics hold a retained message
// (one of at most a packet's size each: 16 MiB in all); past it a new
// topic's retained message is delivered but not kept.
const (
	MaxPacket   = 64 << 10
	MaxClients  = 64
	MaxRetained = 256
)

// retainLimit keeps the embedded broker's retained messages to max topics.
type retainLimit struct {
	mochi.HookBase
	srv *mochi.Server
	max int
	log *slog.Logger
	lim *rate.Limiter // the warning's: once a second at most
}

// ID names the hook for mochi-mqtt.
func (h *retainLimit) ID() string { return "sabot-retain-limit" }

// Provides says which of mochi-mqtt's hook events the hook takes.
func (h *retainLimit) Provides(b byte) bool { return b == mochi.OnPublish }

// OnPublish keeps a retained message on a new topic only while fewer than
// max topics hold one; past it the message is delivered, not kept. An
// update of a topic that holds one, and a clearing (empty) one, always
// pass.
func (h *retainLimit) OnPublish(cl *mochi.Client, pk packets.Packet) (packets.Packet, error) {
	if !pk.FixedHeader.Retain || len(pk.Payload) == 0 {
		return pk, nil
	}
	if _, ok := h.srv.Topics.Retained.Get(pk.TopicName); ok || h.srv.Topics.Retained.Len() < h.max {
		return pk, nil
	}
	pk.FixedHeader.Retain = false
	if h.lim.Allow() {
		h.log.Warn("embedded: embedded broker: retained messages at their limit; delivered, not kept", "client", cl.ID, "limit", h.max)
	}
	return pk, nil
}

// The embedded broker's writes to one client: at most brokerWriteQueue
// bytes wait to be sent, and a client that takes none of them for
// brokerWriteTimeout is disconnected (queuedConn).
const (
	brokerWriteQueue   = 8 << 20
	brokerWriteTimeout = 10 * time.Second
)

// errSlowClient ends a client that does not read what the broker sends it.
var errSlowClient = errors.New("embedded: embedded broker: client does not read what it is sent; disconnected")

// queuedConn is a broker connection whose Write never waits on the client:
// what is written waits in a queue of at most max bytes, sent by a
// goroutine of its own, each write with a deadline of timeout. A client
// that does not read (a full queue, a write past its deadline) is
// disconnected. mochi-mqtt writes to a client from the goroutine that
// processes its packets (a SUBACK), under the retainGuard's lock: a client
// that never read, with keep-alive 0, held that lock, and every other
// client's SUBSCRIBE and retained PUBLISH with it, for as long as it
// stayed connected.
type queuedConn struct {
	net.Conn
	max     int
	timeout time.Duration

	mu      sync.Mutex
	cond    *sync.Cond
	queue   [][]byte
	pending int   // bytes in queue
	err     error // set once: the connection is done
	closing bool
	flushed chan struct{} // closed when the sender has returned
}

func newQueuedConn(c net.Conn, max int, timeout time.Duration) *queuedConn {
	q := &queuedConn{Conn: c, max: max, timeout: timeout, flushed: make(chan struct{})}
	q.cond = sync.NewCond(&q.mu)
	go q.send()
	return q
}

// Write queues a copy of p; it fails, and ends the connection, when the
// queue would pass its bound.
func (q *queuedConn) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil || q.closing {
		return 0, cmp.Or(q.err, net.ErrClosed)
	}
	if q.pending+len(p) > q.max {
		q.err = errSlowClient
		q.cond.Broadcast()
		q.reset()
		return 0, q.err
	}
	q.queue = append(q.queue, bytes.Clone(p))
	q.pending += len(p)
	q.cond.Signal()
	return len(p), nil
}

// send writes the queue out until the connection ends.
func (q *queuedConn) send() {
	defer close(q.flushed)
	for {
		q.mu.Lock()
		for len(q.queue) == 0 && q.err == nil && !q.closing {
			q.cond.Wait()
		}
		if q.err != nil || len(q.queue) == 0 {
			q.mu.Unlock()
			return
		}
		b := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		q.mu.Unlock()
		_ = q.Conn.SetWriteDeadline(time.Now().Add(q.timeout))
		_, err := q.Conn.Write(b)
		q.mu.Lock()
		q.pending -= len(b)
		if err != nil && q.err == nil {
			q.err = err
			if errors.Is(err, os.ErrDeadlineExceeded) {
				q.err = errSlowClient
			}
			q.reset()
		}
		q.mu.Unlock()
	}
}

// Close sends what is queued (a refusal's CONNACK, a DISCONNECT), for at
// most a second, then closes the connection.
func (q *queuedConn) Close() error {
	q.mu.Lock()
	q.closing = true
	q.cond.Broadcast()
	q.mu.Unlock()
	select {
	case <-q.flushed:
	case <-time.After(time.Second):
	}
	return q.Conn.Close()
}

// reset closes a slow client's connection with a reset (linger 0): a
// graceful close would leave what the kernel still holds for it (up to
// its send buffer, megabytes) trickling out for as long as the client
// reads slowly.
func (q *queuedConn) reset() {
	if tc, ok := q.Conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	q.Conn.Close()
}

// SetDeadline sets the read deadline only: mochi-mqtt sets the deadline
// for keep-alive before each read, which would otherwise undo the write
// deadline send sets (keep-alive 0 clears it).
func (q *queuedConn) SetDeadline(t time.Time) error { return q.Conn.SetReadDeadline(t) }

// SetWriteDeadline does nothing: send sets each write's deadline.
func (q *queuedConn) SetWriteDeadline(time.Time) error { return nil }

// abort closes the connection at once, dropping what is queued.
func (q *queuedConn) abort() {
	q.mu.Lock()
	if q.err == nil {
		q.err = net.ErrClosed
	}
	q.cond.Broadcast()
	q.mu.Unlock()
	q.Conn.Close()
}

// retainGuard serialises, in the embedded broker, the writers of the
// retained-message index (a retained PUBLISH, a retained will) with the
// SUBSCRIBE that reads it to send a new subscriber the retained messages:
// mochi-mqtt v2.7.9's TopicsIndex.scanMessages reads a topic's retainPath
// without the lock under which RetainMessage writes it (a data race that
// go test -race reports, TestEmbeddedBrokerRetainWhileSubscribing). It
// locks when such a packet has been read (the last OnPacketRead hook, so
// the packet is then processed) and unlocks when the broker has
// processed it; for a will, from OnWill to OnWillSent. Each client's
// packets are processed one at a time on its own goroutine, so a client
// holds the lock at most once for a packet and once for its will.
type retainGuard struct {
	mochi.HookBase
	aliasMax uint16 // the server's, for the publish check it makes before processing
	mu       sync.Mutex
	heldMu   sync.Mutex
	held     map[*mochi.Client]int // the client holds mu for: 1 a packet, 2 its will
}

// ID names the hook for mochi-mqtt.
func (g *retainGuard) ID() string { return "sabot-retain-guard" }

// Provides says which of mochi-mqtt's hook events the guard takes.
func (g *retainGuard) Provides(b byte) bool {
	return b == mochi.OnPacketRead || b == mochi.OnPacketProcessed || b == mochi.OnWill || b == mochi.OnWillSent
}

func (g *retainGuard) lock(cl *mochi.Client, what int) {
	g.mu.Lock()
	g.heldMu.Lock()
	g.held[cl] |= what
	g.heldMu.Unlock()
}

func (g *retainGuard) unlock(cl *mochi.Client, what int) {
	g.heldMu.Lock()
	h := g.held[cl]
	was := h&what != 0
	if h &^= what; h == 0 {
		delete(g.held, cl)
	} else {
		g.held[cl] = h
	}
	g.heldMu.Unlock()
	if was {
		g.mu.Unlock()
	}
}

// OnPacketRead locks for a retained PUBLISH and a SUBSCRIBE that the
// broker will process: it checks them as processPacket does first, since
// one it refuses there is never reported processed.
func (g *retainGuard) OnPacketRead(cl *mochi.Client, pk packets.Packet) (packets.Packet, error) {
	switch pk.FixedHeader.Type {
	case packets.Publish:
		if pk.FixedHeader.Retain && pk.PublishValidate(g.aliasMax) == packets.CodeSuccess {
			g.lock(cl, 1)
		}
	case packets.Subscribe:
		if pk.SubscribeValidate() == packets.CodeSuccess {
			g.lock(cl, 1)
		}
	}
	return pk, nil
}

// OnPacketProcessed unlocks after a packet OnPacketRead locked for.
func (g *retainGuard) OnPacketProcessed(cl *mochi.Client, pk packets.Packet, err error) {
	g.unlock(cl, 1)
}

// OnWill locks for a retained will sent at once (a delayed one is sent
// later, by the broker's loop, without OnWill).
func (g *retainGuard) OnWill(cl *mochi.Client, will mochi.Will) (mochi.Will, error) {
	if will.Retain && will.WillDelayInterval == 0 {
		g.lock(cl, 2)
	}
	return will, nil
}

// OnWillSent unlocks after the will OnWill locked for.
func (g *retainGuard) OnWillSent(cl *mochi.Client, pk packets.Packet) {
	g.unlock(cl, 2)
}
