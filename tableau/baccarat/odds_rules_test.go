package baccarat_test

import (
	"testing"

	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// TestOddsRefuseAGameOutsideTheRegistry: the odds engine values no bet
// under rules whose game the registry does not know (invalid rules).
func TestOddsRefuseAGameOutsideTheRegistry(t *testing.T) {
	rc := baccarat.FullShoe(8)
	o, err := odds.AnalyzeOdds(&rc)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := o.EV(baccarat.BetPlayer, baccarat.Rules{Game: baccarat.BogusGame}); ok {
		t.Error("invalid game valued")
	}
}
