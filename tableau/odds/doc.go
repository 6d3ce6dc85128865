// Package odds is Sabot's exact odds engine: the probabilities and
// expectations of every bet on the next coup dealt from a known remaining
// shoe, by complete enumeration with card removal (AnalyzeOdds,
// AnalyzePairs, AnalyzeSideBets, AnalyzeBanque), house edges, and the
// advantage check (Advantages, CompositionAdvantages, BestAdvantage,
// AdvantageThreshold) the table and `sabot check --advantage` use.
//
// It imports only the standard library and the lower layers of tableau
// (tableau/card, tableau/baccarat); a test in package tableau enforces it.
package odds
