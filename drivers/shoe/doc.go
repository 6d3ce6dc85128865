// Package shoe is the serial link to a card-reading shoe: it owns the serial
// port, speaks the shoe's protocol and hands the table controller an
// ordered stream of events — card, unreadable card, button, cut card, shoe
// state, alarm, online/offline — each delivered exactly once.
//
// Layers, bottom up:
//
//   - Port (port.go): the configured device only (a /dev/serial/by-id or
//     udev symlink; pseudo-terminals work), opened with go.bug.st/serial in
//     raw mode after an exclusive flock(2) on the device, so a second
//     sabotd gets ErrBusy. Reads time out with (0, nil); writes are bounded
//     by a write timeout; Close wakes a blocked read and discards output the
//     line cannot drain. OpenSerial is the real opener; Options.Open swaps
//     it for tests.
//   - Protocol (protocol.go): bytes in, events out, replies back. Three are
//     registered: "sabot" (the firmware-proto protocol: handshake, ACK,
//     NAK, heartbeat supervision, exactly-once by (boot id, sequence), GATE
//     and INDICATOR), "beetek" (the ASCII records of Bee-Tek shoes) and
//     "lines" (one card per line — the small-file example of a new shoe).
//   - Shoe (shoe.go): the link. Run opens the port, feeds the protocol,
//     delivers events to a Handler, and after an unplug emits KindOffline at
//     once and reopens the same path with capped backoff. An idle line costs
//     one read per ReadTimeout.
//
// Exactly once: the Handler is called on the link's goroutine, one event at
// a time; a sabot-protocol event is acknowledged to the shoe only after the
// Handler returned nil, so an event is never lost between the wire and the
// journal. Duplicates (retransmissions) are dropped by (boot id, sequence);
// a daemon that journals Event.BootID and Event.Seq passes the last pair
// back in Options.Resume after a restart.
package shoe
