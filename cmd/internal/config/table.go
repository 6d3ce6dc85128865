package config

import (
	"fmt"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// TableOptions are the tableau options (game, decks, house rules, cut
// rule, markers) the configuration gives; the error names the first key
// that cannot be used.
func (c Config) TableOptions() (tableau.Options, error) {
	if _, err := baccarat.ParseGame(c.Game); err != nil {
		return tableau.Options{}, err
	}
	var rerr error
	rules := c.HouseRules(func(key, format string, args ...any) {
		if rerr == nil {
			rerr = fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...))
		}
	})
	if rerr != nil {
		return tableau.Options{}, rerr
	}
	cr, err := tableau.ParseCutRule(c.CutRule)
	if err != nil {
		return tableau.Options{}, err
	}
	return tableau.Options{
		Decks:   c.Decks,
		Rules:   rules,
		CutRule: cr,
		Markers: c.MarkersOn(),
	}, nil
}

// NewTable builds the table controller from the configuration, with the
// UID registry (LoadRegistry; nil: none).
func (c Config) NewTable(registry map[string]tableau.Card) (*tableau.Table, error) {
	opts, err := c.TableOptions()
	if err != nil {
		return nil, err
	}
	mp, err := tableau.ParseMisdealPolicy(c.Alerts.Misdeal)
	if err != nil {
		return nil, err
	}
	advantage, err := c.Alerts.Advantage()
	if err != nil {
		return nil, err
	}
	tc := tableau.TableConfig{
		Table:              c.Table,
		Fold:               opts,
		Misdeal:            mp,
		RequireBetsClosed:  c.Alerts.RequireBetsClosed,
		Registry:           registry,
		Gate:               c.Shoe.Gate,
		AdvantageThreshold: advantage,
		OverrunCards:       c.OverrunCards,
	}
	shifts, err := c.Dealer.Schedule()
	if err != nil {
		return nil, err
	}
	tc.Shifts = shifts
	return tableau.NewTable(tc)
}
