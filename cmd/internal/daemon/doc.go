// Package daemon is sabotd's daemon: it reads every card from the
// card-reading shoe (drivers/shoe), checks it against the tableau the
// moment it is drawn (tableau.Table), shows the totals (drivers/board),
// raises dealer-error alerts and publishes cards, coups, alerts and state
// over MQTT (drivers/mqtt), and serves the board page (boardweb), /metrics,
// /healthz and /recall.
//
// Every input goes through the main loop's steps in one order (process in
// loop.go): the table applies it in memory, the display shows it, the
// journal records it (fsynced), and only then are its outputs acted on
// and published, and the input acknowledged to the shoe; so nothing is
// lost across a crash, and a restart replays the journal (from the newest
// snapshot) to the same state.
//
// Main is the program (cmd/sabotd parses the flags into Options): Setup
// loads the configuration (cmd/internal/config), Run starts the daemon,
// Close stops it within StopTimeout, and ExitCode maps a start error to
// the exit status the systemd unit expects (2: do not restart). The
// package's tests boot the real program in-process and, in the end-to-end
// tests, as a built binary.
package daemon
