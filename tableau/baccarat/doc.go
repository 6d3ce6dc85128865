// Package baccarat holds the rules of Sabot's games, below the shoe state
// machine (package tableau) and the odds engine (tableau/odds): hands and
// their totals, the drawing rules (the tableau: DrawTable, PuntoBanco,
// CheminDeFer), the coup state machine (Coup, MacaoCoup) and the coup line
// it produces (CoupEvent), the games and their registry (Game), rule
// profiles, commission and settlement (Rules, Settle), the shoe
// composition and its rank and card counts, and the alert codes.
//
// It imports only the standard library and tableau/card; a test in
// package tableau enforces the layer order.
package baccarat
