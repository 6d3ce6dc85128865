package display

import (
	"strconv"

	"github.com/sabot-table/sabot/tableau"
)

// The error codes a display shows for each alert code (the kebab-case alert
// codes of tableau and the daemon). The number is what the dealer reads as
// "E1", "E2", ...; the table is also in the README ("Displays, lamps and
// buttons"). Codes are never renumbered: a new alert gets the next number.
//
//	E1  extra-card       a card arrived after the coup was complete
//	E2  missing-card     the coup was closed before the tableau was complete
//	E3  burn-count       the burn had the wrong number of cards
//	E4  composition      a card the shoe cannot contain (more than the decks hold)
//	E5  after-cut        a coup started after the shoe's last coup (cut card)
//	E6  incomplete-coup  the input ended or a new shoe began mid-coup
//	E7  early-draw       a card drawn before the last coup was closed or bets closed
//	E8  duplicate-card   the same physical card (reader UID) seen twice in a shoe
//	E9  card-mismatch    the card reported differs from the card the shoe read
//	E10 unreadable-card  the shoe saw a card it could not read
//	E11 shoe-alarm       the shoe reported a fault (tamper, jam, sensor)
//	E12 advantage        the remaining cards give a bet a positive expectation
//	E13 outbox-backlog   MQTT messages are queuing up undelivered
//	E14 shoe-offline     the shoe link was down (shown once it is back,
//	                     until acknowledged; while it is down: dashes)
//	E99 (any other code)
//
// shoe-online is informational and never shown.
var errorCodes = map[string]int{
	string(tableau.AlertExtraCard):      1,
	string(tableau.AlertMissingCard):    2,
	string(tableau.AlertBurnCount):      3,
	string(tableau.AlertComposition):    4,
	string(tableau.AlertAfterCut):       5,
	string(tableau.AlertIncompleteCoup): 6,
	string(tableau.AlertEarlyDraw):      7,
	string(tableau.AlertDuplicateCard):  8,
	string(tableau.AlertCardMismatch):   9,
	string(tableau.AlertUnreadableCard): 10,
	string(tableau.AlertShoeAlarm):      11,
	string(tableau.AlertAdvantage):      12,
	string(tableau.AlertOutboxBacklog):  13,
	string(tableau.AlertShoeOffline):    14,
}

// UnknownErrorCode is the number shown for an alert code not in the table.
const UnknownErrorCode = 99

// ErrorCode returns the number shown for the alert code (E1 is 1); an
// unknown code gives UnknownErrorCode and ok false.
func ErrorCode(alert string) (n int, ok bool) {
	n, ok = errorCodes[alert]
	if !ok {
		return UnknownErrorCode, false
	}
	return n, true
}

// ErrorText returns the text shown for the alert code: "E1", "E2", ...,
// "E99" for an unknown code.
func ErrorText(alert string) string {
	n, _ := ErrorCode(alert)
	return "E" + strconv.Itoa(n)
}

// AlertCodes returns the alert codes of the table, ordered by error code.
func AlertCodes() []string {
	out := make([]string, len(errorCodes))
	for code, n := range errorCodes {
		out[n-1] = code
	}
	return out
}
