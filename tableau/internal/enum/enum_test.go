package enum

import (
	"errors"
	"testing"
)

type kind uint8

var kinds = Names[kind]{Type: "kind", Words: []string{"", "one", "two"}}

func TestName(t *testing.T) {
	for v, want := range []string{"kind(0)", "one", "two", "kind(3)"} {
		if got := kinds.Name(kind(v)); got != want {
			t.Errorf("Name(%d) = %q, want %q", v, got, want)
		}
	}
	if got := (Names[kind]{Words: kinds.Words}).Name(7); got != "" {
		t.Errorf("Name(7) without Type = %q, want \"\"", got)
	}
	if got := kinds.Name(255); got != "kind(255)" {
		t.Errorf("Name(255) = %q", got)
	}
}

func TestWord(t *testing.T) {
	for v, want := range []string{"", "one", "two", ""} {
		if got := kinds.Word(kind(v)); got != want {
			t.Errorf("Word(%d) = %q, want %q", v, got, want)
		}
	}
}

func TestLookup(t *testing.T) {
	for s, want := range map[string]kind{"one": 1, "two": 2} {
		if got, ok := kinds.Lookup(s); !ok || got != want {
			t.Errorf("Lookup(%q) = %d, %v; want %d, true", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "One", "three"} {
		if got, ok := kinds.Lookup(s); ok {
			t.Errorf("Lookup(%q) = %d, true; want false", s, got)
		}
	}
}

func TestEncode(t *testing.T) {
	bad := func() error { return errors.New("no name") }
	if b, err := kinds.Encode(2, bad); err != nil || string(b) != "two" {
		t.Errorf("Encode(2) = %q, %v", b, err)
	}
	for _, v := range []kind{0, 3} {
		if b, err := kinds.Encode(v, bad); err == nil || err.Error() != "no name" || b != nil {
			t.Errorf("Encode(%d) = %q, %v", v, b, err)
		}
	}
}

func TestDecode(t *testing.T) {
	var k kind
	if err := kinds.Decode(&k, []byte("two"), "kind"); err != nil || k != 2 {
		t.Errorf("Decode(two) = %d, %v", k, err)
	}
	err := kinds.Decode(&k, []byte("three"), "kind")
	if err == nil || err.Error() != `tableau: unknown kind "three"` || k != 2 {
		t.Errorf("Decode(three) = %d, %v", k, err)
	}
}

func TestUnmarshalText(t *testing.T) {
	parse := func(s string) (kind, error) {
		if k, ok := kinds.Lookup(s); ok {
			return k, nil
		}
		return 0, errors.New("bad kind")
	}
	k := kind(1)
	if err := UnmarshalText(&k, []byte("two"), parse); err != nil || k != 2 {
		t.Errorf("UnmarshalText(two) = %d, %v", k, err)
	}
	if err := UnmarshalText(&k, []byte("six"), parse); err == nil || err.Error() != "bad kind" || k != 2 {
		t.Errorf("UnmarshalText(six) = %d, %v", k, err)
	}
}
