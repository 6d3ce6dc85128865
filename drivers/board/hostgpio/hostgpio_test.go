package hostgpio_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/drivers/board"
	"github.com/sabot-table/sabot/drivers/board/hostgpio"
)

// The real path: periph host.Init, then gpioreg. No machine has a pin by
// this name, so the error must name the config key and the pin.
func TestOpenRealHostUnknownPin(t *testing.T) {
	_, err := board.Open(board.GPIOConfig{AckKey: "SABOT_NO_SUCH_PIN_999"}, board.DisplayConfig{}, &board.Options{HostInit: hostgpio.Init})
	if err == nil || !strings.Contains(err.Error(), `config key "gpio.ack_key": no GPIO pin named "SABOT_NO_SUCH_PIN_999"`) {
		t.Errorf("Open: %v", err)
	}
	var ce *board.ConfigError
	if !errors.Is(err, board.ErrConfig) || !errors.As(err, &ce) || ce.Key != "gpio.ack_key" {
		t.Errorf("Open: %v is not a *ConfigError for gpio.ack_key", err)
	}
}
