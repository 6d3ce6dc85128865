package odds

import (
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
)

// randomFixedTable is a DrawTable with every cell on totals 0–7 drawn at
// random (naturals stay MustStand).
func randomFixedTable(t *rapid.T) baccarat.DrawTable {
	var tab baccarat.DrawTable
	rule := func(name string) baccarat.Rule {
		if rapid.Bool().Draw(t, name) {
			return baccarat.MustDraw
		}
		return baccarat.MustStand
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
func randomCheminTable(t *rapid.T) baccarat.DrawTable {
	bt := baccarat.BankerTable(rapid.IntRange(0, 1).Draw(t, "bankerTable"))
	tab, err := baccarat.CheminDeFer(baccarat.Option, bt)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tab.Options() {
		choice := baccarat.MustStand
		if rapid.Bool().Draw(t, "choice") {
			choice = baccarat.MustDraw
		}
		if tab, err = tab.Choose(c, choice); err != nil {
			t.Fatal(err)
		}
	}
	return tab
}

// referenceTable is the reference enumeration reading tab.
func referenceTable(rc baccarat.RankCounts, tab *baccarat.DrawTable) Odds {
	return referenceOddsRules(rc,
		func(pt int) bool { return tab.PunterRule(pt) == baccarat.MustDraw },
		func(bt, p3 int) bool { return tab.BankerRule(bt, p3) == baccarat.MustDraw })
}

// TestAnalyzeTableMatchesReference: for random fixed tables (any cell
// draws or stands) and random chemin de fer pure-strategy tables, on
// random shoes, the engine equals the rank-by-rank reference in every
// count.
func TestAnalyzeTableMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rc := dealtest.RandomShoe(t, 30)
		var tab baccarat.DrawTable
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
	rc := baccarat.FullShoe(1)
	var o Odds
	if err := o.AnalyzeTable(&rc, &baccarat.PuntoBanco); err != nil {
		t.Fatal(err)
	}
	if want := referenceOdds(rc); o != want {
		t.Errorf("punto banco: %+v, want %+v", o, want)
	}
	base, err := baccarat.CheminDeFer(baccarat.Option, baccarat.ScarneTable)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 7, 5} {
		tab := base
		for j, c := range base.Options() {
			choice := baccarat.MustStand
			if i&(1<<j) != 0 {
				choice = baccarat.MustDraw
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
	tab, err := baccarat.CheminDeFer(baccarat.Option, baccarat.ScarneTable)
	if err != nil {
		t.Fatal(err)
	}
	rc := baccarat.FullShoe(1)
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
	tab, _ := baccarat.CheminDeFer(baccarat.MustDraw, baccarat.ScarneTable)
	tab, _ = tab.Choose(baccarat.Cell{Banker: true, Total: 3, Third: 9}, baccarat.MustDraw)
	tab, _ = tab.Choose(baccarat.Cell{Banker: true, Total: 5, Third: 4}, baccarat.MustStand)
	rc := baccarat.FullShoe(6)
	var o Odds
	if a := testing.AllocsPerRun(10, func() { _ = o.AnalyzeTable(&rc, &tab) }); a != 0 {
		t.Errorf("AnalyzeTable allocates %.0f times", a)
	}
}
