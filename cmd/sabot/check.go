package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sabot-table/sabot/cmd/internal/audit"
	"github.com/sabot-table/sabot/cmd/internal/houseflags"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

func init() {
	register(&command{
		name:    "check",
		summary: "audit a shoe transcript against the tableau; prints coups, alerts and voids as JSON lines",
		run:     parsed("sabot check: ", parseCheckFlags, audit.Run),
	})
}

const checkUsage = `usage: sabot check [--game GAME] [--decks N] [--rules punto-banco|super6|ez]
                   [--punter-five option|draw|stand] [--banker-table scarne|free]
                   [--tie-pays 8|9] [--commission RATE] [--pair-pays N]
                   [--pair-suited-pays N]
                   [--game macao|victoria [--seats N] [--count modulo|bust] ...]
                   [--cut-rule last-coup|one-more] [--markers auto|on|off]
                   [--advantage THRESHOLD] [--side-bets LIST] [--pays-... TABLE] [FILE|-]

Reads a shoe transcript (FILE, or standard input if FILE is "-" or absent),
checks every coup against the game's tableau, and prints one JSON object per
line: coups, alerts and voids, in the order they happen.

--game is punto-banco (the default; also mini and midi baccarat), super6, ez,
chemin-de-fer (6 decks by default; --punter-five, --banker-table) or banque
(baccarat banque, 3 decks by default). --rules is the older spelling of the
first three. Every coup line has "game"; chemin de fer and banque lines have
"options", the choices made at option points. The token "stand" (or "non")
is the hand whose turn it is declining a card: accepted at a forced stand,
recorded at an option, missing-card at a forced draw. A card at a decision
point is always a draw; with markers, "|" at an option stands.

With --advantage THRESHOLD (a fraction of the stake, 0 ≤ THRESHOLD < 1: 0 for
any positive expectation, 0.01 for more than +1%; "off" or no flag: off — the
meaning of sabotd's [alerts] advantage_threshold), when the first card of each
coup is drawn the exact odds of the rest of the shoe (the decks less every
card drawn so far, burn and surplus cards included) are computed, and an alert
{"type":"alert","code":"advantage","shoe":1,"coup":73,"bet":"dragon7","ev":0.0521}
is printed ahead of the coup for every offered bet whose expectation for the
player exceeds THRESHOLD (see sabot odds for bet names).

With --side-bets LIST (perfect-pair, either-pair, big, small, dragon-player,
dragon-banker, lucky6, dragon, all), each coup's settlement also settles those
side bets under the --pays-* tables (keys perfect_pair, either_pair, big,
small, dragon_player, dragon_banker, lucky6; perfect_pair is left out when a
rank-only read leaves its suit unknown), and --advantage covers them too.

The house rules --commission (a banker win pays 1 − RATE: "5%", the default
under punto banco, "4%", "2.5%" or 0), --tie-pays, --pair-pays,
--pair-suited-pays (a suited pair, same rank and suit, pays N; a pair with
a rank-only card is then left unsettled), --side-bets and --pays-* are
sabotd's [rules] keys, and sabot odds takes the same flags.

A transcript without any card exits 1 ("FILE: no cards"). A "void" that voids
nothing (its coup already closed by "|", or no coup yet) is reported on
standard error as "FILE:LINE:COL: warning: void ignored: ..." and changes
neither the output nor the exit status.

Exit status: 0 no alert, 1 at least one alert, 2 the input cannot be read or
parsed (nothing is printed on standard output then) or bad flags.

Flags:
`

// parseCheckFlags parses the arguments of `sabot check`. It returns
// flag.ErrHelp for -h and errFlagsPrinted for a flag the flag package has
// printed.
func parseCheckFlags(args []string, stderr io.Writer) (audit.Config, error) {
	var cfg audit.Config
	fs := newFlagSet("check", checkUsage, stderr)
	// anyGame are the flags that apply to every game's shoe: a Macao or
	// Victoria transcript takes these and its own parameters only
	// (houseflags.MacaoFlagsApply).
	var anyGame houseflags.Names
	decks := fs.Int(anyGame.Add("decks"), 0, "decks in the shoe, 1–8 (default: the game's, 8; chemin-de-fer 6, banque 3, macao and victoria 2)")
	rules := fs.String("rules", "punto-banco", "rule profile for settlement: punto-banco, super6 or ez (see --game)")
	game := fs.String(anyGame.Add("game"), "", "the `GAME`: "+strings.Join(baccarat.GameNames(), ", ")+" (default punto-banco)")
	params := houseflags.AddGameParams(fs)
	cut := fs.String(anyGame.Add("cut-rule"), "last-coup", "end-of-shoe rule once the cut card is out: last-coup or one-more")
	overrun := fs.Int("overrun-cards", tableau.DefaultOverrunCards, "cards beyond 52 × decks one shoe may give before shoe-overrun (sabotd's [shoe] overrun_cards)")
	house := houseflags.Add(fs)
	fs.StringVar(&cfg.Markers, anyGame.Add("markers"), "auto", "coup markers \"|\": on, off, or auto (on if the transcript has any)")
	fs.Func("advantage", "alert before each coup on every bet whose expectation for the player exceeds `THRESHOLD`, a fraction of the stake 0 ≤ T < 1 (0: any positive expectation, 0.01: more than +1%), or off", func(s string) error {
		a, err := odds.ParseAdvantageThreshold(s)
		if err != nil {
			// The flag package names the flag and the value.
			return errors.New(strings.TrimPrefix(err.Error(), odds.ErrAdvantageThreshold.Error()+": "))
		}
		cfg.Advantage = a
		return nil
	})
	// Flags may come before or after FILE ("sabot check shoe.txt --decks 6");
	// everything after "--" is an argument.
	var files []string
	for rest := args; ; {
		if err := parseFlags(fs, rest); err != nil {
			return cfg, err
		}
		left := fs.Args()
		if len(left) == 0 {
			break
		}
		if n := len(rest) - len(left); n > 0 && rest[n-1] == "--" {
			files = append(files, left...)
			break
		}
		files = append(files, left[0])
		rest = left[1:]
	}
	var errs []error
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	g, gerrs := houseflags.Game(*game, *rules, set, params)
	errs = append(errs, gerrs...)
	if !set["decks"] {
		*decks = g.DefaultDecks()
	}
	if m, ok := g.Macao(); ok { // folded by tableau.MacaoFold (package audit)
		cfg.Macao = &tableau.MacaoOptions{Decks: *decks, Rules: m}
		errs = append(errs, houseflags.MacaoFlagsApply(g, set, anyGame)...)
		g = baccarat.Game{} // the punto banco fields below are not used
	}
	if *decks < 1 || *decks > baccarat.MaxDecks {
		errs = append(errs, fmt.Errorf("--decks %d: want 1–%d", *decks, baccarat.MaxDecks))
	}
	cfg.Opts.Decks = *decks
	if *overrun < 1 || *overrun > tableau.MaxOverrunCards {
		errs = append(errs, fmt.Errorf("--overrun-cards %d: want 1 to %d", *overrun, tableau.MaxOverrunCards))
	} else {
		cfg.Opts.OverrunCards = *overrun
	}
	cfg.Opts.Rules = baccarat.Rules{Game: g}
	if cfg.Advantage.On() && !g.DealsPuntoBanco() {
		errs = append(errs, fmt.Errorf("--advantage: the odds are punto banco's; not with --game %s", g.Name()))
	}
	errs = append(errs, house.Apply(&cfg.Opts.Rules)...)
	cfg.Opts.CutRule = flagValue(&errs, "cut-rule", *cut, "last-coup or one-more", tableau.ParseCutRule)
	if cfg.Macao != nil {
		cfg.Macao.CutRule = cfg.Opts.CutRule
	}
	given := cfg.Markers
	switch cfg.Markers = strings.ToLower(cfg.Markers); cfg.Markers {
	case "auto", "on", "off":
	default:
		errs = append(errs, fmt.Errorf("--markers %q: want auto, on or off", given))
	}
	switch len(files) {
	case 0:
		cfg.File = "-"
	case 1:
		cfg.File = files[0]
	default:
		errs = append(errs, fmt.Errorf("want at most one FILE, got %d: %s", len(files), strings.Join(files, " ")))
	}
	return cfg, errors.Join(errs...)
}
