package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sabot-table/sabot/cmd/internal/shoesim"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
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

// parseShoeSimFlags parses the arguments of `sabot shoe-sim`. It returns
// flag.ErrHelp for -h and errFlagsPrinted for a flag the flag package
// has printed.
func parseShoeSimFlags(args []string, stderr io.Writer) (shoesim.Config, error) {
	var cfg shoesim.Config
	fs := newFlagSet("shoe-sim", shoeSimUsage, stderr)
	fs.StringVar(&cfg.Link, "link", "", "create a pseudo-terminal and make `PATH` a symbolic link to it")
	fs.StringVar(&cfg.Port, "port", "", "drive the serial port `DEVICE` instead of a pseudo-terminal")
	fs.IntVar(&cfg.Baud, "baud", 115200, "baud rate for --port (9600–921600)")
	fs.StringVar(&cfg.Transcript, "transcript", "", "deal the transcript `FILE` (sabot check format) instead of a shuffled shoe")
	fs.StringVar(&cfg.DealOut, "write-transcript", "", "write the transcript being dealt to `FILE` (for sabot check)")
	seed := fs.Uint64("seed", 1, "seed of the shuffle, read qualities, UIDs and faults")
	bootID := fs.Uint64("boot-id", 0, "first boot id, 1–4294967295 (default: a random one on every run, as real firmware)")
	fs.IntVar(&cfg.Opts.Decks, "decks", 8, "decks per shuffled shoe, 1–8")
	fs.IntVar(&cfg.Opts.Shoes, "shoes", 1, "shuffled shoes to deal")
	fs.Float64Var(&cfg.Opts.Rate, "rate", 0, "pace in `CARDS_PER_S`; 0 deals as fast as the host acknowledges")
	faults := fs.String("faults", "", "faults to inject, `name=rate,...`: corrupt, drop, dup, split, pull, reboot, unreadable")
	fs.BoolVar(&cfg.Opts.UID, "uid", false, "send a 7-byte RFID UID with each card")
	fs.BoolVar(&cfg.Opts.BurnButton, "burn-button", false, "turn the burn-mode switch on for the burn of each shoe and off after it")
	fs.StringVar(&cfg.Dealer, "dealer", "", "sign dealer `ID` in with a badge (DEALER) before dealing")
	fs.DurationVar(&cfg.Opts.PullTime, "pull-time", 500*time.Millisecond, "how long a simulated cable pull lasts")
	fs.BoolVar(&cfg.Verbose, "v", false, "log protocol activity to standard error")
	if err := parseFlags(fs, args); err != nil {
		return cfg, err
	}
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments: %q", fs.Args()))
	}
	if (cfg.Link == "") == (cfg.Port == "") {
		errs = append(errs, errors.New("give exactly one of --link PATH or --port DEVICE"))
	}
	if cfg.Baud < 9600 || cfg.Baud > 921600 {
		errs = append(errs, fmt.Errorf("--baud %d: want 9600–921600", cfg.Baud))
	}
	if cfg.Opts.Decks < 1 || cfg.Opts.Decks > baccarat.MaxDecks {
		errs = append(errs, fmt.Errorf("--decks %d: want 1–%d", cfg.Opts.Decks, baccarat.MaxDecks))
	}
	if cfg.Opts.Shoes < 1 {
		errs = append(errs, fmt.Errorf("--shoes %d: want at least 1", cfg.Opts.Shoes))
	}
	if cfg.Opts.Rate < 0 || cfg.Opts.Rate != cfg.Opts.Rate {
		errs = append(errs, fmt.Errorf("--rate %v: want 0 (as fast as possible) or a positive number of cards per second", cfg.Opts.Rate))
	}
	f, err := sim.ParseFaults(*faults)
	if err != nil {
		errs = append(errs, fmt.Errorf("--faults: %w", err))
	}
	cfg.Opts.Faults = f
	cfg.Opts.Seed = *seed
	if *bootID > 1<<32-1 {
		errs = append(errs, fmt.Errorf("--boot-id %d: want 1–4294967295 (or 0, the default: random)", *bootID))
	}
	cfg.Opts.BootID = uint32(*bootID)
	if cfg.Dealer != "" {
		if err := tableau.ValidateDealerID(cfg.Dealer); err != nil {
			errs = append(errs, fmt.Errorf("--dealer %q: %s", cfg.Dealer, strings.TrimPrefix(err.Error(), tableau.ErrDealerID.Error()+": ")))
		}
	}
	return cfg, errors.Join(errs...)
}

// runShoeSim is `sabot shoe-sim`: its flags, then shoesim.Run.
func runShoeSim(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseShoeSimFlags(args, stderr)
	if code, exit := flagsExit(err, stderr, "sabot shoe-sim: "); exit {
		return code
	}
	return shoesim.Run(ctx, cfg, stdout, stderr)
}
