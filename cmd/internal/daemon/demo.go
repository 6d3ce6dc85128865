package daemon

import (
	"context"
	"errors"

	"github.com/sabot-table/sabot/cmd/internal/demo"
)

// startDemo starts the virtual shoe on a pseudo-terminal (cmd/internal/demo);
// startShoe then opens the pty's device with the real serial driver.
func (d *daemon) startDemo(ctx context.Context) error {
	if d.broker == nil {
		return errors.New("demo: no embedded broker")
	}
	user, pass := d.broker.Credentials()
	r, err := demo.Start(ctx, demo.Setup{Options: d.demo, Out: d.stdout, Screen: d.demoScreen, AckKey: d.cfg.GPIO.AckKey != "",
		Broker: demo.Broker{URL: d.broker.URL(), User: user, Password: pass, Prefix: d.cfg.MQTT.TopicPrefix + "/" + d.cfg.Table},
		Log:    d.log, Stop: d.stop})
	if err != nil {
		return err
	}
	d.demoRun = r
	d.demoWatch = r.Watch
	return nil
}
