// Package demo is `sabotd --demo`: the configuration it runs with (no
// file, no hardware, no external broker), the dealt shoes with injected
// dealer errors (Tokens), the virtual shoe on a pseudo-terminal and the
// check that every coup, alert and void came back from the broker (Start,
// Run), and the terminal screen that shows the display with the demo's
// lines under it (Screen).
package demo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"
	paho "github.com/eclipse/paho.mqtt.golang"
	"golang.org/x/sys/unix"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/drivers/board"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// Options are the --demo flags.
type Options struct {
	Enabled bool
	Errors  bool   // inject dealer errors
	Coups   int    // deal this many coups, verify and exit (0: run until stopped)
	Rate    string // "watchable" or "fast"
	Seed    int64  // shuffle seed (0: from the clock)
}

// Config is the configuration --demo runs with: no file, no hardware,
// no external broker. The state directory is a temporary one (removed on
// exit), the embedded broker and the HTTP server take free loopback ports,
// the board is the fake one (lamps and keys from gpiotest).
func Config() config.Config {
	c := config.Default()
	c.Table = "DEMO-1"
	c.Shoe.Device = "(virtual shoe on a pty)"
	c.Shoe.Protocol = "sabot"
	c.Shoe.Baud = 115200
	c.Display.Kind = "terminal"
	c.GPIO = board.GPIOConfig{Backend: board.BackendFake, Lamp: "GPIO17", Buzzer: "GPIO27", TowerRed: "GPIO22", TowerAmber: "GPIO10", TowerGreen: "GPIO9",
		AckKey: "GPIO5", VoidKey: "GPIO6"}
	c.MQTT.EmbeddedAddr = "127.0.0.1:0"
	// Anyone on the machine may watch the demo (mosquitto_sub, printed
	// at start), and write nothing.
	c.MQTT.EmbeddedAllowAnonymous = true
	c.State.Dir = ""
	return c
}

// Demo paces, in cards per second.
const (
	watchableRate = 2.0
	fastRate      = 0 // as fast as the link allows
)

// Run is a running --demo: the virtual shoe on a pty, the dealer-error
// injection, and the broker round-trip check.
type Run struct {
	ptyPath string
	ptmx    *os.File
	tty     *os.File
	shoe    *sim.Shoe
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	out     io.Writer
	screen  *Screen // the terminal display's writer, when there is one
	ctx     context.Context
	// The demo's supervisor acknowledges an alert that waits for it after
	// ackAfter more cards have been drawn (0: no supervisor). ackIn counts
	// down the cards (main loop only; 0: none pending); ackDue: the
	// countdown is over and the main loop submits the acknowledgement next.
	ackAfter int
	ackIn    int
	ackDue   bool

	mu        sync.Mutex
	published map[string]string // id → kind of every coup/alert/void the table output
	received  map[string]bool   // ids that came back from the broker
	coups     int               // coups with a result (coup lines)
	dead      int               // coups a dealer error ended without a result (missing-card)
	sub       paho.Client
	final     string // the summary held for after the display (FinalLine)
}

// FinalLine is the --demo-coups summary still to be printed once the
// terminal display is released ("" when there is none, or it was printed
// already, as it is without a screen).
func (r *Run) FinalLine() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.final
}

// PtyPath is the virtual shoe's serial device (the pty's slave).
func (r *Run) PtyPath() string { return r.ptyPath }

// Tokens deals the demo's shoes (seeded) and, with errs, injects dealer
// errors: a surplus card before the coup button (extra-card), the
// supervisor voiding a coup (void), a coup closed before its third card
// (missing-card). With coups > 0 the transcript stops after that many coups.
func Tokens(seed uint64, coups int, errs bool) ([]tableau.Token, error) {
	shoes := 1
	if coups > 0 {
		shoes = coups/60 + 1
	} else {
		shoes = 50 // a long session
	}
	toks, err := sim.DealShoes(seed, 8, shoes)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0xE220))
	var out []tableau.Token
	var coup []tableau.Token // the current coup's tokens up to its "|"
	inBurn := false
	n := 0
	for _, tok := range toks {
		switch tok.Kind {
		case tableau.TokShoe:
			inBurn = true
			out = append(out, tok)
			continue
		case tableau.TokMarker:
			if inBurn {
				inBurn = false
				out = append(out, tok)
				continue
			}
			n++
			if errs && n%7 == 3 {
				// A surplus card from nowhere before the coup button.
				coup = append(coup, tableau.Token{Kind: tableau.TokCard,
					Card: tableau.Card{Rank: tableau.Rank(1 + rng.IntN(13)), Suit: tableau.Suit(1 + rng.IntN(4))}})
			}
			if errs && n%11 == 6 {
				coup = append(coup, tableau.Token{Kind: tableau.TokVoid})
			}
			if errs && n%13 == 9 {
				// The dealer closes the coup without its third card(s).
				cards := 0
				for _, t := range coup {
					if t.Kind == tableau.TokCard {
						cards++
					}
				}
				if cards > 4 {
					kept := coup[:0]
					seen := 0
					for _, t := range coup {
						if t.Kind == tableau.TokCard {
							seen++
							if seen > 4 {
								continue
							}
						}
						kept = append(kept, t)
					}
					coup = kept
				}
			}
			out = append(out, coup...)
			out = append(out, tok)
			coup = coup[:0]
			if coups > 0 && n >= coups {
				return out, nil
			}
			continue
		}
		if inBurn {
			out = append(out, tok)
		} else {
			coup = append(coup, tok)
		}
	}
	return append(out, coup...), nil
}

// Setup is what Start needs from the daemon.
type Setup struct {
	Options Options
	// Out takes the demo's lines when Screen is nil, and its final report.
	Out    io.Writer
	Screen *Screen
	// AckKey: the board has an acknowledge key, so the demo's supervisor
	// acknowledges alerts.
	AckKey bool
	// Broker is the embedded broker the round-trip check subscribes to.
	Broker Broker
	Log    *slog.Logger
	// Stop stops the daemon: with nil when a --demo-coups run checked
	// every message, else with why.
	Stop func(error)
}

// Broker is where the demo checks that the table's messages came back:
// the embedded broker's URL, credentials and the table's topic prefix
// (<prefix>/<table>).
type Broker struct {
	URL, User, Password, Prefix string
}

// Start deals the demo on a virtual shoe behind a pseudo-terminal (the
// daemon then opens Run.PtyPath with the real serial driver) and
// subscribes to the broker for the round-trip check. Errors are prefixed
// "demo:".
func Start(ctx context.Context, st Setup) (*Run, error) {
	opt := st.Options
	seed := uint64(opt.Seed)
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	toks, err := Tokens(seed, opt.Coups, opt.Errors)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("demo: pseudo-terminal: %w", err)
	}
	// Raw mode on both ends: the shoe protocol is binary.
	for _, f := range []*os.File{ptmx, tty} {
		if t, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err == nil {
			t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
			t.Oflag &^= unix.OPOST
			t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
			t.Cflag &^= unix.CSIZE | unix.PARENB
			t.Cflag |= unix.CS8
			unix.IoctlSetTermios(int(f.Fd()), unix.TCSETS, t)
		}
	}
	rate := watchableRate
	if opt.Rate == "fast" {
		rate = fastRate
	}
	var faults sim.Faults
	if opt.Errors {
		faults.Unreadable = 0.003
	}
	s, err := sim.New(sim.Options{Tokens: toks, Seed: seed, Rate: rate, Faults: faults, UID: true})
	if err != nil {
		ptmx.Close()
		tty.Close()
		return nil, fmt.Errorf("demo: virtual shoe: %w", err)
	}
	dctx, cancel := context.WithCancel(ctx)
	r := &Run{ptyPath: tty.Name(), ptmx: ptmx, tty: tty, shoe: s, cancel: cancel, out: st.Out,
		screen: st.Screen, published: map[string]string{}, received: map[string]bool{}, ctx: dctx}
	if st.AckKey {
		// Counted in cards, not seconds, so that a seed gives the same run
		// at any pace: about 4 s at the watchable pace.
		r.ackAfter = ackCards
		if opt.Rate == "fast" {
			r.ackAfter = ackCardsFast
		}
	}
	if err := r.subscribe(st.Broker); err != nil {
		cancel()
		ptmx.Close()
		tty.Close()
		return nil, err
	}
	st.Log.Info("demo: virtual shoe on a pseudo-terminal", "device", tty.Name(), "seed", seed, "tokens", len(toks),
		"rate", opt.Rate, "dealer_errors", opt.Errors)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		err := s.Run(dctx, sim.Stream(ptmx))
		if dctx.Err() != nil {
			if opt.Coups > 0 {
				// A smoke test stopped by a timeout must not pass.
				st.Stop(r.interrupted(opt.Coups))
			}
			return
		}
		if err != nil {
			st.Stop(fmt.Errorf("demo: virtual shoe: %w", err))
			return
		}
		if opt.Coups > 0 {
			st.Stop(r.verify(dctx))
			return
		}
		st.Log.Info("demo: the virtual shoe has dealt everything")
	}()
	return r, nil
}

// How many cards after an alert that waits for acknowledgement the demo's
// supervisor acknowledges it (at the watchable pace, 2 cards a second).
const (
	ackCards     = 8
	ackCardsFast = 3
)

// Operator is the operator of the demo supervisor's acknowledgements.
const Operator = "demo-supervisor"

// Watch is called by the main loop for every card, coup, alert, void and
// ack. The demo's supervisor acknowledges an alert that waits for it
// ackAfter cards later, so the display returns to the totals; counting
// cards rather than time makes a seed give the same run however fast the
// machine is.
func (r *Run) Watch(o *tableau.Output) {
	switch {
	case o.Kind == tableau.OutputAlert && o.Alert.AwaitsAck && r.ackAfter > 0:
		if r.ackIn == 0 && !r.ackDue {
			r.ackIn = r.ackAfter
		}
	case o.Kind == tableau.OutputCard:
		if r.ackIn > 0 {
			if r.ackIn--; r.ackIn == 0 {
				r.ackDue = true
			}
		}
		return
	}
	r.mu.Lock()
	if o.Kind != tableau.OutputAck {
		r.published[o.ID] = o.Kind.String()
	}
	if o.Kind == tableau.OutputCoup {
		r.coups++
	}
	if o.Kind == tableau.OutputAlert && o.Event.Alert.Code == baccarat.AlertMissingCard {
		r.dead++
	}
	r.mu.Unlock()
	if r.screen != nil {
		r.screen.Line(coupLine(o))
	} else {
		fmt.Fprintln(r.out, coupLine(o))
	}
}

// SupervisorAck returns the demo supervisor's acknowledgement when it is
// due (main loop only).
func (r *Run) SupervisorAck() (tableau.Input, bool) {
	if !r.ackDue {
		return tableau.Input{}, false
	}
	r.ackDue = false
	return tableau.Input{Kind: tableau.InputAck, Source: "demo", Operator: Operator}, true
}

// coupLine is the demo's one line per coup, alert and void.
func coupLine(o *tableau.Output) string {
	switch o.Kind {
	case tableau.OutputCoup:
		c := o.Event.Coup
		var b strings.Builder
		fmt.Fprintf(&b, "shoe %d coup %3d  %-6s  player %d [%s]  banker %d [%s]", c.Shoe, c.Coup, c.Winner,
			c.PlayerTotal, c.Player.String(), c.BankerTotal, c.Banker.String())
		if c.Natural {
			b.WriteString("  natural")
		}
		if c.PlayerPair {
			b.WriteString("  player pair")
		}
		if c.BankerPair {
			b.WriteString("  banker pair")
		}
		return b.String()
	case tableau.OutputAlert:
		a := o.Event.Alert
		return fmt.Sprintf("shoe %d coup %3d  ALERT %s: %s", a.Shoe, a.Coup, a.Code, o.Alert.Text)
	case tableau.OutputVoid:
		return fmt.Sprintf("shoe %d coup %3d  VOID (supervisor)", o.Event.Void.Shoe, o.Event.Void.Coup)
	case tableau.OutputAck:
		return fmt.Sprintf("shoe %d coup %3d  %s acknowledged by the supervisor (%s)", o.Shoe, o.Coup, o.Ack.Code, o.Ack.Operator)
	}
	return ""
}

// subscribe listens on the embedded broker for the table's coups, alerts
// and voids, to check that each came back.
func (r *Run) subscribe(b Broker) error {
	prefix := b.Prefix
	o := paho.NewClientOptions().AddBroker(b.URL).SetClientID("sabotd-demo-check").
		SetUsername(b.User).SetPassword(b.Password).SetCleanSession(true).SetAutoReconnect(true)
	o.SetOnConnectHandler(func(c paho.Client) {
		for _, topic := range []string{"coup", "alert", "void"} {
			c.Subscribe(prefix+"/"+topic, 1, func(_ paho.Client, m paho.Message) {
				id := JSONID(m.Payload())
				r.mu.Lock()
				r.received[id] = true
				r.mu.Unlock()
			})
		}
	})
	c := paho.NewClient(o)
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		return fmt.Errorf("demo: subscribe to the embedded broker: %v", tok.Error())
	}
	r.sub = c
	return nil
}

// JSONID extracts the "id" of a payload without decoding the rest.
func JSONID(p []byte) string {
	const key = `"id":"`
	i := bytes.Index(p, []byte(key))
	if i < 0 {
		return ""
	}
	p = p[i+len(key):]
	j := bytes.IndexByte(p, '"')
	if j < 0 {
		return ""
	}
	return string(p[:j])
}

// verify waits (up to 10 s) until every coup, alert and void the table
// produced has come back from the broker, and reports what is missing. It
// runs once the virtual shoe has dealt everything and the daemon has
// acknowledged (journaled and applied) every event.
func (r *Run) verify(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		r.mu.Lock()
		var missing []string
		for id := range r.published {
			if !r.received[id] {
				missing = append(missing, id)
			}
		}
		coups, total := r.dealt(), len(r.published)
		r.mu.Unlock()
		if len(missing) == 0 {
			summary := fmt.Sprintf("demo: %s; %d coups, alerts and voids in all published and received back from the broker", coups, total)
			if r.screen != nil {
				// The terminal display redraws the screen (and clears below
				// it) while the daemon stops: the daemon prints the line
				// once the display is released (FinalLine).
				r.mu.Lock()
				r.final = summary
				r.mu.Unlock()
			} else {
				fmt.Fprintln(r.out, summary)
			}
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			if len(missing) > 5 {
				missing = append(missing[:5], "...")
			}
			return fmt.Errorf("demo: %d of %d coups, alerts and voids never came back from the broker: %s",
				len(missing), total, strings.Join(missing, ", "))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dealt says how many coups were dealt, and how many a dealer error
// ended without a result (their missing-card alert is published; they
// have no coup line). Call with mu held.
func (r *Run) dealt() string {
	if r.dead == 0 {
		return fmt.Sprintf("%d coups dealt", r.coups)
	}
	return fmt.Sprintf("%d coups dealt: %d with a result, %d ended by a missing card without one", r.coups+r.dead, r.coups, r.dead)
}

// interrupted is the error of a --demo-coups run stopped (SIGINT, SIGTERM)
// before it was done: what was dealt so far and what came back; the run
// did not check what it was asked to, so sabotd exits 1.
func (r *Run) interrupted(want int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	back := 0
	for id := range r.published {
		if r.received[id] {
			back++
		}
	}
	return fmt.Errorf("demo: interrupted after %s of the %d asked for; %d of %d coups, alerts and voids published came back from the broker",
		r.dealt(), want, back, len(r.published))
}

// Stop stops the virtual shoe and the round-trip check and closes the
// pty.
func (r *Run) Stop() {
	r.cancel()
	r.wg.Wait()
	if r.sub != nil {
		r.sub.Disconnect(100)
	}
	r.ptmx.Close()
	r.tty.Close()
}

// Logger is the demo's logger: warnings and errors only, so the
// terminal shows the display and one line per coup and alert.
func Logger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// Screen puts the demo's lines under the terminal display: the display
// redraws the whole screen from the top (and clears below it), so every
// redraw is followed by the most recent lines, and a new line redraws the
// last screen with it.
type Screen struct {
	mu     sync.Mutex
	w      io.Writer
	screen []byte
	head   []string // pinned under the display: the board's and broker's addresses
	lines  []string
	// cols, rows: the terminal's size (0: unknown); lines are cut to cols
	// (79 when unknown) and the tail gets the rows the screen leaves.
	cols, rows int
}

// tailLines is how many coup lines the screen keeps under the display.
const tailLines = 8

// NewScreen returns a screen writing to w (the terminal).
func NewScreen(w io.Writer) *Screen { return &Screen{w: w} }

// Write takes the display's whole screen and redraws it with the demo's
// lines under it.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.screen = append(s.screen[:0], p...)
	return len(p), s.flush()
}

// Reserve records the terminal's rows and returns how many the demo keeps
// under the display: its pinned lines and the last line's newline. The
// coup lines get the rows the display leaves (none on an 80×24 terminal
// with the roads shown: the roads and the last-coup line tell the same).
func (s *Screen) Reserve(cols, rows int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cols, s.rows = cols, rows
	return len(s.head) + 1
}

// Pin shows ls under the display for the rest of the demo.
func (s *Screen) Pin(ls ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.head = append(s.head, ls...)
	s.flush()
}

// Line adds one coup, alert or void line (at most tailLines kept).
func (s *Screen) Line(l string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, l)
	if len(s.lines) > tailLines {
		s.lines = s.lines[len(s.lines)-tailLines:]
	}
	s.flush()
}

// flush writes the screen and the lines under it (mu held).
func (s *Screen) flush() error {
	var b bytes.Buffer
	b.Write(s.screen)
	tail := s.lines
	if s.rows > 0 {
		// Fill the terminal, never scroll it: the screen redraws from the top.
		room := max(0, s.rows-bytes.Count(s.screen, []byte("\n"))-len(s.head)-1)
		tail = tail[max(0, len(tail)-room):]
	}
	for _, l := range append(s.head[:len(s.head):len(s.head)], tail...) {
		width := 79
		if s.cols > 0 {
			width = s.cols
		}
		if len(l) > width {
			l = l[:width]
		}
		b.WriteString(l)
		b.WriteString("\x1b[K\r\n")
	}
	_, err := s.w.Write(b.Bytes())
	return err
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
