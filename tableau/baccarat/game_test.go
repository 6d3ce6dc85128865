package baccarat_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

func TestGameRegistry(t *testing.T) {
	names := baccarat.GameNames()
	for _, want := range []string{"punto-banco", "super6", "ez", "chemin-de-fer", "banque"} {
		if !slices.Contains(names, want) {
			t.Errorf("GameNames() = %v, missing %s", names, want)
		}
	}
	for name, decks := range map[string]int{"punto-banco": 8, "super6": 8, "ez": 8, "chemin-de-fer": 6, "banque": 3} {
		g, err := baccarat.ParseGame(strings.ToUpper(name))
		if err != nil {
			t.Fatalf("ParseGame(%q): %v", name, err)
		}
		if g.Name() != name || g.DefaultDecks() != decks {
			t.Errorf("%s: Name %q DefaultDecks %d, want %d", name, g.Name(), g.DefaultDecks(), decks)
		}
		b, err := g.MarshalText()
		if err != nil || string(b) != name {
			t.Errorf("%s: MarshalText %q, %v", name, b, err)
		}
		var back baccarat.Game
		if err := back.UnmarshalText(b); err != nil || back != g {
			t.Errorf("%s: UnmarshalText gives %v, %v", name, back, err)
		}
	}
	if g, _ := baccarat.ParseGame("punto-banco"); g != baccarat.GamePuntoBanco || g != (baccarat.Game{}) {
		t.Errorf("punto-banco is not the zero Game")
	}
	if g, _ := baccarat.ParseGame("chemin-de-fer"); g != baccarat.GameCheminDeFer {
		t.Errorf("chemin-de-fer's defaults: %v", g)
	}
	if g, _ := baccarat.ParseGame("banque"); g != baccarat.GameBanque {
		t.Errorf("banque: %v", g)
	}
}

func TestNewGameParams(t *testing.T) {
	g, err := baccarat.NewGame("chemin-de-fer", map[string]string{"punter-five": "draw", "banker-table": "FREE"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := baccarat.NewCheminDeFer(baccarat.MustDraw, baccarat.FreeTable)
	if g != want || g == baccarat.GameCheminDeFer {
		t.Errorf("NewGame = %v, want %v", g, want)
	}
	if s := g.String(); s != "chemin-de-fer punter-five=draw banker-table=free" {
		t.Errorf("String = %q", s)
	}
	if got := g.Params(); !slices.Equal(got, []string{"draw", "free"}) {
		t.Errorf("Params = %v", got)
	}
	tab, ok := g.DrawTable()
	wantTab, _ := baccarat.CheminDeFer(baccarat.MustDraw, baccarat.FreeTable)
	if !ok || tab != wantTab {
		t.Errorf("DrawTable = %v, %v", tab, ok)
	}
	if tab, ok := baccarat.GamePuntoBanco.DrawTable(); !ok || tab != baccarat.PuntoBanco {
		t.Errorf("punto banco's DrawTable is not PuntoBanco")
	}
	if _, ok := baccarat.GameBanque.DrawTable(); ok {
		t.Errorf("banque has a two-hand DrawTable")
	}
	for _, c := range []struct {
		name   string
		params map[string]string
		want   string
	}{
		{"chemmy", nil, `unknown game "chemmy"`},
		{"chemin-de-fer", map[string]string{"punter-five": "maybe"}, `punter-five "maybe" (want option, draw, stand)`},
		{"chemin-de-fer", map[string]string{"seats": "2"}, "chemin-de-fer has no parameter seats"},
		{"punto-banco", map[string]string{"banker-table": "free"}, "punto-banco has no parameter banker-table"},
	} {
		_, err := baccarat.NewGame(c.name, c.params)
		if !errors.Is(err, baccarat.ErrRules) || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewGame(%s, %v) = %v, want ErrRules and %q", c.name, c.params, err, c.want)
		}
	}
	if baccarat.GamePuntoBanco.HasOptions() || baccarat.GameEZ.HasOptions() || !baccarat.GameCheminDeFer.HasOptions() || !baccarat.GameBanque.HasOptions() {
		t.Errorf("HasOptions wrong")
	}
	fixed, _ := baccarat.NewGame("chemin-de-fer", map[string]string{"punter-five": "stand"})
	if !fixed.HasOptions() { // the Scarne table keeps two banker options
		t.Errorf("chemin de fer with a fixed punter's 5 still has the banker's options")
	}
}

// Every registered game has its usual name, the one place the boards and
// the pit console take it from (they each had a switch of their own).
func TestGameTitles(t *testing.T) {
	want := map[string]string{"punto-banco": "Punto Banco", "super6": "Super 6", "ez": "EZ Baccarat",
		"chemin-de-fer": "Chemin de fer", "banque": "Baccarat banque", "macao": "Macao", "victoria": "Victoria"}
	for _, n := range baccarat.GameNames() {
		if got := baccarat.GameTitle(n); got != want[n] {
			t.Errorf("GameTitle(%q) = %q, want %q", n, got, want[n])
		}
	}
	if len(baccarat.GameNames()) != len(want) {
		t.Errorf("games %v: a new game needs its title here", baccarat.GameNames())
	}
	if got := baccarat.GameTitle("no-such-game"); got != "no-such-game" {
		t.Errorf("an unregistered name: %q", got)
	}
}
