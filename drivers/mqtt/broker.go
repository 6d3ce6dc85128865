package mqtt

import (
	"fmt"
	"log/slog"
	"net"
	"sync"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"
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
