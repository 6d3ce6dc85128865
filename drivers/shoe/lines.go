package shoe

import (
	"bytes"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sabot-table/sabot/tableau/card"
)

func init() {
	Register(ProtocolInfo{
		Name:        "lines",
		Summary:     "one transcript token per line (bench readers, tests)",
		DefaultBaud: 9600,
		Markers:     true,
		Gate:        false,
		New:         func(cfg ProtocolConfig) Protocol { return NewLines(cfg) },
	})
}

// Lines is the plainest shoe: one card per line of ASCII, in the `sabot
// check` transcript syntax ("AS", "10h", "7"), plus the transcript's markers
// "|" (coup button), "cut", "void" and "shoe", "dealer ID" and "dealer -"
// (a dealer signs in or out) and "?" for an unreadable card.
// A final CR, blank lines and "#" comments are ignored. It is also the proof that a
// new kind of shoe is one small file: it implements Protocol and registers
// itself as "lines". Read-only; online when the port opens.
//
// The protocol has no check of its own, so a line must match the grammar
// exactly and in full: printable ASCII, spaces and tabs only (a final CR
// allowed), at most linesMax bytes, one token. Anything else is noise:
// skipped, counted (Stats.Unknown) and logged (the first unknownLogLimit).
// The line after one holding a byte that is not printable ASCII is refused
// as well, as the possible tail of the same noise (random bytes make short
// lines such as "5"), and a card or marker refused so raises the noise
// alarm at once. A burst of noise
// (linesNoiseBurst lines within linesNoiseWindow) raises a KindAlarm with
// Code LinesNoiseCode; it is raised again only after a window without noise.
type Lines struct {
	log     *slog.Logger
	path    string
	line    []byte
	over    bool
	unknown atomic.Uint64
	logged  int

	afterNoise bool        // binary noise since the last valid line: the next one is refused
	noise      []time.Time // noise lines in the current window (at most linesNoiseBurst)
	alarmed    bool        // the noise alarm was raised and no quiet window since
}

// linesMax is the longest line, in bytes (the longest token, "dealer" and a
// 32-byte id, with room for a comment).
const linesMax = 80

// LinesNoiseCode is the Alarm.Code of the lines protocol's noise alarm (the
// table's shoe-alarm alert carries it).
const LinesNoiseCode = "link-noise"

// The noise alarm: linesNoiseBurst noise lines within linesNoiseWindow.
const (
	linesNoiseBurst  = 3
	linesNoiseWindow = 10 * time.Second
)

// NewLines returns the one-card-per-line protocol.
func NewLines(cfg ProtocolConfig) *Lines {
	lg := cfg.Logger
	if lg == nil {
		lg = slog.Default()
	}
	return &Lines{log: lg, path: cfg.Path, line: make([]byte, 0, linesMax)}
}

// Name implements Protocol.
func (l *Lines) Name() string { return "lines" }

// Connect implements Protocol.
func (l *Lines) Connect(out Sender, now time.Time, emit Emit) error {
	l.line, l.over, l.afterNoise = l.line[:0], false, false
	return emit(Event{Kind: KindOnline, Info: &Info{Protocol: "lines", Path: l.path}, Time: now})
}

// Disconnect implements Protocol.
// The noise before a reconnection is not the tail of what comes after it.
func (l *Lines) Disconnect(now time.Time) { l.line, l.over, l.afterNoise = l.line[:0], false, false }

// Tick implements Protocol.
func (l *Lines) Tick(now time.Time, emit Emit) error { return nil }

// Stats implements Statser.
func (l *Lines) Stats() Stats { return Stats{Unknown: l.unknown.Load()} }

// Feed implements Protocol.
func (l *Lines) Feed(p []byte, now time.Time, emit Emit) error {
	for _, c := range p {
		if c != '\n' {
			if len(l.line) < linesMax {
				l.line = append(l.line, c)
			} else {
				l.over = true
			}
			continue
		}
		line := l.line
		l.line = l.line[:0]
		if l.over {
			l.over = false
			if err := l.noiseLine(line, "longer than 80 bytes", false, false, now, emit); err != nil {
				return err
			}
			continue
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if i := bytes.IndexFunc(line, func(r rune) bool { return r != '\t' && (r < 0x20 || r > 0x7e) }); i >= 0 {
			if err := l.noiseLine(line, "a byte that is not printable ASCII", true, false, now, emit); err != nil {
				return err
			}
			continue
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		tok := bytes.Trim(line, " \t")
		if len(tok) == 0 {
			continue
		}
		ev, ok := linesEvent(tok, now)
		if !ok {
			if err := l.noiseLine(line, "not a card or marker", false, false, now, emit); err != nil {
				return err
			}
			continue
		}
		if l.afterNoise {
			// Refused, and clears the state: the next valid line counts.
			if err := l.noiseLine(line, "follows noise", false, true, now, emit); err != nil {
				return err
			}
			continue
		}
		if err := emit(ev); err != nil {
			return err
		}
	}
	return nil
}

// linesEvent parses one token of the grammar.
func linesEvent(tok []byte, now time.Time) (Event, bool) {
	ev := Event{Time: now}
	switch strings.ToLower(string(tok)) {
	case "|":
		ev.Kind, ev.Button, ev.Pressed = KindButton, ButtonCoup, true
	case "void":
		ev.Kind, ev.Button, ev.Pressed = KindButton, ButtonVoid, true
	case "shoe":
		ev.Kind, ev.Button, ev.Pressed = KindButton, ButtonNewShoe, true
	case "stand", "non":
		ev.Kind, ev.Button, ev.Pressed = KindButton, ButtonStand, true
	case "cut":
		ev.Kind = KindCutCard
	case "?":
		ev.Kind = KindUnreadable
	case "dealer -":
		ev.Kind = KindDealer
	default:
		if len(tok) > 7 && strings.EqualFold(string(tok[:7]), "dealer ") {
			ev.Kind, ev.Dealer = KindDealer, string(bytes.Trim(tok[7:], " \t"))
			break
		}
		c, err := card.ParseCard(string(tok))
		if err != nil {
			return ev, false
		}
		ev.Kind, ev.Card, ev.Quality = KindCard, c, QualityUnknown
	}
	return ev, true
}

// noiseLine skips a line that is not the grammar (or, tail, follows
// binary noise): counted, logged (the first unknownLogLimit), and the noise
// alarm raised for a burst, or at once for a refused tail. binary (a byte
// that is not printable ASCII) makes the next valid line a tail, whatever
// unknown or blank lines come between.
func (l *Lines) noiseLine(line []byte, why string, binary, tail bool, now time.Time, emit Emit) error {
	l.unknown.Add(1)
	l.afterNoise = l.afterNoise && !tail || binary
	if l.logged < unknownLogLimit {
		l.logged++
		l.log.Warn("shoe: lines: line skipped", "device", l.path, "why", why, "bytes", strconv.QuoteToASCII(string(line)))
	}
	keep := l.noise[:0]
	for _, t := range l.noise {
		if now.Sub(t) < linesNoiseWindow {
			keep = append(keep, t)
		}
	}
	if len(keep) == 0 {
		l.alarmed = false // a window without noise: the next burst raises again
	}
	if len(keep) == linesNoiseBurst {
		keep = keep[1:]
	}
	l.noise = append(keep, now)
	if l.alarmed || (!tail && len(l.noise) < linesNoiseBurst) {
		return nil
	}
	l.alarmed = true
	text := fmt.Sprintf("%d lines that are not the lines protocol in %v: a wrong baud rate, a bad cable or a device that is not a shoe", len(l.noise), linesNoiseWindow)
	if tail {
		text = "a line after noise was refused (it may be the noise's tail): check the coup; " + text
	}
	return emit(Event{Kind: KindAlarm, Alarm: Alarm{Code: LinesNoiseCode, Text: text}, Time: now})
}
