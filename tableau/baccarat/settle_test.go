package baccarat_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/card"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
)

func TestSettleEveryProfile(t *testing.T) {
	pb8 := baccarat.Rules{Game: baccarat.GamePuntoBanco, TiePays: 8}
	pb9 := baccarat.Rules{Game: baccarat.GamePuntoBanco, TiePays: 9}
	s6 := baccarat.Rules{Game: baccarat.GameSuper6}
	ez := baccarat.Rules{Game: baccarat.GameEZ}
	cases := []struct {
		name, deal string
		want       map[*baccarat.Rules]string
	}{
		{"player wins on a natural 9", "9S 3H KD 5C", map[*baccarat.Rules]string{
			&pb8: "player:win+1 banker:lose-1 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&pb9: "player:win+1 banker:lose-1 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&s6:  "player:win+1 banker:lose-1 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&ez:  "player:win+1 banker:lose-1 tie:lose-1 player-pair:lose-1 banker-pair:lose-1 dragon7:lose-1 panda8:lose-1",
		}},
		{"banker wins on a natural 9", "3H 9S 5C KD", map[*baccarat.Rules]string{
			&pb8: "player:lose-1 banker:win+0.95 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&pb9: "player:lose-1 banker:win+0.95 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&s6:  "player:lose-1 banker:win+1 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&ez:  "player:lose-1 banker:win+1 tie:lose-1 player-pair:lose-1 banker-pair:lose-1 dragon7:lose-1 panda8:lose-1",
		}},
		{"banker wins on a three-card 6", "7H 2D 3C KS 4H 4C", map[*baccarat.Rules]string{
			&pb8: "player:lose-1 banker:win+0.95 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&s6:  "player:lose-1 banker:win+0.5 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&ez:  "player:lose-1 banker:win+1 tie:lose-1 player-pair:lose-1 banker-pair:lose-1 dragon7:lose-1 panda8:lose-1",
		}},
		{"banker wins on a two-card 6 with pairs", "2S 3H 2D 3C KH", map[*baccarat.Rules]string{
			&pb8: "player:lose-1 banker:win+0.95 tie:lose-1 player-pair:win+11 banker-pair:win+11",
			&s6:  "player:lose-1 banker:win+0.5 tie:lose-1 player-pair:win+11 banker-pair:win+11",
		}},
		{"Dragon 7", "AS KH 3S 3D 2H 4C", map[*baccarat.Rules]string{
			&pb8: "player:lose-1 banker:win+0.95 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&s6:  "player:lose-1 banker:win+1 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&ez:  "player:lose-1 banker:push+0 tie:lose-1 player-pair:lose-1 banker-pair:lose-1 dragon7:win+40 panda8:lose-1",
		}},
		{"banker wins on a two-card 7 (not a Dragon 7)", "QS 4H 6D 3C", map[*baccarat.Rules]string{
			&pb8: "player:lose-1 banker:win+0.95 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&ez:  "player:lose-1 banker:win+1 tie:lose-1 player-pair:lose-1 banker-pair:lose-1 dragon7:lose-1 panda8:lose-1",
		}},
		{"Panda 8", "4S 6H AH KC 3D", map[*baccarat.Rules]string{
			&pb8: "player:win+1 banker:lose-1 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&s6:  "player:win+1 banker:lose-1 tie:lose-1 player-pair:lose-1 banker-pair:lose-1",
			&ez:  "player:win+1 banker:lose-1 tie:lose-1 player-pair:lose-1 banker-pair:lose-1 dragon7:lose-1 panda8:win+25",
		}},
		{"tie with both pairs", "9S 9H 9C 9D", map[*baccarat.Rules]string{
			&pb8: "player:push+0 banker:push+0 tie:win+8 player-pair:win+11 banker-pair:win+11",
			&pb9: "player:push+0 banker:push+0 tie:win+9 player-pair:win+11 banker-pair:win+11",
			&s6:  "player:push+0 banker:push+0 tie:win+8 player-pair:win+11 banker-pair:win+11",
			&ez:  "player:push+0 banker:push+0 tie:win+8 player-pair:win+11 banker-pair:win+11 dragon7:lose-1 panda8:lose-1",
		}},
	}
	for _, tc := range cases {
		c := dealtest.DealAll(t, tc.deal)
		for r, want := range tc.want {
			if got := dealtest.Payouts(t, *r, c); got != want {
				t.Errorf("%s under %s:\n got %s\nwant %s", tc.name, *r, got, want)
			}
			s, err := r.SettleAll(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range baccarat.Bets {
				p, _ := r.Settle(c, b)
				if s.Of(b) != p {
					t.Errorf("%s under %s: SettleAll %s = %+v, Settle = %+v", tc.name, *r, b, s.Of(b), p)
				}
			}
		}
	}
}

func TestSettleErrors(t *testing.T) {
	var c baccarat.Coup
	c.Deal(card.Card{Rank: card.Rank5})
	if _, err := (baccarat.Rules{}).Settle(c, baccarat.BetPlayer); !errors.Is(err, baccarat.ErrCoupIncomplete) {
		t.Errorf("incomplete coup: %v", err)
	}
	if _, err := (baccarat.Rules{}).SettleAll(c); !errors.Is(err, baccarat.ErrCoupIncomplete) {
		t.Errorf("SettleAll incomplete coup: %v", err)
	}
	done := dealtest.DealAll(t, "9S 3H KD 5C")
	if _, err := (baccarat.Rules{TiePays: 7}).Settle(done, baccarat.BetTie); !errors.Is(err, baccarat.ErrRules) {
		t.Errorf("tie pays 7: %v", err)
	}
	if _, err := (baccarat.Rules{}).Settle(done, baccarat.BetDragon7); !errors.Is(err, baccarat.ErrBetNotOffered) {
		t.Errorf("dragon 7 under punto banco: %v", err)
	}
}

func TestParseGame(t *testing.T) {
	for s, want := range map[string]baccarat.Game{"punto-banco": baccarat.GamePuntoBanco, "SUPER6": baccarat.GameSuper6, "ez": baccarat.GameEZ} {
		g, err := baccarat.ParseGame(s)
		if err != nil || g != want {
			t.Errorf("ParseGame(%q) = %v, %v", s, g, err)
		}
	}
	// chemin-de-fer became a game (issue 14); an unknown name is still an error.
	if _, err := baccarat.ParseGame("chemmy"); !errors.Is(err, baccarat.ErrRules) {
		t.Errorf("chemmy: %v", err)
	}
}

func TestSettlementJSON(t *testing.T) {
	c := dealtest.DealAll(t, "AS KH 3S 3D 2H 4C")
	s, err := baccarat.Rules{Game: baccarat.GameEZ}.SettleAll(c)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	want := `{"player":{"result":"lose","net":-1},"banker":{"result":"push","net":0},"tie":{"result":"lose","net":-1},"player_pair":{"result":"lose","net":-1},"banker_pair":{"result":"lose","net":-1},"dragon7":{"result":"win","net":40},"panda8":{"result":"lose","net":-1}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	s, _ = baccarat.Rules{}.SettleAll(c)
	b, _ = json.Marshal(s)
	if strings.Contains(string(b), "dragon7") {
		t.Errorf("punto banco settlement has EZ bets: %s", b)
	}
}
