package mqtt

import (
	"context"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
)

// BenchmarkPublish measures an event accepted → journaled in the outbox
// (fsynced) → handed to the MQTT client → acknowledged by the broker (the
// embedded one, in process), per event: "serial" publishes one event at a
// time (one fsync each), "parallel" from many goroutines at once (the group
// commit shares fsyncs), "journal-only" without a broker (outbox cost
// alone).
func BenchmarkPublish(b *testing.B) {
	events := shoeEvents(b, "T1")
	var msgs []Message
	for _, ev := range events {
		for _, m := range ev {
			if !m.Retained {
				msgs = append(msgs, m)
			}
		}
	}
	run := func(b *testing.B, withBroker, parallel bool) {
		var brokers []string
		if withBroker {
			br, err := embedded.StartOpen("", nil)
			if err != nil {
				b.Fatal(err)
			}
			defer br.Close()
			brokers = []string{br.URL()}
		}
		o := testOptions("T1", b.TempDir(), brokers...)
		o.MaxBacklog = 10_000_000
		p, err := New(o)
		if err != nil {
			b.Fatal(err)
		}
		p.Start(context.Background())
		defer p.Close(context.Background())
		if withBroker {
			deadline := time.Now().Add(10 * time.Second)
			for !p.Status().Connected && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
		}
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		if parallel {
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					if err := p.Publish(ctx, msgs[i%len(msgs)]); err != nil {
						b.Error(err)
						return
					}
					i++
				}
			})
		} else {
			for i := 0; i < b.N; i++ {
				if err := p.Publish(ctx, msgs[i%len(msgs)]); err != nil {
					b.Fatal(err)
				}
			}
		}
		if withBroker {
			fctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			if err := p.Flush(fctx); err != nil {
				b.Fatal(err)
			}
		}
		el := time.Since(start)
		b.ReportMetric(float64(b.N)/el.Seconds(), "events/s")
		b.ReportMetric(float64(p.box.commits.Load())/float64(b.N), "fsyncs/event")
	}
	b.Run("serial", func(b *testing.B) { run(b, true, false) })
	b.Run("parallel", func(b *testing.B) { run(b, true, true) })
	b.Run("journal-only", func(b *testing.B) { run(b, false, false) })
}
