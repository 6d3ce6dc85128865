package baccarat_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// cheminScarneBanker is the banker's side of the chemin de fer tableau
// (Scarne's table) written out by hand, as bankerCells is for punto
// banco: row the banker's two-card total, columns "-" the punter stood,
// then the punter's third card value 0–9. "D" draws, "S" stands, "O" is
// the banker's option.
var cheminScarneBanker = [10]string{
	//   -  0 1 2 3 4 5 6 7 8 9
	0: "D DDDDDDDDDD",
	1: "D DDDDDDDDDD",
	2: "D DDDDDDDDDD",
	3: "D DDDDDDDDSO",
	4: "D SSDDDDDDSS",
	5: "D SSSSODDDSS",
	6: "S SSSSSSDDSS",
	7: "S SSSSSSSSSS",
	8: "S SSSSSSSSSS",
	9: "S SSSSSSSSSS",
}

// cheminFreeBanker: every banker decision on 0–7 is an option.
var cheminFreeBanker = [10]string{
	0: "O OOOOOOOOOO",
	1: "O OOOOOOOOOO",
	2: "O OOOOOOOOOO",
	3: "O OOOOOOOOOO",
	4: "O OOOOOOOOOO",
	5: "O OOOOOOOOOO",
	6: "O OOOOOOOOOO",
	7: "O OOOOOOOOOO",
	8: "S SSSSSSSSSS",
	9: "S SSSSSSSSSS",
}

func cellRule(t *testing.T, c byte) baccarat.Rule {
	t.Helper()
	switch c {
	case 'D':
		return baccarat.MustDraw
	case 'S':
		return baccarat.MustStand
	case 'O':
		return baccarat.Option
	}
	t.Fatalf("bad cell %q", c)
	return 0
}

// checkTable compares every cell of dt (10 punter cells, 110 banker
// cells) against the hand-written rows.
func checkTable(t *testing.T, name string, dt baccarat.DrawTable, punter string, banker [10]string) {
	t.Helper()
	n := 0
	for p := 0; p <= 9; p++ {
		if got, want := dt.PunterRule(p), cellRule(t, punter[p]); got != want {
			t.Errorf("%s: punter %d = %s, want %s", name, p, got, want)
		}
		n++
	}
	for b, row := range banker {
		if got, want := dt.BankerRule(b, baccarat.NoThirdCard), cellRule(t, row[0]); got != want {
			t.Errorf("%s: banker %d, punter stood = %s, want %s", name, b, got, want)
		}
		n++
		for v := 0; v <= 9; v++ {
			if got, want := dt.BankerRule(b, v), cellRule(t, row[2+v]); got != want {
				t.Errorf("%s: banker %d, punter's third %d = %s, want %s", name, b, v, got, want)
			}
			n++
		}
	}
	if n != 120 {
		t.Fatalf("%s: checked %d cells, want 120", name, n)
	}
}

func TestPuntoBancoDrawTableEveryCell(t *testing.T) {
	punter := ""
	for _, c := range playerCells {
		punter += c
	}
	checkTable(t, "punto banco", baccarat.PuntoBanco, punter, bankerCells)
	if !baccarat.PuntoBanco.Fixed() || baccarat.PuntoBanco.Options() != nil {
		t.Errorf("punto banco has options: %v", baccarat.PuntoBanco.Options())
	}
}

func TestCheminDeFerDrawTablesEveryCell(t *testing.T) {
	for _, tc := range []struct {
		five   baccarat.Rule
		banker baccarat.BankerTable
		punter string
		rows   [10]string
	}{
		{baccarat.Option, baccarat.ScarneTable, "DDDDDOSSSS", cheminScarneBanker},
		{baccarat.MustDraw, baccarat.ScarneTable, "DDDDDDSSSS", cheminScarneBanker},
		{baccarat.MustStand, baccarat.ScarneTable, "DDDDDSSSSS", cheminScarneBanker},
		{baccarat.Option, baccarat.FreeTable, "DDDDDOSSSS", cheminFreeBanker},
		{baccarat.MustStand, baccarat.FreeTable, "DDDDDSSSSS", cheminFreeBanker},
	} {
		dt, err := baccarat.CheminDeFer(tc.five, tc.banker)
		if err != nil {
			t.Fatal(err)
		}
		checkTable(t, "chemin de fer "+tc.five.String()+"/"+tc.banker.String(), dt, tc.punter, tc.rows)
	}
	if _, err := baccarat.CheminDeFer(baccarat.Rule(7), baccarat.ScarneTable); err == nil {
		t.Error("CheminDeFer accepted a punter rule out of range")
	}
	if _, err := baccarat.CheminDeFer(baccarat.Option, baccarat.BankerTable(9)); err == nil {
		t.Error("CheminDeFer accepted a banker table out of range")
	}
}

func TestDrawTableOptionsAndChoose(t *testing.T) {
	dt, err := baccarat.CheminDeFer(baccarat.Option, baccarat.ScarneTable)
	if err != nil {
		t.Fatal(err)
	}
	want := []baccarat.Cell{{Total: 5}, {Banker: true, Total: 3, Third: 9}, {Banker: true, Total: 5, Third: 4}}
	if got := dt.Options(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Options = %v, want %v", got, want)
	}
	if dt.Fixed() {
		t.Error("Fixed() true with three options")
	}
	fixed := dt
	for i, ch := range []baccarat.Rule{baccarat.MustDraw, baccarat.MustStand, baccarat.MustDraw} {
		if fixed, err = fixed.Choose(want[i], ch); err != nil {
			t.Fatal(err)
		}
	}
	if !fixed.Fixed() || fixed.PunterRule(5) != baccarat.MustDraw || fixed.BankerRule(3, 9) != baccarat.MustStand || fixed.BankerRule(5, 4) != baccarat.MustDraw {
		t.Errorf("Choose did not fix the cells: %v %v %v", fixed.PunterRule(5), fixed.BankerRule(3, 9), fixed.BankerRule(5, 4))
	}
	if dt.PunterRule(5) != baccarat.Option {
		t.Error("Choose changed its receiver")
	}
	if _, err := dt.Choose(baccarat.Cell{Banker: true, Total: 4, Third: 1}, baccarat.MustDraw); !errors.Is(err, baccarat.ErrNotOption) {
		t.Errorf("Choose on a forced cell: err = %v, want ErrNotOption", err)
	}
	if _, err := dt.Choose(baccarat.Cell{Total: 5}, baccarat.Option); err == nil {
		t.Error("Choose accepted Option as a choice")
	}
	if _, err := dt.Choose(baccarat.Cell{Total: 12}, baccarat.MustDraw); !errors.Is(err, baccarat.ErrNotOption) {
		t.Errorf("Choose out of range: err = %v", err)
	}
	if got := (baccarat.Cell{Banker: true, Total: 6, Third: baccarat.NoThirdCard}).String(); got != "banker 6/stood" {
		t.Errorf("Cell.String = %q", got)
	}
}

func TestTableauPunterEveryTotal(t *testing.T) {
	for p, c := range "DDDDDOSSSS" {
		if got, want := baccarat.PunterRule(p), cellRule(t, byte(c)); got != want {
			t.Errorf("PunterRule(%d) = %s, want %s", p, got, want)
		}
	}
}

func TestParseRuleAndBankerTable(t *testing.T) {
	for _, r := range []baccarat.Rule{baccarat.MustStand, baccarat.MustDraw, baccarat.Option} {
		if got, err := baccarat.ParseRule(r.String()); err != nil || got != r {
			t.Errorf("ParseRule(%q) = %v, %v", r.String(), got, err)
		}
	}
	if _, err := baccarat.ParseRule("hit"); err == nil {
		t.Error("ParseRule accepted hit")
	}
	for _, b := range []baccarat.BankerTable{baccarat.ScarneTable, baccarat.FreeTable} {
		if got, err := baccarat.ParseBankerTable(b.String()); err != nil || got != b {
			t.Errorf("ParseBankerTable(%q) = %v, %v", b.String(), got, err)
		}
	}
	if _, err := baccarat.ParseBankerTable("strict"); err == nil {
		t.Error("ParseBankerTable accepted strict")
	}
}
