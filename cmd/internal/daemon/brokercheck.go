package daemon

import (
	"context"
	"strings"
	"time"

	"github.com/sabot-table/sabot/drivers/hostcheck"
)

// brokerCheckTimeout bounds each TCP connect of checkBrokers.
const brokerCheckTimeout = 3 * time.Second

// brokerUnreachableMsg is logged once at start when no configured broker
// answers, naming the key to set; the publisher's own "cannot connect;
// will retry" lines follow at each attempt.
const brokerUnreachableMsg = "mqtt: no broker in [mqtt] brokers answers; messages wait in the outbox and sabotd keeps retrying. " +
	"Set [mqtt] brokers to your broker, or remove the key to run the embedded broker on [mqtt] embedded_addr"

// checkBrokers dials each configured broker (TCP, brokerCheckTimeout
// each) once, in the background, and logs brokerUnreachableMsg at error
// level if none answers. It stops early when ctx ends (a stop).
func (d *daemon) checkBrokers(ctx context.Context, brokers []string) {
	var errs []string
	for _, b := range brokers {
		err := hostcheck.DialBroker(ctx, b, brokerCheckTimeout)
		if err == nil || ctx.Err() != nil {
			return
		}
		errs = append(errs, strings.TrimPrefix(err.Error(), "hostcheck: "))
	}
	d.log.Error(brokerUnreachableMsg, "brokers", strings.Join(brokers, ","), "err", strings.Join(errs, "; "))
}
