// Package chemin is the chemin de fer game solver: the punter's and the
// banker's optimal mixed strategies at the option cells, by exact
// enumeration of the remaining shoe and a rational simplex (SolveChemin),
// and banker strategies named in text (ChooseBanker).
//
// It imports only the standard library and the lower layers of tableau
// (tableau/card, tableau/baccarat, tableau/odds); a test in package
// tableau enforces it.
package chemin
