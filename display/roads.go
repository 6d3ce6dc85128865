package display

import (
	"strconv"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// RoadRows is the height of every drawn road: bead plate, big road and the
// three derived roads are drawn on grids of six rows, as casino boards
// draw them.
const RoadRows = 6

// MaxRoadCoups bounds the roads: they are drawn from the last MaxRoadCoups
// completed coups of the shoe. A real shoe never reaches it (eight decks
// hold 416 cards, at most 103 coups of four cards after a burn of two);
// only a shoe that never ends (a Bee-Tek shoe without a new-shoe event, a
// key that is never pressed) does, and then the oldest coups are dropped
// from the roads (Roads.DroppedCoups counts them; the statistics still
// count every coup: see RoadsInput.Tally and ViewRoads). This is what makes a
// Roads value, and the MQTT roads payload built from it, bounded by a
// constant.
const MaxRoadCoups = 128

// MaxRoadsJSON bounds the JSON of a Roads value, in bytes (TestRoadsJSONBound
// checks the worst cases). Each of the MaxRoadCoups coups adds at most a
// letter to four strings, a cell to the big road, a column of six cells to
// each of four drawn grids and a sixth of one to the bead plate grid: about
// 100 bytes, 13 KB in all with the keys and statistics.
const MaxRoadsJSON = 14 * 1024

// CardsPerCoup is the mean number of cards in a punto banco coup (four,
// plus the player's and the banker's third card when the tableau draws
// them: 4.939 from an infinite shoe, TestCardsPerCoup), used to estimate
// the coups left in a shoe from its cards.
const CardsPerCoup = 4.94

// Color is an entry of a derived road: red or blue. On a board red means
// the big road is repeating a pattern ("orderly"), blue that it is not.
type Color byte

// The derived-road colors, as written in the roads JSON.
const (
	Red  Color = 'R'
	Blue Color = 'B'
)

// String returns "R" or "B".
func (c Color) String() string { return string(rune(c)) }

// Bead is one coup on the bead plate.
type Bead struct {
	Winner     baccarat.Winner // player, banker or tie
	PlayerPair bool
	BankerPair bool
	Natural    bool
}

// BigCell is one cell of the big road: a banker or player win, with the
// ties recorded on it (those that followed it, and on the first cell of
// the shoe those that preceded it) and the pairs of its coup and of those
// ties.
type BigCell struct {
	Winner     baccarat.Winner // player or banker
	Ties       int
	PlayerPair bool
	BankerPair bool
}

// String is the cell as written in the roads JSON big_road: "B" or "P"
// followed by the tie count when non-zero ("B2").
func (c BigCell) String() string {
	s := "P"
	if c.Winner == baccarat.WinnerBanker {
		s = "B"
	}
	if c.Ties > 0 {
		s += strconv.Itoa(c.Ties)
	}
	return s
}

// BigRoad returns the big road of results (completed coups in order) as
// logical columns: each column is a run of consecutive banker or player
// wins, however long (the six-row layout with the dragon tail is a
// separate step, DragonTail, so the derived roads never read a drawn
// grid). A tie is counted on the current cell; ties before the first
// banker or player win are counted on the first cell (and are on no cell
// while there is none). Pairs are marked on the cell of their coup (a
// tie's on the cell it is counted on). Results with no winner are skipped.
func BigRoad(results []tableau.CoupResult) [][]BigCell {
	var cols [][]BigCell
	var pending BigCell // ties (and their pairs) before the first cell
	for _, r := range results {
		switch r.Winner {
		case baccarat.WinnerTie:
			c := &pending
			if len(cols) > 0 {
				last := cols[len(cols)-1]
				c = &last[len(last)-1]
			}
			c.Ties++
			c.PlayerPair = c.PlayerPair || r.PlayerPair
			c.BankerPair = c.BankerPair || r.BankerPair
		case baccarat.WinnerBanker, baccarat.WinnerPlayer:
			cell := BigCell{Winner: r.Winner, PlayerPair: r.PlayerPair, BankerPair: r.BankerPair}
			switch n := len(cols); {
			case n == 0:
				cell.Ties = pending.Ties
				cell.PlayerPair = cell.PlayerPair || pending.PlayerPair
				cell.BankerPair = cell.BankerPair || pending.BankerPair
				cols = append(cols, []BigCell{cell})
			case cols[n-1][0].Winner == r.Winner:
				cols[n-1] = append(cols[n-1], cell)
			default:
				cols = append(cols, []BigCell{cell})
			}
		}
	}
	return cols
}

// Derived-road offsets: the column a road compares with, counted back from
// the big road's current column.
const (
	BigEyeBoyK    = 1
	SmallRoadK    = 2
	CockroachPigK = 3
)

// derivedEntry is the rule of the derived road with offset k for the big
// road entry at column c, row r (both 0-based) of a big road whose logical
// column lengths are lens (lens[c] is not read: only earlier, finished
// columns are). ok is false when the columns the rule reads do not exist
// (the road has not started).
//
// Row 1 (a new column): red when columns c−1 and c−1−k have equal length,
// else blue. Lower rows: look at column c−k; red if it has a cell at this
// row, blue if it ends exactly one row above, red if it ends higher.
func derivedEntry(lens []int, c, r, k int) (Color, bool) {
	if r == 0 {
		if c-1-k < 0 {
			return 0, false
		}
		if lens[c-1] == lens[c-1-k] {
			return Red, true
		}
		return Blue, true
	}
	if c-k < 0 {
		return 0, false
	}
	switch l := lens[c-k]; {
	case l >= r+1:
		return Red, true
	case l == r:
		return Blue, true
	default:
		return Red, true
	}
}

// DerivedRoad returns the derived road with offset k (BigEyeBoyK,
// SmallRoadK, CockroachPigK) of a big road given by its logical column
// lengths: one color per big-road entry from the first entry for which
// the columns the rule reads exist (k = 1: column 2 row 2 or column 3 row
// 1; k = 2: column 3 row 2 or column 4 row 1; k = 3: column 4 row 2 or
// column 5 row 1), in order of entry. A k below 1 gives no road.
func DerivedRoad(lens []int, k int) []Color {
	if k < 1 {
		return nil
	}
	var out []Color
	for c, n := range lens {
		for r := range n {
			if col, ok := derivedEntry(lens, c, r, k); ok {
				out = append(out, col)
			}
		}
	}
	return out
}

// NextDerived returns the entry the derived road with offset k would add
// if the next result were w (banker or player), given the big road's
// logical column lengths lens and the winner of its last column (ignored
// when lens is empty); ok is false when the road would add nothing (or k
// is below 1).
func NextDerived(lens []int, last baccarat.Winner, w baccarat.Winner, k int) (Color, bool) {
	if len(lens) == 0 || k < 1 {
		return 0, false
	}
	c := len(lens) - 1
	if last == w {
		return derivedEntry(lens, c, lens[c], k)
	}
	return derivedEntry(append(lens[:len(lens):len(lens)], 1), c+1, 0, k)
}

// GridPos is a cell of a drawn road grid: Row 0..RoadRows−1 from the top,
// Col from the left.
type GridPos struct{ Row, Col int }

// DragonTail lays out logical columns (their lengths, in order) on a grid
// of rows rows. A column starts at the top of the grid column right of
// where the previous one started (further right if a dragon tail already
// runs along the top row there) and goes down; it turns right, and then
// stays on that row, when the cell below is taken or it reaches the
// bottom row. It returns each cell's position, column by column, and the
// number of grid columns used. rows is taken as 1 below 1 and as 64 above
// 64; a negative length as 0.
func DragonTail(lengths []int, rows int) (cells [][]GridPos, width int) {
	rows = min(max(rows, 1), 64)
	// taken[col] has bit row set when (row, col) is used. The grid never
	// has more columns than cells.
	var taken []uint64
	isTaken := func(r, c int) bool { return c < len(taken) && taken[c]&(1<<r) != 0 }
	take := func(r, c int) {
		for c >= len(taken) {
			taken = append(taken, 0)
		}
		taken[c] |= 1 << r
		width = max(width, c+1)
	}
	cells = make([][]GridPos, len(lengths))
	start := -1
	for i, n := range lengths {
		start++
		for isTaken(0, start) {
			start++
		}
		row, col, turned := 0, start, false
		n = max(n, 0)
		cells[i] = make([]GridPos, 0, n)
		for j := range n {
			if j > 0 {
				if !turned && row+1 < rows && !isTaken(row+1, col) {
					row++
				} else {
					turned = true
					col++
				}
			}
			take(row, col)
			cells[i] = append(cells[i], GridPos{row, col})
		}
	}
	return cells, width
}

// colorColumns groups a derived road into logical columns of equal colors
// and returns their lengths.
func colorColumns(road []Color) []int {
	var lens []int
	for i, c := range road {
		if i > 0 && c == road[i-1] {
			lens[len(lens)-1]++
		} else {
			lens = append(lens, 1)
		}
	}
	return lens
}

// Grid is a drawn road: RoadRows rows, each with the same number of
// cells; "" is an empty cell.
type Grid [][]string

func newGrid(width int) Grid {
	g := make(Grid, RoadRows)
	for r := range g {
		g[r] = make([]string, width)
	}
	return g
}

// RoadsInput is what BuildRoads needs to know about one shoe.
type RoadsInput struct {
	// Shoe is the shoe number (1-based; 0 when not known).
	Shoe int
	// Results are the shoe's completed coups in order, voided coups left
	// out (tableau.TableView.Results).
	Results []tableau.CoupResult
	// CardsLeft is the number of cards left in the shoe, negative when not
	// known (results given without cards).
	CardsLeft int
	// Coup is the number of the current (or last) coup and LastCoup the
	// shoe's last coup once the cut card is out (0 before).
	Coup, LastCoup int
	// Dropped counts the shoe's coups before Results that are not given
	// (tableau.TableView.ResultsDropped: a table keeps the last
	// tableau.MaxShoeResults results of a shoe that never ends); they are
	// counted in Roads.DroppedCoups, not in the statistics. Ignored with a
	// Tally.
	Dropped int
	// Tally, when not nil, holds the statistics of the whole shoe, of which
	// Results are then the last coups only (at least the last
	// MaxRoadCoups): a caller that keeps a Tally and a bounded window of
	// results draws a shoe that never ends in constant memory. When nil,
	// the statistics are those of Results.
	Tally *Tally
}

// Tally accumulates a shoe's statistics one coup at a time in constant
// memory (CardsLeft and CoupsLeft excepted: BuildRoads fills them). It
// counts as tableau.ResultsSummary does, the table's own summary of the
// results it no longer keeps.
type Tally struct {
	sum tableau.ResultsSummary
}

// Add counts one completed coup (results with no winner are ignored).
func (t *Tally) Add(r tableau.CoupResult) { t.sum.Add(r) }

// Stats returns the statistics counted so far.
func (t *Tally) Stats() Stats {
	s := t.sum
	return Stats{ResultCounts: s.ResultCounts, LongestBanker: s.LongestBanker, LongestPlayer: s.LongestPlayer}
}

// Roads is everything a scoreboard shows for one shoe: the `sabot roads`
// line and the body of the MQTT roads message. Its JSON form is the
// contract in drivers/mqtt/schema/roads.json. It is bounded by a
// constant: the roads hold at most MaxRoadCoups coups, so every string is
// at most MaxRoadCoups letters and every grid at most MaxRoadCoups
// columns.
type Roads struct {
	// Shoe is RoadsInput.Shoe.
	Shoe int `json:"shoe"`
	// DroppedCoups counts the shoe's earliest coups left off the roads
	// because the shoe passed MaxRoadCoups coups, or that the caller no
	// longer had (RoadsInput.Dropped); 0 in a real shoe.
	DroppedCoups int `json:"dropped_coups"`
	// BeadPlate is one letter per coup on the roads, in order: "B" banker,
	// "P" player, "T" tie.
	BeadPlate string `json:"bead_plate"`
	// BigRoad is the big road's logical columns, each a list of cells "B"
	// or "P" followed by the tie count when non-zero ("B2").
	BigRoad [][]string `json:"big_road"`
	// BigEyeBoy, SmallRoad and CockroachPig are the derived roads, one
	// letter per entry in order of entry: "R" red, "B" blue.
	BigEyeBoy    string `json:"big_eye_boy"`
	SmallRoad    string `json:"small_road"`
	CockroachPig string `json:"cockroach_pig"`
	// Ask is the ask-road: what each derived road would add if the next
	// result were banker, and if it were player.
	Ask struct {
		Banker AskEntry `json:"banker"`
		Player AskEntry `json:"player"`
	} `json:"ask"`
	// Stats are the shoe's statistics: of every coup given (RoadsInput
	// Results, or its Tally), those beyond MaxRoadCoups included.
	Stats Stats `json:"stats"`
	// Grids are the roads as drawn, for boards that only paint.
	Grids Grids `json:"grids"`

	// Beads and Big are the bead plate and the big road as values, for Go
	// renderers (the terminal board).
	Beads []Bead      `json:"-"`
	Big   [][]BigCell `json:"-"`
}

// AskEntry is what each derived road would add after one more result; a
// road that would add nothing is "" (omitted from the JSON).
type AskEntry struct {
	BigEyeBoy    string `json:"big_eye_boy,omitempty"`
	SmallRoad    string `json:"small_road,omitempty"`
	CockroachPig string `json:"cockroach_pig,omitempty"`
}

// Stats are a shoe's statistics.
type Stats struct {
	// ResultCounts counts the completed coups (voided coups left out) by
	// winner, and those with a player pair, a banker pair, a natural.
	tableau.ResultCounts
	// LongestBanker and LongestPlayer are the longest runs of banker and
	// player wins (ties do not break a run: the longest big-road column).
	LongestBanker int `json:"longest_banker_streak"`
	LongestPlayer int `json:"longest_player_streak"`
	// CardsLeft are the cards left in the shoe and CoupsLeft an estimate
	// of the coups they hold (CardsLeft / CardsPerCoup, rounded down; once
	// the cut card is out, no more than the coups to the last coup). Both
	// omitted when not known.
	CardsLeft *int `json:"cards_left,omitempty"`
	CoupsLeft *int `json:"coups_left,omitempty"`
}

// Grids are the five roads drawn on RoadRows-row grids (rows × columns).
// Bead plate cells are "B", "P" or "T" followed by "p" for a player pair,
// "b" for a banker pair and "n" for a natural; big road cells are
// "B" or "P", the tie count when non-zero, then "p" and "b" for pairs
// ("B2p"); derived road cells are "R" or "B". The bead plate fills each
// column top to bottom; the other roads follow DragonTail.
type Grids struct {
	BeadPlate    Grid `json:"bead_plate"`
	BigRoad      Grid `json:"big_road"`
	BigEyeBoy    Grid `json:"big_eye_boy"`
	SmallRoad    Grid `json:"small_road"`
	CockroachPig Grid `json:"cockroach_pig"`
}

func letter(w baccarat.Winner) byte { return w.Letter() }

// BuildRoads computes the roads, ask-road and statistics of one shoe. It
// is the one implementation behind `sabot roads`, the board page and the
// MQTT roads message. Results with no winner are skipped.
func BuildRoads(in RoadsInput) Roads {
	var rd Roads
	rd.Shoe = in.Shoe
	results := make([]tableau.CoupResult, 0, min(len(in.Results), MaxRoadCoups))
	// Statistics over the whole shoe; the roads over its last MaxRoadCoups
	// coups.
	all := 0
	var tally Tally
	for _, r := range in.Results {
		if letter(r.Winner) != 0 {
			all++
			if in.Tally == nil {
				tally.Add(r)
			}
		}
	}
	if in.Tally != nil {
		tally = *in.Tally
	}
	rd.Stats = tally.Stats()
	st := &rd.Stats
	skip := max(0, all-MaxRoadCoups)
	// Every coup of the shoe not drawn: before the window, or before the
	// results given (with a Tally).
	rd.DroppedCoups = max(0, tally.sum.Coups-(all-skip))
	if in.Tally == nil {
		rd.DroppedCoups = skip + max(0, in.Dropped)
	}
	for _, r := range in.Results {
		if letter(r.Winner) == 0 {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		results = append(results, r)
	}
	if in.CardsLeft >= 0 {
		cards := in.CardsLeft
		coups := int(float64(cards) / CardsPerCoup)
		if in.LastCoup > 0 {
			coups = min(coups, max(0, in.LastCoup-in.Coup))
		}
		st.CardsLeft, st.CoupsLeft = &cards, &coups
	}

	// Bead plate.
	bead := make([]byte, len(results))
	rd.Beads = make([]Bead, len(results))
	rd.Grids.BeadPlate = newGrid((len(results) + RoadRows - 1) / RoadRows)
	for i, r := range results {
		bead[i] = letter(r.Winner)
		rd.Beads[i] = Bead{Winner: r.Winner, PlayerPair: r.PlayerPair, BankerPair: r.BankerPair, Natural: r.Natural}
		s := string(bead[i:i+1]) + marks(r.PlayerPair, r.BankerPair)
		if r.Natural {
			s += "n"
		}
		rd.Grids.BeadPlate[i%RoadRows][i/RoadRows] = s
	}
	rd.BeadPlate = string(bead)

	// Big road and its layout.
	rd.Big = BigRoad(results)
	lens := make([]int, len(rd.Big))
	rd.BigRoad = make([][]string, len(rd.Big))
	for c, col := range rd.Big {
		lens[c] = len(col)
		rd.BigRoad[c] = make([]string, len(col))
		for r, cell := range col {
			rd.BigRoad[c][r] = cell.String()
		}
	}
	pos, width := DragonTail(lens, RoadRows)
	rd.Grids.BigRoad = newGrid(width)
	for c, col := range rd.Big {
		for r, cell := range col {
			p := pos[c][r]
			rd.Grids.BigRoad[p.Row][p.Col] = cell.String() + marks(cell.PlayerPair, cell.BankerPair)
		}
	}

	// Derived roads and the ask-road.
	var last baccarat.Winner
	if len(rd.Big) > 0 {
		last = rd.Big[len(rd.Big)-1][0].Winner
	}
	for _, d := range []struct {
		k          int
		road       *string
		grid       *Grid
		askB, askP *string
	}{
		{BigEyeBoyK, &rd.BigEyeBoy, &rd.Grids.BigEyeBoy, &rd.Ask.Banker.BigEyeBoy, &rd.Ask.Player.BigEyeBoy},
		{SmallRoadK, &rd.SmallRoad, &rd.Grids.SmallRoad, &rd.Ask.Banker.SmallRoad, &rd.Ask.Player.SmallRoad},
		{CockroachPigK, &rd.CockroachPig, &rd.Grids.CockroachPig, &rd.Ask.Banker.CockroachPig, &rd.Ask.Player.CockroachPig},
	} {
		road := DerivedRoad(lens, d.k)
		b := make([]byte, len(road))
		for i, c := range road {
			b[i] = byte(c)
		}
		*d.road = string(b)
		clens := colorColumns(road)
		pos, width := DragonTail(clens, RoadRows)
		*d.grid = newGrid(width)
		i := 0
		for c := range clens {
			for _, p := range pos[c] {
				(*d.grid)[p.Row][p.Col] = road[i].String()
				i++
			}
		}
		if c, ok := NextDerived(lens, last, baccarat.WinnerBanker, d.k); ok {
			*d.askB = c.String()
		}
		if c, ok := NextDerived(lens, last, baccarat.WinnerPlayer, d.k); ok {
			*d.askP = c.String()
		}
	}
	return rd
}

// ViewRoads returns the roads of the table's current shoe: BuildRoads of
// the view's results, cards left and coup numbers (cards not known before
// the first shoe, nor in a shoe that has given more cards than its decks
// hold). The MQTT roads message and the board page use it. In a shoe past
// tableau.MaxShoeResults coups the view keeps only the newest results and
// sums up the rest (v.ResultsDropped): the statistics start from that
// summary, so they stay those of the whole shoe.
func ViewRoads(v tableau.TableView) Roads {
	left := v.Remaining
	if v.Phase == "no-shoe" || v.Phase == "" || left < 0 {
		left = -1
	}
	in := RoadsInput{Shoe: v.Shoe, Results: v.Results, CardsLeft: left, Coup: v.Coup, LastCoup: v.LastCoup}
	if d := v.ResultsDropped; d.Coups > 0 {
		tally := Tally{sum: d}
		for _, r := range v.Results {
			tally.Add(r)
		}
		in.Tally = &tally
	}
	return BuildRoads(in)
}

func marks(playerPair, bankerPair bool) string {
	s := ""
	if playerPair {
		s += "p"
	}
	if bankerPair {
		s += "b"
	}
	return s
}

// BeadLetters returns the bead plate of results as one letter per
// completed coup: "B" banker, "P" player, "T" tie (results with no winner
// left out). It is the bead string of BuildRoads, for callers that need
// only that.
func BeadLetters(results []tableau.CoupResult) string {
	b := make([]byte, 0, len(results))
	for _, r := range results {
		if l := letter(r.Winner); l != 0 {
			b = append(b, l)
		}
	}
	return string(b)
}
