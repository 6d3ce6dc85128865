package config

import "github.com/sabot-table/sabot/drivers/board"

// BoardTables are the [gpio] and [display] tables as the board takes them:
// sabotd's display kind "fake" is the fake backend with an 8-digit MAX7219
// (whose SPI bytes are recorded).
func (c Config) BoardTables() (board.GPIOConfig, board.DisplayConfig) {
	g, d := c.GPIO, c.Display
	if d.Kind == "fake" {
		g.Backend = board.BackendFake
		d.Kind, d.Options = "max7219", nil
	}
	return g, d
}
