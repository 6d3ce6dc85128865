package terminal

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenRoads are the roads of a shoe long enough to overflow the big
// road's room at 60 columns: a streak of nine banker wins (dragon tail),
// ties (at the start, and several on one cell), pairs and naturals.
func goldenRoads() *display.Roads {
	var rs []tableau.CoupResult
	add := func(w baccarat.Winner, pp, bp, nat bool) {
		rs = append(rs, tableau.CoupResult{Coup: len(rs) + 1, Winner: w, PlayerPair: pp, BankerPair: bp, Natural: nat})
	}
	B, P, T := baccarat.WinnerBanker, baccarat.WinnerPlayer, baccarat.WinnerTie
	add(T, false, false, true)
	for i := range 9 {
		add(B, i == 2, false, i == 4)
	}
	add(P, false, true, false)
	for range 11 {
		add(T, false, false, false)
	}
	for i := range 40 {
		w := P
		if i%3 == 1 {
			w = B
		}
		add(w, i%7 == 3, i%5 == 0, i%4 == 2)
	}
	r := display.BuildRoads(display.RoadsInput{Shoe: 1, Results: rs, CardsLeft: 120, Coup: len(rs)})
	return &r
}

// startRoads are the first 24 coups of goldenRoads: the whole big road
// fits, with its dragon tail and the eleven ties on one cell.
func startRoads() *display.Roads {
	all := goldenRoads()
	var rs []tableau.CoupResult
	for i, b := range all.Beads[:24] {
		rs = append(rs, tableau.CoupResult{Coup: i + 1, Winner: b.Winner, PlayerPair: b.PlayerPair, BankerPair: b.BankerPair, Natural: b.Natural})
	}
	r := display.BuildRoads(display.RoadsInput{Shoe: 1, Results: rs, CardsLeft: 300, Coup: len(rs)})
	return &r
}

// goldenAlert is the screen's status under an unacknowledged extra-card
// alert with every lamp flashing (the state whose lamp line used to wrap).
func goldenAlert(roads *display.Roads) (segment.Frame, Status) {
	f := display.Compose(display.TableState{Alert: "extra-card"}, display.Layout8, 15)
	st := Status{
		Lamps: []Lamp{{Name: "alarm", On: true, Pattern: "fast-blink"}, {Name: "red", On: true, Pattern: "fast-blink"},
			{Name: "amber", Pattern: "off"}, {Name: "green", Pattern: "off"}, {Name: "buzzer", On: true, Pattern: "beep:3"}},
		LastCoup: "#61 player 7 banker 5: player wins",
		Message:  MessageLine(display.TableState{Alert: "extra-card"}),
		Roads:    roads,
	}
	return f, st
}

func goldenCoup(roads *display.Roads) (segment.Frame, Status) {
	s := display.TableState{Coup: 62, Player: cards(4, 5), Banker: cards(3, 10), Result: display.ResultPlayer, Natural: true}
	f := display.Compose(s, display.Layout8, 7)
	line, _ := CoupLine(s)
	st := Status{
		Lamps:    []Lamp{{Name: "alarm"}, {Name: "red"}, {Name: "amber"}, {Name: "green", On: true, Pattern: "steady"}, {Name: "buzzer"}},
		LastCoup: line, Roads: roads,
	}
	return f, st
}

func cards(ranks ...int) []tableau.Card {
	var out []tableau.Card
	for _, r := range ranks {
		out = append(out, tableau.Card{Rank: tableau.Rank(r), Suit: card.Hearts})
	}
	return out
}

// TestDrawGolden compares whole screens with testdata/*.golden (go test
// -update rewrites them; read the diff before committing): the totals
// with the labels, the lamp line and the roads on terminals from 100×30
// down to 60×24, a terminal too short for the roads, the 4-digit layout.
func TestDrawGolden(t *testing.T) {
	roads := goldenRoads()
	for _, c := range []struct {
		name       string
		cols, rows int
		state      func(*display.Roads) (segment.Frame, Status)
	}{
		{"coup-100x30", 100, 30, goldenCoup},
		{"start-80x24", 80, 24, func(*display.Roads) (segment.Frame, Status) { return goldenCoup(startRoads()) }},
		{"coup-80x24", 80, 24, goldenCoup},
		{"coup-60x24", 60, 24, goldenCoup},
		{"alert-80x24", 80, 24, goldenAlert},
		{"alert-60x24", 60, 24, goldenAlert},
		{"alert-80x20", 80, 20, goldenAlert},
		{"coup4-80x24", 80, 24, func(r *display.Roads) (segment.Frame, Status) {
			_, st := goldenCoup(r)
			s := display.TableState{Coup: 62, Player: cards(4, 5), Banker: cards(3, 10), Result: display.ResultPlayer, Natural: true}
			return display.Compose(s, display.Layout4, 7), st
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, st := c.state(roads)
			lines := Draw(f, st, c.cols, c.rows)
			for i, l := range lines {
				if len(l) > c.cols {
					t.Errorf("line %d is %d columns wide, the terminal %d", i, len(l), c.cols)
				}
			}
			if len(lines) > c.rows {
				t.Errorf("%d lines, the terminal has %d rows", len(lines), c.rows)
			}
			got := strings.Join(lines, "\n") + "\n"
			path := filepath.Join("testdata", c.name+".golden")
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("screen %s:\n%s\nwant (%s):\n%s", c.name, got, path, want)
			}
		})
	}
}
