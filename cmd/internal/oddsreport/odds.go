// Package oddsreport is sabot odds: the exact odds and house edges of the
// next coup dealt from a shoe with cards removed, for punto banco (and its
// side bets), chemin de fer (given strategies, or the solved game) and
// baccarat banque, printed as JSON.
package oddsreport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// Config is a parsed sabot odds command line.
type Config struct {
	Decks   int    // decks in the shoe, 1–8
	Removed string // the cards out of the shoe (CARDS); "" with Batch
	// Rules are the punto banco rules and house rules (Rules.Game the
	// profile); Rules.Commission also for chemin de fer.
	Rules baccarat.Rules
	Batch bool // one CARDS list per standard input line
	// Family is the game: "punto-banco" (with Rules.Game the profile),
	// "chemin-de-fer" (Chemin) or "banque" (Banque).
	Family string
	Chemin CheminConfig
	Banque BanqueConfig
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
	Rules            baccarat.Game `json:"rules"`
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
// ordered six-card sequences (see odds.Odds).
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
func newOddsOutput(o *odds.Odds, comp *baccarat.Composition, cfg *Config, left int) (oddsOutput, error) {
	edge := func(b baccarat.Bet) float64 {
		e, _ := o.HouseEdge(b, cfg.Rules)
		return e
	}
	// The pair bets: by ranks (Odds), or where a suited pair pays more
	// by the suits left (PairOdds), unvalued when those are unknown.
	pairEdge := func(b baccarat.Bet) *float64 {
		e, ok := o.HouseEdge(b, cfg.Rules)
		if !ok {
			return nil
		}
		return &e
	}
	var suited *suitedProb
	if r := cfg.Rules; r.PairSuitedPayout() > r.PairPayout() {
		cc, known := comp.RemainingCards()
		po, err := odds.AnalyzePairs(&cc, known)
		if err != nil {
			return oddsOutput{}, err
		}
		pairEdge = func(b baccarat.Bet) *float64 {
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
			Banker: edge(baccarat.BetBanker), Player: edge(baccarat.BetPlayer), Tie: edge(baccarat.BetTie),
			PlayerPair: pairEdge(baccarat.BetPlayerPair), BankerPair: pairEdge(baccarat.BetBankerPair),
		},
		PlayerPairSuited: suited, BankerPairSuited: suited,
		CardsLeft: left, Rules: cfg.Rules.Game, TiePays: cfg.Rules.TiePays, Decks: cfg.Decks,
		Commission: float64(cfg.Rules.CommissionBP()) / 10000,
		Counts:     oddsCountsJSON{Sequences: o.Sequences, Banker: o.Banker, Player: o.Player, Tie: o.Tie},
	}
	if cfg.Rules.Offers(baccarat.BetDragon7) {
		d7, p8 := edge(baccarat.BetDragon7), edge(baccarat.BetPanda8)
		out.HouseEdge.Dragon7, out.HouseEdge.Panda8 = &d7, &p8
	}
	return out, nil
}

// ParseRemoved parses a CARDS list and takes each card out of a fresh
// shoe of decks decks. A card the shoe can no longer hold — more of its
// rank, or of its rank and suit, than the decks contain — is an error, as
// is a list that leaves fewer than six cards. Errors name the card, its
// 1-based column in s, and its position in the list.
func ParseRemoved(s string, decks int) (baccarat.RankCounts, error) {
	comp, err := parseRemovedComp(s, decks)
	if err != nil {
		return baccarat.RankCounts{}, err
	}
	return comp.RemainingRanks(), nil
}

// parseRemovedComp is ParseRemoved returning the shoe's composition (which
// also knows the suits left, for Perfect Pair).
func parseRemovedComp(s string, decks int) (baccarat.Composition, error) {
	comp, err := baccarat.NewComposition(decks)
	if err != nil {
		return baccarat.Composition{}, err
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
			return baccarat.Composition{}, fmt.Errorf("column %d: card %d %q: not a card (want rank A 2–9 T J Q K or 10, optional suit S H D C)", startCol, n, word)
		}
		if !comp.Draw(c) {
			return baccarat.Composition{}, fmt.Errorf("column %d: card %d %q: removes more than a %d-deck shoe holds (%s)", startCol, n, word, decks, holds(c, decks))
		}
	}
	if left := comp.Remaining(); left < 6 {
		return baccarat.Composition{}, fmt.Errorf("%d cards removed leave %d in a %d-deck shoe; a coup may need 6", n, left, decks)
	}
	return comp, nil
}

// holds says how many copies of c a shoe of decks decks holds.
func holds(c tableau.Card, decks int) string {
	if c.Suit == card.SuitUnknown {
		return fmt.Sprintf("%d of rank %s", 4*decks, c.Rank)
	}
	return fmt.Sprintf("%d of %s, %d of rank %s", decks, c, 4*decks, c.Rank)
}

// Run is sabot odds of cfg: one JSON object for the shoe less
// cfg.Removed, or with cfg.Batch one per standard input line. It returns
// the exit status: 0, or 2 for bad cards or output that cannot be written
// (said on stderr; with --batch the lines before the bad one are printed).
func Run(ctx context.Context, cfg Config, stdin io.Reader, stdout, stderr io.Writer) int {
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	var o odds.Odds
	analyze := func(cards string) error {
		comp, err := parseRemovedComp(cards, cfg.Decks)
		if err != nil {
			return err
		}
		rc := comp.RemainingRanks()
		switch cfg.Family {
		case "chemin-de-fer":
			out, err := cfg.Chemin.analyze(&rc, cfg.Decks)
			if err != nil {
				return err
			}
			return enc.Encode(out)
		case "banque":
			out, err := cfg.Banque.analyze(&rc, cfg.Decks)
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
		if cfg.Rules.Side.Offered != 0 {
			cc, known := comp.RemainingCards()
			so, err := odds.AnalyzeSideBets(&cc, known)
			if err != nil {
				return err
			}
			out.SideBets = newSideOdds(&so, cfg.Rules)
		}
		return enc.Encode(out)
	}
	if !cfg.Batch {
		if err := analyze(cfg.Removed); err != nil {
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
