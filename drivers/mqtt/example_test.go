package mqtt_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// A table's outputs published through the durable outbox to the embedded
// broker: the table controller turns inputs into outputs, the Builder turns
// outputs into messages, Publish journals them and returns; Flush waits for
// the broker's acknowledgements.
func Example() {
	ctx := context.Background()
	broker, err := embedded.StartOpen("", nil) // no broker configured: loopback
	if err != nil {
		log.Fatal(err)
	}
	defer broker.Close()
	stateDir, _ := os.MkdirTemp("", "sabot-example")
	defer os.RemoveAll(stateDir)

	p, err := mqtt.New(mqtt.Options{Table: "T1", Brokers: []string{broker.URL()}, StateDir: stateDir, Version: "example"})
	if err != nil {
		log.Fatal(err)
	}
	p.Start(ctx)

	rules := baccarat.Rules{Game: baccarat.GamePuntoBanco}
	tbl, err := tableau.NewTable(tableau.TableConfig{Table: "T1", Fold: tableau.Options{Decks: 8, Rules: rules, Markers: true}})
	if err != nil {
		log.Fatal(err)
	}
	b := mqtt.NewBuilder("T1", rules)
	toks, err := tableau.ParseTranscript(strings.NewReader("shoe 2H 3C 4D | 9S 3H KD 5C 7H |"), "example")
	if err != nil {
		log.Fatal(err)
	}
	start := time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)
	var outs []tableau.Output
	for i, tok := range toks {
		seq := uint64(i + 1)
		at := start.Add(time.Duration(i) * time.Second)
		outs = tbl.Apply(seq, at, tableau.TokenInput(tok), outs[:0])
		var msgs []mqtt.Message
		for _, o := range outs {
			m, ok, err := b.Output(o)
			if err != nil {
				log.Fatal(err)
			}
			if ok {
				msgs = append(msgs, m)
				if o.Kind != tableau.OutputCard {
					fmt.Println(m.Topic, o.ID)
				}
			}
		}
		st, err := b.State(tbl.View(), seq, at)
		if err != nil {
			log.Fatal(err)
		}
		if err := p.Publish(ctx, append(msgs, st)...); err != nil { // fsynced when it returns
			log.Fatal(err)
		}
	}
	fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.Flush(fctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println("backlog:", p.Status().Backlog)
	if err := p.Close(fctx); err != nil { // publishes the retained "offline"
		log.Fatal(err)
	}
	// Output:
	// coup T1/20261130T040000Z-1/1/coup/1
	// alert T1/20261130T040000Z-1/1/alert/1
	// backlog: 0
}
