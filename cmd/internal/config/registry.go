package config

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/sabot-table/sabot/tableau"
)

// MaxRegistryLine is the longest line of a UID registry, in bytes (a
// card's UID is at most 10 bytes, 20 hex digits; the rest is a card and a
// comment). LoadRegistry refuses a longer line with its line and column
// without reading the rest of it: the scanner's buffer never grows past
// this.
const MaxRegistryLine = 1024

// LoadRegistry reads a UID registry: one "UID CARD" per line, '#' comments,
// lines of at most MaxRegistryLine bytes.
func LoadRegistry(path string) (map[string]tableau.Card, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("shoe.uid_registry: %w", err)
	}
	defer f.Close()
	reg := map[string]tableau.Card{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), MaxRegistryLine+1) // +1: the line's '\n'
	line := 0
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return nil, fmt.Errorf("shoe.uid_registry: %s:%d: want \"UID CARD\", got %q", path, line, strings.TrimSpace(text))
		}
		c, err := tableau.ParseCard(fields[1])
		if err != nil {
			return nil, fmt.Errorf("shoe.uid_registry: %s:%d: %w", path, line, err)
		}
		if prev, dup := reg[fields[0]]; dup {
			return nil, fmt.Errorf("shoe.uid_registry: %s:%d: UID %s listed twice (%s and %s)", path, line, fields[0], prev, c)
		}
		reg[fields[0]] = c
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("shoe.uid_registry: %s:%d:%d: line longer than %d bytes", path, line+1, MaxRegistryLine+1, MaxRegistryLine)
	} else if err != nil {
		return nil, fmt.Errorf("shoe.uid_registry: %s: %w", path, err)
	}
	return reg, nil
}
