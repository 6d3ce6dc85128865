package tableau_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/sabot-table/sabot/tableau"
)

// A table controller fed a burn, a coup and a surplus card before the
// coup button, then the supervisor's acknowledgement.
func ExampleTable() {
	tb, _ := tableau.NewTable(tableau.TableConfig{Table: "BAC-1", Fold: tableau.Options{Markers: true}})
	toks, _ := tableau.ParseTranscript(strings.NewReader("2H 3C 4D | 5S 5H AC 2D 7C"), "example")
	inputs := make([]tableau.Input, 0, len(toks)+1)
	for _, t := range toks {
		inputs = append(inputs, tableau.TokenInput(t))
	}
	inputs = append(inputs, tableau.Input{Kind: tableau.InputAck, Operator: "pit boss"})
	at := time.Date(2026, 11, 30, 21, 0, 0, 0, time.UTC)
	var outs []tableau.Output
	for i, in := range inputs {
		outs = tb.Apply(uint64(i+1), at, in, outs[:0])
		for _, o := range outs {
			switch o.Kind {
			case tableau.OutputCoup, tableau.OutputAlert:
				fmt.Println(o.ID, o.Event)
			case tableau.OutputAck:
				fmt.Println(o.ID, "by", o.Ack.Operator)
			}
		}
	}
	v := tb.View()
	fmt.Println("coup", v.Coup, "player", v.PlayerTotal, "banker", v.BankerTotal, "alerts waiting", len(v.Alerts))
	// Output:
	// BAC-1/20261130T210000Z-1/1/coup/1 {"type":"coup","game":"punto-banco","shoe":1,"coup":1,"player":["5S","AC"],"banker":["5H","2D"],"player_total":6,"banker_total":7,"winner":"banker","natural":false,"player_pair":false,"banker_pair":false,"dragon7":false,"panda8":false,"banker_wins_on_6":false,"cards":4,"settlement":{"player":{"result":"lose","net":-1},"banker":{"result":"win","net":0.95},"tie":{"result":"lose","net":-1},"player_pair":{"result":"lose","net":-1},"banker_pair":{"result":"lose","net":-1}}}
	// BAC-1/20261130T210000Z-1/1/alert/1 {"type":"alert","shoe":1,"coup":1,"code":"extra-card","card":"7C"}
	// BAC-1/20261130T210000Z-1/1/alert/1/ack by pit boss
	// coup 1 player 6 banker 7 alerts waiting 0
}
