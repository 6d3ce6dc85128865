package config

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sabot-table/sabot/tableau"
)

// DealerConfig is the [dealer] table: the shifts the per-dealer counts
// restart at, and the roster the dealer key signs in from.
type DealerConfig struct {
	// ShiftStart lists the local times ("HH:MM", 24-hour, ascending) at
	// which the dealers' shifts begin each day; the per-dealer counts of
	// the state message and /metrics restart at each. Default
	// ["06:00", "14:00", "22:00"]; [] means one shift a day from midnight.
	ShiftStart []string `toml:"shift_start"`
	// TimeZone is the IANA zone of ShiftStart ("Europe/Paris"); "" is the
	// system's local time zone.
	TimeZone string `toml:"time_zone"`
	// Roster lists the dealer ids the dealer key signs in: n presses of
	// [gpio] dealer_key sign in the n-th (the key sequence, below). At
	// most MaxRoster ids, each a valid dealer id (tableau.ValidateDealerID).
	Roster []string `toml:"roster"`
	// KeyGapMS ends a dealer-key sequence: the presses are counted until
	// none has come for this long (ms, 300–10000, default
	// DefaultKeyGapMS).
	KeyGapMS int `toml:"key_gap_ms"`
}

// MaxRoster bounds [dealer] roster: a dealer is picked by counting key
// presses, and nobody counts past twenty reliably.
const MaxRoster = 20

// DefaultKeyGapMS is [dealer] key_gap_ms's default: long enough for a
// dealer to press at an unhurried pace, short enough to feel prompt.
const DefaultKeyGapMS = 1500

// validate checks the [dealer] keys, naming each bad one.
func (c DealerConfig) validate(bad func(key, format string, args ...any)) {
	if _, err := c.starts(); err != nil {
		bad("dealer.shift_start", "%v", err)
	}
	if c.TimeZone != "" {
		if _, err := time.LoadLocation(c.TimeZone); err != nil {
			bad("dealer.time_zone", "%q: %v", c.TimeZone, err)
		}
	}
	if len(c.Roster) > MaxRoster {
		bad("dealer.roster", "%d dealers, at most %d (the dealer key is pressed once per place)", len(c.Roster), MaxRoster)
	}
	for i, id := range c.Roster {
		if err := tableau.ValidateDealerID(id); err != nil {
			bad("dealer.roster", "item %d %q: %s", i+1, id, strings.TrimPrefix(err.Error(), tableau.ErrDealerID.Error()+": "))
		} else if j := slices.Index(c.Roster, id); j < i {
			bad("dealer.roster", "item %d %q is item %d again", i+1, id, j+1)
		}
	}
	if c.KeyGapMS < 300 || c.KeyGapMS > 10000 {
		bad("dealer.key_gap_ms", "%d: want 300–10000 ms", c.KeyGapMS)
	}
}

// starts parses ShiftStart into minutes after midnight.
func (c DealerConfig) starts() ([]int, error) {
	var out []int
	for i, s := range c.ShiftStart {
		h, m, ok := strings.Cut(s, ":")
		hh, err1 := parseDigits(h)
		mm, err2 := parseDigits(m)
		if !ok || len(h) != 2 || len(m) != 2 || err1 != nil || err2 != nil || hh > 23 || mm > 59 {
			return nil, fmt.Errorf("item %d %q: want a time HH:MM, 00:00–23:59", i+1, s)
		}
		out = append(out, hh*60+mm)
	}
	sch := tableau.ShiftSchedule{Starts: out}
	if err := sch.Validate(); err != nil {
		return nil, fmt.Errorf("%s (list the times in the order of the day)", strings.TrimPrefix(err.Error(), tableau.ErrShifts.Error()+": "))
	}
	return out, nil
}

func parseDigits(s string) (int, error) {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("not a number: %q", s)
		}
		n = n*10 + int(r-'0')
	}
	return n, nil
}

// Schedule is the tableau's shift schedule for the configuration.
func (c DealerConfig) Schedule() (tableau.ShiftSchedule, error) {
	starts, err := c.starts()
	if err != nil {
		return tableau.ShiftSchedule{}, fmt.Errorf("config: dealer.shift_start: %w", err)
	}
	loc := time.Local
	if c.TimeZone != "" {
		if loc, err = time.LoadLocation(c.TimeZone); err != nil {
			return tableau.ShiftSchedule{}, fmt.Errorf("config: dealer.time_zone: %w", err)
		}
	}
	return tableau.ShiftSchedule{Starts: starts, Location: loc}, nil
}
