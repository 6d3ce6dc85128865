package board_test

import (
	"fmt"
	"log"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/drivers/board"
	"github.com/sabot-table/sabot/drivers/tm1637/tm1637test"
	"github.com/sabot-table/sabot/tableau"
)

// A table wired as in the README: TM1637 on GPIO23 (CLK) and GPIO24 (DIO),
// alarm lamp on GPIO17, buzzer on GPIO27, acknowledge key on GPIO5. With
// Backend "gpio" (the default) Open calls Options.HostInit (hostgpio.Init,
// periph's host.Init) and resolves the names through gpioreg; Backend
// "fake" builds the same board on fakes, so this example runs anywhere and
// reads back what the LEDs show.
func ExampleOpen() {
	pins := board.GPIOConfig{Backend: board.BackendFake, Lamp: "GPIO17", Buzzer: "GPIO27", AckKey: "GPIO5"}
	disp := board.DisplayConfig{Kind: "tm1637", Brightness: 15, Options: map[string]any{"clk": "GPIO23", "dio": "GPIO24"}}
	b, err := board.Open(pins, disp, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	chip := b.Fake.Chip.(*tm1637test.Bus) // the emulated TM1637 on the fake pins

	four, five := tableau.Card{Rank: card.Rank4}, tableau.Card{Rank: card.Rank5}
	three := tableau.Card{Rank: card.Rank3}
	s := display.TableState{
		Player: []tableau.Card{four, five}, Banker: []tableau.Card{three, three},
		Result: display.ResultPlayer, Natural: true,
	}
	if err := b.Show(s); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("display %q, alarm lamp on: %v\n", chip.Text(4), b.OutputOn(board.OutAlarmLamp))

	if err := b.Show(display.TableState{Alert: "extra-card"}); err != nil {
		log.Fatal(err)
	}
	buzzer, _ := b.Scheduler.Pattern(board.OutBuzzer)
	fmt.Printf("display %q, alarm lamp on: %v, buzzer: %v\n", chip.Text(4), b.OutputOn(board.OutAlarmLamp), buzzer)
	// Output:
	// display "9Pn6", alarm lamp on: false
	// display "E1  ", alarm lamp on: true, buzzer: beep:3
}
