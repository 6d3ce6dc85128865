package display

import (
	"strconv"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// The error code a display shows for an alert is the alert's E number in
// tableau's alert table (baccarat.LookupAlert): what the dealer reads as
// "E1", "E2", ...; the table is also in docs/configuration.md ("Error codes"). Codes
// are never renumbered: a new alert gets the next number. A code the table
// does not know (a newer version's) shows E99; a code with no number
// (shoe-online, informational) is never shown.

// UnknownErrorCode is the number shown for an alert code not in the table.
const UnknownErrorCode = 99

// ErrorCode returns the number shown for the alert code (E1 is 1); an
// unknown code, or one that is never shown, gives UnknownErrorCode and ok
// false.
func ErrorCode(alert string) (n int, ok bool) {
	m, ok := baccarat.LookupAlert(baccarat.AlertCode(alert))
	if !ok || m.E == 0 {
		return UnknownErrorCode, false
	}
	return m.E, true
}

// ErrorText returns the text shown for the alert code: "E1", "E2", ...,
// "E99" for an unknown code.
func ErrorText(alert string) string {
	n, _ := ErrorCode(alert)
	return "E" + strconv.Itoa(n)
}

// AlertCodes returns the alert codes that have an error code, ordered by
// error code (AlertCodes()[0] is E1's).
func AlertCodes() []string {
	var out []string
	for _, m := range baccarat.Alerts() {
		if m.E == 0 {
			continue
		}
		if m.E > len(out) {
			out = append(out, make([]string, m.E-len(out))...)
		}
		out[m.E-1] = string(m.Code)
	}
	return out
}
