// Package shoesim is sabot shoe-sim: it plays the shoe's side of the Sabot
// shoe protocol (firmware-proto/PROTOCOL.md, package firmware-proto/sim) on
// a pseudo-terminal behind a symbolic link or on a real serial port,
// dealing a transcript or freshly shuffled, seeded shoes.
package shoesim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"go.bug.st/serial"

	"github.com/sabot-table/sabot/drivers/serialport"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
)

// Config is a parsed sabot shoe-sim command line.
type Config struct {
	Link string // --link PATH: a pseudo-terminal behind this symbolic link
	Port string // --port DEVICE: a serial port instead (one of Link, Port)
	Baud int    // the baud rate on Port
	// Transcript is the transcript file to deal ("": Opts' shuffled
	// shoes); DealOut, if not "", is where to write what is dealt.
	Transcript string
	DealOut    string
	// Opts are the simulated shoe's options; Run sets Tokens (from
	// Transcript and Dealer) and Logger.
	Opts    sim.Options
	Verbose bool   // log protocol activity to stderr
	Dealer  string // a badge signing this dealer in before the first token
}

// serialLink is a sim.Link on a real serial port: a cable pull closes the
// port and opens it again.
type serialLink struct {
	dev  string
	baud int
}

func (l serialLink) Open(context.Context) (io.ReadWriteCloser, error) {
	p, err := serialport.Open(l.dev, &serial.Mode{BaudRate: l.baud, DataBits: 8, Parity: serial.NoParity, StopBits: serial.OneStopBit})
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", l.dev, err)
	}
	return p, nil
}

// Run deals as cfg says until every event is acknowledged by the host or
// ctx is done. It prints each pseudo-terminal's device path on stdout and
// its logs and summary on stderr, and returns the exit status: 0 every
// event acknowledged, 1 interrupted or the link failed, 2 an unreadable
// transcript or something other than a symbolic link at cfg.Link.
func Run(ctx context.Context, cfg Config, stdout, stderr io.Writer) int {
	if cfg.Link != "" {
		// Only a symbolic link (or nothing) may be at --link: the shoe
		// replaces it and removes its own link on exit.
		if err := sim.CheckLinkPath(cfg.Link); err != nil {
			fmt.Fprintf(stderr, "sabot shoe-sim: --link: %v\n", err)
			return 2
		}
	}
	if cfg.Transcript != "" {
		f, err := os.Open(cfg.Transcript)
		if err != nil {
			fmt.Fprintf(stderr, "sabot shoe-sim: %v\n", err)
			return 2
		}
		toks, err := tableau.ParseTranscript(f, cfg.Transcript)
		f.Close()
		if err != nil {
			var pe *tableau.ParseError
			if errors.As(err, &pe) {
				fmt.Fprintf(stderr, "sabot shoe-sim: %s\n", pe.Located())
			} else {
				fmt.Fprintf(stderr, "sabot shoe-sim: %v\n", err)
			}
			return 2
		}
		if len(toks) == 0 {
			fmt.Fprintf(stderr, "sabot shoe-sim: %s: no token to deal (an empty transcript, or comments only)\n", cfg.Transcript)
			return 2
		}
		cfg.Opts.Tokens = toks
	}
	if cfg.Dealer != "" {
		toks := cfg.Opts.Tokens
		if toks == nil {
			var err error
			if toks, err = sim.DealShoes(cfg.Opts.Seed, cfg.Opts.Decks, cfg.Opts.Shoes); err != nil {
				fmt.Fprintf(stderr, "sabot shoe-sim: %v\n", err)
				return 2
			}
		}
		cfg.Opts.Tokens = append([]tableau.Token{{Kind: tableau.TokDealer, Dealer: cfg.Dealer}}, toks...)
	}
	level := slog.LevelWarn
	if cfg.Verbose {
		level = slog.LevelDebug
	}
	cfg.Opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	shoe, err := sim.New(cfg.Opts)
	if err != nil {
		fmt.Fprintf(stderr, "sabot shoe-sim: %v\n", err)
		return 2
	}
	if cfg.DealOut != "" {
		if err := writeTranscript(cfg.DealOut, shoe.Tokens()); err != nil {
			fmt.Fprintf(stderr, "sabot shoe-sim: %v\n", err)
			return 2
		}
	}
	var link sim.Link
	var mu sync.Mutex // stdout is written from the shoe's goroutine
	if cfg.Link != "" {
		p := sim.NewPTY(cfg.Link)
		p.OnOpen = func(dev string) {
			mu.Lock()
			fmt.Fprintln(stdout, dev)
			mu.Unlock()
		}
		defer p.Remove()
		link = p
	} else {
		link = serialLink{dev: cfg.Port, baud: cfg.Baud}
	}
	err = shoe.Run(ctx, link)
	st := shoe.Stats()
	switch {
	case err == nil:
		fmt.Fprintf(stderr, "sabot shoe-sim: done: %d events acknowledged (%d cards, %d retransmissions)\n", st.Events, st.Cards, st.Retransmits)
		return 0
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "sabot shoe-sim: interrupted: %d of %d tokens dealt, %d events unacknowledged\n", st.TokensDealt, st.TokensTotal, st.Pending)
	default:
		fmt.Fprintf(stderr, "sabot shoe-sim: %v\n", err)
	}
	return 1
}

// writeTranscript writes toks to path in the transcript syntax.
func writeTranscript(path string, toks []tableau.Token) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := tableau.FormatTranscript(f, toks); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
