package baccarat

// column returns key(e) for every element e of s, in order: the codes of
// the alert table, the names of the game registry.
func column[E, K any](s []E, key func(E) K) []K {
	out := make([]K, len(s))
	for i, e := range s {
		out[i] = key(e)
	}
	return out
}

// find returns the first element of s whose key is k, and false (with the
// zero E) when there is none.
func find[E any, K comparable](s []E, k K, key func(E) K) (E, bool) {
	for _, e := range s {
		if key(e) == k {
			return e, true
		}
	}
	var zero E
	return zero, false
}
