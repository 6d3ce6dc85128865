package tableau

// AdvantageBet is what an advantage alert carries: the bet whose
// expectation for the player exceeds the threshold, and that expectation.
// In JSON: {"type":"alert","code":"advantage","shoe":1,"coup":73,
// "bet":"dragon7","ev":0.0521}.
type AdvantageBet struct {
	Bet string  `json:"bet"` // OddsKey of the bet: "dragon7", "player_pair", …
	EV  float64 `json:"ev"`  // expected net result per unit staked, for the player
}

// AdvantageAlert returns the advantage alert event for bet b before coup
// number coup of shoe number shoe.
func AdvantageAlert(shoe, coup int, b BetEV) Event {
	ev := alertEvent(shoe, coup, AlertAdvantage, Card{})
	ev.Alert.AdvantageBet = &AdvantageBet{Bet: OddsKey(b.Bet), EV: b.EV}
	return ev
}

// Advantages is the live advantage check on the fold's current shoe: the
// remaining shoe is the decks less every card drawn so far in this shoe
// (burn, surplus and voided cards included; see
// Composition.RemainingRanks), valued under the fold's rules. It appends to
// dst the offered bets whose expectation for the player exceeds threshold
// (see the package-level Advantages). The daemon may call it after every
// card; it does not allocate given a dst of capacity 7.
func (f *Fold) Advantages(dst []BetEV, threshold float64) ([]BetEV, error) {
	rc := f.comp.RemainingRanks()
	return Advantages(dst, &rc, f.opts.Rules, threshold)
}

// FeedAdvantages is Feed plus the advantage check of `sabot check
// --advantage`: if tok is the first card of a coup, the exact odds of the
// shoe as it stood just before that card are computed and an advantage
// alert (AdvantageAlert) for every offered bet whose expectation exceeds
// threshold is placed ahead of the events the card itself causes. Nothing
// is added when fewer than six cards were left (no coup can be valued).
func (f *Fold) FeedAdvantages(tok Token, threshold float64, out []Event) []Event {
	if tok.Kind != TokCard {
		return f.Feed(tok, out)
	}
	before := f.comp
	shoe, coup := f.shoe, f.coupNum
	n := len(out)
	out = f.Feed(tok, out)
	if f.phase != PhaseCoup || (f.shoe == shoe && f.coupNum == coup) {
		return out // not the first card of a coup
	}
	rc := before.RemainingRanks()
	var buf [len(oddsBetOrder)]BetEV
	advs, err := Advantages(buf[:0], &rc, f.opts.Rules, threshold)
	if err != nil || len(advs) == 0 {
		return out
	}
	k := len(advs)
	for range k {
		out = append(out, Event{})
	}
	copy(out[n+k:], out[n:len(out)-k])
	for i, a := range advs {
		out[n+i] = AdvantageAlert(f.shoe, f.coupNum, a)
	}
	return out
}

// BestAdvantage is the odds engine reduced to one answer: the offered bet
// with the highest expectation for the player on the next coup dealt from
// the remaining shoe, as its OddsKey and EV. It returns ("", -1) when the
// shoe cannot be valued (fewer than six cards left) or rules are invalid.
func BestAdvantage(remaining *Composition, rules Rules) (bet string, ev float64) {
	rc := remaining.RemainingRanks()
	var o Odds
	if rules.Validate() != nil || o.Analyze(&rc) != nil {
		return "", -1
	}
	best, bestEV := Bet(0), -2.0
	for _, b := range oddsBetOrder {
		if e, ok := o.EV(b, rules); ok && e > bestEV {
			best, bestEV = b, e
		}
	}
	return OddsKey(best), bestEV
}
