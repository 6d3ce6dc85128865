// Package terminal is a totals display for a text terminal: the demo's and
// the bench's stand-in for the LED displays. It draws every digit of a
// display frame as a large 7-segment digit in ASCII art under the labels
// PLAYER and BANKER, the lamps, the last coup and a message line, and,
// when the terminal has the room, the shoe's bead plate and big road; it
// redraws the screen in place with ANSI escape sequences.
//
// Screen (the lines Draw returns; Screen adds the escapes):
//
//	line 0      title
//	line 1      PLAYER and BANKER over their digits
//	line 2..8   the digits, 7 rows high, 9 columns per digit (7 below 74
//	            columns)
//	line 9      blank
//	line 10     the lamps: "[#]" lit, "[ ]" dark, and each one's pattern
//	            (always one line: patterns are dropped, then the line
//	            cut, when it does not fit)
//	line 11     "Last coup: ..."
//	line 12     the message (an alert's code, name and text)
//	line 13..20 with roads and at least RoadsRows rows: the bead plate
//	            and the big road side by side, six rows each
//
// Nothing is wider than the terminal: from MinColumns up everything is
// shown; narrower terminals get each line cut.
package terminal

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// MaxDigits is the number of digits that fit 80 columns.
const MaxDigits = 8

// MinColumns is the narrowest terminal drawn whole: 8 narrow digits, the
// lamps, and the roads at their smallest.
const MinColumns = 60

// RoadsRows is the height from which the bead plate and the big road are
// drawn below the totals (the 13 lines of the totals screen, a blank line,
// a heading and six rows).
const RoadsRows = 21

// Default size, when the terminal's is not known.
const (
	DefaultColumns = 80
	DefaultRows    = 24
)

// Lamp is one output as shown on the status line.
type Lamp struct {
	Name    string // e.g. "alarm_lamp"
	On      bool   // lit now
	Pattern string // e.g. "fast-blink"
}

// Status is everything but the digits.
type Status struct {
	Lamps    []Lamp
	LastCoup string // e.g. "#41 player 9 banker 6, player wins (natural)"
	Message  string // e.g. the alert text
	// Roads, when set, are the current shoe's roads: their bead plate and
	// big road are drawn below the totals when the terminal has RoadsRows
	// rows.
	Roads *display.Roads
}

// digitRows is the ASCII art of one digit: 7 rows of 8 columns (7 for the
// segments, 1 for the decimal point), or of 6 columns when narrow.
func digitRows(s segment.Segments, narrow bool) [7]string {
	bar := "#####"
	mid := "     "
	if narrow {
		bar, mid = "###", "   "
	}
	on := func(seg segment.Segments, t string) string {
		if s&seg != 0 {
			return t
		}
		return strings.Repeat(" ", len(t))
	}
	side := func(l, r segment.Segments) string {
		return on(l, "#") + mid + on(r, "#") + " "
	}
	dp := " "
	if s&segment.SegDP != 0 {
		dp = "o"
	}
	return [7]string{
		" " + on(segment.SegA, bar) + "  ",
		side(segment.SegF, segment.SegB),
		side(segment.SegF, segment.SegB),
		" " + on(segment.SegG, bar) + "  ",
		side(segment.SegE, segment.SegC),
		side(segment.SegE, segment.SegC),
		" " + on(segment.SegD, bar) + " " + dp,
	}
}

// Lines returns the screen for frame f and status st on an 80×24
// terminal; see Draw.
func Lines(f segment.Frame, st Status) []string {
	return Draw(f, st, DefaultColumns, DefaultRows)
}

// Draw returns the screen for frame f and status st on a terminal of cols
// columns and rows rows (0: DefaultColumns, DefaultRows), one string per
// line, without escapes and without trailing blanks, none longer than
// cols. Blinking digits are drawn lit (pass f.At(elapsed) to animate).
func Draw(f segment.Frame, st Status, cols, rows int) []string {
	if cols <= 0 {
		cols = DefaultColumns
	}
	if rows <= 0 {
		rows = DefaultRows
	}
	lines := make([]string, 0, RoadsRows)
	lines = append(lines, fmt.Sprintf("Sabot table display  (brightness %d/%d)", f.Brightness, segment.MaxBrightness))
	segs := f.Segments(true)
	if len(segs) > MaxDigits {
		segs = segs[:MaxDigits]
	}
	cw := 9 // columns per digit
	if len(segs)*cw+1 > cols {
		cw = 7
	}
	lines = append(lines, labelLine(len(segs), cw))
	var art [7]strings.Builder
	for _, s := range segs {
		r := digitRows(s, cw == 7)
		for i := range art {
			art[i].WriteString(" ")
			art[i].WriteString(r[i])
		}
	}
	for i := range art {
		lines = append(lines, art[i].String())
	}
	lines = append(lines, "")
	lines = append(lines, lampLine(st.Lamps, cols))
	last := st.LastCoup
	if last == "" {
		last = "-"
	}
	lines = append(lines, "Last coup: "+last)
	lines = append(lines, st.Message)
	if st.Roads != nil && rows >= RoadsRows {
		lines = append(lines, "")
		lines = append(lines, roadLines(st.Roads, cols)...)
	}
	for i := range lines {
		lines[i] = strings.TrimRight(cut(strings.TrimRight(lines[i], " "), cols), " ")
	}
	return lines
}

// cut shortens s to at most n columns: at a word boundary with "..." when
// there is one in the second half, else hard.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n > 6 {
		if i := strings.LastIndexByte(s[:n-3], ' '); i > n/2 {
			return s[:i] + "..."
		}
	}
	return s[:n]
}

// labelLine puts PLAYER over the player's digits and BANKER over the
// banker's (the layout display.LayoutFor gives n digits).
func labelLine(n, cw int) string {
	l, err := display.LayoutFor(n)
	if err != nil {
		return ""
	}
	b := []byte(strings.Repeat(" ", n*cw+1))
	put := func(label string, digits ...int) {
		lo, hi := n, -1
		for _, d := range digits {
			if d >= 0 && d < n {
				lo, hi = min(lo, d), max(hi, d)
			}
		}
		if hi < 0 {
			return
		}
		// Digit d's segments are columns d*cw+2 .. d*cw+cw-1.
		left, right := lo*cw+1, (hi+1)*cw
		start := max(0, left+(right-left-len(label))/2)
		copy(b[start:], label)
	}
	put("PLAYER", l.PlayerLabel, l.Player)
	put("BANKER", l.BankerLabel, l.Banker)
	return string(b)
}

// lampLine renders the lamps on one line of at most cols columns: with
// their patterns ("[#] alarm:fast"), without them if that is too long, cut
// if even that is.
func lampLine(lamps []Lamp, cols int) string {
	const prefix = "Lamps:"
	if len(lamps) == 0 {
		return prefix + " none"
	}
	render := func(patterns bool) string {
		var b strings.Builder
		b.WriteString(prefix)
		for _, l := range lamps {
			mark := "[ ]"
			if l.On {
				mark = "[#]"
			}
			b.WriteString(" " + mark + " " + l.Name)
			if p := shortPattern(l.Pattern); patterns && p != "" {
				b.WriteString(":" + p)
			}
		}
		return b.String()
	}
	line := render(true)
	if len(line) > cols {
		line = render(false)
	}
	return line
}

// shortPattern is a lamp pattern as the lamp line writes it: "fast" for
// fast-blink, "slow" for slow-blink, "beep3" for beep:3, "" for off and
// steady.
func shortPattern(p string) string {
	switch p {
	case "", "off", "steady":
		return ""
	}
	p = strings.TrimSuffix(p, "-blink")
	return strings.ReplaceAll(p, ":", "")
}

// roadLines draws the bead plate and the big road side by side: a heading
// and six rows, three columns per cell, the newest columns of each road
// when it is longer than its room. A bead plate cell is the winner (B, P,
// T) and a mark: p player pair, b banker pair, * both, n natural; a big
// road cell is the winner (B, P) and its tie count (+ for ten or more);
// "." is an empty cell.
func roadLines(r *display.Roads, cols int) []string {
	const cell, gap = 3, "  "
	beadRoom := 10 // columns of the bead plate (60 coups)
	if cols < 80 {
		beadRoom = 7
	}
	bead := fitGrid(r.Grids.BeadPlate, beadRoom)
	beadW := cell * beadRoom
	bigRoom := max(1, (cols-beadW-len(gap)+1)/cell)
	big := fitGrid(r.Grids.BigRoad, bigRoom)
	lines := []string{fmt.Sprintf("%-*s%sBig road", beadW, "Bead plate", gap)}
	for row := 0; row < display.RoadRows; row++ {
		var b strings.Builder
		for _, v := range rowOf(bead, row) {
			b.WriteString(beadCell(v))
		}
		fmt.Fprintf(&b, "%*s", beadW-cell*len(rowOf(bead, row)), "")
		b.WriteString(gap)
		for _, v := range rowOf(big, row) {
			b.WriteString(bigCell(v))
		}
		lines = append(lines, b.String())
	}
	return lines
}

// fitGrid returns the newest room columns of g.
func fitGrid(g display.Grid, room int) display.Grid {
	out := make(display.Grid, len(g))
	for i, row := range g {
		out[i] = row[max(0, len(row)-room):]
	}
	return out
}

func rowOf(g display.Grid, r int) []string {
	if r < len(g) {
		return g[r]
	}
	return nil
}

// beadCell is a bead plate cell ("Bpn", "T", "") in three columns.
func beadCell(v string) string {
	if v == "" {
		return ".  "
	}
	rest := v[1:]
	pp, bp := strings.Contains(rest, "p"), strings.Contains(rest, "b")
	mark := " "
	switch {
	case pp && bp:
		mark = "*"
	case pp:
		mark = "p"
	case bp:
		mark = "b"
	case strings.Contains(rest, "n"):
		mark = "n"
	}
	return v[:1] + mark + " "
}

// bigCell is a big road cell ("B2p", "P", "") in three columns.
func bigCell(v string) string {
	if v == "" {
		return ".  "
	}
	ties := strings.TrimRight(v[1:], "pb")
	switch {
	case ties == "":
		ties = " "
	case len(ties) > 1:
		ties = "+"
	}
	return v[:1] + ties + " "
}

// ANSI sequences used by Screen.
const (
	clearScreen = "\x1b[2J"
	home        = "\x1b[H"
	clearEOL    = "\x1b[K"
	clearBelow  = "\x1b[J"
)

// Screen is a terminal display writing to w. It implements
// segment.Renderer. Methods are safe for concurrent use.
type Screen struct {
	mu         sync.Mutex
	w          io.Writer
	frame      segment.Frame
	status     Status
	cols, rows int // 0: the defaults
	started    bool
}

// New returns a Screen writing to w (usually os.Stdout). It writes nothing
// until the first Render, SetLamps or SetLastCoup.
func New(w io.Writer) *Screen {
	return &Screen{w: w}
}

// Render shows f (blinking digits lit) and redraws. Errors are the writer's.
func (s *Screen) Render(f segment.Frame) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frame = f
	return s.draw()
}

// SetLamps replaces the lamp line only and redraws.
func (s *Screen) SetLamps(l []Lamp) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status.Lamps = l
	return s.draw()
}

// SetLastCoup replaces the last-coup line and the message, and redraws.
func (s *Screen) SetLastCoup(lastCoup, message string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status.LastCoup, s.status.Message = lastCoup, message
	return s.draw()
}

// SetSize sets the terminal's size (0: DefaultColumns, DefaultRows) and
// redraws if it changed.
func (s *Screen) SetSize(cols, rows int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cols == s.cols && rows == s.rows {
		return nil
	}
	s.cols, s.rows = cols, rows
	return s.draw()
}

// SetRoads sets the roads drawn below the totals (nil: none) and redraws.
func (s *Screen) SetRoads(r *display.Roads) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status.Roads = r
	return s.draw()
}

// draw writes the whole screen: clear once, then cursor home and each line
// followed by clear-to-end-of-line, then clear below.
func (s *Screen) draw() error {
	var b strings.Builder
	if !s.started {
		b.WriteString(clearScreen)
		s.started = true
	}
	b.WriteString(home)
	for _, l := range Draw(s.frame, s.status, s.cols, s.rows) {
		b.WriteString(l)
		b.WriteString(clearEOL)
		b.WriteString("\r\n")
	}
	b.WriteString(clearBelow)
	if _, err := io.WriteString(s.w, b.String()); err != nil {
		return fmt.Errorf("terminal: %w", err)
	}
	return nil
}

var _ segment.Renderer = (*Screen)(nil)

// CoupLine describes a finished coup for the last-coup line, e.g.
// "#12 player 9 banker 8: player wins (natural)", or "#12 voided"; ok is
// false while s has no result.
func CoupLine(s display.TableState) (line string, ok bool) {
	if s.Voided && s.Coup > 0 {
		return fmt.Sprintf("#%d voided", s.Coup), true
	}
	if s.Banque {
		return banqueLine(s)
	}
	var who string
	switch s.Result {
	case display.ResultPlayer:
		who = "player wins"
	case display.ResultBanker:
		who = "banker wins"
	case display.ResultTie:
		who = "tie"
	default:
		return "", false
	}
	line = fmt.Sprintf("#%d player %d banker %d: %s", s.Coup, display.Total(s.Player), display.Total(s.Banker), who)
	if s.Natural {
		line += " (natural)"
	}
	return line, true
}

// banqueLine is CoupLine for a banque coup: "#2 right 5 left 7 banker 3:
// right wins, left ties" once both tableaux have a result.
func banqueLine(s display.TableState) (string, bool) {
	side := func(name string, r display.Result) (string, bool) {
		switch r {
		case display.ResultPlayer:
			return name + " wins", true
		case display.ResultBanker:
			return name + " loses", true
		case display.ResultTie:
			return name + " ties", true
		}
		return "", false
	}
	rw, ok1 := side("right", s.RightResult)
	lw, ok2 := side("left", s.LeftResult)
	if !ok1 || !ok2 {
		return "", false
	}
	return fmt.Sprintf("#%d right %d left %d banker %d: %s, %s", s.Coup, display.Total(s.Player), display.Total(s.Left), display.Total(s.Banker), rw, lw), true
}

// MessageLine describes what needs attention, e.g. "E1 extra-card
// (awaiting ack): a card arrived after the coup was complete" (the alert's
// code, name and its text from tableau's alert table), "shoe offline",
// "burn: 3 cards to go"; "" when nothing does.
func MessageLine(s display.TableState) string {
	switch {
	case s.Offline:
		return "shoe offline"
	case s.Alert != "" && s.Alert != "shoe-online":
		m := display.ErrorText(s.Alert) + " " + s.Alert
		if !s.AlertAcknowledged {
			m += " (awaiting ack)"
		}
		if a, ok := baccarat.LookupAlert(baccarat.AlertCode(s.Alert)); ok && a.Text != "" {
			m += ": " + a.Text
		}
		return m
	case s.Burning && s.BurnRemaining >= 0:
		return fmt.Sprintf("burn: %d cards to go", s.BurnRemaining)
	case s.Burning:
		return "burn"
	case s.LastCoup:
		return "cut card out: last coup of the shoe"
	}
	return ""
}
