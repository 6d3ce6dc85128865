package baccarat_test

import (
	"regexp"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// Every row of the alert table is complete: a kebab-case code, a severity,
// a text and a distinct E number; E numbers run 1, 2, ... without gaps (a
// new code takes the next one); only an informational code that does not
// latch may go without (it is never shown).
func TestAlertTable(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	byE := map[int]baccarat.AlertCode{}
	seen := map[baccarat.AlertCode]bool{}
	metas := baccarat.Alerts()
	if len(metas) != len(baccarat.AlertCodes) {
		t.Fatalf("%d rows, %d codes", len(metas), len(baccarat.AlertCodes))
	}
	for i, m := range metas {
		if m.Code != baccarat.AlertCodes[i] {
			t.Errorf("row %d is %q, AlertCodes[%d] is %q", i, m.Code, i, baccarat.AlertCodes[i])
		}
		if !kebab.MatchString(string(m.Code)) {
			t.Errorf("row %d: code %q is not kebab-case", i, m.Code)
		}
		if seen[m.Code] {
			t.Errorf("%s: two rows", m.Code)
		}
		seen[m.Code] = true
		switch m.Severity {
		case baccarat.SeverityError, baccarat.SeverityWarning, baccarat.SeverityInfo:
		default:
			t.Errorf("%s: severity %q", m.Code, m.Severity)
		}
		if m.Text == "" {
			t.Errorf("%s: no text", m.Code)
		}
		if m.E == 0 {
			if m.Latches || m.Severity != baccarat.SeverityInfo {
				t.Errorf("%s: no E number, but it is shown (latches %v, severity %s)", m.Code, m.Latches, m.Severity)
			}
			continue
		}
		if m.E < 0 {
			t.Errorf("%s: E%d", m.Code, m.E)
		}
		if prev, dup := byE[m.E]; dup {
			t.Errorf("E%d is both %s and %s", m.E, prev, m.Code)
		}
		byE[m.E] = m.Code
		got, ok := baccarat.LookupAlert(m.Code)
		if !ok || got != m {
			t.Errorf("LookupAlert(%s) = %+v, %v", m.Code, got, ok)
		}
	}
	for e := 1; e <= len(byE); e++ {
		if _, ok := byE[e]; !ok {
			t.Errorf("E%d unused: numbers must run without gaps", e)
		}
	}
	if _, ok := baccarat.LookupAlert("nope"); ok {
		t.Error("unknown code found")
	}
}

// Facts the README, displays and consumers rely on, checked against the
// table independently of it.
func TestAlertTableFacts(t *testing.T) {
	for _, tc := range []struct {
		code     baccarat.AlertCode
		e        int
		severity string
		latches  bool
	}{
		{baccarat.AlertExtraCard, 1, "error", true},
		{baccarat.AlertEarlyDraw, 7, "error", true},
		{baccarat.AlertUnreadableCard, 10, "warning", true},
		{baccarat.AlertAdvantage, 12, "warning", false},
		{baccarat.AlertOutboxBacklog, 13, "warning", true},
		{baccarat.AlertShoeOffline, 14, "warning", true},
		{baccarat.AlertShoeOnline, 0, "info", false},
		{baccarat.AlertShoeOverrun, 15, "warning", true},
		{baccarat.AlertJournalFailed, 16, "error", true},
		{baccarat.AlertArchivePruned, 17, "warning", true},
		{baccarat.AlertShoeSequence, 18, "warning", true},
		{baccarat.AlertClockJump, 19, "warning", false},
		{baccarat.AlertSessionTakeover, 20, "error", true},
	} {
		m, ok := baccarat.LookupAlert(tc.code)
		if !ok || m.E != tc.e || m.Severity != tc.severity || m.Latches != tc.latches {
			t.Errorf("%s: %+v %v, want E%d %s latches %v", tc.code, m, ok, tc.e, tc.severity, tc.latches)
		}
	}
	info := baccarat.AlertShoeOffline.Info("")
	if info.Text != "the shoe stopped answering" || !info.AwaitsAck || info.Severity != "warning" {
		t.Errorf("shoe-offline info %+v", info)
	}
	if info := baccarat.AlertCode("from-the-future").Info("x"); info.Text != "x" || !info.AwaitsAck || info.Severity != "error" {
		t.Errorf("unknown code info %+v", info)
	}
}
