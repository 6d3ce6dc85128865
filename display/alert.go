package display

import "strconv"

// The error codes a display shows for each alert code (the kebab-case alert
// codes of tableau and the daemon). The number is what the dealer reads as
// "E1", "E2", ...; the table is also in the README ("Displays, lamps and
// buttons"). Codes are never renumbered: a new alert gets the next number.
//
//	E1  extra-card       a card was drawn that the tableau does not allow
//	E2  missing-card     a third card the tableau requires was not drawn
//	E3  burn-count       the burn did not match the first card's value
//	E4  composition      more cards of a rank/suit than the shoe holds
//	E5  after-cut        a coup was started after the last coup
//	E6  incomplete-coup  the coup was ended with too few cards
//	E7  early-draw       a card was drawn before the coup was opened
//	E8  duplicate-card   the same physical card was read twice
//	E9  card-mismatch    the card read differs from the card declared
//	E10 unreadable-card  the shoe could not read a card
//	E11 shoe-alarm       the shoe reported a fault or tamper alarm
//	E12 advantage        the shoe's remaining cards favour a side bet
//	E13 outbox-backlog   MQTT messages are waiting to be published
//	E99 (any other code)
//
// shoe-offline is shown as dashes, not as a number, and shoe-online clears
// it; neither has an E code.
var errorCodes = map[string]int{
	"extra-card":      1,
	"missing-card":    2,
	"burn-count":      3,
	"composition":     4,
	"after-cut":       5,
	"incomplete-coup": 6,
	"early-draw":      7,
	"duplicate-card":  8,
	"card-mismatch":   9,
	"unreadable-card": 10,
	"shoe-alarm":      11,
	"advantage":       12,
	"outbox-backlog":  13,
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
