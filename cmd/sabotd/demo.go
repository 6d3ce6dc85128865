package main

import "context"

// demoConfig is the configuration --demo runs with: no file, no hardware,
// no external broker. The state directory is a temporary one (removed on
// exit), the embedded broker and the HTTP server take free loopback ports.
func demoConfig() Config {
	c := DefaultConfig()
	c.Table = "DEMO-1"
	c.Shoe.Device = "(virtual shoe on a pty)"
	c.Display.Kind = "terminal"
	c.MQTT.EmbeddedAddr = "127.0.0.1:0"
	c.State.Dir = ""
	return c
}

type demoRun struct {
	ptyPath string
	stop    func()
}

func (d *daemon) startDemo(ctx context.Context) error { return nil }
