package display

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// The "Error codes" table of docs/configuration.md lists exactly the codes of tableau's
// alert table that a display shows, with the same numbers.
func TestReadmeErrorCodes(t *testing.T) {
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| E([0-9]+) \\| `([a-z0-9-]+)` \\|")
	readme := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		n, _ := strconv.Atoi(m[1])
		if prev, dup := readme[m[2]]; dup {
			t.Errorf("docs/configuration.md lists %s twice (E%d, E%d)", m[2], prev, n)
		}
		readme[m[2]] = n
	}
	for _, m := range baccarat.Alerts() {
		n, ok := readme[string(m.Code)]
		switch {
		case m.E == 0 && ok:
			t.Errorf("docs/configuration.md gives %s E%d; it is never shown", m.Code, n)
		case m.E != 0 && !ok:
			t.Errorf("docs/configuration.md lacks %s (E%d)", m.Code, m.E)
		case m.E != n:
			t.Errorf("docs/configuration.md gives %s E%d, the alert table E%d", m.Code, n, m.E)
		}
		delete(readme, string(m.Code))
	}
	for code, n := range readme {
		t.Errorf("docs/configuration.md lists E%d %s, which the alert table lacks", n, code)
	}
}
