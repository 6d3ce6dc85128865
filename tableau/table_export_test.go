package tableau

// TableCounters is the number of output counters a Table keeps (tests).
func TableCounters(t *Table) int { return len(t.counts) }
