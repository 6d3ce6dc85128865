package shoe

import (
	"bytes"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sabot-table/sabot/tableau"
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
// CR, blank lines and "#" comments are ignored. It is also the proof that a
// new kind of shoe is one small file: it implements Protocol and registers
// itself as "lines". Read-only; online when the port opens.
type Lines struct {
	log     *slog.Logger
	path    string
	line    []byte
	over    bool
	unknown atomic.Uint64
	logged  int
}

const linesMax = 80

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
	l.line, l.over = l.line[:0], false
	return emit(Event{Kind: KindOnline, Info: &Info{Protocol: "lines", Path: l.path}, Time: now})
}

// Disconnect implements Protocol.
func (l *Lines) Disconnect(now time.Time) { l.line, l.over = l.line[:0], false }

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
			l.skip(line)
			continue
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		tok := bytes.TrimSpace(line)
		if len(tok) == 0 {
			continue
		}
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
				ev.Kind, ev.Dealer = KindDealer, string(bytes.TrimSpace(tok[7:]))
				break
			}
			c, err := tableau.ParseCard(string(tok))
			if err != nil {
				l.skip(line)
				continue
			}
			ev.Kind, ev.Card, ev.Quality = KindCard, c, QualityUnknown
		}
		if err := emit(ev); err != nil {
			return err
		}
	}
	return nil
}

func (l *Lines) skip(line []byte) {
	l.unknown.Add(1)
	if l.logged < unknownLogLimit {
		l.logged++
		l.log.Warn("shoe: lines: unknown line skipped", "device", l.path, "bytes", string(line))
	}
}
