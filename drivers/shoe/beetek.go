package shoe

import (
	"bytes"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sabot-table/sabot/tableau/card"
)

func init() {
	Register(ProtocolInfo{
		Name:        "beetek",
		Summary:     "Bee-Tek ASCII records, read-only",
		DefaultBaud: 9600,
		Markers:     false,
		Gate:        false,
		New:         func(cfg ProtocolConfig) Protocol { return NewBeetek(cfg) },
	})
}

// Bee-Tek record limits: a record longer than this is not a Bee-Tek record.
const (
	beetekMaxMode = 48
	beetekMaxBody = 96
	beetekMaxRaw  = 1 + beetekMaxMode + 2 + beetekMaxBody + 1
	// unknownLogLimit is how many distinct unknown records are logged (each
	// once); after that they are only counted.
	unknownLogLimit = 64
)

// Beetek parses the ASCII output of Bee-Tek card shoes (read-only; typically
// 9600 baud 8N1). A record is an optional "[mode]" followed by "<body>",
// normally with a space before and after, e.g.
//
//	[Game]<Card:4S>                  card 4S
//	[Manual Burn Cards]<Card:H3>     card 3H drawn as a burn card
//	[Game]<Game>                     a card the shoe could not read
//	[Game]<Alarm:E3 Card Not Read>   alarm, code E3
//	[GameAlarm]<Alarm:E7 Jam>        alarm, code E7
//	<W0x01>                          warning, code W0x01
//
// Rank and suit come in either order ("4S" or "S4"), rank ten as "10" or
// "T"; a rank alone is a rank-only read. Any mode containing "Burn" marks
// burn cards. Records may be split across reads or glued together (with or
// without spaces). Anything else is an unknown record: it is skipped,
// counted (Stats.Unknown) and logged once per distinct content with its
// bytes and stream offset — never fatal.
//
// The protocol has no handshake or heartbeat: the shoe is reported online
// when the port opens and offline when the port is lost.
type Beetek struct {
	log  *slog.Logger
	path string

	state  uint8
	mode   []byte // bytes of "[mode]" so far, without brackets
	body   []byte // bytes of "<body>" so far, without brackets
	raw    []byte // every byte of the current record or junk run
	start  int64  // stream offset of raw[0]
	offset int64  // stream offset of the next byte
	burn   bool   // mode of the current record is a burn mode

	seen      map[string]struct{}
	unknown   atomic.Uint64
	truncated bool
}

const (
	btIdle     = iota // between records
	btJunk            // in a run of bytes that are no record
	btMode            // after "[" — reading the mode
	btModeDone        // after "[mode]" — waiting for "<"
	btBody            // after "<" — reading the body
)

// NewBeetek returns the Bee-Tek parser (also available as protocol
// "beetek").
func NewBeetek(cfg ProtocolConfig) *Beetek {
	lg := cfg.Logger
	if lg == nil {
		lg = slog.Default()
	}
	return &Beetek{
		log:  lg,
		path: cfg.Path,
		mode: make([]byte, 0, beetekMaxMode),
		body: make([]byte, 0, beetekMaxBody),
		raw:  make([]byte, 0, beetekMaxRaw),
		seen: make(map[string]struct{}),
	}
}

// Name implements Protocol.
func (b *Beetek) Name() string { return "beetek" }

// Connect implements Protocol: it resets the parser and emits KindOnline.
func (b *Beetek) Connect(out Sender, now time.Time, emit Emit) error {
	b.reset()
	b.offset = 0
	return b.emit(emit, Event{Kind: KindOnline, Info: &Info{Protocol: "beetek", Path: b.path}, Time: now})
}

// Disconnect implements Protocol: a partial record is dropped.
func (b *Beetek) Disconnect(now time.Time) { b.reset() }

// Tick implements Protocol (nothing to supervise).
func (b *Beetek) Tick(now time.Time, emit Emit) error { return nil }

// Stats implements Statser.
func (b *Beetek) Stats() Stats {
	return Stats{Unknown: b.unknown.Load()}
}

func (b *Beetek) reset() {
	b.state = btIdle
	b.mode = b.mode[:0]
	b.body = b.body[:0]
	b.raw = b.raw[:0]
	b.burn = false
}

func (b *Beetek) emit(emit Emit, ev Event) error {
	return emit(ev)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0
}

// Feed implements Protocol.
func (b *Beetek) Feed(p []byte, now time.Time, emit Emit) error {
	for _, c := range p {
		if err := b.step(c, now, emit); err != nil {
			return err
		}
	}
	return nil
}

// begin starts a new record or junk run at the current byte.
func (b *Beetek) begin(state uint8) {
	b.state = state
	b.mode = b.mode[:0]
	b.body = b.body[:0]
	b.raw = b.raw[:0]
	b.start = b.offset
	b.burn = false
}

// keep appends c to raw; it reports false if the record is too long.
func (b *Beetek) keep(c byte) bool {
	if len(b.raw) >= beetekMaxRaw {
		return false
	}
	b.raw = append(b.raw, c)
	return true
}

func (b *Beetek) step(c byte, now time.Time, emit Emit) error {
	defer func() { b.offset++ }()
	switch b.state {
	case btIdle, btJunk:
		switch {
		case c == '[':
			b.flushUnknown()
			b.begin(btMode)
			b.keep(c)
		case c == '<':
			b.flushUnknown()
			b.begin(btBody)
			b.keep(c)
		case isSpace(c):
			b.flushUnknown()
			b.state = btIdle
		default:
			if b.state == btIdle {
				b.begin(btJunk)
			}
			if !b.keep(c) {
				b.flushUnknown()
				b.begin(btJunk)
				b.keep(c)
			}
		}
	case btMode:
		switch {
		case c == ']':
			b.keep(c)
			b.burn = containsFold(b.mode, "burn")
			b.state = btModeDone
		case c == '[' || c == '<' || c == '\r' || c == '\n' || len(b.mode) >= beetekMaxMode:
			return b.restep(c, now, emit)
		default:
			b.mode = append(b.mode, c)
			b.keep(c)
		}
	case btModeDone:
		switch {
		case c == '<':
			b.keep(c)
			b.state = btBody
		case c == ' ' || c == '\t':
			b.keep(c)
		default: // a mode with no body
			return b.restep(c, now, emit)
		}
	case btBody:
		switch {
		case c == '>':
			b.keep(c)
			err := b.record(now, emit)
			b.state = btIdle
			b.raw = b.raw[:0]
			return err
		case c == '<' || c == '[' || c == '\r' || c == '\n' || len(b.body) >= beetekMaxBody:
			return b.restep(c, now, emit)
		default:
			b.body = append(b.body, c)
			b.keep(c)
		}
	}
	return nil
}

// restep abandons the record c has ended (its bytes are reported as an
// unknown record) and processes c again in the idle state, where it may
// begin the next one. The offset is not advanced twice.
func (b *Beetek) restep(c byte, now time.Time, emit Emit) error {
	b.flushUnknown()
	b.state = btIdle
	b.offset--
	return b.step(c, now, emit)
}

// record handles a complete "[mode]<body>".
func (b *Beetek) record(now time.Time, emit Emit) error {
	body := bytes.TrimSpace(b.body)
	switch {
	case hasPrefixFold(body, "card:"):
		card, ok := parseBeetekCard(bytes.TrimSpace(body[5:]))
		if !ok {
			break
		}
		return b.emit(emit, Event{Kind: KindCard, Card: card, Burn: b.burn, Quality: QualityUnknown, Time: now})
	case equalFold(body, "game"):
		return b.emit(emit, Event{Kind: KindUnreadable, Burn: b.burn, Time: now})
	case hasPrefixFold(body, "alarm:"):
		text := strings.TrimSpace(string(body[6:]))
		a := Alarm{Text: text}
		if code, rest, _ := strings.Cut(text, " "); looksLikeCode(code) {
			a.Code, a.Text = code, strings.TrimSpace(rest)
		}
		return b.emit(emit, Event{Kind: KindAlarm, Alarm: a, Time: now})
	case isWarningCode(body):
		return b.emit(emit, Event{Kind: KindAlarm, Alarm: Alarm{Code: string(body), Warning: true}, Time: now})
	}
	b.flushUnknown()
	return nil
}

// flushUnknown reports the bytes in raw (if any) as an unknown record.
func (b *Beetek) flushUnknown() {
	if len(b.raw) == 0 {
		return
	}
	b.unknown.Add(1)
	key := string(b.raw)
	b.raw = b.raw[:0]
	if _, dup := b.seen[key]; dup {
		return
	}
	if len(b.seen) >= unknownLogLimit {
		if !b.truncated {
			b.truncated = true
			b.log.Warn("shoe: beetek: too many distinct unknown records; counting the rest without logging", "limit", unknownLogLimit)
		}
		return
	}
	b.seen[key] = struct{}{}
	b.log.Warn("shoe: beetek: unknown record skipped", "device", b.path, "offset", b.start, "bytes", key, "hex", hexBytes(key))
}

func hexBytes(s string) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 3*len(s))
	for i := 0; i < len(s); i++ {
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, digits[s[i]>>4], digits[s[i]&15])
	}
	return string(out)
}

// parseBeetekCard parses "4S", "S4", "10H", "H10", "TH", "HT", "4" (rank
// only), case-insensitively, without allocating.
func parseBeetekCard(s []byte) (card.Card, bool) {
	if len(s) == 0 || len(s) > 3 {
		return card.Card{}, false
	}
	var c card.Card
	if suit := suitOf(s[0]); suit != card.SuitUnknown && len(s) >= 2 {
		c.Suit = suit // suit first
		s = s[1:]
	} else if suit := suitOf(s[len(s)-1]); suit != card.SuitUnknown && len(s) >= 2 {
		c.Suit = suit // rank first
		s = s[:len(s)-1]
	}
	switch {
	case len(s) == 2 && s[0] == '1' && s[1] == '0':
		c.Rank = card.Rank10
	case len(s) == 1:
		c.Rank = rankOf(s[0])
	}
	return c, c.Rank.Valid()
}

func suitOf(b byte) card.Suit {
	switch b | 0x20 {
	case 's':
		return card.Spades
	case 'h':
		return card.Hearts
	case 'd':
		return card.Diamonds
	case 'c':
		return card.Clubs
	}
	return card.SuitUnknown
}

func rankOf(b byte) card.Rank {
	switch {
	case b >= '2' && b <= '9':
		return card.Rank(b - '0')
	}
	switch b | 0x20 {
	case 'a':
		return card.RankAce
	case 't':
		return card.Rank10
	case 'j':
		return card.RankJack
	case 'q':
		return card.RankQueen
	case 'k':
		return card.RankKing
	}
	return 0
}

// looksLikeCode reports whether s is an alarm code such as "E3", "E12" or
// "W0x01": letters then at least one digit or hex digit, short.
func looksLikeCode(s string) bool {
	if len(s) < 2 || len(s) > 8 {
		return false
	}
	c := s[0] | 0x20
	if c < 'a' || c > 'z' {
		return false
	}
	digit := false
	for i := 1; i < len(s); i++ {
		switch x := s[i]; {
		case x >= '0' && x <= '9':
			digit = true
		case x == 'x' || x == 'X' || (x|0x20 >= 'a' && x|0x20 <= 'f'):
		default:
			return false
		}
	}
	return digit
}

// isWarningCode reports whether b is "W0x" followed by 1–4 hex digits.
func isWarningCode(b []byte) bool {
	if len(b) < 4 || len(b) > 7 || b[0]|0x20 != 'w' || b[1] != '0' || b[2]|0x20 != 'x' {
		return false
	}
	for _, x := range b[3:] {
		if !(x >= '0' && x <= '9' || x|0x20 >= 'a' && x|0x20 <= 'f') {
			return false
		}
	}
	return true
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && equalFold(b[:len(prefix)], prefix)
}

func equalFold(b []byte, s string) bool {
	return len(b) == len(s) && strings.EqualFold(string(b), s)
}

// containsFold reports whether b contains sub (lower-case ASCII),
// ignoring ASCII case.
func containsFold(b []byte, sub string) bool {
	for i := 0; i+len(sub) <= len(b); i++ {
		j := 0
		for j < len(sub) && b[i+j]|0x20 == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}
