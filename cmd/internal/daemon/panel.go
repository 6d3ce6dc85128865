package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/drivers/board"
	"github.com/sabot-table/sabot/drivers/board/hostgpio"
	"github.com/sabot-table/sabot/drivers/shoe"
	"github.com/sabot-table/sabot/tableau"
)

// openBoard opens the display, lamps and keys.
func (d *daemon) openBoard() error {
	// periph's host drivers (host.Init) find the pins and buses of
	// backend "gpio"; sabotd is the one program that links them.
	opts := &board.Options{Logger: d.log.With("component", "board"), Terminal: d.stdout, HostInit: hostgpio.Init}
	if d.demoScreen != nil {
		opts.Terminal = d.demoScreen
	}
	g, disp := d.cfg.BoardTables()
	b, err := board.Open(g, disp, opts)
	if err != nil {
		// board.ErrConfig in the chain makes it a configuration error:
		// exit 2.
		return err
	}
	if d.cfg.Shoe.RS485 == shoe.RS485GPIO {
		// The shoe's RS-485 driver enable, resolved like the [gpio] pins:
		// a name the GPIO chip does not have exits 2 naming the key.
		pin, err := b.Pin("shoe.rs485_de", "rs485_de", d.cfg.Shoe.RS485DE)
		if err != nil {
			_ = b.Close()
			return err
		}
		d.rs485DE = pin
	}
	d.board = b
	return nil
}

// showView shows the view on the display and lamps; for a card it records
// the card → display latency.
func (d *daemon) showView(view tableau.TableView, r inputReq) {
	if d.board == nil {
		return
	}
	if err := d.board.Show(display.FromView(view)); err != nil {
		d.log.Warn("display", "err", err)
	}
	if r.in.Kind == tableau.InputCard && !r.recv.IsZero() {
		d.metrics.cardToDisplay.Observe(time.Since(r.recv).Seconds())
	}
}

// runBoard drives the lamps and display animation and turns key presses
// into inputs, until ctx ends.
func (d *daemon) runBoard(ctx context.Context) {
	events := make(chan board.Event, 16)
	presses := make(chan time.Time, 16)
	d.wg.Add(3)
	go func() { defer d.wg.Done(); d.runDealerKey(ctx, presses) }()
	go func() {
		defer d.wg.Done()
		if err := d.board.Run(ctx, events); err != nil && ctx.Err() == nil {
			d.log.Error("board inputs stopped", "err", err)
		}
	}()
	go func() {
		defer d.wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-events:
				in := tableau.Input{Source: "gpio"}
				switch ev.Button {
				case board.InCoupButton:
					in.Kind = tableau.InputButton
				case board.InAckKey:
					in.Kind, in.Operator = tableau.InputAck, "ack-key"
				case board.InVoidKey:
					in.Kind, in.Operator = tableau.InputVoid, "void-key"
				case board.InBetsKey:
					in.Kind = tableau.InputBetsClosed
				case board.InStandKey:
					in.Kind = tableau.InputStand
				case board.InDealerKey:
					select {
					case presses <- ev.At:
					case <-ctx.Done():
					}
					continue
				default:
					continue
				}
				if err := d.submit(ctx, in); err != nil && ctx.Err() == nil {
					d.log.Warn("key press not applied", "key", ev.Button, "err", err)
				}
			}
		}
	}()
}

// fakeFrame is the fake board's display as a string (tests, scoreboard).
func (d *daemon) fakeFrame() string {
	if d.board == nil || d.board.Fake == nil || d.board.Display == nil {
		return ""
	}
	return d.board.Scheduler.Frame().String()
}

// lampOn reports whether the alarm lamp's pattern is not off.
func (d *daemon) lampOn() bool {
	if d.board == nil {
		return false
	}
	p, ok := d.board.Scheduler.Pattern(board.OutAlarmLamp)
	return ok && p != board.PatternOff
}

func (d *daemon) closeBoard() error {
	if d.board == nil {
		return nil
	}
	if err := d.board.Close(); err != nil {
		return fmt.Errorf("board: %w", err)
	}
	return nil
}
