package baccarat

// AlertCode names a dealer error or an equipment condition. Codes are
// kebab-case strings; they appear as "code" in `sabot check` output, in MQTT
// alert payloads and on displays (as their E-number). The empty code means
// "no alert".
type AlertCode string

// Alert codes raised by the shoe state machine (Fold), and so by `sabot
// check` as well as the daemon.
const (
	// AlertExtraCard: with markers, a card arrived after the coup was
	// complete and before the dealer's "|". The card belongs to no hand; the
	// coup's result stands (TableConfig.Misdeal MisdealVoid voids it).
	AlertExtraCard AlertCode = "extra-card"
	// AlertMissingCard: with markers, the coup was closed ("|") before the
	// tableau was complete. The coup gets no result.
	AlertMissingCard AlertCode = "missing-card"
	// AlertBurnCount: the burn did not have 1 + the first card's value
	// cards (10/J/Q/K burn 10): with markers at the "|" that ends it, and
	// whenever the shoe ends (new shoe, end of input) during the burn.
	// Raised with coup 0.
	AlertBurnCount AlertCode = "burn-count"
	// AlertComposition: the card cannot come from the shoe — more of its
	// rank, or of its rank and suit, than the decks hold. The card is
	// still used.
	AlertComposition AlertCode = "composition"
	// AlertAfterCut: a coup started after the shoe's last coup (per the cut
	// rule). Raised on its first card; the coup is still validated.
	AlertAfterCut AlertCode = "after-cut"
	// AlertIncompleteCoup: the input ended, or a new shoe began, in the
	// middle of a coup that was not voided.
	AlertIncompleteCoup AlertCode = "incomplete-coup"
)

// Alert codes raised by the table controller (Table) from the daemon's
// inputs, or by the daemon's drivers through a Table input; defined here so
// that every code lives in one place.
const (
	// AlertAdvantage: with TableConfig.AdvantageThreshold on, on the first
	// card of a coup an offered bet's exact expectation for the player on
	// that coup exceeds the threshold (card counting opportunity). Raised
	// by Fold.FeedAdvantages, so by `sabot check --advantage` too.
	AlertAdvantage AlertCode = "advantage"
	// AlertShoeOffline: the shoe link went down (InputOffline, raised once
	// until InputOnline).
	AlertShoeOffline AlertCode = "shoe-offline"
	// AlertShoeOnline: the shoe link is back (InputOnline after
	// InputOffline).
	AlertShoeOnline AlertCode = "shoe-online"
	// AlertShoeAlarm: the shoe reported a fault (InputAlarm: tamper, jam,
	// sensor); the text is the shoe's code and text.
	AlertShoeAlarm AlertCode = "shoe-alarm"
	// AlertUnreadableCard: the shoe saw a card it could not read
	// (InputUnreadable), or a card input is not a valid card (the Fold
	// raises it and does not use the card).
	AlertUnreadableCard AlertCode = "unreadable-card"
	// AlertDuplicateCard: the same reader UID was read twice in one shoe.
	// The second card is still used.
	AlertDuplicateCard AlertCode = "duplicate-card"
	// AlertCardMismatch: the shoe read a UID that TableConfig.Registry
	// registers as another card: the rank differs, or both suits are known
	// and differ. The card read is used.
	AlertCardMismatch AlertCode = "card-mismatch"
	// AlertEarlyDraw: with TableConfig.RequireBetsClosed, a card was dealt
	// into a hand of a coup while betting was open (no InputBetsClosed
	// since the last coup ended). Burn cards and surplus cards do not
	// raise it. The card is used.
	AlertEarlyDraw AlertCode = "early-draw"
	// AlertOutboxBacklog: published messages are queuing up undelivered
	// (InputBacklog).
	AlertOutboxBacklog AlertCode = "outbox-backlog"
	// AlertShoeOverrun: more cards were drawn in one shoe than the decks
	// hold plus TableConfig.OverrunCards — a new shoe was never signalled
	// (a Bee-Tek shoe sends no new-shoe event, or the key was never
	// pressed). Raised once per shoe; the table keeps working.
	AlertShoeOverrun AlertCode = "shoe-overrun"
	// AlertJournalFailed: the daemon cannot write its journal (disk full,
	// I/O error); it stops acknowledging shoe events until it can.
	AlertJournalFailed AlertCode = "journal-failed"
	// AlertArchivePruned: the journal archive reached its size cap and its
	// oldest archive file was removed.
	AlertArchivePruned AlertCode = "archive-pruned"
	// AlertShoeSequence: the shoe restarted its event sequence under the
	// same boot id (a boot id that is not random); the host treats it as a
	// reboot of the shoe.
	AlertShoeSequence AlertCode = "shoe-sequence"
	// AlertClockJump: the wall clock jumped backwards or forwards by more
	// than the daemon tolerates (NTP sync after a boot without RTC). It
	// does not latch: it is expected after every boot of a Pi.
	AlertClockJump AlertCode = "clock-jump"
	// AlertSessionTakeover: another daemon publishes as this table on the
	// MQTT broker (the same table name on two Pis, InputSessionTakeover);
	// this daemon stays off the broker for a while, keeping its outbox.
	AlertSessionTakeover AlertCode = "session-takeover"
)

// Alert codes of the games with a "stand" token: misplaced-token in every
// game (Fold and MacaoFold), hand-limit only in Macao and Victoria
// (MacaoCoup, so `sabot check --game macao|victoria`; the daemon does not
// run them).
const (
	// AlertMisplacedToken: a "stand" or "refuse" that does not fit the
	// coup. Every game: "stand" with no coup in progress (during the burn,
	// between coups: a stand key pressed by mistake), "refuse" outside
	// Macao and Victoria. Macao and Victoria also: "stand" during the deal
	// or after every hand has had its turn, "refuse" after a card that is
	// not a ten or a court card, with no card just drawn, or where
	// refusing is off. The token changes nothing, so the alert is a
	// warning that does not latch (the daemon publishes and logs it; the
	// display and the lamp do not wait for an ack).
	AlertMisplacedToken AlertCode = "misplaced-token"
	// AlertHandLimit: a hand went past MaxMacaoHandCards cards (the card
	// is set aside and the hand's turn ends) or MaxMacaoRefusals refusals
	// (the refusal is ignored).
	AlertHandLimit AlertCode = "hand-limit"
)

// Alert codes of the dealer's declared result ("declare P|B|T", issue 24).
const (
	// AlertResultMismatch: the dealer declared a result that is not the
	// winner the cards give (card switching): the alert carries both.
	AlertResultMismatch AlertCode = "result-mismatch"
	// AlertMisplacedDeclare: a declaration with no complete coup to
	// declare (before the coup is complete, during the burn, after a void,
	// or a second one for the same coup). It changes nothing.
	AlertMisplacedDeclare AlertCode = "misplaced-declare"
	// AlertNoDeclaration: with declarations required, the next coup
	// started before the last complete one was declared.
	AlertNoDeclaration AlertCode = "no-declaration"
)

// Alert severities, AlertInfo.Severity and the MQTT payload's "severity".
const (
	SeverityError   = "error"   // a dealer error, tampering, or lost data
	SeverityWarning = "warning" // an equipment condition worth a look
	SeverityInfo    = "info"    // a recovery or a notice
)

// AlertMeta is the fixed metadata of one alert code: the one place that
// says how an alert is numbered, classified, latched and worded. Table,
// display and drivers/mqtt read it through LookupAlert and Alerts.
type AlertMeta struct {
	Code AlertCode
	// E is the number a display shows ("E1" is 1); never renumbered, a new
	// code gets the next number. 0 only for codes that are never shown
	// (severity info, not latching).
	E int
	// Severity is SeverityError, SeverityWarning or SeverityInfo.
	Severity string
	// Latches: the alert waits for acknowledgement (display, lamp, buzzer)
	// until the supervisor's ack.
	Latches bool
	// Text is the alert's default human text (the Table words some alerts
	// more precisely, with the card or coup).
	Text string
}

// NumAlertCodes is the number of alert codes (len(AlertCodes)), as a
// constant: the table latches at most one alert of each.
const NumAlertCodes = len(alertTable)

// alertTable is every alert code, the Fold's first (in AlertCodes order).
// A new code is one row here (next E number) plus its tests; TestAlertTable
// fails on a row with a missing field and display's test on the
// error-code table in docs/configuration.md that disagrees.
var alertTable = [...]AlertMeta{
	{AlertExtraCard, 1, SeverityError, true, "a card arrived after the coup was complete"},
	{AlertMissingCard, 2, SeverityError, true, "the coup was closed before the tableau was complete"},
	{AlertBurnCount, 3, SeverityError, true, "the burn had the wrong number of cards"},
	{AlertComposition, 4, SeverityError, true, "a card the shoe cannot contain (more than the decks hold)"},
	{AlertAfterCut, 5, SeverityError, true, "a coup started after the shoe's last coup (cut card)"},
	{AlertIncompleteCoup, 6, SeverityError, true, "the input ended or a new shoe began in the middle of a coup"},
	{AlertAdvantage, 12, SeverityWarning, false, "the remaining cards give a bet a positive expectation"},
	{AlertShoeOffline, 14, SeverityWarning, true, "the shoe stopped answering"},
	{AlertShoeOnline, 0, SeverityInfo, false, "the shoe answers again"},
	{AlertShoeAlarm, 11, SeverityError, true, "the shoe reported a fault (tamper, jam, sensor)"},
	{AlertUnreadableCard, 10, SeverityWarning, true, "the shoe could not read a card"},
	{AlertDuplicateCard, 8, SeverityError, true, "the same physical card (reader UID) was read twice in one shoe"},
	{AlertCardMismatch, 9, SeverityError, true, "the card read differs from the card its UID is registered as"},
	{AlertEarlyDraw, 7, SeverityError, true, "a card was dealt while betting was open"},
	{AlertOutboxBacklog, 13, SeverityWarning, true, "MQTT messages are queuing up undelivered"},
	{AlertShoeOverrun, 15, SeverityWarning, true, "more cards drawn than the shoe holds: no new shoe was signalled"},
	{AlertJournalFailed, 16, SeverityError, true, "the journal cannot be written: shoe events are not acknowledged"},
	{AlertArchivePruned, 17, SeverityWarning, true, "the journal archive is full: its oldest file was removed"},
	{AlertShoeSequence, 18, SeverityWarning, true, "the shoe restarted its event sequence under the same boot id"},
	{AlertClockJump, 19, SeverityWarning, false, "the wall clock jumped (journal order and ids are not affected)"},
	{AlertSessionTakeover, 20, SeverityError, true, "another daemon publishes as this table on the MQTT broker"},
	{AlertMisplacedToken, 21, SeverityWarning, false, "a stand or refuse where the rules allow none (it changes nothing)"},
	{AlertHandLimit, 22, SeverityError, true, "a hand drew or refused more cards than the engine holds"},
	{AlertResultMismatch, 23, SeverityError, true, "the result the dealer declared is not the one the cards give"},
	{AlertMisplacedDeclare, 24, SeverityWarning, false, "a declaration with no complete coup to declare (it changes nothing)"},
	{AlertNoDeclaration, 25, SeverityWarning, true, "the next coup started before the dealer declared the last one's result"},
}

// AlertCodes lists every alert code, the Fold's six first, in the order of
// the alert table.
var AlertCodes = column(alertTable[:], alertMetaCode)

// LookupAlert returns the metadata of code, and false for an unknown code
// (a code of a newer version, or no code).
func LookupAlert(code AlertCode) (AlertMeta, bool) { return find(alertTable[:], code, alertMetaCode) }

func alertMetaCode(m AlertMeta) AlertCode { return m.Code }

// Alerts returns the metadata of every alert code, in AlertCodes order.
func Alerts() []AlertMeta { return append([]AlertMeta(nil), alertTable[:]...) }

// Known reports whether a is one of AlertCodes.
func (a AlertCode) Known() bool {
	_, ok := LookupAlert(a)
	return ok
}

// Info returns the AlertInfo of an alert of code a with text (the default
// text if text is empty). An unknown code is an error that latches, so it
// is never missed.
func (a AlertCode) Info(text string) AlertInfo {
	m, ok := LookupAlert(a)
	if !ok {
		m = AlertMeta{Code: a, Severity: SeverityError, Latches: true, Text: string(a)}
	}
	if text == "" {
		text = m.Text
	}
	return AlertInfo{Severity: m.Severity, Text: text, AwaitsAck: m.Latches}
}

// AlertInfo is what the Table adds to an alert: its severity and latching
// (from the alert table, AlertCode.Info) and a human text.
type AlertInfo struct {
	Severity  string `json:"severity"` // "error", "warning" or "info"
	Text      string `json:"text"`
	AwaitsAck bool   `json:"awaits_ack"`
}
