package ledchip

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/display/segment"
)

func testChip(name string, opts ...Option) Chip {
	return Chip{Name: name, Options: opts, Open: func(Settings, Bus) (segment.Renderer, error) { return nil, nil }}
}

func TestRegisterRefusesMistakes(t *testing.T) {
	for _, c := range []Chip{
		testChip(""), testChip("Upper"), testChip("terminal"), testChip("none"),
		testChip("x1", Option{Key: "digits", Kind: Int}),
		testChip("x2", Option{Key: "a", Kind: Int}, Option{Key: "a", Kind: Int}),
		testChip("x3", Option{Key: "a", Kind: Int, Default: "one"}),
		{Name: "x4"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", c)
				}
			}()
			Register(c)
		}()
	}
	Register(testChip("ledchip-test-dup"))
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "twice") {
			t.Errorf("duplicate: %v", r)
		}
	}()
	Register(testChip("ledchip-test-dup"))
}

func TestResolve(t *testing.T) {
	c := testChip("ledchip-test-resolve",
		Option{Key: "n", Kind: Int, Default: 2},
		Option{Key: "s", Kind: String, Default: "x"},
		Option{Key: "p", Kind: Pin, Default: "GPIO1"},
		Option{Key: "l", Kind: Ints})
	c.Digits = func(s Settings) int { return s.Int("n") * 3 }
	s, errs := c.Resolve(0, 10, map[string]any{"n": int64(2), "l": []any{int64(1), int64(0)}})
	want := map[string]any{"n": 2, "s": "x", "p": "GPIO1", "l": []int{1, 0}}
	if len(errs) != 0 || !reflect.DeepEqual(s.Values, want) || s.Digits != 6 || s.Brightness != 10 {
		t.Errorf("Resolve: %+v %v", s, errs)
	}
	_, errs = c.Resolve(7, 10, map[string]any{"n": "two", "s": 3, "l": []any{"a"}, "p": int64(4)})
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	wantErrs := []string{
		"ledchip: n: wrong type: a TOML string where an integer is wanted",
		"ledchip: s: wrong type: a TOML integer where a string is wanted",
		"ledchip: p: wrong type: a TOML integer where a pin name (a string) is wanted",
		"ledchip: l: wrong type: a TOML array where an array of integers is wanted",
		"ledchip: digits: 7: the ledchip-test-resolve drives 1 to 6 digits with these settings",
	}
	if !reflect.DeepEqual(got, wantErrs) {
		t.Errorf("errors\n%q\nwant\n%q", got, wantErrs)
	}
}
