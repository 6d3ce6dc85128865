// Package terminal is a totals display for a text terminal: the demo's and
// the bench's stand-in for the LED displays. It draws every digit of a
// display frame as a large 7-segment digit in ASCII art, the lamps, the
// last coup and a message line, and redraws the screen in place with ANSI
// escape sequences. The whole screen fits an 80×24 terminal (a frame of up
// to 8 digits; wider frames are cut at 8).
//
// Screen (the lines Lines returns; Screen adds the escapes):
//
//	line 0      title
//	line 2..8   the digits, 7 rows high, 9 columns per digit
//	line 10     the lamps: "[#]" lit, "[ ]" dark, and each one's pattern
//	            (wrapped onto more lines if they do not fit 80 columns)
//	then        "Last coup: ..." and the message
package terminal

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/sabot-table/sabot/display"
)

// MaxDigits is the number of digits that fit 80 columns.
const MaxDigits = 8

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
}

// The ASCII art of one digit: rows of 8 columns (7 for the segments, 1 for
// the decimal point).
func digitRows(s display.Segments) [7]string {
	on := func(seg display.Segments, t string) string {
		if s&seg != 0 {
			return t
		}
		return strings.Repeat(" ", len(t))
	}
	side := func(l, r display.Segments) string {
		return on(l, "#") + "     " + on(r, "#") + " "
	}
	dp := " "
	if s&display.SegDP != 0 {
		dp = "o"
	}
	return [7]string{
		" " + on(display.SegA, "#####") + "  ",
		side(display.SegF, display.SegB),
		side(display.SegF, display.SegB),
		" " + on(display.SegG, "#####") + "  ",
		side(display.SegE, display.SegC),
		side(display.SegE, display.SegC),
		" " + on(display.SegD, "#####") + " " + dp,
	}
}

// Lines returns the screen for frame f and status st, one string per line,
// without escapes and without trailing blanks. Blinking digits are drawn
// lit (pass f.At(elapsed) to animate).
func Lines(f display.Frame, st Status) []string {
	lines := make([]string, 0, 13)
	lines = append(lines, fmt.Sprintf("Sabot table display  (brightness %d/%d)", f.Brightness, display.MaxBrightness), "")
	segs := f.Segments(true)
	if len(segs) > MaxDigits {
		segs = segs[:MaxDigits]
	}
	var rows [7]strings.Builder
	for _, s := range segs {
		r := digitRows(s)
		for i := range rows {
			rows[i].WriteString(" ")
			rows[i].WriteString(r[i])
		}
	}
	for i := range rows {
		lines = append(lines, strings.TrimRight(rows[i].String(), " "))
	}
	lines = append(lines, "")
	lines = append(lines, lampLines(st.Lamps)...)
	last := st.LastCoup
	if last == "" {
		last = "-"
	}
	lines = append(lines, "Last coup: "+last)
	lines = append(lines, st.Message)
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
		if len(lines[i]) > 80 {
			lines[i] = lines[i][:80]
		}
	}
	return lines
}

// lampLines renders the lamps, wrapped at 80 columns with the continuation
// lines indented under the first lamp.
func lampLines(lamps []Lamp) []string {
	const prefix = "Lamps:"
	if len(lamps) == 0 {
		return []string{prefix + " none"}
	}
	var out []string
	cur := prefix
	for _, l := range lamps {
		mark := "[ ]"
		if l.On {
			mark = "[#]"
		}
		item := " " + mark + " " + l.Name
		if l.Pattern != "" && l.Pattern != "off" && l.Pattern != "steady" {
			item += " (" + l.Pattern + ")"
		}
		if len(cur)+len(item) > 80 && cur != prefix {
			out = append(out, cur)
			cur = strings.Repeat(" ", len(prefix))
		}
		cur += item
	}
	return append(out, cur)
}

// ANSI sequences used by Screen.
const (
	clearScreen = "\x1b[2J"
	home        = "\x1b[H"
	clearEOL    = "\x1b[K"
	clearBelow  = "\x1b[J"
)

// Screen is a terminal display writing to w. It implements
// display.Renderer. Methods are safe for concurrent use.
type Screen struct {
	mu      sync.Mutex
	w       io.Writer
	frame   display.Frame
	status  Status
	started bool
}

// New returns a Screen writing to w (usually os.Stdout). It writes nothing
// until the first Render or SetStatus.
func New(w io.Writer) *Screen {
	return &Screen{w: w}
}

// Render shows f (blinking digits lit) and redraws. Errors are the writer's.
func (s *Screen) Render(f display.Frame) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frame = f
	return s.draw()
}

// SetStatus sets the lamp, last-coup and message lines and redraws.
func (s *Screen) SetStatus(st Status) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = st
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

// draw writes the whole screen: clear once, then cursor home and each line
// followed by clear-to-end-of-line, then clear below.
func (s *Screen) draw() error {
	var b strings.Builder
	if !s.started {
		b.WriteString(clearScreen)
		s.started = true
	}
	b.WriteString(home)
	for _, l := range Lines(s.frame, s.status) {
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

var _ display.Renderer = (*Screen)(nil)

// CoupLine describes a finished coup for the last-coup line, e.g.
// "#12 player 9 banker 8: player wins (natural)", or "#12 voided"; ok is
// false while s has no result.
func CoupLine(s display.TableState) (line string, ok bool) {
	if s.Voided && s.Coup > 0 {
		return fmt.Sprintf("#%d voided", s.Coup), true
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

// MessageLine describes what needs attention, e.g. "E1 extra-card: waiting
// for the supervisor's acknowledgement", "shoe offline", "burn: 3 cards to
// go"; "" when nothing does.
func MessageLine(s display.TableState) string {
	switch {
	case s.Offline:
		return "shoe offline"
	case s.Alert != "" && s.Alert != "shoe-online":
		m := display.ErrorText(s.Alert) + " " + s.Alert
		if !s.AlertAcknowledged {
			m += ": waiting for the supervisor's acknowledgement"
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
