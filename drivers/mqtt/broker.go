package mqtt

import (
	"fmt"
	"log/slog"
	"net"
	"sync"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"
)

// EmbeddedBroker is an in-process MQTT broker (mochi-mqtt) for when no
// broker is configured and for --demo, so the product works out of the box.
// It accepts any client: it listens on loopback only.
type EmbeddedBroker struct {
	srv  *mochi.Server
	ln   *loopbackListener
	addr string
}

// StartEmbeddedBroker starts a broker listening on addr, which must be a
// loopback address ("" means "127.0.0.1:0": a free port). logger may be nil
// (discard). Use URL to get the address to connect to.
func StartEmbeddedBroker(addr string, logger *slog.Logger) (*EmbeddedBroker, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("mqtt: embedded broker address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("mqtt: embedded broker address %q: must be a loopback address (it has no authentication)", addr)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	srv := mochi.New(&mochi.Options{InlineClient: false, Logger: logger})
	if err := srv.AddHook(new(auth.AllowHook), nil); err != nil {
		return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	// Last, so that no hook after it can refuse a packet it has locked for.
	guard := &retainGuard{aliasMax: srv.Options.Capabilities.TopicAliasMaximum, held: map[*mochi.Client]int{}}
	if err := srv.AddHook(guard, nil); err != nil {
		return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	l := &loopbackListener{id: "sabot-loopback", address: addr, conns: make(map[net.Conn]struct{})}
	if err := srv.AddListener(l); err != nil {
		return nil, fmt.Errorf("mqtt: embedded broker listen on %s: %w", addr, err)
	}
	if err := srv.Serve(); err != nil {
		srv.Close()
		return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	return &EmbeddedBroker{srv: srv, ln: l, addr: l.Address()}, nil
}

// Addr returns the host:port the broker listens on.
func (b *EmbeddedBroker) Addr() string { return b.addr }

// URL returns the broker URL, "tcp://host:port", for Options.Brokers.
func (b *EmbeddedBroker) URL() string { return "tcp://" + b.addr }

// Close stops the broker and disconnects its clients. It first stops the
// listener, disconnects every client and waits until the broker has let go
// of each connection, and only then closes the broker: mochi-mqtt v2.7.9's
// Server.Close races (go test -race) with a connection being established
// or served at the same time (upstream issue 541).
func (b *EmbeddedBroker) Close() error {
	b.ln.shutdown()
	if err := b.srv.Close(); err != nil {
		return fmt.Errorf("mqtt: embedded broker: %w", err)
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
		c.Close()
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
