package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"go.bug.st/serial"

	"github.com/sabot-table/sabot/drivers/serialport"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
)

func init() {
	register(&command{
		name:    "shoe-sim",
		summary: "emulate a card-reading shoe (Sabot protocol) on a pseudo-terminal or serial port",
		run:     runShoeSim,
	})
}

const shoeSimUsage = `usage: sabot shoe-sim (--link PATH | --port DEVICE) [--transcript FILE | --seed N --decks 8 --shoes 1]
                      [--rate CARDS_PER_S] [--faults corrupt=0.01,drop=0.005,...] [flags]

Plays the shoe's side of the Sabot shoe protocol (firmware-proto/PROTOCOL.md).
With --link it creates a pseudo-terminal in raw mode, makes PATH a symbolic
link to its device and prints the device path on standard output (again after
every simulated cable pull, which replaces the pseudo-terminal: hosts must
reopen PATH). PATH must not exist or be a symbolic link (which is replaced);
anything else there is refused. On exit only the link it made is removed.
With --port it drives a real serial port instead.

It deals the transcript FILE (the sabot check format: cards, "|" the coup
button, "cut" the cut card, "void" the supervisor key, "shoe" a new shoe,
"dealer ID" / "dealer -" a dealer's badge signing in / out: DEALER) or
a freshly shuffled, seeded shoe dealt by the tableau, and exits 0 once every
event has been acknowledged by the host. Interrupted, it exits 1.

--faults takes comma-separated name=rate pairs (rates 0..1): corrupt (per
byte), drop, dup, split (per frame), pull, reboot, unreadable (per card).

Exit status: 0 every event acknowledged, 1 interrupted or the link failed,
2 bad flags, an unreadable transcript or something other than a symbolic
link at --link PATH.

Flags:
`

type shoeSimConfig struct {
	link, port string
	baud       int
	transcript string
	dealOut    string
	opts       sim.Options
	verbose    bool
	dealer     string // --dealer: a badge signing this dealer in before the first token
}

func parseShoeSimFlags(args []string, stderr io.Writer) (shoeSimConfig, error) {
	var cfg shoeSimConfig
	fs := flag.NewFlagSet("shoe-sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, shoeSimUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.link, "link", "", "create a pseudo-terminal and make `PATH` a symbolic link to it")
	fs.StringVar(&cfg.port, "port", "", "drive the serial port `DEVICE` instead of a pseudo-terminal")
	fs.IntVar(&cfg.baud, "baud", 115200, "baud rate for --port (9600–921600)")
	fs.StringVar(&cfg.transcript, "transcript", "", "deal the transcript `FILE` (sabot check format) instead of a shuffled shoe")
	fs.StringVar(&cfg.dealOut, "write-transcript", "", "write the transcript being dealt to `FILE` (for sabot check)")
	seed := fs.Uint64("seed", 1, "seed of the shuffle, read qualities, UIDs and faults")
	bootID := fs.Uint64("boot-id", 0, "first boot id, 1–4294967295 (default: a random one on every run, as real firmware)")
	fs.IntVar(&cfg.opts.Decks, "decks", 8, "decks per shuffled shoe, 1–8")
	fs.IntVar(&cfg.opts.Shoes, "shoes", 1, "shuffled shoes to deal")
	fs.Float64Var(&cfg.opts.Rate, "rate", 0, "pace in `CARDS_PER_S`; 0 deals as fast as the host acknowledges")
	faults := fs.String("faults", "", "faults to inject, `name=rate,...`: corrupt, drop, dup, split, pull, reboot, unreadable")
	fs.BoolVar(&cfg.opts.UID, "uid", false, "send a 7-byte RFID UID with each card")
	fs.BoolVar(&cfg.opts.BurnButton, "burn-button", false, "turn the burn-mode switch on for the burn of each shoe and off after it")
	fs.StringVar(&cfg.dealer, "dealer", "", "sign dealer `ID` in with a badge (DEALER) before dealing")
	fs.DurationVar(&cfg.opts.PullTime, "pull-time", 500*time.Millisecond, "how long a simulated cable pull lasts")
	fs.BoolVar(&cfg.verbose, "v", false, "log protocol activity to standard error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, fmt.Errorf("%w: %w", errFlagsReported, err)
	}
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments: %q", fs.Args()))
	}
	if (cfg.link == "") == (cfg.port == "") {
		errs = append(errs, errors.New("give exactly one of --link PATH or --port DEVICE"))
	}
	if cfg.baud < 9600 || cfg.baud > 921600 {
		errs = append(errs, fmt.Errorf("--baud %d: want 9600–921600", cfg.baud))
	}
	if cfg.opts.Decks < 1 || cfg.opts.Decks > tableau.MaxDecks {
		errs = append(errs, fmt.Errorf("--decks %d: want 1–%d", cfg.opts.Decks, tableau.MaxDecks))
	}
	if cfg.opts.Shoes < 1 {
		errs = append(errs, fmt.Errorf("--shoes %d: want at least 1", cfg.opts.Shoes))
	}
	if cfg.opts.Rate < 0 || cfg.opts.Rate != cfg.opts.Rate {
		errs = append(errs, fmt.Errorf("--rate %v: want 0 (as fast as possible) or a positive number of cards per second", cfg.opts.Rate))
	}
	f, err := sim.ParseFaults(*faults)
	if err != nil {
		errs = append(errs, fmt.Errorf("--faults: %w", err))
	}
	cfg.opts.Faults = f
	cfg.opts.Seed = *seed
	if *bootID > 1<<32-1 {
		errs = append(errs, fmt.Errorf("--boot-id %d: want 1–4294967295 (or 0, the default: random)", *bootID))
	}
	cfg.opts.BootID = uint32(*bootID)
	if cfg.dealer != "" {
		if err := tableau.ValidateDealerID(cfg.dealer); err != nil {
			errs = append(errs, fmt.Errorf("--dealer %q: %s", cfg.dealer, strings.TrimPrefix(err.Error(), tableau.ErrDealerID.Error()+": ")))
		}
	}
	return cfg, errors.Join(errs...)
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

func runShoeSim(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseShoeSimFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		if !errors.Is(err, errFlagsReported) {
			fmt.Fprintf(stderr, "sabot shoe-sim: %v\n", err)
		}
		return 2
	}
	if cfg.link != "" {
		// Only a symbolic link (or nothing) may be at --link: the shoe
		// replaces it and removes its own link on exit.
		if err := sim.CheckLinkPath(cfg.link); err != nil {
			fmt.Fprintf(stderr, "sabot shoe-sim: --link: %v\n", err)
			return 2
		}
	}
	if cfg.transcript != "" {
		f, err := os.Open(cfg.transcript)
		if err != nil {
			fmt.Fprintf(stderr, "sabot shoe-sim: %v\n", err)
			return 2
		}
		toks, err := tableau.ParseTranscript(f, cfg.transcript)
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
			fmt.Fprintf(stderr, "sabot shoe-sim: %s: no token to deal (an empty transcript, or comments only)\n", cfg.transcript)
			return 2
		}
		cfg.opts.Tokens = toks
	}
	if cfg.dealer != "" {
		toks := cfg.opts.Tokens
		if toks == nil {
			var err error
			if toks, err = sim.DealShoes(cfg.opts.Seed, cfg.opts.Decks, cfg.opts.Shoes); err != nil {
				fmt.Fprintf(stderr, "sabot shoe-sim: %v\n", err)
				return 2
			}
		}
		cfg.opts.Tokens = append([]tableau.Token{{Kind: tableau.TokDealer, Dealer: cfg.dealer}}, toks...)
	}
	level := slog.LevelWarn
	if cfg.verbose {
		level = slog.LevelDebug
	}
	cfg.opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	shoe, err := sim.New(cfg.opts)
	if err != nil {
		fmt.Fprintf(stderr, "sabot shoe-sim: %v\n", err)
		return 2
	}
	if cfg.dealOut != "" {
		if err := writeTranscript(cfg.dealOut, shoe.Tokens()); err != nil {
			fmt.Fprintf(stderr, "sabot shoe-sim: %v\n", err)
			return 2
		}
	}
	var link sim.Link
	var mu sync.Mutex // stdout is written from the shoe's goroutine
	if cfg.link != "" {
		p := sim.NewPTY(cfg.link)
		p.OnOpen = func(dev string) {
			mu.Lock()
			fmt.Fprintln(stdout, dev)
			mu.Unlock()
		}
		defer p.Remove()
		link = p
	} else {
		link = serialLink{dev: cfg.port, baud: cfg.baud}
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
