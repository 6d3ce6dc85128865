package daemon

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sabot-table/sabot/tableau"
)

// keySequence counts the presses of the dealer key: a sequence is the
// presses that follow each other within gap; it ends gap after its last
// press. n presses pick the n-th dealer of the roster: that dealer signs
// in (signing out whoever was signed in), or, if already signed in, signs
// out. A count past the roster signs no one in and is journaled as a
// refused command (audit trail). It is driven with the presses' times and
// asked for the end of the sequence, so it is tested without a clock.
type keySequence struct {
	gap    time.Duration
	roster []string
	n      int       // presses in the current sequence
	last   time.Time // the last press
}

// press counts a press at at.
func (k *keySequence) press(at time.Time) {
	if k.n > 0 && at.Sub(k.last) > k.gap {
		k.n = 0 // a sequence that should have ended (its end was not asked for)
	}
	k.n++
	k.last = at
}

// due is when the current sequence ends (zero: none is running).
func (k *keySequence) due() time.Time {
	if k.n == 0 {
		return time.Time{}
	}
	return k.last.Add(k.gap)
}

// end closes the sequence and returns the input it stands for, given the
// dealer signed in now; ok is false when no sequence is running.
func (k *keySequence) end(signedIn string) (in tableau.Input, ok bool) {
	n := k.n
	k.n = 0
	if n == 0 {
		return in, false
	}
	in = tableau.Input{Kind: tableau.InputDealer, Source: "gpio", Operator: "dealer-key", Ref: fmt.Sprintf("key:%d", n)}
	if n > len(k.roster) {
		in.Kind, in.Code = tableau.InputRejected, "dealer"
		in.Text = fmt.Sprintf("dealer key pressed %d times; the roster has %d dealers", n, len(k.roster))
		return in, true
	}
	if id := k.roster[n-1]; id != signedIn {
		in.Dealer = id
	}
	return in, true
}

// runDealerKey turns dealer-key presses (from presses) into sign-ins and
// sign-outs until ctx ends.
func (d *daemon) runDealerKey(ctx context.Context, presses <-chan time.Time) {
	k := &keySequence{gap: time.Duration(d.cfg.Dealer.KeyGapMS) * time.Millisecond, roster: d.cfg.Dealer.Roster}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case at := <-presses:
			k.press(at)
			timer.Reset(k.gap)
		case <-timer.C:
			in, ok := k.end(d.metrics.dealers.current())
			if !ok {
				continue
			}
			if in.Kind == tableau.InputRejected {
				d.log.Warn("dealer key: no such place in the roster", "text", in.Text)
			}
			if err := d.submit(ctx, in); err != nil && ctx.Err() == nil {
				d.log.Warn("dealer key sequence not applied", "err", err)
			}
		}
	}
}

// dealerStats is the table's dealer and shift counts as last applied, for
// /metrics (it is a prometheus.Collector: each scrape reads the current
// shift, so a new shift's dealers replace the last one's at once) and for
// the dealer key. Safe for concurrent use.
type dealerStats struct {
	mu     sync.Mutex
	dealer string
	shift  tableau.ShiftView

	coups, voids, alerts, signedIn, start *prometheus.Desc
}

func newDealerStats() *dealerStats {
	return &dealerStats{
		coups: prometheus.NewDesc("sabot_dealer_coups", "Coups dealt in the current shift, by dealer (\"*\": dealers past the tracked bound, summed).",
			[]string{"dealer"}, nil),
		voids: prometheus.NewDesc("sabot_dealer_voids", "Coups voided in the current shift, by dealer.", []string{"dealer"}, nil),
		alerts: prometheus.NewDesc("sabot_dealer_alerts", "Alerts raised in the current shift, by dealer and alert code.",
			[]string{"dealer", "code"}, nil),
		signedIn: prometheus.NewDesc("sabot_dealer_signed_in", "1 for the dealer signed in at the table.", []string{"dealer"}, nil),
		start:    prometheus.NewDesc("sabot_shift_start_timestamp_seconds", "Start of the current shift (Unix time).", nil, nil),
	}
}

// note records the view's dealer and shift.
func (s *dealerStats) note(v tableau.TableView) {
	s.mu.Lock()
	s.dealer, s.shift = v.Dealer, v.Shift
	s.mu.Unlock()
}

// current is the dealer signed in.
func (s *dealerStats) current() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dealer
}

// Describe implements prometheus.Collector.
func (s *dealerStats) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{s.coups, s.voids, s.alerts, s.signedIn, s.start} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: at most MaxShiftDealers + 1
// dealers, each with at most one series per alert code.
func (s *dealerStats) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shift.Start.IsZero() {
		return
	}
	ch <- prometheus.MustNewConstMetric(s.start, prometheus.GaugeValue, float64(s.shift.Start.Unix()))
	emit := func(c tableau.DealerCounts, label string) {
		ch <- prometheus.MustNewConstMetric(s.coups, prometheus.GaugeValue, float64(c.Coups), label)
		ch <- prometheus.MustNewConstMetric(s.voids, prometheus.GaugeValue, float64(c.Voids), label)
		for code, n := range c.Alerts {
			ch <- prometheus.MustNewConstMetric(s.alerts, prometheus.GaugeValue, float64(n), label, string(code))
		}
	}
	for _, c := range s.shift.Dealers {
		emit(c, c.Dealer)
	}
	if o := s.shift.Others; o.Coups != 0 || o.Voids != 0 || len(o.Alerts) > 0 {
		emit(o, "*")
	}
	if s.dealer != "" {
		ch <- prometheus.MustNewConstMetric(s.signedIn, prometheus.GaugeValue, 1, s.dealer)
	}
}
