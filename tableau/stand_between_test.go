package tableau_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TestStandWithNoCoup: a "stand" with no coup in progress — during the
// burn, between coups (after "|", after a coup a stand at a forced draw
// closed, after a void without markers), before any card — raises
// misplaced-token in every game the Fold deals, as in Macao, and changes
// nothing (the next coups are as without it); in the current coup,
// complete or voided, it is accepted silently (a forced stand).
func TestStandWithNoCoup(t *testing.T) {
	cdf, banque, pb := baccarat.GameCheminDeFer, baccarat.GameBanque, baccarat.GamePuntoBanco
	for _, tc := range []struct {
		name    string
		game    baccarat.Game
		markers bool
		src     string
		want    string // the events: alert codes (with the coup) and coup numbers
	}{
		{"cdf during the burn", cdf, true, "shoe 2C stand 8D 4S | 7H 2C KD 4S |", "misplaced-token@0 coup1"},
		{"cdf before the burn's first card", cdf, true, "shoe stand 2C 8D 4S | 7H 2C KD 4S |", "misplaced-token@0 coup1"},
		{"cdf after |", cdf, true, "shoe 2C 8D 4S | 7H 2C KD 4S | stand 7H 2C KD 4S |", "coup1 misplaced-token@1 coup2"},
		{"cdf after | twice", cdf, true, "shoe 2C 8D 4S | stand non 7H 2C KD 4S |", "misplaced-token@0 misplaced-token@0 coup1"},
		{"cdf complete, before |", cdf, true, "shoe 2C 8D 4S | 7H 2C KD 4S stand |", "coup1"},
		{"cdf voided", cdf, true, "shoe 2C 8D 4S | 7H void stand 2C |", "void1"},
		{"cdf stand closed the coup", cdf, true, "shoe 2C 8D 4S | 6S 5D 8C TD stand stand |", "missing-card@1 misplaced-token@1"},
		{"cdf no markers: complete", cdf, false, "shoe 2C 8D 4S 7H 2C KD 4S stand 7H 2C KD 4S", "coup1 coup2"},
		{"cdf no markers: after the burn", cdf, false, "shoe 2C 8D 4S stand 7H 2C KD 4S", "misplaced-token@0 coup1"},
		{"cdf no markers: after a void", cdf, false, "shoe 2C 8D 4S 7H void stand 7H 2C KD 4S", "void1 misplaced-token@1 coup2"},
		{"banque after |", banque, true, "shoe 2C 8D 4S | 4H 7C 2D 3S QH 5C | stand", "coup1 misplaced-token@1"},
		{"banque during the burn", banque, true, "shoe 2C non 8D 4S |", "misplaced-token@0"},
		{"punto banco after |", pb, true, "shoe 2C 8D 4S | 7H 2C KD 4S | stand 7H 2C KD 4S |", "coup1 misplaced-token@1 coup2"},
		{"punto banco forced stand", pb, true, "shoe 2C 8D 4S | 7H 2C KD 4S stand |", "coup1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tableau.Options{Decks: 6, Markers: tc.markers, Rules: baccarat.Rules{Game: tc.game}}
			var got []string
			for _, e := range foldText(t, opts, tc.src) {
				switch e.Kind {
				case baccarat.EventAlert:
					got = append(got, string(e.Alert.Code)+"@"+strconv.Itoa(e.Alert.Coup))
				case baccarat.EventCoup:
					got = append(got, "coup"+strconv.Itoa(e.Coup.Coup))
				case baccarat.EventVoid:
					got = append(got, "void"+strconv.Itoa(e.Void.Coup))
				}
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("%s:\n got %s\nwant %s", tc.src, g, tc.want)
			}
			// Changes nothing: the same events less its alerts without it.
			if strings.Contains(tc.want, "misplaced") {
				bare := strings.NewReplacer(" stand", "", " non", "").Replace(tc.src)
				var n int
				for _, e := range foldText(t, opts, bare) {
					if e.Kind == baccarat.EventAlert && e.Alert.Code == baccarat.AlertMisplacedToken {
						t.Fatalf("misplaced-token without a stand: %v", e)
					}
					n++
				}
				if n+strings.Count(tc.want, "misplaced") != len(got) {
					t.Errorf("%d events without the stand, %d with", n, len(got))
				}
			}
		})
	}
}
