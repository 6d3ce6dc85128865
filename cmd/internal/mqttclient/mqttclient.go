// Package mqttclient holds what the sabot tool's MQTT clients, the pit
// console (cmd/internal/pit) and the floor harness (cmd/internal/floor),
// share: the bounds of their --refusal-timeout flag, a quick check that
// brokers answer, and a test of a paho token.
package mqttclient

import (
	"context"
	"strings"
	"sync"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/hostcheck"
)

// Bounds of --refusal-timeout (sabot pit, sabot floor-sim), those of
// sabotd's [mqtt] refusal_timeout: below a second a broker would be left
// before it could answer.
const (
	// MinRefusalTimeout is the shortest --refusal-timeout.
	MinRefusalTimeout = time.Second
	// MaxRefusalTimeout is the longest --refusal-timeout.
	MaxRefusalTimeout = 10 * time.Minute
)

// Unreachable dials each broker (hostcheck.DialBroker, at most timeout
// each, side by side) and returns "URL: error" for each that does not
// answer, in order, passwords redacted; nil when all do. It tells a
// refused or unroutable broker at once, which the MQTT client's background
// retries would not say (sabot pit logs it, sabot floor-sim stops on it).
func Unreachable(brokers []string, timeout time.Duration) []string {
	out := make([]string, len(brokers))
	var wg sync.WaitGroup
	for i, b := range brokers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := hostcheck.DialBroker(context.Background(), b, timeout); err != nil {
				out[i] = strings.TrimPrefix(err.Error(), "hostcheck: broker ")
			}
		}()
	}
	wg.Wait()
	var bad []string
	for _, o := range out {
		if o != "" {
			bad = append(bad, o)
		}
	}
	return bad
}

// Done reports whether the token has completed (without waiting).
func Done(t paho.Token) bool {
	select {
	case <-t.Done():
		return true
	default:
		return false
	}
}
