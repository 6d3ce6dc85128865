// Package recall reads sabotd's journal back: the journal meta the daemon
// writes for a replay (MetaConfig, Config), game recall over the whole
// journal (Journal), the journal as a transcript that `sabot check`
// reproduces (Export) and the hash chain's report (Verify). The daemon
// writes the meta (cmd/internal/daemon); `sabot recall` and `sabot export`
// read it, through this one declaration.
package recall

import (
	"encoding/json"
	"fmt"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/tableau"
)

// DefaultStateDir is sabotd's default [state] dir (systemd's
// StateDirectory=sabot), used by `sabot export --verify` and `sabot recall`
// without --state.
const DefaultStateDir = "/var/lib/sabot"

// MetaConfig is the journal meta key holding the table settings a recall
// replay needs beyond the table options (Config).
const MetaConfig = "recall-config"

// Config is what `sabot recall` needs, besides the table options
// (journal.MetaTableOptions), to rebuild the table's coups and alerts
// from the journal as the daemon did (the UID registry and the advantage
// threshold are not kept: their alerts are the daemon's only). It is
// stored as JSON under MetaConfig.
type Config struct {
	Table             string `json:"table"`
	Misdeal           string `json:"misdeal"`
	RequireBetsClosed bool   `json:"require_bets_closed"`
	OverrunCards      int    `json:"overrun_cards"`
}

// ConfigOf is the recall meta for a table's configuration.
func ConfigOf(c tableau.TableConfig) Config {
	misdeal := "alert-only"
	if c.Misdeal == tableau.MisdealVoid {
		misdeal = "void"
	}
	return Config{Table: c.Table, Misdeal: misdeal, RequireBetsClosed: c.RequireBetsClosed, OverrunCards: c.OverrunCards}
}

// TableOptions reads the table options the daemon stored in j's meta
// (journal.MetaTableOptions); absent, the defaults with markers on. The
// error names the journal's path.
func TableOptions(j *journal.Journal) (tableau.Options, error) {
	opts := tableau.Options{Markers: true}
	if raw, err := j.Meta(journal.MetaTableOptions); err != nil {
		return opts, err
	} else if raw != nil {
		if err := json.Unmarshal(raw, &opts); err != nil {
			return opts, fmt.Errorf("%s: table options: %w", j.Path(), err)
		}
	}
	return opts, nil
}

// Journal replays every record kept (archives, then the live journal)
// through a table configured as the daemon's was, and returns the last n
// coups, oldest first. Memory: the table and n coups; time: linear in the
// records kept (the daemon's own /recall answers from memory). Errors name
// the journal's path and, for a bad record, its sequence number.
func Journal(j *journal.Journal, n int) ([]tableau.RecallCoup, error) {
	opts, err := TableOptions(j)
	if err != nil {
		return nil, err
	}
	cfg := tableau.TableConfig{Fold: opts}
	if raw, err := j.Meta(MetaConfig); err != nil {
		return nil, err
	} else if raw != nil {
		var rc Config
		if err := json.Unmarshal(raw, &rc); err != nil {
			return nil, fmt.Errorf("%s: recall config: %w", j.Path(), err)
		}
		mp, err := tableau.ParseMisdealPolicy(rc.Misdeal)
		if err != nil {
			return nil, fmt.Errorf("%s: recall config: %w", j.Path(), err)
		}
		cfg.Table, cfg.Misdeal, cfg.RequireBetsClosed, cfg.OverrunCards = rc.Table, mp, rc.RequireBetsClosed, rc.OverrunCards
	}
	if cfg.Table == "" {
		cfg.Table = "table"
	}
	t, err := tableau.NewTable(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", j.Path(), err)
	}
	r := tableau.NewRecall(n)
	var outs []tableau.Output
	err = j.ReplayAll(func(rec journal.Record) error {
		var in tableau.Input
		if err := json.Unmarshal(rec.Data, &in); err != nil {
			return fmt.Errorf("%s: record %d: %w", j.Path(), rec.Seq, err)
		}
		outs = t.Apply(rec.Seq, rec.Time, in, outs[:0])
		r.Add(outs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r.Last(n), nil
}
