// Package enum names the values of tableau's small enumerations from one
// table, so that a type's String, its Parse function and its text encoding
// read the same words; and it decodes the text of the types that have a
// Parse function. It imports only the standard library; being
// internal to tableau, every layer (card, baccarat, odds, chemin, tableau)
// may use it.
package enum

import (
	"fmt"
	"strconv"
)

// Names is the name table of an enumeration whose values are small
// unsigned integers: Words[v] is value v's name, "" for a value that has
// none (such as the zero value of a kind numbered from 1). Type is the Go
// type's name ("Need"), used for the text of a value without a name; ""
// makes that text "".
type Names[T ~uint8] struct {
	Type  string
	Words []string
}

// Name returns v's name. A value without one (past the end of Words, or ""
// there) gives Type(v), as "Need(9)", or "" when Type is "".
func (n Names[T]) Name(v T) string {
	if n.Valid(v) {
		return n.Words[v]
	}
	if n.Type == "" {
		return ""
	}
	return n.Type + "(" + strconv.Itoa(int(v)) + ")"
}

// Word returns Words[v], or "" past the end of Words: Name without the
// Type(v) text, small enough to inline where String is on a hot path (the
// winner and outcomes of a coup line's JSON).
func (n Names[T]) Word(v T) string {
	if int(v) < len(n.Words) {
		return n.Words[v]
	}
	return ""
}

// Valid reports whether v has a name.
func (n Names[T]) Valid(v T) bool { return int(v) < len(n.Words) && n.Words[v] != "" }

// Lookup returns the value named s (case-sensitive) and true, or 0 and
// false when no value has that name; "" names no value.
func (n Names[T]) Lookup(s string) (T, bool) {
	for i, w := range n.Words {
		if w != "" && w == s {
			return T(i), true
		}
	}
	return 0, false
}

// Encode returns v's name as text, for a MarshalText method; a value
// without a name returns the error bad() (bad is called only then).
func (n Names[T]) Encode(v T, bad func() error) ([]byte, error) {
	if !n.Valid(v) {
		return nil, bad()
	}
	return []byte(n.Words[v]), nil
}

// Decode sets *v to the value named b, for an UnmarshalText method. An
// unknown name leaves *v alone and returns the error `tableau: unknown
// WHAT "b"` (what is the kind of thing named: "winner").
func (n Names[T]) Decode(v *T, b []byte, what string) error {
	x, ok := n.Lookup(string(b))
	if !ok {
		return fmt.Errorf("tableau: unknown %s %q", what, b)
	}
	*v = x
	return nil
}

// UnmarshalText sets *v to parse(string(b)), for the UnmarshalText method
// of a type that has a Parse function (CutRule, Game, Commission). parse's
// error is returned as it is, and *v is then left alone.
func UnmarshalText[T any](v *T, b []byte, parse func(string) (T, error)) error {
	x, err := parse(string(b))
	if err != nil {
		return err
	}
	*v = x
	return nil
}
