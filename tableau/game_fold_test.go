package tableau_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/internal/dealtest"
	"github.com/sabot-table/sabot/tableau/odds"
)

// foldGame folds src (a transcript) in game g and returns its events as
// JSON lines.
func foldGame(t *testing.T, g baccarat.Game, src string) []string {
	t.Helper()
	toks, err := tableau.ParseTranscript(strings.NewReader(src), "t")
	if err != nil {
		t.Fatal(err)
	}
	evs, err := tableau.FoldTokens(tableau.Options{Rules: baccarat.Rules{Game: g}, Markers: tableau.HasMarkers(toks)}, toks)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// gameSummary renders events briefly: "coup 1 player [...] options [...]",
// "alert 2 missing-card".
func gameSummary(t *testing.T, lines []string) string {
	t.Helper()
	var parts []string
	for _, l := range lines {
		var m map[string]any
		json.Unmarshal([]byte(l), &m)
		switch m["type"] {
		case "coup":
			o, _ := json.Marshal(m["options"])
			w := m["winner"]
			if w == nil {
				w = m["right_winner"].(string) + "/" + m["left_winner"].(string)
			}
			parts = append(parts, "coup "+jsonNum(m["coup"])+" "+w.(string)+" "+string(o))
		case "alert":
			parts = append(parts, "alert "+jsonNum(m["coup"])+" "+m["code"].(string))
		case "void":
			parts = append(parts, "void "+jsonNum(m["coup"]))
		}
	}
	return strings.Join(parts, "; ")
}

func jsonNum(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestStandToken(t *testing.T) {
	burn := "shoe 2C 8D 4S |\n" // burn: a 2 and two more
	for _, c := range []struct {
		name string
		game baccarat.Game
		src  string
		want string
	}{
		// Punto banco: stand at the player's forced stand (6) is accepted;
		// the banker's 3 then draws.
		{"punto banco forced stand", baccarat.GamePuntoBanco, "3S TH 3D 3H stand 4C |", "coup 1 banker null"},
		{"punto banco stand, stand after complete", baccarat.GamePuntoBanco, "3S TH 4D 3H stand 4C stand |", "coup 1 tie null"},
		// At a forced draw: missing-card, no result; "|" then closes nothing.
		{"punto banco forced draw", baccarat.GamePuntoBanco, "AS TH 3D 3H stand |", "alert 1 missing-card"},
		{"punto banco banker's forced draw", baccarat.GamePuntoBanco, "3S TH 3D 3H stand stand |", "alert 1 missing-card"},
		// Between coups (no coup in progress): misplaced-token, nothing else changes.
		{"stand between coups", baccarat.GamePuntoBanco, "stand 9S KH KD 5C | stand", "alert 0 misplaced-token; coup 1 player null; alert 1 misplaced-token"},
		{"non is stand", baccarat.GameCheminDeFer, "4H 3D AC KS non 5C |", `coup 1 banker [{"choice":"stand","hand":"player","total":5}]`},
		// Chemin de fer: an option stood by "stand" and by "|".
		{"option stand", baccarat.GameCheminDeFer, "2S 3H 2D KH 9C stand |", `coup 1 tie [{"choice":"stand","hand":"banker","player_third":9,"total":3}]`},
		{"option closed by |", baccarat.GameCheminDeFer, "2S 3H 2D KH 9C |", `coup 1 tie [{"choice":"stand","hand":"banker","player_third":9,"total":3}]`},
		{"option draw", baccarat.GameCheminDeFer, "2S 3H 2D KH 9C 5D |", `coup 1 banker [{"choice":"draw","hand":"banker","player_third":9,"total":3}]`},
		// "|" at the punter's option stands him, then the banker must draw: missing-card.
		{"| at the punter's 5 then a forced draw", baccarat.GameCheminDeFer, "4H 3D AC KS |", "alert 1 missing-card"},
		// "|" at the punter's 5 when the banker then stands (7): complete.
		{"| at the punter's 5, banker 7", baccarat.GameCheminDeFer, "4H 3D AC 4S |", `coup 1 banker [{"choice":"stand","hand":"player","total":5}]`},
		// Both options in one coup, in order.
		{"two options", baccarat.GameCheminDeFer, "4H 3D AC 2S 4C 9C |", `coup 1 player [{"choice":"draw","hand":"player","total":5},{"choice":"draw","hand":"banker","player_third":4,"total":5}]`},
		// A card where the banker must stand is extra: the result stands.
		{"extra card", baccarat.GameCheminDeFer, "AD 2H 3S AH 8D 7C |", "coup 1 banker []; alert 1 extra-card"},
		// Banque: right's forced stand, left's forced draw, banker's option.
		{"banque", baccarat.GameBanque, "5S 2H 9D KC AC 8H stand 4D 6H |", `coup 1 right/left [{"choice":"stand","hand":"right","total":5},{"choice":"draw","hand":"banker","total":7}]`},
		{"banque | stands through", baccarat.GameBanque, "4H 7C 2D 3S QH 5C |", `coup 1 tie/tie [{"choice":"stand","hand":"banker","total":7}]`},
		{"banque stand at the left's forced draw", baccarat.GameBanque, "6S 2H 9D KC AC 8H stand stand |", "alert 1 missing-card"},
	} {
		got := gameSummary(t, foldGame(t, c.game, burn+c.src))
		if got != c.want {
			t.Errorf("%s: %s\n got %s\nwant %s", c.name, c.src, got, c.want)
		}
	}
}

// TestStandWithoutMarkers: without "|", an option waits for its card or
// its stand; a stand at a forced draw ends the coup (the next card starts
// the next coup).
func TestStandWithoutMarkers(t *testing.T) {
	burn := "2C 8D 4S " // burn by count
	for _, c := range []struct {
		name string
		game baccarat.Game
		src  string
		want string
	}{
		{"option waits: the next card is the banker's draw", baccarat.GameCheminDeFer, "2S 3H 2D KH 9C 5D 9S KH KD 5C",
			`coup 1 banker [{"choice":"draw","hand":"banker","player_third":9,"total":3}]; coup 2 player []`},
		{"option stood", baccarat.GameCheminDeFer, "2S 3H 2D KH 9C stand 9S KH KD 5C",
			`coup 1 tie [{"choice":"stand","hand":"banker","player_third":9,"total":3}]; coup 2 player []`},
		{"left waiting at the end", baccarat.GameCheminDeFer, "2S 3H 2D KH 9C", "alert 1 incomplete-coup"},
		{"forced draw stood", baccarat.GamePuntoBanco, "AS TH 3D 3H stand 9S KH KD 5C", "alert 1 missing-card; coup 2 player null"},
	} {
		got := gameSummary(t, foldGame(t, c.game, burn+c.src))
		if got != c.want {
			t.Errorf("%s: %s\n got %s\nwant %s", c.name, c.src, got, c.want)
		}
	}
}

func TestBanqueSettlement(t *testing.T) {
	// right, left, banker totals and the expected results and nets.
	for _, c := range []struct {
		cards          string // R L B R L B, then draws
		right, left    string
		rNet, lNet, ac float64
	}{
		{"4H 7C 2D 3S QH 5C |", "tie", "tie", 0, 0, 0},                // 7 7 7
		{"5S 2H 9D KC AC 8H stand 4D 6H |", "right", "left", 1, 1, 1}, // 5 7 3
		{"3C 6D 8S 2C AH JS |", "banker", "banker", -1, -1, -1},       // 5 7 8 natural
		{"7C 6D 4S KC KH 2S |", "right", "tie", 1, 0, 0.5},            // 7 6 6
		{"7C 7D 4S KC KH 2S |", "right", "left", 1, 1, 1},             // 7 7 6
		{"7C 5D 3S KC KH 3S stand |", "right", "banker", 1, -1, 0},    // 7 5 6
		{"5C 7D 3S KC KH 4S |", "banker", "tie", -1, 0, -0.5},         // 5 7 7
	} {
		lines := foldGame(t, baccarat.GameBanque, "shoe 2C 8D 4S |\n"+c.cards)
		if len(lines) != 1 {
			t.Errorf("%s: %v", c.cards, lines)
			continue
		}
		var m struct {
			RightWinner string `json:"right_winner"`
			LeftWinner  string `json:"left_winner"`
			Settlement  map[string]baccarat.Payout
		}
		json.Unmarshal([]byte(lines[0]), &m)
		s := m.Settlement
		if m.RightWinner != c.right || m.LeftWinner != c.left || s["right"].Net != c.rNet || s["left"].Net != c.lNet || s["a_cheval"].Net != c.ac {
			t.Errorf("%s: %s", c.cards, lines[0])
		}
		for key, net := range map[string]float64{"right": c.rNet, "left": c.lNet, "a_cheval": c.ac} {
			want := baccarat.Push
			if net > 0 {
				want = baccarat.Win
			} else if net < 0 {
				want = baccarat.Lose
			}
			if s[key].Outcome != want {
				t.Errorf("%s: %s outcome %s, want %s", c.cards, key, s[key].Outcome, want)
			}
		}
	}
	// Rules.Settle agrees, bet by bet; the punto banco bets are not offered.
	c := dealtest.DealCoup(t, baccarat.GameBanque, []string{"7C", "6D", "3S", "KC", "KH", "3S"})
	c.Stand()
	c.Stand()
	c.Stand()
	r := baccarat.Rules{Game: baccarat.GameBanque}
	for b, want := range map[baccarat.Bet]float64{baccarat.BetRight: 1, baccarat.BetLeft: 0, baccarat.BetACheval: 0.5} {
		p, err := r.Settle(c, b)
		if err != nil || p.Net != want {
			t.Errorf("Settle(%s) = %+v, %v; want net %v", b, p, err, want)
		}
	}
	if _, err := r.Settle(c, baccarat.BetTie); err == nil {
		t.Errorf("the tie bet is offered in banque")
	}
}

func TestCheminDeFerSettlement(t *testing.T) {
	for _, c := range []struct {
		src      string
		com      string
		player   float64
		banker   float64
		winnerIs string
	}{
		{"7H 2C KD 4S |", "", 1, -1, "player"},
		{"5D 9S QH 3C 2H 6C |", "", -1, 0.95, "banker"},
		{"5D 9S QH 3C 2H 6C |", "4%", -1, 0.96, "banker"},
		{"5D 9S QH 3C 2H 6C |", "0", -1, 1, "banker"},
		{"2S 3H 2D KH 9C stand |", "", 0, 0, "tie"},
	} {
		r := baccarat.Rules{Game: baccarat.GameCheminDeFer}
		if c.com != "" {
			var err error
			if r.Commission, err = baccarat.ParseCommission(c.com); err != nil {
				t.Fatal(err)
			}
		}
		toks, _ := tableau.ParseTranscript(strings.NewReader("shoe 2C 8D 4S |\n"+c.src), "t")
		evs, err := tableau.FoldTokens(tableau.Options{Rules: r, Markers: true}, toks)
		if err != nil || len(evs) != 1 {
			t.Fatalf("%s: %v %v", c.src, evs, err)
		}
		s := evs[0].Coup.Settlement
		if evs[0].Coup.Winner.String() != c.winnerIs || s.Player.Net != c.player || s.Banker.Net != c.banker ||
			s.Tie != (baccarat.Payout{}) || s.PlayerPair != (baccarat.Payout{}) {
			t.Errorf("%s (commission %q): %s", c.src, c.com, evs[0])
		}
	}
	if err := (baccarat.Rules{Game: baccarat.GameBanque, Commission: mustCommission(t, "5%")}).Validate(); err == nil {
		t.Errorf("a commission in banque is accepted")
	}
	if err := (baccarat.Rules{Game: baccarat.GameCheminDeFer, Side: baccarat.SideRules{Offered: baccarat.SideSet(1)}}).Validate(); err == nil {
		t.Errorf("side bets in chemin de fer are accepted")
	}
}

func mustCommission(t *testing.T, s string) baccarat.Commission {
	c, err := baccarat.ParseCommission(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGameLinesRoundTrip: chemin de fer and banque coup lines decode back
// to the same event (Event.UnmarshalJSON), and encode as json.Marshal does
// through AppendJSON.
func TestGameLinesRoundTrip(t *testing.T) {
	for g, src := range map[baccarat.Game]string{
		baccarat.GameCheminDeFer: "shoe 2C 8D 4S |\n2S 3H 2D KH 9C stand |\n4H 3D AC 2S 4C 9C |",
		baccarat.GameBanque:      "shoe 2C 8D 4S |\n5S 2H 9D KC AC 8H stand 4D 6H |\n3C 6D 8S 2C AH JS |",
	} {
		toks, _ := tableau.ParseTranscript(strings.NewReader(src), "t")
		evs, _ := tableau.FoldTokens(tableau.Options{Rules: baccarat.Rules{Game: g}, Markers: true}, toks)
		for _, e := range evs {
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			fast, err := e.AppendJSON(nil)
			if err != nil || string(fast) != string(b) {
				t.Errorf("%s: AppendJSON %s, Marshal %s", g, fast, b)
			}
			var back tableau.Event
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("%s: %s: %v", g, b, err)
			}
			b2, _ := json.Marshal(back)
			if string(b2) != string(b) {
				t.Errorf("%s: round trip\n%s\n%s", g, b, b2)
			}
		}
	}
}

// TestSnapshotMidCoupOptions: a table of each game with options,
// snapshotted in the middle of a coup after a stand (whose turn it is, the
// choices so far, banque's left tableau), restored and fed the rest, gives
// the same coup line as the table that never stopped.
func TestSnapshotMidCoupOptions(t *testing.T) {
	for _, c := range []struct {
		game       baccarat.Game
		before     string
		after      string
		wantOption int
	}{
		{baccarat.GameCheminDeFer, "shoe 2C 8D 4S | 3S 4H 3D TC stand", "8D |", 0},     // the punter's 6 stood: the 8 is the banker's
		{baccarat.GameCheminDeFer, "shoe 2C 8D 4S | 4D 2C AS KH stand", "5S |", 1},     // the punter's 5 stood
		{baccarat.GameBanque, "shoe 2C 8D 4S | 5S 2H 9D KC AC 8H stand", "4D 6H |", 2}, // right 5 stood
		{baccarat.GameBanque, "shoe 2C 8D 4S | 9H 5C 3D KS KH 2H stand", "5D |", 2},    // right natural 9: the stand was the left 5's; the 5D is the banker's
	} {
		cfg := tableau.TableConfig{Table: "T", Fold: tableau.Options{Rules: baccarat.Rules{Game: c.game}, Markers: true}}
		feed := func(tb *tableau.Table, src string, seq *uint64) []tableau.Output {
			toks, err := tableau.ParseTranscript(strings.NewReader(src), "t")
			if err != nil {
				t.Fatal(err)
			}
			var out []tableau.Output
			for _, tok := range toks {
				*seq++
				out = tb.Apply(*seq, time.Unix(1700000000, 0), tableau.TokenInput(tok), out)
			}
			return out
		}
		whole, _ := tableau.NewTable(cfg)
		var seq uint64
		feed(whole, c.before, &seq)
		snap, err := whole.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		restored, err := tableau.RestoreTable(cfg, snap)
		if err != nil {
			t.Fatal(err)
		}
		seq2 := seq
		want := feed(whole, c.after, &seq)
		got := feed(restored, c.after, &seq2)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s %s | %s: restored gives\n%v\nwant\n%v", c.game, c.before, c.after, got, want)
		}
		var coups int
		for _, o := range want {
			if o.Kind == tableau.OutputCoup {
				coups++
				if n := len(o.Event.Coup.Options.Slice()); n != c.wantOption {
					t.Errorf("%s %s: %d options: %s", c.game, c.before, n, o.Event)
				}
			}
		}
		if coups != 1 {
			t.Errorf("%s %s | %s: %d coups: %v", c.game, c.before, c.after, coups, want)
		}
	}
}

// TestTableBanquePositions: the daemon's card outputs place banque's
// cards in the right tableau, the left one and the banker's hand.
func TestTableBanquePositions(t *testing.T) {
	tb, _ := tableau.NewTable(tableau.TableConfig{Table: "T", Fold: tableau.Options{Rules: baccarat.Rules{Game: baccarat.GameBanque}, Markers: true}})
	toks, _ := tableau.ParseTranscript(strings.NewReader("shoe 2C 8D 4S | 5S 2H 9D KC AC 8H stand 4D 6H |"), "t")
	var got []string
	for i, tok := range toks {
		for _, o := range tb.Apply(uint64(i+1), time.Unix(1700000000, 0), tableau.TokenInput(tok), nil) {
			if o.Kind == tableau.OutputCard {
				got = append(got, fmt.Sprintf("%s%d", o.Card.Position, o.Card.Index))
			}
		}
	}
	want := "burn1 burn2 burn3 right1 left1 banker1 right2 left2 banker2 left3 banker3"
	if strings.Join(got, " ") != want {
		t.Errorf("positions %v, want %s", got, want)
	}
}

func TestTableAdvantageOnlyPuntoBanco(t *testing.T) {
	on, _ := odds.AdvantageAbove(0)
	for _, g := range []baccarat.Game{baccarat.GameCheminDeFer, baccarat.GameBanque} {
		_, err := tableau.NewTable(tableau.TableConfig{Table: "T", Fold: tableau.Options{Rules: baccarat.Rules{Game: g}}, AdvantageThreshold: on})
		if !errors.Is(err, baccarat.ErrRules) || !strings.Contains(err.Error(), g.Name()) {
			t.Errorf("%s with the advantage check: %v", g, err)
		}
	}
	if _, err := tableau.NewTable(tableau.TableConfig{Table: "T", Fold: tableau.Options{Rules: baccarat.Rules{Game: baccarat.GameEZ}}, AdvantageThreshold: on}); err != nil {
		t.Errorf("EZ with the advantage check: %v", err)
	}
}
