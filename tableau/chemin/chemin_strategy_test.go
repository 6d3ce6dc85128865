package chemin

import (
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

func TestChooseBanker(t *testing.T) {
	scarne, _ := baccarat.CheminDeFer(baccarat.MustDraw, baccarat.ScarneTable)
	free, _ := baccarat.CheminDeFer(baccarat.MustStand, baccarat.FreeTable)

	// "" under either table is punto banco's banker.
	for _, tab := range []baccarat.DrawTable{scarne, free} {
		got, err := ChooseBanker(tab, "")
		if err != nil {
			t.Fatal(err)
		}
		if got.Banker != baccarat.PuntoBanco.Banker || !got.Fixed() {
			t.Errorf("empty strategy: banker %v, want punto banco's", got.Banker)
		}
	}
	got, err := ChooseBanker(scarne, "3/9=stand, 5/4=draw")
	if err != nil {
		t.Fatal(err)
	}
	if got.BankerRule(3, 9) != baccarat.MustStand || got.BankerRule(5, 4) != baccarat.MustDraw || got.BankerRule(3, 8) != baccarat.MustStand || got.BankerRule(4, 2) != baccarat.MustDraw {
		t.Errorf("scarne strategy: %v", got.Banker)
	}
	got, err = ChooseBanker(free, "6/stood=draw,6/*=stand,5/4=stand")
	if err != nil {
		t.Fatal(err)
	}
	want := baccarat.PuntoBanco
	want.Banker[6][0] = baccarat.MustDraw
	for col := 1; col <= 10; col++ {
		want.Banker[6][col] = baccarat.MustStand
	}
	want.Banker[5][5] = baccarat.MustStand
	if got.Banker != want.Banker {
		t.Errorf("free strategy:\n got  %v\n want %v", got.Banker, want.Banker)
	}
	for _, c := range []struct {
		tab    baccarat.DrawTable
		s, msg string
	}{
		{scarne, "3/8=draw", `entry 1 "3/8=draw": the table says stand there`},
		{scarne, "3/9=draw,3/9=stand", "cell given twice"},
		{scarne, "3/9", "no '='"},
		{scarne, "3/9=hit", `"hit" is not draw or stand`},
		{scarne, "8/1=draw", `banker total "8" is not 0–7`},
		{scarne, "3/x=draw", `third card "x"`},
		{scarne, "39=draw", "no '/'"},
		{scarne, "7/*=draw", "7/* names no option"},
	} {
		_, err := ChooseBanker(c.tab, c.s)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error %v, want one with %q", c.s, err, c.msg)
		}
	}
}
