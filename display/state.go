package display

import (
	"fmt"
	"strconv"

	"github.com/sabot-table/sabot/display/segment"
	"github.com/sabot-table/sabot/tableau"
)

// Hand names one of the hands of a coup.
type Hand uint8

// The hands. HandNone means "none". HandLeft is banque's left tableau
// (its right tableau is HandPlayer).
const (
	HandNone Hand = iota
	HandPlayer
	HandBanker
	HandLeft
)

// Result is the outcome of a finished coup.
type Result uint8

// The results. ResultNone means the coup is not finished.
const (
	ResultNone Result = iota
	ResultPlayer
	ResultBanker
	ResultTie
)

// TableState is everything the totals display needs to know about the
// table at one moment. It is display's own input type, filled by the daemon
// from the table controller (see FromCoup for the adapter from tableau).
// The zero value is an idle table: nothing shown.
type TableState struct {
	// Coup is the coup number (for status lines; not shown on the digits).
	Coup int
	// Voided is set when coup Coup was voided: the digits show blank (the
	// coup no longer counts) and status lines say so.
	Voided bool
	// Player and Banker are the cards dealt to each hand in the current
	// coup, in order (at most three each). A hand with no cards is shown
	// blank; otherwise its total (sum of card values mod 10) is shown.
	Player, Banker []tableau.Card
	// Waiting is the hand that the tableau says must draw a third card and
	// has not yet: its total blinks.
	Waiting Hand
	// Result is set once the coup is complete: the winner indicator shows
	// P, b or t.
	Result Result
	// Natural is set when the complete coup was decided by a natural (8 or
	// 9 on the first two cards): the natural marker 'n' is shown.
	Natural bool
	// Burning is set during the burn; BurnRemaining is the number of cards
	// still to burn (0–10), shown as "br" and the count, or negative when
	// not yet known (before the first burn card): "br" alone.
	Burning       bool
	BurnRemaining int
	// LastCoup is set once the cut card has come out: this coup is the
	// last (or the one after it, by house rule) of the shoe. Shown as the
	// decimal point of the winner digit (the colon on clock modules).
	LastCoup bool
	// Alert is the code of the alert being shown ("extra-card", ...), ""
	// for none. It is shown as its error code ("E1", see ErrorCode),
	// flashing until AlertAcknowledged, then steady until the daemon
	// clears Alert. "shoe-online" is informational and ignored.
	Alert             string
	AlertAcknowledged bool
	// Offline is set while the shoe is disconnected: every digit shows a
	// dash. It takes precedence over everything else.
	Offline bool

	// Banque is set for a baccarat banque coup: Player is then the right
	// tableau and Left the left one; RightResult and LeftResult are each
	// tableau's result against the banker once the coup is complete
	// (ResultPlayer: the tableau wins; Result stays ResultNone). See
	// Compose for how the three totals are shown.
	Banque                  bool
	Left                    []tableau.Card
	RightResult, LeftResult Result
}

// Layout says where each item goes on a display of Width digits. An index
// of -1 means "not shown" on this layout.
type Layout struct {
	Width       int
	PlayerLabel int // 'P' shown while the player hand has cards
	Player      int // player total
	Winner      int // winner indicator P/b/t; its decimal point marks the last coup
	Natural     int // 'n' after a natural
	BankerLabel int // 'b' shown while the banker hand has cards
	Banker      int // banker total
}

// The standard layouts, by width (digit 0 leftmost). Below, p/B are the
// totals, W the winner indicator and n the natural marker.
var (
	// Layout4 is for 4-digit modules (TM1637, HT16K33 backpack): "pWnB",
	// e.g. "7b 8", "9Pn2"; the colon/dp of digit 1 marks the last coup.
	Layout4 = Layout{Width: 4, PlayerLabel: -1, Player: 0, Winner: 1, Natural: 2, BankerLabel: -1, Banker: 3}
	// Layout6 is for 6-digit modules (TM1637): "p W nB" → "7 b  8".
	Layout6 = Layout{Width: 6, PlayerLabel: -1, Player: 0, Winner: 2, Natural: 4, BankerLabel: -1, Banker: 5}
	// Layout8 is for 8-digit modules (MAX7219): "Pp W n bB" → "P7 b  b8".
	Layout8 = Layout{Width: 8, PlayerLabel: 0, Player: 1, Winner: 3, Natural: 4, BankerLabel: 6, Banker: 7}
)

// LayoutFor returns the standard layout for a display of n digits: Layout4
// for 4 or 5 digits, Layout6 for 6 or 7, Layout8 for 8 or more (extra
// digits stay blank). Fewer than 4 digits is an error.
func LayoutFor(n int) (Layout, error) {
	switch {
	case n < 4:
		return Layout{}, fmt.Errorf("display: %d digits is too few: a totals display needs at least 4", n)
	case n < 6:
		l := Layout4
		l.Width = n
		return l, nil
	case n < 8:
		l := Layout6
		l.Width = n
		return l, nil
	default:
		l := Layout8
		l.Width = n
		return l, nil
	}
}

// Total returns a hand's baccarat total: the sum of its card values mod 10.
func Total(cards []tableau.Card) int {
	t := 0
	for _, c := range cards {
		t += c.Value()
	}
	return t % 10
}

// Compose returns the frame that shows s on a display with layout l, at
// brightness b (clamped to 0..MaxBrightness). In order of precedence:
//
//   - Offline: every digit '-'.
//   - Alert: the error code, left-aligned on narrow displays ("E1  ",
//     "E12 " on 4 digits) and after "Err" on 7 or more ("Err   E1"), every
//     digit blinking until AlertAcknowledged.
//   - Burning: "br" and BurnRemaining right-aligned ("br 3", "br10"; "br"
//     alone while the count is unknown).
//   - Otherwise the coup: each total (blank while its hand has no cards),
//     blinking for the Waiting hand; once Result is set the winner
//     indicator P/b/t and, for a natural, 'n'. The labels 'P' and 'b' of
//     wide layouts are shown with their totals.
//
// LastCoup lights the decimal point of the winner digit in the burn and
// coup frames.
func Compose(s TableState, l Layout, b int) segment.Frame {
	f := segment.Blank(l.Width, b)
	if l.Width <= 0 {
		return f
	}
	set := func(i int, c rune) {
		if i >= 0 && i < len(f.Digits) {
			f.Digits[i].Char = c
		}
	}
	switch {
	case s.Offline:
		for i := range f.Digits {
			f.Digits[i].Char = '-'
		}
		return f
	case s.Alert != "" && s.Alert != "shoe-online":
		text := ErrorText(s.Alert)
		if l.Width >= 7 {
			text = "Err" + pad(text, l.Width-3, true)
		}
		writeText(f.Digits, text)
		if !s.AlertAcknowledged {
			for i := range f.Digits {
				f.Digits[i].Blink = true
			}
		}
		return f
	case s.Burning:
		count := ""
		if s.BurnRemaining >= 0 {
			count = strconv.Itoa(s.BurnRemaining)
		}
		writeText(f.Digits, "br"+pad(count, l.Width-2, true))
	case s.Banque:
		composeBanque(&f, &s)
		return f
	default:
		if len(s.Player) > 0 {
			set(l.PlayerLabel, 'P')
			set(l.Player, rune('0'+Total(s.Player)))
		}
		if len(s.Banker) > 0 {
			set(l.BankerLabel, 'b')
			set(l.Banker, rune('0'+Total(s.Banker)))
		}
		switch s.Waiting {
		case HandPlayer:
			blink(f.Digits, l.Player)
		case HandBanker:
			blink(f.Digits, l.Banker)
		}
		switch s.Result {
		case ResultPlayer:
			set(l.Winner, 'P')
		case ResultBanker:
			set(l.Winner, 'b')
		case ResultTie:
			set(l.Winner, 't')
		}
		if s.Result != ResultNone && s.Natural {
			set(l.Natural, 'n')
		}
	}
	if s.LastCoup && l.Winner >= 0 && l.Winner < len(f.Digits) {
		f.Digits[l.Winner].DP = true
	}
	return f
}

// composeBanque writes a banque coup: the right tableau ('r'), the left
// ('L') and the banker ('b'), each as its label and total once it has
// cards, the total blinking while that hand must (or may) draw.
//
//   - 8 digits or more: "r5 L3 b7"; once complete, the digit after each
//     tableau's total shows its result against the banker, P (the tableau
//     wins), b (the banker) or t (a tie): "r5PL3bb7". LastCoup lights the
//     point of digit 2.
//   - 6 or 7 digits: "r5L3b7"; once complete, the point of a tableau's
//     total is lit when it beat the banker (a tie is not marked).
//     LastCoup lights the point of the last digit.
//   - 4 or 5 digits: the hands in turn, one page each for TurnPeriod
//     (Frame.Turns): "r  5", "L  3", "b  7"; once complete a tableau's page
//     has its result at digit 2: "r P5", "L b3". LastCoup lights the point
//     of digit 1 (the colon of clock modules) on every page.
func composeBanque(f *segment.Frame, s *TableState) {
	type hand struct {
		label  rune
		cards  []tableau.Card
		result Result
		wait   Hand
	}
	hands := [3]hand{{'r', s.Player, s.RightResult, HandPlayer}, {'L', s.Left, s.LeftResult, HandLeft}, {'b', s.Banker, ResultNone, HandBanker}}
	resultChar := map[Result]rune{ResultPlayer: 'P', ResultBanker: 'b', ResultTie: 't'}
	n := len(f.Digits)
	put := func(d []segment.Digit, i int, c rune, blinking bool) {
		if i >= 0 && i < len(d) {
			d[i].Char, d[i].Blink = c, blinking
		}
	}
	// show writes h's label at digit at and its total, blinking while h
	// must (or may) draw, at digit total.
	show := func(d []segment.Digit, at, total int, h hand) {
		put(d, at, h.label, false)
		put(d, total, rune('0'+Total(h.cards)), s.Waiting == h.wait)
	}
	switch {
	case n >= 8:
		for i, h := range hands {
			if len(h.cards) == 0 {
				continue
			}
			show(f.Digits, 3*i, 3*i+1, h)
			if c, ok := resultChar[h.result]; ok && i < 2 {
				put(f.Digits, 3*i+2, c, false)
			}
		}
		f.Digits[2].DP = s.LastCoup
	case n >= 6:
		for i, h := range hands {
			if len(h.cards) == 0 {
				continue
			}
			show(f.Digits, 2*i, 2*i+1, h)
			f.Digits[2*i+1].DP = h.result == ResultPlayer
		}
		f.Digits[n-1].DP = f.Digits[n-1].DP || s.LastCoup
	default:
		var pages [][]segment.Digit
		for _, h := range hands {
			if len(h.cards) == 0 {
				continue
			}
			p := make([]segment.Digit, n)
			show(p, 0, 3, h)
			if c, ok := resultChar[h.result]; ok {
				put(p, 2, c, false)
			}
			p[1].DP = s.LastCoup
			pages = append(pages, p)
		}
		if len(pages) == 0 {
			f.Digits[1].DP = s.LastCoup
			return
		}
		f.Digits = pages[0]
		if len(pages) > 1 {
			f.Turns = pages[1:]
		}
	}
}

func blink(d []segment.Digit, i int) {
	if i >= 0 && i < len(d) {
		d[i].Blink = true
	}
}

// writeText writes text from digit 0; characters past the end are dropped.
func writeText(d []segment.Digit, text string) {
	i := 0
	for _, r := range text {
		if i >= len(d) {
			return
		}
		d[i].Char = r
		i++
	}
}

// pad pads s with blanks to width n, on the left if right is set.
func pad(s string, n int, right bool) string {
	for len(s) < n {
		if right {
			s = " " + s
		} else {
			s = s + " "
		}
	}
	return s
}
