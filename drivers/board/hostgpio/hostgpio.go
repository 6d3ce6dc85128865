// Package hostgpio gives drivers/board periph's host drivers: Init is
// periph host v3's host.Init, which registers the machine's GPIO lines in
// gpioreg (its gpioioctl driver: every named line of /dev/gpiochip*, under
// its line name, "GPIO17" on a Raspberry Pi; on ARM boards also the SoC
// drivers and their aliases) and the SPI and I²C buses in spireg and
// i2creg, where board.Open looks the configured names up.
//
// It is a package of its own so that only the daemon links periph's host
// drivers: cmd/sabotd sets board.Options.HostInit to Init, while `sabot
// doctor` reads the GPIO chips' line names itself (drivers/hostcheck) and
// links none of them.
package hostgpio

import (
	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/host/v3"
)

// Init initialises periph's host drivers (host.Init: periph's driverreg
// runs each registered driver once; later calls return the same state).
// It is what board.Options.HostInit takes for backend "gpio". Errors are
// periph's: a driver that failed to load.
func Init() (*driverreg.State, error) {
	return host.Init()
}
