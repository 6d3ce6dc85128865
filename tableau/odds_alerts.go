package tableau

import (
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// AdvantageAlert returns the advantage alert event for bet b before coup
// number coup of shoe number shoe.
func AdvantageAlert(shoe, coup int, b odds.BetEV) Event {
	ev := alertEvent(shoe, coup, baccarat.AlertAdvantage, Card{})
	ev.Alert.AdvantageBet = &odds.AdvantageBet{Bet: odds.OddsKey(b.Bet), EV: b.EV}
	return ev
}

// Advantages is the live advantage check on the fold's current shoe: the
// remaining shoe is the decks less every card drawn so far in this shoe
// (burn, surplus and voided cards included; see
// Composition.RemainingRanks; the suits left where Perfect Pair is offered
// or a suited pair pays more, Composition.RemainingCards), valued under
// the fold's rules. It appends to
// dst the offered bets whose expectation for the player exceeds threshold
// (see the package-level Advantages). The daemon may call it after every
// card; it does not allocate given a dst of capacity 7 (14 with side
// bets offered).
func (f *Fold) Advantages(dst []odds.BetEV, threshold float64) ([]odds.BetEV, error) {
	return odds.CompositionAdvantages(dst, &f.comp, f.opts.Rules, threshold)
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
	var buf [odds.NumMainBets + 7]odds.BetEV // + the side bets
	advs, err := odds.CompositionAdvantages(buf[:0], &before, f.opts.Rules, threshold)
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
