// Package layers holds the test that keeps Sabot's packages in their
// layers; it has no code of its own.
//
// The layers, from the bottom; a package imports only packages of its own
// layer or lower ones (its tests too, but for test doubles):
//
//  0. tableau (and tableau/...), the rules of the game, and
//     display/segment, the seven-segment glyphs.
//  1. display (and display/...): what the LED display, lamps and board
//     show, from the table's view.
//  2. firmware-proto (and firmware-proto/...): the shoe's wire protocol and
//     its simulator.
//  3. drivers/...: hardware, storage, MQTT, HTTP.
//  4. cmd/internal, shared: what several products use — the version
//     string, the MQTT clients' bounds (mqttclient), sabotd's
//     configuration (config), the journal read back (recall), the
//     house-rule flags (houseflags) and `sabot check` (audit, whose
//     printer `sabot roads` uses).
//  5. cmd/internal, products: the board page (boardweb), --demo (demo),
//     `sabot doctor`, `odds`, `roads`, `shoe-sim`, the pit console and
//     the floor harness; a product does not import another (its tests
//     may).
//  6. cmd/internal/daemon: sabotd's daemon, which starts the board page
//     and the demo.
//  7. cmd/sabot and cmd/sabotd, the programs.
//
// Layers 0 and 1 import only the standard library and each other's
// packages (their tests may use more, pgregory.net/rapid, and so may their
// test-only helper packages, such as tableau/internal/dealtest).
//
// Test doubles (drivers/testenv/..., and any package whose last path
// element ends in "test", "fake" or "mock", such as
// drivers/tm1637/tm1637test or periph's gpiotest) are imported only by
// tests, by other test doubles, and by the importers listed in the test
// (drivers/board, whose backend "fake" is a product feature: sabotd on a
// laptop and --demo; cmd/sabotd's TestDeps lists what it links for it).
// The chip drivers (drivers/tm1637, drivers/max7219, drivers/ht16k33,
// drivers/ledchip) link neither tableau nor any test double: they know
// segments, not cards.
//
// A package of the module that no layer names fails the test: put it in a
// layer here and in the test.
package layers
