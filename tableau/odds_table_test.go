package tableau

import (
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// randomShoe draws a shoe of 6 to max cards from 1–2 decks.
func randomShoe(t *rapid.T, max int) RankCounts {
	rc := FullShoe(rapid.IntRange(1, 2).Draw(t, "decks"))
	left := rapid.IntRange(6, max).Draw(t, "left")
	for rc.Total() > left {
		i := rapid.IntRange(0, NumRanks-1).Draw(t, "rank")
		if rc[i] > 0 {
			rc[i]--
		}
	}
	return rc
}

// randomFixedTable is a DrawTable with every cell on totals 0–7 drawn at
// random (naturals stay MustStand).
func randomFixedTable(t *rapid.T) DrawTable {
	var tab DrawTable
	rule := func(name string) Rule {
		if rapid.Bool().Draw(t, name) {
			return MustDraw
		}
		return MustStand
	}
	for p := range 8 {
		tab.Punter[p] = rule("punter")
	}
	for b := range 8 {
		for col := range 11 {
			tab.Banker[b][col] = rule("banker")
		}
	}
	return tab
}

// randomCheminTable is a chemin de fer table (Scarne or free) with each
// option chosen at random: a pure strategy for each side.
func randomCheminTable(t *rapid.T) DrawTable {
	bt := BankerTable(rapid.IntRange(0, 1).Draw(t, "bankerTable"))
	tab, err := CheminDeFer(Option, bt)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tab.Options() {
		choice := MustStand
		if rapid.Bool().Draw(t, "choice") {
			choice = MustDraw
		}
		if tab, err = tab.Choose(c, choice); err != nil {
			t.Fatal(err)
		}
	}
	return tab
}

// referenceTable is the reference enumeration reading tab.
func referenceTable(rc RankCounts, tab *DrawTable) Odds {
	return referenceOddsRules(rc,
		func(pt int) bool { return tab.PunterRule(pt) == MustDraw },
		func(bt, p3 int) bool { return tab.BankerRule(bt, p3) == MustDraw })
}

// TestAnalyzeTableMatchesReference: for random fixed tables (any cell
// draws or stands) and random chemin de fer pure-strategy tables, on
// random shoes, the engine equals the rank-by-rank reference in every
// count.
func TestAnalyzeTableMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rc := randomShoe(t, 30)
		var tab DrawTable
		if rapid.Bool().Draw(t, "chemin") {
			tab = randomCheminTable(t)
		} else {
			tab = randomFixedTable(t)
		}
		var o Odds
		if err := o.AnalyzeTable(&rc, &tab); err != nil {
			t.Fatal(err)
		}
		if want := referenceTable(rc, &tab); o != want {
			t.Fatalf("shoe %v table %+v:\n engine    %+v\n reference %+v", rc, tab, o, want)
		}
	})
}

// TestAnalyzeTableFullShoes checks a whole deck under three of the eight
// pure strategies of the punter's 5 and the two Scarne banker cells (all
// stand, all draw, and a mixture), and punto banco through AnalyzeTable,
// against the reference (the rapid test covers the rest on smaller shoes).
func TestAnalyzeTableFullShoes(t *testing.T) {
	rc := FullShoe(1)
	var o Odds
	if err := o.AnalyzeTable(&rc, &PuntoBanco); err != nil {
		t.Fatal(err)
	}
	if want := referenceOdds(rc); o != want {
		t.Errorf("punto banco: %+v, want %+v", o, want)
	}
	base, err := CheminDeFer(Option, ScarneTable)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 7, 5} {
		tab := base
		for j, c := range base.Options() {
			choice := MustStand
			if i&(1<<j) != 0 {
				choice = MustDraw
			}
			if tab, err = tab.Choose(c, choice); err != nil {
				t.Fatal(err)
			}
		}
		if err := o.AnalyzeTable(&rc, &tab); err != nil {
			t.Fatal(err)
		}
		if want := referenceTable(rc, &tab); o != want {
			t.Errorf("strategy %03b: %+v, want %+v", i, o, want)
		}
	}
}

func TestAnalyzeTableNotFixed(t *testing.T) {
	tab, err := CheminDeFer(Option, ScarneTable)
	if err != nil {
		t.Fatal(err)
	}
	rc := FullShoe(1)
	var o Odds
	o.Banker = 1
	err = o.AnalyzeTable(&rc, &tab)
	if !errors.Is(err, ErrNotFixed) {
		t.Fatalf("options accepted: %v", err)
	}
	if o != (Odds{}) {
		t.Errorf("odds not zeroed on error: %+v", o)
	}
	t.Log(err)
}

func TestAnalyzeTableAllocs(t *testing.T) {
	tab, _ := CheminDeFer(MustDraw, ScarneTable)
	tab, _ = tab.Choose(Cell{Banker: true, Total: 3, Third: 9}, MustDraw)
	tab, _ = tab.Choose(Cell{Banker: true, Total: 5, Third: 4}, MustStand)
	rc := FullShoe(6)
	var o Odds
	if a := testing.AllocsPerRun(10, func() { _ = o.AnalyzeTable(&rc, &tab) }); a != 0 {
		t.Errorf("AnalyzeTable allocates %.0f times", a)
	}
}
