// Package tableau is the top layer of Sabot's pure rules engine: the shoe
// state machine. It holds the transcript lexer (ParseTranscript, Lexer),
// the folds that turn tokens into coup, alert and void events (Fold,
// MacaoFold), the live Table the daemon drives with journal inputs, its
// snapshots, recall and dealer shifts, and the events and their JSON. It
// re-exports the card types of package card under their old names.
//
// The layers below it, each importing only the standard library and the
// layers before it (a test enforces the order):
//
//   - tableau/card: cards, ranks, suits and their syntax;
//   - tableau/baccarat: the rules: hands, drawing tables, the coup state
//     machine, games, rule profiles and settlement, alert codes;
//   - tableau/odds: the exact odds engine (house edges, side bets,
//     banque, advantage play);
//   - tableau/chemin: the chemin de fer game solver.
//
// The package does no I/O beyond reading an io.Reader handed to it. The
// daemon (cmd/sabotd) and the CLI (cmd/sabot) both fold the same events
// through this code, so they cannot disagree about a coup.
package tableau
