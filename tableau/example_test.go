package tableau_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// The shoe fold turns a transcript into coup, alert and void events — the
// lines `sabot check` prints.
func ExampleFold() {
	const transcript = `shoe 2H 3C 4D |   # burn
9S 3H KD 5C 7H |                       # a natural, then an extra card
AH 2C 3S KD |                          # closed without the player's third card
`
	toks, err := tableau.ParseTranscript(strings.NewReader(transcript), "example.shoe")
	if err != nil {
		fmt.Println(err)
		return
	}
	f, _ := tableau.NewFold(tableau.Options{Markers: tableau.HasMarkers(toks)})
	var out []tableau.Event
	for _, tok := range toks {
		out = f.Feed(tok, out[:0])
		for _, e := range out {
			if e.Kind == baccarat.EventCoup {
				e.Coup.Settlement = baccarat.Settlement{} // keep the line short
			}
			fmt.Println(e)
		}
	}
	for _, e := range f.End(out[:0]) {
		fmt.Println(e)
	}
	// Output:
	// {"type":"coup","game":"punto-banco","shoe":1,"coup":1,"player":["9S","KD"],"banker":["3H","5C"],"player_total":9,"banker_total":8,"winner":"player","natural":true,"player_pair":false,"banker_pair":false,"dragon7":false,"panda8":false,"banker_wins_on_6":false,"cards":4}
	// {"type":"alert","shoe":1,"coup":1,"code":"extra-card","card":"7H"}
	// {"type":"alert","shoe":1,"coup":2,"code":"missing-card"}
}

// ParseTranscript reports the first unknown token with its position.
func ExampleParseTranscript() {
	_, err := tableau.ParseTranscript(strings.NewReader("shoe 2H 3C 4D\n9S 1H"), "shoe.txt")
	var pe *tableau.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Located())
	}
	// Output: shoe.txt:2:4: unknown token "1H"
}
