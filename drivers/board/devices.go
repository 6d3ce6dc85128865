package board

import (
	"errors"
	"fmt"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/i2c/i2ctest"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spitest"

	"github.com/sabot-table/sabot/drivers/ledchip"
)

// Device kinds of a DeviceUse.
const (
	DevicePin = "pin" // a GPIO pin name as gpioreg knows it ("GPIO17")
	DeviceSPI = "spi" // an SPI port ("/dev/spidev0.0" or "SPI0.0")
	DeviceI2C = "i2c" // an I²C bus ("/dev/i2c-1", "1"; "" the first bus)
)

// DeviceUse is one pin or bus a configuration names.
type DeviceUse struct {
	Key  string // config key, e.g. "gpio.lamp", "display.spi"
	Kind string // DevicePin, DeviceSPI or DeviceI2C
	Name string // as configured (defaults filled in)
}

// Devices lists every pin and bus the [gpio] and [display] tables name,
// in the order Open resolves them, without touching any hardware: the
// fitted outputs and inputs, then what the display chip asks its bus for
// when it opens (its Open runs against in-memory recorders). It is how
// `sabot doctor` learns what to look for on the Pi. Errors are Check's
// (joined) or the chip's own.
func Devices(g GPIOConfig, d DisplayConfig) ([]DeviceUse, error) {
	if d.Brightness == 0 {
		d.Brightness = 1
	}
	s, cerrs := Check(g, d)
	if len(cerrs) > 0 {
		errs := make([]error, len(cerrs))
		for i, e := range cerrs {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	var uses []DeviceUse
	for _, n := range OutputNames {
		if p := g.pin(n); p != "" {
			uses = append(uses, DeviceUse{"gpio." + outputKeys[n], DevicePin, p})
		}
	}
	for _, n := range InputNames {
		if p := g.pin(n); p != "" {
			uses = append(uses, DeviceUse{"gpio." + inputKeys[n], DevicePin, p})
		}
	}
	chip, ok := ledchip.Lookup(d.Kind)
	if !ok {
		return uses, nil // "none" or "terminal"
	}
	bus := &recordBus{s: s}
	if _, err := chip.Open(s, bus); err != nil {
		return nil, fmt.Errorf("board: config key %q: %s: %w", "display.kind", chip.Name, err)
	}
	return append(uses, bus.uses...), nil
}

// recordBus is the ledchip.Bus of Devices: it notes each pin and bus asked
// for and hands out in-memory fakes (periph's gpiotest and recorders).
type recordBus struct {
	s    ledchip.Settings
	uses []DeviceUse
}

func (r *recordBus) note(k, kind string) {
	r.uses = append(r.uses, DeviceUse{"display." + k, kind, r.s.String(k)})
}

func (r *recordBus) Pin(k string) (gpio.PinIO, error) {
	r.note(k, DevicePin)
	return &gpiotest.Pin{N: r.s.String(k), Num: -1}, nil
}

func (r *recordBus) SPI(k string) (spi.Port, error) {
	r.note(k, DeviceSPI)
	return &spitest.Record{}, nil
}

func (r *recordBus) I2C(k string) (i2c.Bus, error) {
	r.note(k, DeviceI2C)
	return &i2ctest.Record{}, nil
}

// Fake is false so that a chip driven on bare pins asks for them.
func (r *recordBus) Fake() bool        { return false }
func (r *recordBus) SetFake(state any) {}
