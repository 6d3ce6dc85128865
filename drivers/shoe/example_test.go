package shoe_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/sabot-table/sabot/drivers/shoe"
)

// replayPort is a Port that plays recorded bytes, then stays idle until it
// is closed (a stand-in for a serial device in this example).
type replayPort struct {
	r      io.Reader
	once   sync.Once
	closed chan struct{}
}

func (p *replayPort) Read(b []byte) (int, error) {
	if n, err := p.r.Read(b); n > 0 || err != io.EOF {
		return n, err
	}
	select {
	case <-p.closed:
		return 0, io.ErrClosedPipe
	case <-time.After(10 * time.Millisecond):
		return 0, nil // read timeout: idle line
	}
}
func (p *replayPort) Write(b []byte) (int, error) { return len(b), nil }
func (p *replayPort) Close() error                { p.once.Do(func() { close(p.closed) }); return nil }

// A Bee-Tek shoe: the bytes it sends (records split and glued, rank and suit
// in either order, a burn card, an unreadable card, an alarm) become events.
// In a real program Options.Open is left nil (the serial port at Path is
// opened and locked) and Run runs until Close.
func Example() {
	stream := " [Manual Burn Cards]<Card:H3>  [Game]<Card:4S>[Game]<Card:D10> [Game]<Game> \r\n [GameAlarm]<Alarm:E3 Card Not Read> "
	s, err := shoe.New(shoe.Options{
		Path:     "/dev/serial/by-id/usb-FTDI_FT232R_Bee-Tek-if00-port0",
		Protocol: "beetek",
		Logger:   slog.New(slog.DiscardHandler),
		Open: func(shoe.PortConfig) (shoe.Port, error) {
			return &replayPort{r: strings.NewReader(stream), closed: make(chan struct{})}, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	n := 0
	err = s.Run(ctx, func(ev shoe.Event) error {
		fmt.Println(ev)
		if n++; n == 6 {
			stop()
		}
		return nil
	})
	fmt.Println("run:", err)
	// Output:
	// online
	// card 3H burn
	// card 4S
	// card TD
	// unreadable
	// alarm E3 Card Not Read
	// run: <nil>
}
