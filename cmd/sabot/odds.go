package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sabot-table/sabot/tableau"
)

func init() {
	register(&command{
		name:    "odds",
		summary: "exact odds and house edges of the next coup from a shoe with cards removed (JSON)",
		run:     runOdds,
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

// oddsConfig is the parsed command line of `sabot odds`.
type oddsConfig struct {
	decks   int
	removed string
	rules   tableau.Rules
	batch   bool
	// family is the game: "punto-banco" (with rules.Game the profile),
	// "chemin-de-fer" (chemin) or "banque" (banque).
	family string
	chemin cheminConfig
	banque banqueConfig
}

func parseOddsFlags(args []string, stderr io.Writer) (oddsConfig, error) {
	var cfg oddsConfig
	fs := flag.NewFlagSet("odds", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, oddsUsage)
		fs.PrintDefaults()
	}
	fs.IntVar(&cfg.decks, "decks", tableau.DefaultDecks, "decks in the shoe, 1–8")
	fs.StringVar(&cfg.removed, "removed", "", "cards already out of the shoe, e.g. \"5H 5 9C KD\"")
	rules := fs.String("rules", "punto-banco", "rule profile: punto-banco, super6 or ez")
	game := fs.String("game", "", "the game: punto-banco, super6, ez (as --rules), chemin-de-fer or banque")
	house := addHouseFlags(fs)
	cf := addCheminFlags(fs)
	bf := addBanqueFlags(fs)
	fs.BoolVar(&cfg.batch, "batch", false, "read one CARDS list per standard input line; one JSON object per line")
	if err := parseFlags(fs, args); err != nil {
		return cfg, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	cfg.family = "punto-banco"
	profile := *rules
	var g tableau.Game
	switch lg := strings.ToLower(*game); {
	case lg == "chemin-de-fer" || lg == "banque":
		// The game value of the registry (its name and usual decks); the
		// chemin de fer parameters are this command's own flags, named
		// as sabot check's.
		g, _ = tableau.ParseGame(lg)
		cfg.family = g.Name()
		if set["rules"] {
			errs = append(errs, fmt.Errorf("--rules %q: a punto banco profile, not for --game %s", *rules, *game))
		}
		if !set["decks"] {
			cfg.decks = g.DefaultDecks()
		}
	case *game != "":
		if set["rules"] && *rules != *game {
			errs = append(errs, fmt.Errorf("--game %q and --rules %q disagree (give one)", *game, *rules))
		}
		profile = *game
	}
	if cfg.decks < 1 || cfg.decks > tableau.MaxDecks {
		errs = append(errs, fmt.Errorf("--decks %d: want 1–%d", cfg.decks, tableau.MaxDecks))
	}
	if cfg.family == "punto-banco" {
		var err error
		if g, err = tableau.ParseGame(profile); err != nil || !g.PuntoBancoDeal() {
			flagName := "--rules"
			if *game != "" {
				flagName = "--game"
			}
			msg := "want punto-banco, super6, ez, chemin-de-fer or banque"
			if _, known := tableau.LookupGame(strings.ToLower(profile)); known && err == nil {
				msg = "sabot odds has no engine for it (punto-banco, super6, ez, chemin-de-fer or banque)"
			}
			errs = append(errs, fmt.Errorf("%s %q: %s", flagName, profile, msg))
		}
		for _, name := range append(cheminOnlyFlags, banqueOnlyFlags...) {
			if set[name] {
				errs = append(errs, fmt.Errorf("--%s: only with --game chemin-de-fer or banque", name))
			}
		}
	}
	cfg.rules = tableau.Rules{Game: g}
	errs = append(errs, house.apply(&cfg.rules)...)
	switch cfg.family {
	case "chemin-de-fer":
		errs = append(errs, cf.apply(&cfg.chemin, set, cfg.rules.Commission)...)
		for _, name := range banqueOnlyFlags {
			if set[name] {
				errs = append(errs, fmt.Errorf("--%s: only with --game banque", name))
			}
		}
	case "banque":
		errs = append(errs, bf.apply(&cfg.banque, set, cf)...)
	}
	if cfg.batch && cfg.removed != "" {
		errs = append(errs, errors.New("--removed and --batch exclude each other (with --batch, stdin gives the cards)"))
	}
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	return cfg, errors.Join(errs...)
}

// oddsOutput is the JSON object `sabot odds` prints.
type oddsOutput struct {
	Banker     float64 `json:"banker"`
	Player     float64 `json:"player"`
	Tie        float64 `json:"tie"`
	Natural    float64 `json:"natural"`
	PlayerPair float64 `json:"player_pair"`
	BankerPair float64 `json:"banker_pair"`
	// PlayerPairSuited and BankerPairSuited are the probability of a
	// suited pair (same rank and suit), present only when a suited pair
	// pays more (--pair-suited-pays): null when the suits left are
	// unknown.
	PlayerPairSuited *suitedProb   `json:"player_pair_suited,omitempty"`
	BankerPairSuited *suitedProb   `json:"banker_pair_suited,omitempty"`
	Dragon7          float64       `json:"dragon7"`
	Panda8           float64       `json:"panda8"`
	Super6           float64       `json:"super6"`
	Cards4           float64       `json:"cards4"`
	Cards5           float64       `json:"cards5"`
	Cards6           float64       `json:"cards6"`
	HouseEdge        houseEdgeJSON `json:"house_edge"`
	CardsLeft        int           `json:"cards_left"`
	Rules            tableau.Game  `json:"rules"`
	TiePays          int           `json:"tie_pays"`
	// Commission is the commission in force on a banker win, a fraction
	// (0.05 for 5%; 0 under super6 and ez).
	Commission float64        `json:"commission"`
	Decks      int            `json:"decks"`
	Counts     oddsCountsJSON `json:"counts"`
	// SideBets has one entry per side bet offered (--side-bets), keyed
	// perfect_pair, either_pair, big, small, dragon_player, dragon_banker,
	// lucky6; absent without the flag.
	SideBets map[string]sideOddsJSON `json:"side_bets,omitempty"`
}

// houseEdgeJSON is the house_edge object; dragon7 and panda8 only under ez.
type houseEdgeJSON struct {
	Banker float64 `json:"banker"`
	Player float64 `json:"player"`
	Tie    float64 `json:"tie"`
	// PlayerPair and BankerPair are null when a suited pair pays more
	// and the suits left are unknown (a rank-only card removed).
	PlayerPair *float64 `json:"player_pair"`
	BankerPair *float64 `json:"banker_pair"`
	Dragon7    *float64 `json:"dragon7,omitempty"`
	Panda8     *float64 `json:"panda8,omitempty"`
}

// oddsCountsJSON gives the exact integer counts behind the probabilities:
// ordered six-card sequences (see tableau.Odds).
type oddsCountsJSON struct {
	Sequences uint64 `json:"sequences"`
	Banker    uint64 `json:"banker"`
	Player    uint64 `json:"player"`
	Tie       uint64 `json:"tie"`
}

// suitedProb is a probability that may be unknown: JSON null.
type suitedProb struct {
	p     float64
	known bool
}

// MarshalJSON writes the probability, or null when unknown.
func (s suitedProb) MarshalJSON() ([]byte, error) {
	if !s.known {
		return []byte("null"), nil
	}
	return json.Marshal(s.p)
}

// newOddsOutput builds the output from the odds o of the shoe comp.
func newOddsOutput(o *tableau.Odds, comp *tableau.Composition, cfg *oddsConfig, left int) (oddsOutput, error) {
	edge := func(b tableau.Bet) float64 {
		e, _ := o.HouseEdge(b, cfg.rules)
		return e
	}
	// The pair bets: by ranks (Odds), or where a suited pair pays more
	// by the suits left (PairOdds), unvalued when those are unknown.
	pairEdge := func(b tableau.Bet) *float64 {
		e, ok := o.HouseEdge(b, cfg.rules)
		if !ok {
			return nil
		}
		return &e
	}
	var suited *suitedProb
	if r := cfg.rules; r.PairSuitedPayout() > r.PairPayout() {
		cc, known := comp.RemainingCards()
		po, err := tableau.AnalyzePairs(&cc, known)
		if err != nil {
			return oddsOutput{}, err
		}
		pairEdge = func(b tableau.Bet) *float64 {
			e, ok := po.HouseEdge(b, r)
			if !ok {
				return nil
			}
			return &e
		}
		suited = &suitedProb{p: float64(po.Suited) / float64(po.Sequences), known: po.SuitsKnown}
	}
	out := oddsOutput{
		Banker: o.Prob(o.Banker), Player: o.Prob(o.Player), Tie: o.Prob(o.Tie),
		Natural: o.Prob(o.Natural), PlayerPair: o.Prob(o.PlayerPair), BankerPair: o.Prob(o.BankerPair),
		Dragon7: o.Prob(o.Dragon7), Panda8: o.Prob(o.Panda8), Super6: o.Prob(o.Super6),
		Cards4: o.Prob(o.Cards4), Cards5: o.Prob(o.Cards5), Cards6: o.Prob(o.Cards6),
		HouseEdge: houseEdgeJSON{
			Banker: edge(tableau.BetBanker), Player: edge(tableau.BetPlayer), Tie: edge(tableau.BetTie),
			PlayerPair: pairEdge(tableau.BetPlayerPair), BankerPair: pairEdge(tableau.BetBankerPair),
		},
		PlayerPairSuited: suited, BankerPairSuited: suited,
		CardsLeft: left, Rules: cfg.rules.Game, TiePays: cfg.rules.TiePays, Decks: cfg.decks,
		Commission: float64(cfg.rules.CommissionBP()) / 10000,
		Counts:     oddsCountsJSON{Sequences: o.Sequences, Banker: o.Banker, Player: o.Player, Tie: o.Tie},
	}
	if cfg.rules.Offers(tableau.BetDragon7) {
		d7, p8 := edge(tableau.BetDragon7), edge(tableau.BetPanda8)
		out.HouseEdge.Dragon7, out.HouseEdge.Panda8 = &d7, &p8
	}
	return out, nil
}

// parseRemoved parses a CARDS list and takes each card out of a fresh
// shoe of decks decks. A card the shoe can no longer hold — more of its
// rank, or of its rank and suit, than the decks contain — is an error, as
// is a list that leaves fewer than six cards. Errors name the card, its
// 1-based column in s, and its position in the list.
func parseRemoved(s string, decks int) (tableau.RankCounts, error) {
	comp, err := parseRemovedComp(s, decks)
	if err != nil {
		return tableau.RankCounts{}, err
	}
	return comp.RemainingRanks(), nil
}

// parseRemovedComp is parseRemoved returning the shoe's composition (which
// also knows the suits left, for Perfect Pair).
func parseRemovedComp(s string, decks int) (tableau.Composition, error) {
	comp, err := tableau.NewComposition(decks)
	if err != nil {
		return tableau.Composition{}, err
	}
	n := 0
	for col, i := 1, 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += size
			col++
			continue
		}
		start, startCol := i, col
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				break
			}
			i += size
			col++
		}
		word := s[start:i]
		n++
		c, err := tableau.ParseCard(word)
		if err != nil {
			return tableau.Composition{}, fmt.Errorf("column %d: card %d %q: not a card (want rank A 2–9 T J Q K or 10, optional suit S H D C)", startCol, n, word)
		}
		if !comp.Draw(c) {
			return tableau.Composition{}, fmt.Errorf("column %d: card %d %q: removes more than a %d-deck shoe holds (%s)", startCol, n, word, decks, holds(c, decks))
		}
	}
	if left := comp.Remaining(); left < 6 {
		return tableau.Composition{}, fmt.Errorf("%d cards removed leave %d in a %d-deck shoe; a coup may need 6", n, left, decks)
	}
	return comp, nil
}

// holds says how many copies of c a shoe of decks decks holds.
func holds(c tableau.Card, decks int) string {
	if c.Suit == tableau.SuitUnknown {
		return fmt.Sprintf("%d of rank %s", 4*decks, c.Rank)
	}
	return fmt.Sprintf("%d of %s, %d of rank %s", decks, c, 4*decks, c.Rank)
}

// runOdds is `sabot odds`.
func runOdds(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseOddsFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if errors.Is(err, errFlagsPrinted) {
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "sabot odds: %v\n", err)
		return 2
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	var o tableau.Odds
	analyze := func(cards string) error {
		comp, err := parseRemovedComp(cards, cfg.decks)
		if err != nil {
			return err
		}
		rc := comp.RemainingRanks()
		switch cfg.family {
		case "chemin-de-fer":
			out, err := cfg.chemin.analyze(&rc, cfg.decks)
			if err != nil {
				return err
			}
			return enc.Encode(out)
		case "banque":
			out, err := cfg.banque.analyze(&rc, cfg.decks)
			if err != nil {
				return err
			}
			return enc.Encode(out)
		}
		if err := o.Analyze(&rc); err != nil {
			return err
		}
		out, err := newOddsOutput(&o, &comp, &cfg, rc.Total())
		if err != nil {
			return err
		}
		if cfg.rules.Side.Offered != 0 {
			cc, known := comp.RemainingCards()
			so, err := tableau.AnalyzeSideBets(&cc, known)
			if err != nil {
				return err
			}
			out.SideBets = newSideOdds(&so, cfg.rules)
		}
		return enc.Encode(out)
	}
	if !cfg.batch {
		if err := analyze(cfg.removed); err != nil {
			fmt.Fprintf(stderr, "sabot odds: --removed: %v\n", err)
			return 2
		}
		return flushed(w, stderr)
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64*1024), maxOddsLine+1) // +1: the '\n'
	line := 1
	for ; sc.Scan(); line++ {
		if err := ctx.Err(); err != nil {
			w.Flush()
			fmt.Fprintf(stderr, "sabot odds: %v\n", err)
			return 2
		}
		if err := analyze(sc.Text()); err != nil {
			w.Flush() // lines before the bad one are good output
			fmt.Fprintf(stderr, "sabot odds: <stdin>:%d: %v\n", line, err)
			return 2
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		w.Flush()
		fmt.Fprintf(stderr, "sabot odds: <stdin>:%d:%d: line longer than %d bytes\n", line, maxOddsLine+1, maxOddsLine)
		return 2
	} else if err != nil {
		w.Flush()
		fmt.Fprintf(stderr, "sabot odds: reading standard input: %v\n", err)
		return 2
	}
	return flushed(w, stderr)
}

// maxOddsLine is the longest --batch line, in bytes: a whole 8-deck shoe
// removed card by card is under 2 KiB. A longer line is refused with its
// line and column; the scanner's buffer never grows past this.
const maxOddsLine = 64 << 10

// flushed flushes w and returns the exit status: 0, or 2 if the output
// could not be written.
func flushed(w *bufio.Writer, stderr io.Writer) int {
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "sabot odds: writing output: %v\n", err)
		return 2
	}
	return 0
}
