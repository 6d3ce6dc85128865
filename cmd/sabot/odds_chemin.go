package main

import (
	"errors"
	"flag"
	"fmt"
	"math/big"

	"github.com/sabot-table/sabot/tableau"
)

// cheminOnlyFlags are the flags of `sabot odds --game chemin-de-fer`.
var cheminOnlyFlags = []string{"punter-five", "banker-table", "banker", "solve", "banker-sees", "punter-sees", "replacement"}

// cheminFlags are the chemin de fer flags as parsed.
type cheminFlags struct {
	five, table, banker, sees, punterSees *string
	solve, replacement                    *bool
}

func addCheminFlags(fs *flag.FlagSet) *cheminFlags {
	return &cheminFlags{
		five:        fs.String("punter-five", "option", "chemin de fer: the punter on 5, `draw|stand` (option: his choice, for --solve)"),
		table:       fs.String("banker-table", "scarne", "chemin de fer: the banker's table, `scarne|free` (free: every banker decision is his)"),
		banker:      fs.String("banker", "", "chemin de fer: the banker's choice at each option, `T/V=draw|stand,...` (T/stood, T/*; unlisted: the punto banco tableau)"),
		sees:        fs.String("banker-sees", "total", "chemin de fer --solve: the banker decides on his `total|hand` (hand: the two cards he holds)"),
		punterSees:  fs.String("punter-sees", "total", "chemin de fer --solve: the punter decides on 5 by his `total|hand` (hand: the two cards he holds; Ethier and Gámez's Model B3 with --banker-sees hand; needs --commission 0)"),
		solve:       fs.Bool("solve", false, "chemin de fer: solve the game (both sides' equilibrium strategies over the option cells, and the value)"),
		replacement: fs.Bool("replacement", false, "chemin de fer --solve: deal every card from the full shoe, as if put back (Kemeny and Snell's model)"),
	}
}

// cheminConfig is the parsed chemin de fer game of `sabot odds`.
type cheminConfig struct {
	game   tableau.CheminGame // Table with the punter's and banker's choices made, unless solve
	solve  bool
	five   tableau.Rule
	btable tableau.BankerTable
}

// apply checks the chemin de fer flags and fills c; one error per bad
// flag.
func (f *cheminFlags) apply(c *cheminConfig, set map[string]bool, commission tableau.Commission) []error {
	var errs []error
	five, err := tableau.ParseRule(*f.five)
	if err != nil {
		errs = append(errs, fmt.Errorf("--punter-five %q: want draw, stand or option", *f.five))
	}
	bt, err := tableau.ParseBankerTable(*f.table)
	if err != nil {
		errs = append(errs, fmt.Errorf("--banker-table %q: want scarne or free", *f.table))
	}
	sees, err := tableau.ParseBankerSees(*f.sees)
	if err != nil {
		errs = append(errs, fmt.Errorf("--banker-sees %q: want total or hand", *f.sees))
	}
	punterSees, err := tableau.ParseBankerSees(*f.punterSees)
	if err != nil {
		errs = append(errs, fmt.Errorf("--punter-sees %q: want total or hand", *f.punterSees))
	}
	c.solve, c.five, c.btable = *f.solve, five, bt
	if len(errs) > 0 {
		return errs
	}
	tab, err := tableau.CheminDeFer(five, bt)
	if err != nil {
		return []error{err}
	}
	c.game = tableau.CheminGame{Table: tab, Sees: sees, Replacement: *f.replacement, Commission: commission,
		PunterSeesHand: punterSees == tableau.SeesHand}
	if c.solve {
		if set["banker"] {
			errs = append(errs, errors.New("--banker and --solve exclude each other (--solve finds the banker's strategy)"))
		}
		if c.game.PunterSeesHand && c.game.CommissionBP() != 0 {
			errs = append(errs, fmt.Errorf("--punter-sees hand: solved without commission only; give --commission 0 (it is %g%%)", float64(c.game.CommissionBP())/100))
		}
		if c.game.PunterSeesHand && five != tableau.Option {
			errs = append(errs, fmt.Errorf("--punter-sees hand: the punter's 5 must be his option (--punter-five option, not %s)", five))
		}
		return errs
	}
	for _, name := range []string{"banker-sees", "punter-sees", "replacement"} {
		if set[name] {
			errs = append(errs, fmt.Errorf("--%s: only with --solve", name))
		}
	}
	if five == tableau.Option {
		errs = append(errs, errors.New("--punter-five: give draw or stand for the odds of a strategy, or --solve for the game"))
	}
	if c.game.Table, err = tableau.ChooseBanker(tab, *f.banker); err != nil {
		errs = append(errs, fmt.Errorf("--banker %q: %v", *f.banker, err))
	}
	return errs
}

// cheminOddsJSON is `sabot odds --game chemin-de-fer` for a given pair of
// strategies: the probabilities of the coup and each side's expectation.
type cheminOddsJSON struct {
	Game        string            `json:"game"`
	Decks       int               `json:"decks"`
	CardsLeft   int               `json:"cards_left"`
	Commission  float64           `json:"commission"`
	PunterFive  string            `json:"punter_five"`
	BankerTable string            `json:"banker_table"`
	Banker      map[string]string `json:"banker"` // every option cell: "draw" or "stand"
	Punter      float64           `json:"punter"` // the punter wins
	Bank        float64           `json:"bank"`   // the bank wins
	Tie         float64           `json:"tie"`
	Natural     float64           `json:"natural"`
	Cards4      float64           `json:"cards4"`
	Cards5      float64           `json:"cards5"`
	Cards6      float64           `json:"cards6"`
	// PunterEV is the punter's expectation per unit staked (ties push);
	// BankEV the bank's per unit covered, after the commission;
	// HouseTake the commission's share.
	PunterEV  float64        `json:"punter_ev"`
	BankEV    float64        `json:"bank_ev"`
	HouseTake float64        `json:"house_take"`
	Counts    oddsCountsJSON `json:"counts"` // banker: the bank's wins, player: the punter's
}

// cheminSolveJSON is `sabot odds --game chemin-de-fer --solve`.
type cheminSolveJSON struct {
	Game        string  `json:"game"`
	Decks       int     `json:"decks"`
	CardsLeft   int     `json:"cards_left"`
	Commission  float64 `json:"commission"`
	BankerTable string  `json:"banker_table"`
	BankerSees  string  `json:"banker_sees"`
	PunterSees  string  `json:"punter_sees"`
	Replacement bool    `json:"replacement"`
	// PunterDrawsOn5 is the punter's probability of drawing on 5, and
	// PunterDrawsOn5Exact the same as a fraction (with --punter-sees
	// hand: over the deals that bring him a 5 to decide on).
	PunterDrawsOn5      float64 `json:"punter_draws_on_5"`
	PunterDrawsOn5Exact string  `json:"punter_draws_on_5_exact"`
	// PunterFives (--punter-sees hand only) is his drawing probability
	// with each 5 by its two cards: 0+5, 1+4, 2+3, 6+9, 7+8.
	PunterFives []cheminCellJSON `json:"punter_fives,omitempty"`
	// Banker is every option cell with the banker's probability of
	// drawing; OffTableau the cells where he departs from the punto
	// banco tableau (draws where it stands, stands or mixes where it
	// draws).
	Banker     []cheminCellJSON `json:"banker"`
	OffTableau []string         `json:"off_tableau"`
	// PunterValue and BankValue are each side's expectation per unit at
	// the equilibrium (the value of the game when the commission is 0),
	// the Exact forms fractions.
	PunterValue      float64 `json:"punter_value"`
	PunterValueExact string  `json:"punter_value_exact"`
	BankValue        float64 `json:"bank_value"`
	HouseTake        float64 `json:"house_take"`
	Punter           float64 `json:"punter"`
	Bank             float64 `json:"bank"`
	Tie              float64 `json:"tie"`
	// Equilibria is how many equilibria the search found (1: unique).
	Equilibria int `json:"equilibria"`
}

type cheminCellJSON struct {
	Cell  string  `json:"cell"`
	Draw  float64 `json:"draw"`
	Exact string  `json:"exact"`
}

func ratFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

// analyze values the chemin de fer game for the shoe rc.
func (c *cheminConfig) analyze(rc *tableau.RankCounts, decks int) (any, error) {
	bp := c.game.CommissionBP()
	alpha := float64(bp) / 10000
	if c.solve {
		sol, err := tableau.SolveChemin(rc, &c.game)
		if err != nil {
			return nil, err
		}
		out := cheminSolveJSON{
			Game: "chemin-de-fer", Decks: decks, CardsLeft: rc.Total(), Commission: alpha,
			BankerTable: c.btable.String(), BankerSees: c.game.Sees.String(), PunterSees: "total", Replacement: c.game.Replacement,
			PunterDrawsOn5: ratFloat(sol.PunterDrawsOn5), PunterDrawsOn5Exact: sol.PunterDrawsOn5.RatString(),
			OffTableau:  []string{},
			PunterValue: ratFloat(sol.PunterValue), PunterValueExact: sol.PunterValue.RatString(),
			BankValue: ratFloat(sol.BankerValue), HouseTake: ratFloat(sol.HouseTake),
			Punter: ratFloat(sol.PunterWin), Bank: ratFloat(sol.BankerWin), Tie: ratFloat(sol.Tie),
			Equilibria: sol.Equilibria,
		}
		if c.game.PunterSeesHand {
			out.PunterSees = "hand"
			for _, f := range sol.PunterFives {
				out.PunterFives = append(out.PunterFives, cheminCellJSON{Cell: f.String(), Draw: ratFloat(f.Draw), Exact: f.Draw.RatString()})
			}
		}
		one := big.NewRat(1, 1)
		for _, b := range sol.Banker {
			out.Banker = append(out.Banker, cheminCellJSON{Cell: b.Cell.String(), Draw: ratFloat(b.Draw), Exact: b.Draw.RatString()})
			pb := tableau.PuntoBanco.BankerRule(b.Cell.Total, b.Cell.Third) == tableau.MustDraw
			if (pb && b.Draw.Cmp(one) != 0) || (!pb && b.Draw.Sign() != 0) {
				out.OffTableau = append(out.OffTableau, b.Cell.String())
			}
		}
		return out, nil
	}
	var o tableau.Odds
	if err := o.AnalyzeTable(rc, &c.game.Table); err != nil {
		return nil, err
	}
	base, _ := tableau.CheminDeFer(tableau.Option, c.btable)
	banker := map[string]string{}
	for _, cell := range base.Options() {
		if cell.Banker {
			key := fmt.Sprintf("%d/%s", cell.Total, thirdName(cell.Third))
			banker[key] = c.game.Table.BankerRule(cell.Total, cell.Third).String()
		}
	}
	pw, bw := o.Prob(o.Player), o.Prob(o.Banker)
	return cheminOddsJSON{
		Game: "chemin-de-fer", Decks: decks, CardsLeft: rc.Total(), Commission: alpha,
		PunterFive: c.five.String(), BankerTable: c.btable.String(), Banker: banker,
		Punter: pw, Bank: bw, Tie: o.Prob(o.Tie), Natural: o.Prob(o.Natural),
		Cards4: o.Prob(o.Cards4), Cards5: o.Prob(o.Cards5), Cards6: o.Prob(o.Cards6),
		PunterEV: pw - bw, BankEV: (1-alpha)*bw - pw, HouseTake: alpha * bw,
		Counts: oddsCountsJSON{Sequences: o.Sequences, Banker: o.Banker, Player: o.Player, Tie: o.Tie},
	}, nil
}

func thirdName(v int) string {
	if v == tableau.NoThirdCard {
		return "stood"
	}
	return fmt.Sprint(v)
}
