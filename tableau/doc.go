// Package tableau is Sabot's pure rules engine for punto banco (baccarat):
// cards, hands, the drawing rules (the tableau), the coup and shoe state
// machines, rule profiles and settlement, exact odds and shoe transcripts.
//
// The package does no I/O beyond reading an io.Reader handed to it and
// imports only the standard library; a test enforces this. The daemon
// (cmd/sabotd) and the CLI (cmd/sabot) both fold the same events through
// this code, so they cannot disagree about a coup.
package tableau
