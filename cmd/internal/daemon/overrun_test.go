package daemon

import (
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// The config's overrun_cards reaches the table: a 1-deck shoe with
// overrun_cards = 3 raises shoe-overrun on its 56th card, once.
func TestConfigOverrunCards(t *testing.T) {
	cfg, err := config.Parse([]byte("table = \"T1\"\ndecks = 1\noverrun_cards = 3\n[shoe]\ndevice = \"/dev/x\"\nmarkers = \"off\"\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if def := config.Default(); def.OverrunCards != 52 {
		t.Errorf("default overrun_cards %d", def.OverrunCards)
	}
	tb, err := cfg.NewTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	var raised []int
	for i := 1; i <= 200; i++ {
		c := tableau.Card{Rank: card.RankAce + tableau.Rank(i%13), Suit: card.Spades + tableau.Suit(i%4)}
		for _, o := range tb.Apply(uint64(i), time.Unix(int64(i), 0), tableau.Input{Kind: tableau.InputCard, Card: c}, nil) {
			if o.Kind == tableau.OutputAlert && o.Event.Alert.Code == baccarat.AlertShoeOverrun {
				raised = append(raised, i)
			}
		}
	}
	if len(raised) != 1 || raised[0] != 56 {
		t.Fatalf("shoe-overrun on cards %v, want [56]", raised)
	}
}
