package board

import (
	"reflect"
	"strings"
	"testing"
)

func TestDevices(t *testing.T) {
	for _, c := range []struct {
		name string
		g    GPIOConfig
		d    DisplayConfig
		want []DeviceUse
	}{
		{"tm1637 defaults, lamp and ack key",
			GPIOConfig{Lamp: "GPIO17", AckKey: "GPIO5"}, DisplayConfig{Kind: "tm1637", Brightness: 7},
			[]DeviceUse{{"gpio.lamp", DevicePin, "GPIO17"}, {"gpio.ack_key", DevicePin, "GPIO5"},
				{"display.clk", DevicePin, "GPIO23"}, {"display.dio", DevicePin, "GPIO24"}}},
		{"max7219 on spidev0.1",
			GPIOConfig{Buzzer: "GPIO27"}, DisplayConfig{Kind: "max7219", Options: map[string]any{"spi": "/dev/spidev0.1"}},
			[]DeviceUse{{"gpio.buzzer", DevicePin, "GPIO27"}, {"display.spi", DeviceSPI, "/dev/spidev0.1"}}},
		{"ht16k33 on the first bus", GPIOConfig{}, DisplayConfig{Kind: "ht16k33"},
			[]DeviceUse{{"display.i2c", DeviceI2C, ""}}},
		{"headless", GPIOConfig{}, DisplayConfig{Kind: "none"}, nil},
	} {
		got, err := Devices(c.g, c.d)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, %v\nwant %v", c.name, got, err, c.want)
		}
	}
	if _, err := Devices(GPIOConfig{Lamp: "GPIO17", Buzzer: "GPIO17"}, DisplayConfig{}); err == nil || !strings.Contains(err.Error(), `"gpio.buzzer"`) {
		t.Errorf("a pin named twice: %v", err)
	}
}
