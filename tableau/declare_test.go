package tableau

import (
	"errors"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// declareCoups are three coups of naturals whose winners follow from the
// rules (naturals stand; deal order P B P B): player 8 v banker 5, player
// 5 v banker 8, 8 v 8.
var declareCoups = map[baccarat.Winner]string{
	baccarat.WinnerPlayer: "8s 2h Ks 3d",
	baccarat.WinnerBanker: "2h 8s 3d Ks",
	baccarat.WinnerTie:    "8s 8h Ks Kd",
}

func foldDeclare(t *testing.T, src string) []Event {
	t.Helper()
	toks, err := ParseTranscript(strings.NewReader(src), "t")
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	evs, err := FoldTokens(Options{}, toks)
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	return evs
}

func alertsOf(evs []Event) []AlertEvent {
	var a []AlertEvent
	for _, e := range evs {
		if e.Kind == baccarat.EventAlert {
			a = append(a, e.Alert)
		}
	}
	return a
}

// TestDeclareEveryCell declares each of P, B and T after each computed
// winner: equal gives no alert, every other cell one result-mismatch on
// coup 1 carrying both results.
func TestDeclareEveryCell(t *testing.T) {
	letters := map[baccarat.Winner]string{baccarat.WinnerPlayer: "P", baccarat.WinnerBanker: "b", baccarat.WinnerTie: "tie"}
	for computed, coup := range declareCoups {
		for declared, letter := range letters {
			src := "shoe A 2c " + coup + " declare " + letter
			evs := foldDeclare(t, src)
			var got baccarat.Winner
			for _, e := range evs {
				if e.Kind == baccarat.EventCoup {
					got = e.Coup.Winner
				}
			}
			if got != computed {
				t.Fatalf("%q: coup winner %v, want %v", src, got, computed)
			}
			al := alertsOf(evs)
			if declared == computed {
				if len(al) != 0 {
					t.Errorf("%q: alerts %+v, want none", src, al)
				}
				continue
			}
			if len(al) != 1 || al[0].Code != baccarat.AlertResultMismatch || al[0].Declared != declared || al[0].Computed != computed || al[0].Shoe != 1 || al[0].Coup != 1 {
				t.Errorf("%q: alerts %+v, want one result-mismatch declared %v computed %v on 1/1", src, al, declared, computed)
			}
		}
	}
}

// TestDeclareOutOfTurn: a declaration during the burn, before the coup is
// complete, or a second one for the same coup raises misplaced-declare
// and changes nothing (the mismatch of a later wrong declaration is not
// raised by the second one).
func TestDeclareOutOfTurn(t *testing.T) {
	// The end of input then raises what the unfinished burn or coup
	// leaves (burn-count, incomplete-coup), as without the declaration.
	for src, rest := range map[string]baccarat.AlertCode{
		"shoe declare P":                            "",
		"shoe A declare P":                          baccarat.AlertBurnCount,
		"shoe A 2c 8s 2h declare P":                 baccarat.AlertIncompleteCoup,
		"shoe A 2c 8s 2h Ks 3d declare P declare B": "",
	} {
		al := alertsOf(foldDeclare(t, src))
		want := 1
		if rest != "" {
			want = 2
		}
		if len(al) != want || al[0].Code != baccarat.AlertMisplacedDeclare || al[0].Declared != 0 || (rest != "" && al[1].Code != rest) {
			t.Errorf("%q: alerts %+v, want misplaced-declare then %q", src, al, rest)
		}
	}
	// Refused before completion, the coup can still be declared once complete.
	if al := alertsOf(foldDeclare(t, "shoe A 2c 8s 2h declare B Ks 3d declare B")); len(al) != 2 || al[0].Code != baccarat.AlertMisplacedDeclare || al[1].Code != baccarat.AlertResultMismatch {
		t.Errorf("alerts %+v, want misplaced-declare then result-mismatch", al)
	}
}

// TestDeclareToken: the token's spelling, round trip and errors with
// their positions.
func TestDeclareToken(t *testing.T) {
	toks, err := ParseTranscript(strings.NewReader("DECLARE player declare t"), "f")
	if err != nil {
		t.Fatal(err)
	}
	if len(toks) != 2 || toks[0].String() != "declare P" || toks[1].String() != "declare T" || toks[1].Pos.Col != 16 {
		t.Fatalf("tokens %+v", toks)
	}
	for src, want := range map[string]string{
		"declare":        `f:1:1: "declare" needs a result (P, B or T)`,
		"shoe declare x": `f:1:14: bad declaration "x": a declared result is P, B or T`,
	} {
		_, err := ParseTranscript(strings.NewReader(src), "f")
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrDeclare) || pe.Located() != want {
			t.Errorf("%q: %v, want %s", src, err, want)
		}
	}
	if _, ok, _ := QuickScan(strings.NewReader("shoe declare P")); !ok {
		t.Error("QuickScan refused a valid declaration")
	}
	if _, ok, _ := QuickScan(strings.NewReader("shoe declare Q")); ok {
		t.Error("QuickScan accepted a bad declaration")
	}
}

// TestDeclareAlertJSON: the result-mismatch line carries both results;
// other alert lines keep their shape (no "declared" key).
func TestDeclareAlertJSON(t *testing.T) {
	al := alertsOf(foldDeclare(t, "shoe A 2c 8s 2h Ks 3d declare B declare T"))
	if len(al) != 2 {
		t.Fatalf("alerts %+v", al)
	}
	want := []string{
		`{"type":"alert","shoe":1,"coup":1,"code":"result-mismatch","declared":"banker","computed":"player"}`,
		`{"type":"alert","shoe":1,"coup":1,"code":"misplaced-declare"}`,
	}
	for i, a := range al {
		if got := (Event{Kind: baccarat.EventAlert, Alert: a}).String(); got != want[i] {
			t.Errorf("line %d: %s, want %s", i, got, want[i])
		}
	}
}

// TestNoDeclaration: with RequireDeclare, coup 2's first card raises
// no-declaration on coup 1 when it was not declared; a declared coup and
// the default (off) raise nothing.
func TestNoDeclaration(t *testing.T) {
	for _, c := range []struct {
		src     string
		require bool
		want    int
	}{
		{"shoe A 2c 8s 2h Ks 3d 2h 8s 3d Ks", true, 1},
		{"shoe A 2c 8s 2h Ks 3d declare P 2h 8s 3d Ks", true, 0},
		{"shoe A 2c 8s 2h Ks 3d 2h 8s 3d Ks", false, 0},
	} {
		toks, err := ParseTranscript(strings.NewReader(c.src), "t")
		if err != nil {
			t.Fatal(err)
		}
		evs, err := FoldTokens(Options{RequireDeclare: c.require}, toks)
		if err != nil {
			t.Fatal(err)
		}
		al := alertsOf(evs)
		if len(al) != c.want || c.want == 1 && (al[0].Code != baccarat.AlertNoDeclaration || al[0].Coup != 1) {
			t.Errorf("%q require %v: alerts %+v, want %d no-declaration on coup 1", c.src, c.require, al, c.want)
		}
	}
}
