package board

import (
	"errors"
	"strings"
	"testing"

	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
)

// Board.Pin resolves a pin of another driver (the shoe's RS-485 DE)
// through the board's backend: gpioreg after host.Init (called then if no
// [gpio] pin needed it), or a fake pin in Fake.Pins.
func TestBoardPin(t *testing.T) {
	de := &gpiotest.Pin{N: "GPIO18", Num: 18}
	o := seams(map[string]*gpiotest.Pin{"GPIO18": de})
	inits := 0
	o.HostInit = func() (*driverreg.State, error) { inits++; return &driverreg.State{}, nil }
	o.KeyPrefix = "sabotd.toml: "
	b, err := Open(GPIOConfig{}, DisplayConfig{}, o)
	if err != nil {
		t.Fatal(err)
	}
	if inits != 0 {
		t.Fatalf("host.Init called %d times with nothing fitted", inits)
	}
	p, err := b.Pin("shoe.rs485_de", "rs485_de", "GPIO18")
	if err != nil || p != gpio.PinIO(de) || inits != 1 {
		t.Fatalf("Pin: %v, %v (host.Init %d times)", p, err, inits)
	}
	_, err = b.Pin("shoe.rs485_de", "rs485_de", "GPIO99")
	var ce *ConfigError
	if !errors.Is(err, ErrConfig) || !errors.As(err, &ce) || ce.Key != "sabotd.toml: shoe.rs485_de" || !strings.Contains(err.Error(), `"GPIO99"`) || inits != 1 {
		t.Fatalf("unknown pin: %v (host.Init %d times)", err, inits)
	}

	fb, err := Open(GPIOConfig{Backend: BackendFake}, DisplayConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := fb.Pin("shoe.rs485_de", "rs485_de", "GPIO18")
	if err != nil {
		t.Fatal(err)
	}
	if err := fp.Out(gpio.High); err != nil {
		t.Fatal(err)
	}
	if got := fb.Fake.Pins["rs485_de"]; got == nil || got.N != "GPIO18" || got.L != gpio.High {
		t.Fatalf("fake pin %+v", got)
	}
}
