// Package display decides what the table's LED displays show: the frame
// model (what every digit shows, which digits blink, brightness), the
// 7-segment glyph table, the mapping from alert codes to the error codes
// the dealer reads ("E1", "E2", ...), and Compose, which turns the state of
// the table (cards of the current coup, burn, cut card, alert, shoe
// offline) into a frame.
//
// The package is pure: no I/O, no clocks, no goroutines; it imports only
// the standard library and tableau. Chip drivers (drivers/tm1637,
// drivers/max7219, drivers/ht16k33) and the terminal display
// (drivers/terminal) implement Renderer and show frames; blinking is
// animated by the caller with Frame.At.
package display
