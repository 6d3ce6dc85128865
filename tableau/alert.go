package tableau

// AlertCode names a dealer error or an equipment condition. Codes are
// kebab-case strings; they appear as "code" in `sabot check` output, in MQTT
// alert payloads and on displays. The empty code means "no alert".
type AlertCode string

// Alert codes raised by the coup and shoe state machines (Coup, Fold) and
// by `sabot check`.
const (
	// AlertExtraCard: a card arrived after the coup was complete (with
	// markers: before the dealer's "|"). The card belongs to no hand; the
	// coup's result stands.
	AlertExtraCard AlertCode = "extra-card"
	// AlertMissingCard: the coup was closed ("|") before the tableau was
	// complete. The coup gets no result.
	AlertMissingCard AlertCode = "missing-card"
	// AlertBurnCount: the burn did not have 1 + the first card's value
	// cards (10/J/Q/K burn 10). Raised with coup 0.
	AlertBurnCount AlertCode = "burn-count"
	// AlertComposition: the card cannot come from the shoe — more of its
	// rank, or of its rank and suit, than the decks hold. The card is
	// still used.
	AlertComposition AlertCode = "composition"
	// AlertAfterCut: a coup started after the shoe's last coup (per the cut
	// rule). Raised on its first card; the coup is still validated.
	AlertAfterCut AlertCode = "after-cut"
	// AlertIncompleteCoup: the input ended, or a new shoe began, in the
	// middle of a coup.
	AlertIncompleteCoup AlertCode = "incomplete-coup"
)

// Alert codes raised by other parts of Sabot; defined here so that every
// code lives in one place.
const (
	// AlertAdvantage: the remaining shoe composition gives a bet a positive
	// expectation for the player (card counting opportunity); raised by the
	// odds code (issue 3).
	AlertAdvantage AlertCode = "advantage"
	// AlertShoeOffline: the card-reading shoe stopped answering.
	AlertShoeOffline AlertCode = "shoe-offline"
	// AlertShoeOnline: the card-reading shoe answers again.
	AlertShoeOnline AlertCode = "shoe-online"
	// AlertShoeAlarm: the shoe reported a fault (tamper, jam, sensor).
	AlertShoeAlarm AlertCode = "shoe-alarm"
	// AlertUnreadableCard: the shoe saw a card it could not read.
	AlertUnreadableCard AlertCode = "unreadable-card"
	// AlertDuplicateCard: the same physical card (reader UID) was seen twice
	// in one shoe.
	AlertDuplicateCard AlertCode = "duplicate-card"
	// AlertCardMismatch: the card the dealer reported differs from the card
	// the shoe read.
	AlertCardMismatch AlertCode = "card-mismatch"
	// AlertEarlyDraw: a card was drawn before the previous coup was closed
	// or before betting closed.
	AlertEarlyDraw AlertCode = "early-draw"
	// AlertOutboxBacklog: published messages are queuing up undelivered.
	AlertOutboxBacklog AlertCode = "outbox-backlog"
)

// AlertCodes lists every alert code, the rules engine's first.
var AlertCodes = []AlertCode{
	AlertExtraCard, AlertMissingCard, AlertBurnCount, AlertComposition,
	AlertAfterCut, AlertIncompleteCoup,
	AlertAdvantage, AlertShoeOffline, AlertShoeOnline, AlertShoeAlarm,
	AlertUnreadableCard, AlertDuplicateCard, AlertCardMismatch,
	AlertEarlyDraw, AlertOutboxBacklog,
}

// Known reports whether a is one of AlertCodes.
func (a AlertCode) Known() bool {
	for _, k := range AlertCodes {
		if a == k {
			return true
		}
	}
	return false
}
