package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestOddsPairSuited: `sabot odds --pair-suited-pays 25` values the pair
// bets with a suited pair paying 25 and any other 11. The figures are
// derived by hand (see tableau's pairsuited_test.go for the method): for a
// given hand's first two cards, ordered pairs of the same rank over all
// ordered pairs, and of the same rank and suit.
//   - 8 decks, fresh: P(pair) = 31/415, P(suited) = 7/415 (7 copies of
//     the first card among the 415 others); EV = (11·24 + 25·7 − 384)/415
//     = +55/415, a house edge of −55/415.
//   - 6 decks less AS, AS, AH (309 cards: aces 21, other ranks 24; AS 4
//     copies, AH 5, the other 50 cards 6): pairs 21·20 + 12·24·23 = 7044
//     and suited 4·3 + 5·4 + 50·6·5 = 1532 of 309·308 = 95172 ordered
//     pairs; EV = (11·5512 + 25·1532 − 88128)/95172 = 10804/95172.
func TestOddsPairSuited(t *testing.T) {
	type out struct {
		PlayerPairSuited *float64 `json:"player_pair_suited"`
		BankerPairSuited *float64 `json:"banker_pair_suited"`
		HouseEdge        struct {
			PP *float64 `json:"player_pair"`
			BP *float64 `json:"banker_pair"`
		} `json:"house_edge"`
	}
	run := func(args ...string) (out, string) {
		t.Helper()
		s, errs, code := runSabot(t, "", append([]string{"odds"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var o out
		if err := json.Unmarshal([]byte(s), &o); err != nil {
			t.Fatal(err)
		}
		return o, s
	}
	for _, c := range []struct {
		args         []string
		suited, edge float64
		tol          float64
	}{
		{[]string{"--pair-suited-pays", "25"}, 7.0 / 415, -55.0 / 415, 1e-15},
		{[]string{"--pair-suited-pays", "25", "--decks", "6", "--removed", "AS AS AH"}, 1532.0 / 95172, -10804.0 / 95172, 1e-15},
		// Suited 12, unsuited 11: (11·24 + 12·7 − 384)/415 = −36/415.
		{[]string{"--pair-suited-pays", "12"}, 7.0 / 415, 36.0 / 415, 1e-15},
	} {
		o, s := run(c.args...)
		if o.PlayerPairSuited == nil || o.BankerPairSuited == nil || math.Abs(*o.PlayerPairSuited-c.suited) > c.tol ||
			o.HouseEdge.PP == nil || o.HouseEdge.BP == nil || math.Abs(*o.HouseEdge.PP-c.edge) > c.tol || *o.HouseEdge.BP != *o.HouseEdge.PP {
			t.Errorf("%v: want suited %v, pair edge %v; got\n%s", c.args, c.suited, c.edge, s)
		}
	}
	// A rank-only card removed: the suits left are unknown, the pair bets
	// are not valued (null), as Perfect Pair.
	if o, s := run("--pair-suited-pays", "25", "--removed", "7 5H"); o.HouseEdge.PP != nil || !strings.Contains(s, `"player_pair_suited":null`) {
		t.Errorf("rank-only card: %s", s)
	}
	// Without the rule: no suited figures, the pair edge at 11 (the
	// published 10.36%), and the same after a rank-only card.
	for _, removed := range []string{"", "7 5H"} {
		o, s := run("--removed", removed)
		if strings.Contains(s, "suited") || o.HouseEdge.PP == nil || math.Abs(*o.HouseEdge.PP-0.1036) > 1e-3 {
			t.Errorf("no suited pay, removed %q: %s", removed, s)
		}
	}
}

// TestCheckPairSuited: `sabot check --pair-suited-pays 25` settles a
// suited pair at 25, an unsuited one at 11 and leaves a pair with a
// rank-only card unsettled (no player_pair in its settlement); with
// --advantage 0 both pair bets raise an advantage alert before the first
// coup (the burn's six cards out: near +55/415).
func TestCheckPairSuited(t *testing.T) {
	const shoe = "shoe\n5H 2C 3D 4D 5S 6S |\n" +
		"4H 9D 4H KS |\n" + // player 4H 4H, suited; banker natural 9
		"KH 7C 8H 7D |\n" + // banker 7C 7D, unsuited; player natural 8
		"2S 9C 2 KC |\n" // player 2S 2: a rank-only card
	out, errs, code := runSabot(t, shoe, "check", "--pair-suited-pays", "25")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	for i, want := range []string{
		`"player_pair":{"result":"win","net":25},"banker_pair":{"result":"lose","net":-1}`,
		`"player_pair":{"result":"lose","net":-1},"banker_pair":{"result":"win","net":11}`,
		`"tie":{"result":"lose","net":-1},"banker_pair":{"result":"lose","net":-1}}`,
	} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("coup %d: %s\nwant %s", i+1, lines[i], want)
		}
	}
	// Without the rule the suited pair pays 11 and the rank-only pair too.
	plain, _, _ := runSabot(t, shoe, "check")
	if strings.Count(plain, `{"result":"win","net":11}`) != 3 || strings.Contains(plain, `"net":25`) {
		t.Errorf("no suited pay:\n%s", plain)
	}
	adv, _, code := runSabot(t, shoe, "check", "--pair-suited-pays", "25", "--advantage", "0")
	var bets []string
	for _, l := range strings.Split(strings.TrimSpace(adv), "\n") {
		var a struct {
			Code, Bet string
			Coup      int
			EV        float64
		}
		if json.Unmarshal([]byte(l), &a) == nil && a.Code == "advantage" {
			if a.Coup == 1 {
				bets = append(bets, a.Bet)
			}
			if math.Abs(a.EV-55.0/415) > 0.005 {
				t.Errorf("advantage %s %v, want about %v", a.Bet, a.EV, 55.0/415)
			}
		}
	}
	if code != 1 || len(bets) != 2 || bets[0] != "player_pair" || bets[1] != "banker_pair" {
		t.Errorf("advantage: exit %d, coup 1 alerts %v\n%s", code, bets, adv)
	}
}
