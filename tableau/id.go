package tableau

import (
	"strconv"
	"strings"
)

// Output ids. Every id a Table gives an output, and every id drivers/mqtt
// puts on a message derived from the table (the state message), is built
// here, so the format has one owner. Ids are derived from the journal
// input that caused the output, never from a count of messages sent, so a
// replay after a restart gives byte-identical ids and consumers drop
// duplicates by id.

// OutputID returns "<table>/<shoe-id>/<coup>/<kind>/<n>": kind is an
// OutputKind's String ("card", "coup", "alert", "void") or "state"; n
// counts outputs of that kind within the coup from 1 (for "state", the
// causing input's sequence number). shoeID is "" before the first shoe.
func OutputID(table, shoeID string, coup int, kind string, n uint64) string {
	var b strings.Builder
	b.Grow(len(table) + len(shoeID) + len(kind) + 24)
	b.WriteString(table)
	b.WriteByte('/')
	b.WriteString(shoeID)
	b.WriteByte('/')
	b.WriteString(strconv.Itoa(coup))
	b.WriteByte('/')
	b.WriteString(kind)
	b.WriteByte('/')
	b.WriteString(strconv.FormatUint(n, 10))
	return b.String()
}

// AckID returns the id of the acknowledgement of a latched entry whose
// first alert has id alertID: "<alert id>/ack". An entry is acknowledged
// once, so the id is unique.
func AckID(alertID string) string { return alertID + "/ack" }

// GateID returns the id of a gate output caused by input seq:
// "<table>/gate/<seq>" (gate outputs are not published).
func GateID(table string, seq uint64) string {
	return table + "/gate/" + strconv.FormatUint(seq, 10)
}
