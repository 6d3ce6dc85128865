package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRoadsGames: sabot roads draws chemin de fer's coups as punto
// banco's (punter, banker, tie); banque, Macao and Victoria, whose coups
// have no one winner, have no roads: exit 2 with the reason, nothing on
// standard output (empty roads would say no coup was dealt).
func TestRoadsGames(t *testing.T) {
	var out, errb bytes.Buffer
	src := "shoe 2C 8D 4S | 7H 2C KD 4S | 4D 2C AS KH stand 5S | 7S 7H KC KD |\n"
	if code := run(context.Background(), []string{"roads", "--game", "chemin-de-fer", "-"}, strings.NewReader(src), &out, &errb); code != 0 {
		t.Fatalf("chemin de fer: exit %d: %s", code, errb.String())
	}
	var r struct {
		Bead  string         `json:"bead_plate"`
		Stats map[string]int `json:"stats"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Bead != "PBT" || r.Stats["coups"] != 3 {
		t.Errorf("chemin de fer roads: %v %s", err, out.String())
	}
	for _, game := range []string{"banque", "macao", "victoria"} {
		out.Reset()
		errb.Reset()
		code := run(context.Background(), []string{"roads", "--game", game, "-"}, strings.NewReader("shoe 2C 8D 4S | 4H 7C 2D 3S QH 5C |\n"), &out, &errb)
		if code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), "sabot roads: --game "+game+" has no roads") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", game, code, out.String(), errb.String())
		}
	}
}
