package display_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// results turns "BPT..." into coup results (coups numbered from 1).
func results(s string) []tableau.CoupResult {
	out := make([]tableau.CoupResult, 0, len(s))
	for _, c := range s {
		w := map[rune]baccarat.Winner{'B': baccarat.WinnerBanker, 'P': baccarat.WinnerPlayer, 'T': baccarat.WinnerTie}[c]
		out = append(out, tableau.CoupResult{Coup: len(out) + 1, Winner: w})
	}
	return out
}

func roadsOf(s string) display.Roads {
	return display.BuildRoads(display.RoadsInput{Shoe: 1, Results: results(s), CardsLeft: -1})
}

// asJSON round-trips v through encoding/json to a generic value.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// grid draws rows as strings, one character per cell ("." empty, else the
// cell's first letter), for hand-drawn expectations.
func grid(g display.Grid) []string {
	rows := make([]string, len(g))
	for r, row := range g {
		var b strings.Builder
		for _, c := range row {
			if c == "" {
				b.WriteByte('.')
			} else {
				b.WriteByte(c[0])
			}
		}
		rows[r] = b.String()
	}
	return rows
}

// The worked example of the contract (shared/contract/roads-example.*):
// the keys it gives must have its values; extra keys are allowed.
func TestRoadsWorkedExample(t *testing.T) {
	in, err := os.ReadFile("testdata/roads-example.results")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/roads-example.expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var w map[string]any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	got := asJSON(t, roadsOf(strings.TrimSpace(string(in)))).(map[string]any)
	if len(w) == 0 {
		t.Fatal("empty expectation")
	}
	for k, v := range w {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

// A streak longer than six rows turns right along the bottom row (the
// dragon tail); the logical column stays one column, and a tie after it
// is counted on its last cell, drawn in the tail.
func TestRoadsLongStreakAndTieAfter(t *testing.T) {
	rd := roadsOf("BBBBBBBBT")
	if want := [][]string{{"B", "B", "B", "B", "B", "B", "B", "B1"}}; !reflect.DeepEqual(rd.BigRoad, want) {
		t.Errorf("big road %v, want %v", rd.BigRoad, want)
	}
	wantGrid := []string{
		"B..",
		"B..",
		"B..",
		"B..",
		"B..",
		"BBB",
	}
	if g := grid(rd.Grids.BigRoad); !reflect.DeepEqual(g, wantGrid) {
		t.Errorf("big road grid\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(wantGrid, "\n"))
	}
	if c := rd.Grids.BigRoad[5][2]; c != "B1" {
		t.Errorf("tail's last cell %q, want B1", c)
	}
	// One column: no derived road has the column it compares with, and
	// neither result would start one (a new column 2 compares columns 1
	// and 0).
	if rd.BigEyeBoy+rd.SmallRoad+rd.CockroachPig != "" {
		t.Errorf("derived roads %q %q %q, want none", rd.BigEyeBoy, rd.SmallRoad, rd.CockroachPig)
	}
	if rd.Ask.Banker != (display.AskEntry{}) || rd.Ask.Player != (display.AskEntry{}) {
		t.Errorf("ask %+v, want nothing", rd.Ask)
	}
	if rd.Stats.LongestBanker != 8 || rd.Stats.Banker != 8 || rd.Stats.Tie != 1 || rd.Stats.Coups != 9 {
		t.Errorf("stats %+v", rd.Stats)
	}
	// The second player win is column 2 row 2: big eye boy's first entry,
	// red because column 1 has a cell at row 2.
	if rd := roadsOf("BBBBBBBBTPP"); rd.BigEyeBoy != "R" || rd.SmallRoad != "" {
		t.Errorf("BBBBBBBBTPP: big eye boy %q small road %q, want R and none", rd.BigEyeBoy, rd.SmallRoad)
	}
}

// Ties before the first banker or player win are counted on the first
// cell, with their pairs.
func TestRoadsTiesAtStart(t *testing.T) {
	rs := results("TTBPT")
	rs[1].PlayerPair = true
	rs[3].BankerPair = true
	rs[3].Natural = true
	rd := display.BuildRoads(display.RoadsInput{Results: rs, CardsLeft: -1})
	if want := [][]string{{"B2"}, {"P1"}}; !reflect.DeepEqual(rd.BigRoad, want) {
		t.Errorf("big road %v, want %v", rd.BigRoad, want)
	}
	if rd.BeadPlate != "TTBPT" {
		t.Errorf("bead plate %q", rd.BeadPlate)
	}
	if g := rd.Grids.BigRoad; g[0][0] != "B2p" || g[0][1] != "P1b" {
		t.Errorf("big road grid top row %q, want [B2p P1b]", g[0])
	}
	wantBead := []string{"T", "Tp", "B", "Pbn", "T", ""}
	var col []string
	for r := range display.RoadRows {
		col = append(col, rd.Grids.BeadPlate[r][0])
	}
	if !reflect.DeepEqual(col, wantBead) {
		t.Errorf("bead plate column %q, want %q", col, wantBead)
	}
	if s := rd.Stats; s.Tie != 3 || s.PlayerPairs != 1 || s.BankerPairs != 1 || s.Naturals != 1 {
		t.Errorf("stats %+v", s)
	}
	// Only ties: no cell yet.
	if rd := roadsOf("TT"); len(rd.BigRoad) != 0 || rd.BeadPlate != "TT" {
		t.Errorf("TT: big road %v bead %q", rd.BigRoad, rd.BeadPlate)
	}
}

// Alternating results: every column has one cell, so each new column
// compares two columns of equal length (red), and a repeat would end
// exactly below column c−k (blue). Worked by hand from the rule.
func TestRoadsAlternating(t *testing.T) {
	rd := roadsOf("BPBPBPBP")
	if len(rd.BigRoad) != 8 {
		t.Fatalf("big road %v", rd.BigRoad)
	}
	// Big eye boy starts at column 3, small road at 4, cockroach pig at 5.
	if rd.BigEyeBoy != "RRRRRR" || rd.SmallRoad != "RRRRR" || rd.CockroachPig != "RRRR" {
		t.Errorf("derived %q %q %q", rd.BigEyeBoy, rd.SmallRoad, rd.CockroachPig)
	}
	all := func(c string) display.AskEntry { return display.AskEntry{BigEyeBoy: c, SmallRoad: c, CockroachPig: c} }
	if rd.Ask.Banker != all("R") || rd.Ask.Player != all("B") {
		t.Errorf("ask %+v, want banker all R, player all B", rd.Ask)
	}
	// A red run is one derived column, drawn with the dragon tail.
	if g := grid(rd.Grids.BigEyeBoy); !reflect.DeepEqual(g, []string{"R", "R", "R", "R", "R", "R"}) {
		t.Errorf("big eye boy grid %q", g)
	}
	if g := grid(rd.Grids.BigRoad); g[0] != "BPBPBPBP" || g[1] != "........" {
		t.Errorf("big road grid %q", g)
	}
}

// A column blocked by the dragon tail of the one before turns right one
// row higher; the next column starts at the top again.
func TestRoadsBlockedColumn(t *testing.T) {
	rd := roadsOf("BBBBBBBB" + "PPPPPP" + "B")
	want := []string{
		"BPB",
		"BP.",
		"BP.",
		"BP.",
		"BPP",
		"BBB",
	}
	if g := grid(rd.Grids.BigRoad); !reflect.DeepEqual(g, want) {
		t.Errorf("grid\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	// The derived roads read the logical columns (8 and 6), not the drawn
	// ones: P row 2..6 against column 1 (8 cells) are red; the new B column
	// compares 6 and 8: blue.
	if rd.BigEyeBoy != "RRRRRB" {
		t.Errorf("big eye boy %q, want RRRRRB", rd.BigEyeBoy)
	}
}

// A dragon tail along the top row pushes the next column's start right.
func TestDragonTailTopRow(t *testing.T) {
	pos, width := display.DragonTail([]int{5, 5, 1}, 2)
	want := [][]display.GridPos{
		{{0, 0}, {1, 0}, {1, 1}, {1, 2}, {1, 3}},
		{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}},
		{{0, 6}},
	}
	if !reflect.DeepEqual(pos, want) || width != 7 {
		t.Errorf("got %v width %d, want %v width 7", pos, width, want)
	}
}

func TestRoadsStatsAndCards(t *testing.T) {
	rd := display.BuildRoads(display.RoadsInput{Results: results("BBTBPPPB"), CardsLeft: 100, Coup: 8})
	s := rd.Stats
	if s.Coups != 8 || s.Banker != 4 || s.Player != 3 || s.Tie != 1 || s.LongestBanker != 3 || s.LongestPlayer != 3 {
		t.Errorf("stats %+v", s)
	}
	if s.CardsLeft == nil || *s.CardsLeft != 100 || s.CoupsLeft == nil || *s.CoupsLeft != 20 { // 100 / 4.94
		t.Errorf("cards %v coups %v, want 100 and 20", s.CardsLeft, s.CoupsLeft)
	}
	// Cut card out: the last coup is the next one.
	rd = display.BuildRoads(display.RoadsInput{Results: results("BB"), CardsLeft: 60, Coup: 40, LastCoup: 41})
	if *rd.Stats.CoupsLeft != 1 {
		t.Errorf("coups left %d, want 1", *rd.Stats.CoupsLeft)
	}
	b, _ := json.Marshal(roadsOf("B").Stats)
	if strings.Contains(string(b), "cards_left") {
		t.Errorf("unknown cards in JSON: %s", b)
	}
}

// A shoe that never ends keeps only the last MaxRoadCoups coups on the
// roads; the statistics count them all.
func TestRoadsBoundedWindow(t *testing.T) {
	s := strings.Repeat("BPPT", 100) // 400 coups
	rd := roadsOf(s)
	if rd.DroppedCoups != 400-display.MaxRoadCoups || rd.BeadPlate != s[400-display.MaxRoadCoups:] {
		t.Errorf("dropped %d bead %q", rd.DroppedCoups, rd.BeadPlate)
	}
	if rd.Stats.Coups != 400 || rd.Stats.Tie != 100 {
		t.Errorf("stats %+v", rd.Stats)
	}
	if want := roadsOf(s[400-display.MaxRoadCoups:]); !reflect.DeepEqual(rd.BigRoad, want.BigRoad) || rd.CockroachPig != want.CockroachPig {
		t.Error("the window's roads differ from the roads of the same coups as a shoe")
	}
	// Results the caller no longer has are counted as dropped.
	if got := display.BuildRoads(display.RoadsInput{Results: results("BPT"), Dropped: 10, CardsLeft: -1}); got.DroppedCoups != 10 || got.Stats.Coups != 3 {
		t.Errorf("Dropped 10: %d dropped, %d coups", got.DroppedCoups, got.Stats.Coups)
	}
	// A Tally of the whole shoe with only its last coups gives the same.
	var tally display.Tally
	all := results(s)
	for _, r := range all {
		tally.Add(r)
	}
	for _, last := range []int{display.MaxRoadCoups, display.MaxRoadCoups + 1, 300} {
		got := display.BuildRoads(display.RoadsInput{Shoe: 1, Results: all[400-last:], CardsLeft: -1, Tally: &tally})
		if !reflect.DeepEqual(asJSON(t, got), asJSON(t, rd)) {
			t.Errorf("Tally and the last %d results: %+v, want %+v", last, got.Stats, rd.Stats)
		}
	}
}

// The JSON of any shoe fits MaxRoadsJSON: the worst cases (one column per
// coup, every mark on every cell) and random shoes.
func TestRoadsJSONBound(t *testing.T) {
	marked := func(s string) []tableau.CoupResult {
		rs := results(s)
		for i := range rs {
			rs[i].PlayerPair, rs[i].BankerPair, rs[i].Natural = true, true, true
		}
		return rs
	}
	size := func(rs []tableau.CoupResult) int {
		b, err := json.Marshal(display.BuildRoads(display.RoadsInput{Shoe: 1 << 30, Results: rs, CardsLeft: 1 << 30, Coup: 1 << 30}))
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	worst := 0
	for _, s := range []string{"BP", "B", "BBP", "BPP", "BBPP", "BPT", "BTTTTTTTTTP"} {
		worst = max(worst, size(marked(strings.Repeat(s, 2*display.MaxRoadCoups))))
	}
	t.Logf("largest roads JSON of the patterns: %d bytes (bound %d)", worst, display.MaxRoadsJSON)
	if worst >= display.MaxRoadsJSON {
		t.Errorf("roads JSON %d bytes, bound %d", worst, display.MaxRoadsJSON)
	}
	rapid.Check(t, func(t *rapid.T) {
		rs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) tableau.CoupResult {
			return tableau.CoupResult{Winner: baccarat.Winner(rapid.IntRange(1, 3).Draw(t, "w")),
				PlayerPair: rapid.Bool().Draw(t, "pp"), BankerPair: rapid.Bool().Draw(t, "bp"), Natural: rapid.Bool().Draw(t, "n")}
		}), 0, 3*display.MaxRoadCoups).Draw(t, "results")
		if n := size(rs); n >= display.MaxRoadsJSON {
			t.Fatalf("roads JSON %d bytes, bound %d", n, display.MaxRoadsJSON)
		}
	})
}

// refColumns is the big road as columns of letters, from the words of the
// rule: a run of equal banker/player results is a column; ties are not
// entries.
func refColumns(s string) [][]byte {
	var cols [][]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 'T' {
			continue
		}
		if n := len(cols); n > 0 && cols[n-1][0] == c {
			cols[n-1] = append(cols[n-1], c)
		} else {
			cols = append(cols, []byte{c})
		}
	}
	return cols
}

// refDerived is an independent reading of the rule, 1-based as
// written there. For a new entry in column c at row r: if r = 1, red when
// columns c−1 and c−1−k have equal length, else blue; if r > 1, look at
// column c−k: red if it has a cell at row r, blue if it ends exactly at
// row r−1, red if it ends above that. No entry while a column it reads
// does not exist.
func refDerived(s string, k int) string {
	cols := refColumns(s)
	height := func(c int) int { return len(cols[c-1]) } // 1-based
	var out []byte
	for c := 1; c <= len(cols); c++ {
		for r := 1; r <= height(c); r++ {
			if r == 1 {
				if c-1-k < 1 {
					continue
				}
				if height(c-1) == height(c-1-k) {
					out = append(out, 'R')
				} else {
					out = append(out, 'B')
				}
				continue
			}
			if c-k < 1 {
				continue
			}
			h := height(c - k)
			switch {
			case h >= r:
				out = append(out, 'R')
			case h == r-1:
				out = append(out, 'B')
			default:
				out = append(out, 'R')
			}
		}
	}
	return string(out)
}

// entriesFromStart counts the big-road entries from a derived road's
// start: the first entry at column k+1 row 2 or column k+2 row 1 (or later).
func entriesFromStart(s string, k int) int {
	n, started := 0, false
	for c, col := range refColumns(s) {
		for r := range col {
			if (c+1 == k+1 && r+1 >= 2) || c+1 >= k+2 {
				started = true
			}
			if started {
				n++
			}
		}
	}
	return n
}

func TestRoadsDerivedProperties(t *testing.T) {
	ks := []int{display.BigEyeBoyK, display.SmallRoadK, display.CockroachPigK}
	derived := func(rd display.Roads) []string { return []string{rd.BigEyeBoy, rd.SmallRoad, rd.CockroachPig} }
	ask := func(a display.AskEntry) []string { return []string{a.BigEyeBoy, a.SmallRoad, a.CockroachPig} }
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`[BPT]{0,100}`).Draw(t, "results")
		rd := roadsOf(s)
		for i, k := range ks {
			got := derived(rd)[i]
			if want := refDerived(s, k); got != want {
				t.Fatalf("k=%d: %q, reference %q", k, got, want)
			}
			if n := entriesFromStart(s, k); len(got) != n {
				t.Fatalf("k=%d: %d entries, %d big-road entries from the start", k, len(got), n)
			}
		}
		for _, next := range []struct {
			letter string
			ask    display.AskEntry
		}{{"B", rd.Ask.Banker}, {"P", rd.Ask.Player}} {
			after := derived(roadsOf(s + next.letter))
			for i := range ks {
				if after[i] != derived(rd)[i]+ask(next.ask)[i] {
					t.Fatalf("after %s road %d is %q; before %q + ask %q", next.letter, i, after[i], derived(rd)[i], ask(next.ask)[i])
				}
			}
		}
		// The big road's cells are the bead plate less its ties.
		var cells strings.Builder
		for _, col := range rd.BigRoad {
			for _, c := range col {
				cells.WriteByte(c[0])
			}
		}
		if want := strings.ReplaceAll(s, "T", ""); cells.String() != want {
			t.Fatalf("big road cells %q, want %q", cells.String(), want)
		}
	})
}

// The dragon tail puts every cell on the grid once, each column starting
// on the top row and moving only down, then only right.
func TestDragonTailProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lens := rapid.SliceOfN(rapid.IntRange(1, 20), 0, 40).Draw(t, "lengths")
		rows := rapid.IntRange(1, 8).Draw(t, "rows")
		pos, width := display.DragonTail(lens, rows)
		seen := map[display.GridPos]bool{}
		maxCol, prevStart := -1, -1
		for i, col := range pos {
			if len(col) != lens[i] {
				t.Fatalf("column %d has %d cells, want %d", i, len(col), lens[i])
			}
			if col[0].Row != 0 || col[0].Col <= prevStart {
				t.Fatalf("column %d starts at %v after %d", i, col[0], prevStart)
			}
			prevStart = col[0].Col
			turned := false
			for j, p := range col {
				if p.Row < 0 || p.Row >= rows || seen[p] {
					t.Fatalf("column %d cell %d at %v: out of the grid or taken", i, j, p)
				}
				seen[p] = true
				maxCol = max(maxCol, p.Col)
				if j == 0 {
					continue
				}
				q := col[j-1]
				switch {
				case !turned && p == display.GridPos{Row: q.Row + 1, Col: q.Col}:
				case p == display.GridPos{Row: q.Row, Col: q.Col + 1}:
					if !turned && q.Row+1 < rows && !seen[display.GridPos{Row: q.Row + 1, Col: q.Col}] {
						t.Fatalf("column %d turns right at %v with the cell below free", i, q)
					}
					turned = true
				default:
					t.Fatalf("column %d moves from %v to %v", i, q, p)
				}
			}
		}
		if width != maxCol+1 {
			t.Fatalf("width %d, want %d", width, maxCol+1)
		}
	})
}
