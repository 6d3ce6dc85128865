// Package segment is the 7-segment frame every LED display of a table
// shows: digits (a glyph, a decimal point, blinking), pages that turn,
// brightness 0–MaxBrightness, the glyph table and the segment bits (SegA
// to SegG, SegDP), and the Renderer interface the chip drivers implement.
// It imports the standard library only, so that the LED chip drivers
// (drivers/tm1637, max7219, ht16k33) need nothing else from Sabot;
// package display composes a table's state into a Frame.
package segment
