package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Faults are the rates at which the virtual shoe injects faults, each a
// probability in [0, 1]. All faults are drawn from a generator seeded by
// Options.Seed, so a run is reproducible.
type Faults struct {
	Corrupt    float64 // per byte written: the byte is replaced by a different one
	Drop       float64 // per frame written: the frame is not written at all
	Dup        float64 // per frame written: the frame is written twice
	Split      float64 // per frame written: written in two Write calls with a pause between
	Pull       float64 // per card: the cable is pulled before the card (close, wait, reopen)
	Reboot     float64 // per card: the shoe reboots before the card (new boot id, sequence restarts)
	Unreadable float64 // per card: CARD_UNREADABLE is sent instead of the CARD
}

var faultNames = []string{"corrupt", "drop", "dup", "split", "pull", "reboot", "unreadable"}

// rates are f's fields in the order of faultNames.
func (f *Faults) rates() []*float64 {
	return []*float64{&f.Corrupt, &f.Drop, &f.Dup, &f.Split, &f.Pull, &f.Reboot, &f.Unreadable}
}

// field is the rate of the fault named name, nil for an unknown name.
func (f *Faults) field(name string) *float64 {
	if i := slices.Index(faultNames, name); i >= 0 {
		return f.rates()[i]
	}
	return nil
}

// ParseFaults parses the --faults syntax: comma-separated name=rate pairs,
// names corrupt, drop, dup, split, pull, reboot, unreadable, rates in
// [0, 1] ("corrupt=0.01,drop=0.005"). The empty string is no faults.
func ParseFaults(s string) (Faults, error) {
	var f Faults
	if strings.TrimSpace(s) == "" {
		return f, nil
	}
	for i, item := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return Faults{}, fmt.Errorf("sim: faults item %d %q: want name=rate", i+1, item)
		}
		p := f.field(name)
		if p == nil {
			return Faults{}, fmt.Errorf("sim: faults item %d: unknown fault %q (known: %s)", i+1, name, strings.Join(faultNames, ", "))
		}
		r, err := strconv.ParseFloat(val, 64)
		if err != nil || r < 0 || r > 1 || r != r {
			return Faults{}, fmt.Errorf("sim: faults item %d: %s rate %q is not a number in [0, 1]", i+1, name, val)
		}
		*p = r
	}
	return f, nil
}

// String formats f in the ParseFaults syntax, non-zero rates only.
func (f Faults) String() string {
	var parts []string
	for _, n := range faultNames {
		if v := *f.field(n); v != 0 {
			parts = append(parts, n+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	return strings.Join(parts, ",")
}
