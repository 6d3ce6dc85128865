package main

import (
	"context"
	"fmt"
)

// openChip opens the configured LED chip display.
func (d *daemon) openChip() (renderer, func() error, error) {
	return nil, nil, fmt.Errorf("display.kind %q: chip displays are not wired yet", d.cfg.Display.Kind)
}

// openLamps opens the lamp and buzzer outputs named in [gpio]; nil when
// none is configured.
func (d *daemon) openLamps() (lampSink, error) {
	if d.cfg.GPIO.Lamp == "" && d.cfg.GPIO.Buzzer == "" {
		return nil, nil
	}
	return nil, fmt.Errorf("gpio.lamp: GPIO outputs are not wired yet")
}

// openTerminal opens the terminal display.
func (d *daemon) openTerminal() (renderer, lampSink, func() error, error) {
	return nil, nil, nil, fmt.Errorf("display.kind \"terminal\": not wired yet")
}

// startButtons watches the keys named in [gpio].
func (d *daemon) startButtons(ctx context.Context) error {
	if d.cfg.GPIO.AckKey == "" && d.cfg.GPIO.VoidKey == "" && d.cfg.GPIO.CoupButton == "" && d.cfg.GPIO.BetsKey == "" {
		return nil
	}
	return fmt.Errorf("gpio.ack_key: GPIO inputs are not wired yet")
}

func (d *daemon) stopButtons() {}
