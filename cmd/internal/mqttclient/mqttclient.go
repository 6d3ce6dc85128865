// Package mqttclient holds what the sabot tool's MQTT clients, the pit
// console (cmd/internal/pit) and the floor harness (cmd/internal/floor),
// share: the bounds of their --refusal-timeout flag and the arithmetic of
// leaving a broker that refuses subscriptions, a quick check that brokers
// answer, and a test of a paho token.
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

// The subscribers of the pit console and of the floor harness leave a
// broker that refuses their subscriptions (with several --broker): the
// helpers below are what they share of it.

// RefusalBound is a connection's refusal bound: refusal (--refusal-timeout)
// doubled for each broker left in a row before it (leftInARow, at most 8
// doublings), and no more than most, so that a floor whose every node is
// slow still gets a connection that stays.
func RefusalBound(refusal time.Duration, leftInARow int, most time.Duration) time.Duration {
	return min(refusal<<min(leftInARow, 8), most)
}

// AnswerWait is how long to wait for the answer to a SUBSCRIBE sent at
// asked: most; or, bounded (a connection that may leave its broker), only
// until bound after refusing (since when the broker has granted nothing,
// asked if zero), and not less than 0.
func AnswerWait(most time.Duration, bounded bool, refusing, asked time.Time, bound time.Duration) time.Duration {
	if !bounded {
		return most
	}
	if refusing.IsZero() {
		refusing = asked
	}
	return max(min(most, time.Until(refusing.Add(bound))), 0)
}

// Refused returns the filters the broker refused (a granted QoS above 2:
// 0x80, failure) in the answer to tok, a SUBSCRIBE of pending (filter to
// QoS), each with its QoS in pending: what to ask for again. It is empty
// when tok is not a SUBSCRIBE token.
func Refused(tok paho.Token, pending map[string]byte) map[string]byte {
	refused := map[string]byte{}
	if st, ok := tok.(*paho.SubscribeToken); ok {
		for filter, q := range st.Result() {
			if q > 2 {
				refused[filter] = pending[filter]
			}
		}
	}
	return refused
}
