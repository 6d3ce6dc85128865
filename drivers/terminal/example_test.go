package terminal_test

import (
	"fmt"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/drivers/terminal"
)

// Lines gives the screen without escapes; a Screen on os.Stdout draws the
// same lines in place.
func ExampleLines() {
	f := display.Compose(display.TableState{Offline: true}, display.Layout4, 15)
	lines := terminal.Lines(f, terminal.Status{Message: "shoe offline"})
	for _, l := range lines[2:9] {
		fmt.Printf("|%s\n", l)
	}
	fmt.Println(lines[12])
	// Output:
	// |
	// |
	// |
	// |  #####    #####    #####    #####
	// |
	// |
	// |
	// shoe offline
}
