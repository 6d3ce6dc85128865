package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sabot-table/sabot/cmd/internal/houseflags"
	"github.com/sabot-table/sabot/cmd/internal/oddsreport"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

func init() {
	register(&command{
		name:    "odds",
		summary: "exact odds and house edges of the next coup from a shoe with cards removed (JSON)",
		run:     parsed("sabot odds: ", parseOddsFlags, oddsreport.Run),
	})
}

const oddsUsage = `usage: sabot odds [--decks N] [--removed CARDS] [--rules punto-banco|super6|ez]
                  [--commission RATE] [--tie-pays 8|9] [--pair-pays N] [--batch]
                  [--pair-suited-pays N] [--side-bets LIST] [--pays-... TABLE]
       sabot odds --game chemin-de-fer [--decks N] [--removed CARDS] [--batch]
                  [--commission RATE] [--banker-table scarne|free]
                  (--punter-five draw|stand [--banker STRATEGY]
                   | --solve [--banker-sees total|hand] [--punter-sees total|hand]
                           [--replacement])
       sabot odds --game banque [--decks N] [--removed CARDS] [--batch]
                  [--punter-five draw|stand] [--right-five draw|stand]
                  [--left-five draw|stand] [--banker T/R/L=draw|stand,...]

Computes, by exact enumeration with card removal, the probabilities of the
next coup dealt from a shoe of N decks less the cards removed, and the house
edge of every bet the rule profile offers. Prints one JSON object:
  banker player tie natural player_pair banker_pair dragon7 panda8 super6
  cards4 cards5 cards6     probabilities (super6: banker wins with 6)
  house_edge               {banker, player, tie, player_pair, banker_pair,
                            and dragon7, panda8 under ez}: −EV per unit staked
                            (with --pair-suited-pays, the pair bets' null once
                            a rank-only card leaves the suits unknown)
  player_pair_suited banker_pair_suited
                           with --pair-suited-pays only: the probability of a
                            suited pair (null when the suits are unknown)
  cards_left               cards left in the shoe
  side_bets                with --side-bets only: {perfect_pair, either_pair,
                            big, small, dragon_player, dragon_banker, lucky6}
                            each {win, house_edge} under the --pays-* tables

With --game chemin-de-fer (6 decks by default) it values a given pair of
strategies (the punter's 5, the banker's choice at each option cell, as
T/V=draw|stand entries; see docs/cli.md) or, with --solve, finds both
sides' equilibrium strategies and the value of the game (--punter-sees hand:
the punter's choice on 5 by his two cards, without commission). With --game banque
(3 decks by default) it values each tableau against the banker for given
strategies (each tableau's 5, the banker's draw table).

CARDS are in the transcript card syntax, separated by spaces: "5H 5 9C KD"
(a rank alone is a rank-only read). With --batch, standard input holds one
CARDS list per line and the output one JSON object per line.

Exit status: 0 success, 2 bad flags or cards (removing a card the shoe no
longer holds, or leaving fewer than 6 cards, is an error).

Flags:
`

// parseOddsFlags parses the arguments of `sabot odds`. It returns
// flag.ErrHelp for -h and errFlagsPrinted for a flag the flag package has
// printed.
func parseOddsFlags(args []string, stderr io.Writer) (oddsreport.Config, error) {
	var cfg oddsreport.Config
	fs := newFlagSet("odds", oddsUsage, stderr)
	fs.IntVar(&cfg.Decks, "decks", baccarat.DefaultDecks, "decks in the shoe, 1–8")
	fs.StringVar(&cfg.Removed, "removed", "", "cards already out of the shoe, e.g. \"5H 5 9C KD\"")
	rules := fs.String("rules", "punto-banco", "rule profile: punto-banco, super6 or ez")
	game := fs.String("game", "", "the game: punto-banco, super6, ez (as --rules), chemin-de-fer or banque")
	house := houseflags.Add(fs)
	cf := addCheminFlags(fs)
	bf := addBanqueFlags(fs)
	fs.BoolVar(&cfg.Batch, "batch", false, "read one CARDS list per standard input line; one JSON object per line")
	if err := parseFlags(fs, args); err != nil {
		return cfg, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	cfg.Family = "punto-banco"
	profile := *rules
	var g baccarat.Game
	switch lg := strings.ToLower(*game); {
	case lg == "chemin-de-fer" || lg == "banque":
		// The game value of the registry (its name and usual decks); the
		// chemin de fer parameters are this command's own flags, named
		// as sabot check's.
		g, _ = baccarat.ParseGame(lg)
		cfg.Family = g.Name()
		if set["rules"] {
			errs = append(errs, fmt.Errorf("--rules %q: a punto banco profile, not for --game %s", *rules, *game))
		}
		if !set["decks"] {
			cfg.Decks = g.DefaultDecks()
		}
	case *game != "":
		if set["rules"] && *rules != *game {
			errs = append(errs, fmt.Errorf("--game %q and --rules %q disagree (give one)", *game, *rules))
		}
		profile = *game
	}
	if cfg.Decks < 1 || cfg.Decks > baccarat.MaxDecks {
		errs = append(errs, fmt.Errorf("--decks %d: want 1–%d", cfg.Decks, baccarat.MaxDecks))
	}
	if cfg.Family == "punto-banco" {
		var err error
		if g, err = baccarat.ParseGame(profile); err != nil || !g.DealsPuntoBanco() {
			flagName := "--rules"
			if *game != "" {
				flagName = "--game"
			}
			msg := "want punto-banco, super6, ez, chemin-de-fer or banque"
			if _, known := baccarat.LookupGame(strings.ToLower(profile)); known && err == nil {
				msg = "sabot odds has no engine for it (punto-banco, super6, ez, chemin-de-fer or banque)"
			}
			errs = append(errs, fmt.Errorf("%s %q: %s", flagName, profile, msg))
		}
		for _, name := range append(slices.Clone(cf.names), bf.names...) {
			if set[name] {
				errs = append(errs, fmt.Errorf("--%s: only with --game chemin-de-fer or banque", name))
			}
		}
	}
	cfg.Rules = baccarat.Rules{Game: g}
	errs = append(errs, house.Apply(&cfg.Rules)...)
	switch cfg.Family {
	case "chemin-de-fer":
		errs = append(errs, cf.apply(&cfg.Chemin, set, cfg.Rules.Commission)...)
		for _, name := range bf.names {
			if set[name] {
				errs = append(errs, fmt.Errorf("--%s: only with --game banque", name))
			}
		}
	case "banque":
		errs = append(errs, bf.apply(&cfg.Banque, set, cf)...)
	}
	if cfg.Batch && cfg.Removed != "" {
		errs = append(errs, errors.New("--removed and --batch exclude each other (with --batch, stdin gives the cards)"))
	}
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	return cfg, errors.Join(errs...)
}
