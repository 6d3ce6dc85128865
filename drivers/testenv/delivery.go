package testenv

import (
	"fmt"
	"testing"
	"time"
)

// DeliveryPrefix begins the line ReportDelivery logs; .ci/stress collects
// the lines that carry it.
const DeliveryPrefix = "STRESS delivery"

// Delivery is what a loss-sensitive test measured of one stream of
// messages (a table, a floor): how many distinct messages it expected, how
// many of those never arrived, how many copies arrived beyond the first of
// each (at least once delivery: allowed, counted), and the longest time
// from a message's own "time" to its arrival.
type Delivery struct {
	Expected, Lost, Duplicated int
	Worst                      time.Duration
}

// ReportDelivery logs d for the stream part of test t (t.Name(), then
// part if not empty), in the one format .ci/stress reads:
//
//	STRESS delivery test=TestSoak/bee-tek expected=600 lost=0 duplicated=3 worst_ms=850.1
//
// Call it before the test's assertions, so a failing run reports too.
func ReportDelivery(t testing.TB, part string, d Delivery) {
	t.Helper()
	name := t.Name()
	if part != "" {
		name += "/" + part
	}
	t.Logf("%s test=%s %s", DeliveryPrefix, name, d)
}

// String formats d as ReportDelivery's fields.
func (d Delivery) String() string {
	return fmt.Sprintf("expected=%d lost=%d duplicated=%d worst_ms=%.1f",
		d.Expected, d.Lost, d.Duplicated, float64(d.Worst)/float64(time.Millisecond))
}
