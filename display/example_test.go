package display_test

import (
	"fmt"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/tableau"
)

func card(s string) tableau.Card {
	c, err := tableau.ParseCard(s)
	if err != nil {
		panic(err)
	}
	return c
}

// The player hand (2, 3) must draw: its total blinks until the third card.
// When the coup is over, the winner and natural markers appear.
func ExampleCompose() {
	s := display.TableState{
		Player:  []tableau.Card{card("2H"), card("3S")},
		Banker:  []tableau.Card{card("4D"), card("5C")},
		Waiting: display.HandPlayer,
	}
	f := display.Compose(s, display.Layout4, segment.DefaultBrightness)
	fmt.Println(f)
	fmt.Printf("%q\n", f.At(segment.BlinkPeriod/2).String())

	s = display.TableState{
		Player:  []tableau.Card{card("4H"), card("5S")},
		Banker:  []tableau.Card{card("3D"), card("3C")},
		Result:  display.ResultPlayer,
		Natural: true,
	}
	fmt.Println(display.Compose(s, display.Layout8, segment.DefaultBrightness))

	s = display.TableState{Alert: "extra-card"}
	fmt.Println(display.Compose(s, display.Layout4, segment.DefaultBrightness))
	// Output:
	// [5]  9
	// "   9"
	// P9 Pn b6
	// [E][1][ ][ ]
}

func ExampleGlyph() {
	for _, r := range "8Pb-" {
		s, _ := segment.Glyph(r)
		fmt.Printf("%c %#02x %s\n", r, uint8(s), s)
	}
	// Output:
	// 8 0x7f abcdefg
	// P 0x73 abefg
	// b 0x7c cdefg
	// - 0x40 g
}
