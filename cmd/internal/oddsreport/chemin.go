package oddsreport

import (
	"fmt"
	"math/big"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/chemin"
	"github.com/sabot-table/sabot/tableau/odds"
)

// CheminConfig is the chemin de fer game of sabot odds.
type CheminConfig struct {
	// Game is the table with the punter's and banker's choices made,
	// unless Solve.
	Game chemin.CheminGame
	// Solve: find both sides' equilibrium strategies and the value of
	// the game instead of valuing Game's.
	Solve       bool
	Five        baccarat.Rule        // the punter on 5 (--punter-five)
	BankerTable baccarat.BankerTable // --banker-table
}

// CheminOdds is `sabot odds --game chemin-de-fer` for a given pair of
// strategies: the probabilities of the coup and each side's expectation.
type CheminOdds struct {
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

// CheminSolve is `sabot odds --game chemin-de-fer --solve`.
type CheminSolve struct {
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
	PunterFives []CheminCell `json:"punter_fives,omitempty"`
	// Banker is every option cell with the banker's probability of
	// drawing; OffTableau the cells where he departs from the punto
	// banco tableau (draws where it stands, stands or mixes where it
	// draws).
	Banker     []CheminCell `json:"banker"`
	OffTableau []string     `json:"off_tableau"`
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

// CheminCell is one decision cell of a solved game and its drawing
// probability, as a float and an exact fraction.
type CheminCell struct {
	Cell  string  `json:"cell"`
	Draw  float64 `json:"draw"`
	Exact string  `json:"exact"`
}

func ratFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

// analyze values the chemin de fer game for the shoe rc.
func (c *CheminConfig) analyze(rc *baccarat.RankCounts, decks int) (any, error) {
	bp := c.Game.CommissionBP()
	alpha := float64(bp) / 10000
	if c.Solve {
		sol, err := chemin.SolveChemin(rc, &c.Game)
		if err != nil {
			return nil, err
		}
		out := CheminSolve{
			Game: "chemin-de-fer", Decks: decks, CardsLeft: rc.Total(), Commission: alpha,
			BankerTable: c.BankerTable.String(), BankerSees: c.Game.Sees.String(), PunterSees: "total", Replacement: c.Game.Replacement,
			PunterDrawsOn5: ratFloat(sol.PunterDrawsOn5), PunterDrawsOn5Exact: sol.PunterDrawsOn5.RatString(),
			OffTableau:  []string{},
			PunterValue: ratFloat(sol.PunterValue), PunterValueExact: sol.PunterValue.RatString(),
			BankValue: ratFloat(sol.BankerValue), HouseTake: ratFloat(sol.HouseTake),
			Punter: ratFloat(sol.PunterWin), Bank: ratFloat(sol.BankerWin), Tie: ratFloat(sol.Tie),
			Equilibria: sol.Equilibria,
		}
		if c.Game.PunterSeesHand {
			out.PunterSees = "hand"
			for _, f := range sol.PunterFives {
				out.PunterFives = append(out.PunterFives, CheminCell{Cell: f.String(), Draw: ratFloat(f.Draw), Exact: f.Draw.RatString()})
			}
		}
		one := big.NewRat(1, 1)
		for _, b := range sol.Banker {
			out.Banker = append(out.Banker, CheminCell{Cell: b.Cell.String(), Draw: ratFloat(b.Draw), Exact: b.Draw.RatString()})
			pb := baccarat.PuntoBanco.BankerRule(b.Cell.Total, b.Cell.Third) == baccarat.MustDraw
			if (pb && b.Draw.Cmp(one) != 0) || (!pb && b.Draw.Sign() != 0) {
				out.OffTableau = append(out.OffTableau, b.Cell.String())
			}
		}
		return out, nil
	}
	var o odds.Odds
	if err := o.AnalyzeTable(rc, &c.Game.Table); err != nil {
		return nil, err
	}
	base, _ := baccarat.CheminDeFer(baccarat.Option, c.BankerTable)
	banker := map[string]string{}
	for _, cell := range base.Options() {
		if cell.Banker {
			key := fmt.Sprintf("%d/%s", cell.Total, thirdName(cell.Third))
			banker[key] = c.Game.Table.BankerRule(cell.Total, cell.Third).String()
		}
	}
	pw, bw := o.Prob(o.Player), o.Prob(o.Banker)
	return CheminOdds{
		Game: "chemin-de-fer", Decks: decks, CardsLeft: rc.Total(), Commission: alpha,
		PunterFive: c.Five.String(), BankerTable: c.BankerTable.String(), Banker: banker,
		Punter: pw, Bank: bw, Tie: o.Prob(o.Tie), Natural: o.Prob(o.Natural),
		Cards4: o.Prob(o.Cards4), Cards5: o.Prob(o.Cards5), Cards6: o.Prob(o.Cards6),
		PunterEV: pw - bw, BankEV: (1-alpha)*bw - pw, HouseTake: alpha * bw,
		Counts: oddsCountsJSON{Sequences: o.Sequences, Banker: o.Banker, Player: o.Player, Tie: o.Tie},
	}, nil
}

func thirdName(v int) string {
	if v == baccarat.NoThirdCard {
		return "stood"
	}
	return fmt.Sprint(v)
}
