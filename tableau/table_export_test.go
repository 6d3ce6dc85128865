package tableau

// TableCounters is the number of output counters a Table keeps (tests).
func TableCounters(t *Table) int { return 2 * len(t.counts.n) }

// TableUIDs is the number of reader UIDs a Table remembers (tests).
func TableUIDs(t *Table) int { return len(t.uids) }
