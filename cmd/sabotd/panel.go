package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/drivers/board"
	"github.com/sabot-table/sabot/tableau"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/host/v3"
)

// boardConfig translates [display] and [gpio] into the board's config.
// Display kind "fake" (or gpio.backend "fake") gives the fake board: every
// pin from gpiotest and a fake chip (an 8-digit MAX7219 for kind "fake").
func boardConfig(c Config) board.Config {
	g, dc := c.GPIO, c.Display
	bc := board.Config{
		Backend:          g.Backend,
		AlarmLamp:        g.Lamp,
		TowerRed:         g.TowerRed,
		TowerAmber:       g.TowerAmber,
		TowerGreen:       g.TowerGreen,
		Buzzer:           g.Buzzer,
		OutputsActiveLow: g.OutputsActiveLow,
		CoupButton:       g.CoupButton,
		AckKey:           g.AckKey,
		VoidKey:          g.VoidKey,
		InputsActiveHigh: g.InputsActiveHigh,
		DebounceMS:       g.DebounceMS,
		Display: board.DisplayConfig{
			Digits: dc.Digits, Brightness: dc.Brightness, CLK: dc.CLK, DIO: dc.DIO,
			SPI: dc.SPI, I2C: dc.I2C, Addr: dc.Address,
		},
	}
	switch dc.Kind {
	case "none":
		bc.Display.Chip = board.ChipNone
	case "fake":
		bc.Backend = board.BackendFake
		bc.Display.Chip = board.ChipMAX7219
		bc.Display.SPI = "fake"
		if bc.Display.Digits == 0 {
			bc.Display.Digits = 8
		}
	case "terminal":
		bc.Display.Chip = board.ChipTerminal
		if bc.Display.Digits == 0 {
			bc.Display.Digits = 8
		}
	default:
		bc.Display.Chip = dc.Kind
	}
	return bc
}

// boardKeys maps the board's config key names onto sabotd's.
var boardKeys = strings.NewReplacer(
	`"board.display.chip"`, `"display.kind"`,
	`"board.display.addr"`, `"display.address"`,
	`"board.display.`, `"display.`,
	`"board.alarm_lamp"`, `"gpio.lamp"`,
	`"board.`, `"gpio.`,
)

// openBoard opens the display, lamps and keys.
func (d *daemon) openBoard() error {
	opts := &board.Options{Logger: d.log.With("component", "board"), Terminal: d.stdout}
	if d.demoScreen != nil {
		opts.Terminal = d.demoScreen
	}
	b, err := board.Open(boardConfig(d.cfg), opts)
	if err != nil {
		// Name sabotd's keys ("gpio.lamp"), keeping the error's chain
		// (board.ErrConfig makes it a configuration error: exit 2).
		return &renamedError{msg: boardKeys.Replace(err.Error()), err: err}
	}
	d.board = b
	if name := d.cfg.GPIO.BetsKey; name != "" && d.cfg.GPIO.Backend != board.BackendFake && d.cfg.Display.Kind != "fake" {
		if _, err := host.Init(); err != nil {
			return fmt.Errorf("gpio.bets_key: periph host init: %w", err)
		}
		p := gpioreg.ByName(name)
		if p == nil {
			return fmt.Errorf("%w: gpio.bets_key: no GPIO pin named %q", errConfig, name)
		}
		d.betsKey = &board.Button{Name: "bets_key", Pin: p, ActiveHigh: d.cfg.GPIO.InputsActiveHigh}
	}
	return nil
}

// renamedError is err with its message rewritten; errors.Is and As still
// see err.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

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
	if d.betsKey != nil {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			deb := time.Duration(d.cfg.GPIO.DebounceMS) * time.Millisecond
			if err := board.Watch(ctx, *d.betsKey, events, board.InputOpts{Debounce: deb}); err != nil && ctx.Err() == nil {
				d.log.Error("gpio.bets_key stopped", "err", err)
			}
		}()
	}
	d.wg.Add(2)
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
				case "bets_key":
					in.Kind = tableau.InputBetsClosed
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
