package mqtt

import (
	"fmt"
	"log/slog"
	"net"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"
)

// EmbeddedBroker is an in-process MQTT broker (mochi-mqtt) for when no
// broker is configured and for --demo, so the product works out of the box.
// It accepts any client: it listens on loopback only.
type EmbeddedBroker struct {
	srv  *mochi.Server
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
	l := listeners.NewTCP(listeners.Config{ID: "sabot-loopback", Address: addr})
	if err := srv.AddListener(l); err != nil {
		return nil, fmt.Errorf("mqtt: embedded broker listen on %s: %w", addr, err)
	}
	if err := srv.Serve(); err != nil {
		srv.Close()
		return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	return &EmbeddedBroker{srv: srv, addr: l.Address()}, nil
}

// Addr returns the host:port the broker listens on.
func (b *EmbeddedBroker) Addr() string { return b.addr }

// URL returns the broker URL, "tcp://host:port", for Options.Brokers.
func (b *EmbeddedBroker) URL() string { return "tcp://" + b.addr }

// Close stops the broker and disconnects its clients.
func (b *EmbeddedBroker) Close() error {
	if err := b.srv.Close(); err != nil {
		return fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	return nil
}
