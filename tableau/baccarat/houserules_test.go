package baccarat

import (
	"errors"
	"strings"
	"testing"
)

func TestParseCommission(t *testing.T) {
	for _, c := range []struct {
		in     string
		bp     int
		set    bool
		String string
	}{
		{"5%", 500, true, "5%"}, {"4%", 400, true, "4%"}, {"2.5%", 250, true, "2.5%"}, {"0%", 0, true, "0%"},
		{"0", 0, true, "0%"}, {"0.05", 500, true, "5%"}, {"0.04", 400, true, "4%"}, {"0.025", 250, true, "2.5%"},
		{" 3.25 % ", 325, true, "3.25%"}, {"0.1", 1000, true, "10%"}, {"", 0, false, ""},
	} {
		got, err := ParseCommission(c.in)
		if err != nil || got.BasisPoints() != c.bp || got.IsSet() != c.set || got.String() != c.String {
			t.Errorf("ParseCommission(%q) = %d bp set %v %q, %v; want %d bp set %v %q", c.in, got.BasisPoints(), got.IsSet(), got, err, c.bp, c.set, c.String)
		}
	}
	for _, c := range []struct{ in, msg string }{
		{"5", `commission "5": at most 10% (a fraction of the banker's win: for 5% write "5%" or 0.05)`},
		{"-1%", `commission "-1%": must not be negative`},
		{"11%", `commission "11%": at most 10%`},
		{"0.03333", `commission "0.03333": want a whole number of hundredths of a percent (5%, 4%, 2.5%)`},
		{"five", `commission "five": want a percentage such as "5%" or "2.5%", or a fraction such as 0.05`},
		{"NaN", `commission "NaN": want a percentage such as "5%" or "2.5%", or a fraction such as 0.05`},
	} {
		_, err := ParseCommission(c.in)
		if !errors.Is(err, ErrRules) || err.Error() != "tableau: bad rules: "+c.msg {
			t.Errorf("ParseCommission(%q) = %v, want %s", c.in, err, c.msg)
		}
	}
	if _, err := CommissionOf(1001); !errors.Is(err, ErrRules) {
		t.Errorf("CommissionOf(1001): %v", err)
	}
	// Text round trip, as TOML and JSON use it.
	var c Commission
	if err := c.UnmarshalText([]byte("0.04")); err != nil || c.BasisPoints() != 400 {
		t.Fatalf("UnmarshalText: %v %v", c, err)
	}
	b, _ := c.MarshalText()
	var back Commission
	if err := back.UnmarshalText(b); err != nil || back != c {
		t.Errorf("round trip %q: %v %v", b, back, err)
	}
}

func mustCommission(t *testing.T, s string) Commission {
	t.Helper()
	c, err := ParseCommission(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCommissionSettlement: a banker win pays 1 − the commission; the
// other bets do not move; Super 6 and EZ keep their own banker rules.
func TestCommissionSettlement(t *testing.T) {
	bankerWins := mustCoup(t, "5H", "4D", "2C", "5S") // 7 against a natural 9
	if bankerWins.Winner() != WinnerBanker {
		t.Fatalf("test coup: %v", bankerWins.Winner())
	}
	playerWins := mustCoup(t, "9H", "2D", "KC", "5S")
	for _, c := range []struct {
		commission string
		net        float64
	}{{"", 0.95}, {"5%", 0.95}, {"4%", 0.96}, {"2.5%", 0.975}, {"0", 1}} {
		r := Rules{Commission: mustCommission(t, c.commission)}
		got, err := r.Settle(bankerWins, BetBanker)
		if err != nil || got != (Payout{Win, c.net}) {
			t.Errorf("commission %q: banker win = %+v, %v; want +%v", c.commission, got, err, c.net)
		}
		all, _ := r.SettleAll(bankerWins)
		if all.Banker != got || all.Player != lose {
			t.Errorf("commission %q: SettleAll %+v", c.commission, all)
		}
		if p, _ := r.Settle(playerWins, BetPlayer); p != (Payout{Win, 1}) {
			t.Errorf("commission %q: player win = %+v", c.commission, p)
		}
		if p, _ := r.Settle(playerWins, BetBanker); p != lose {
			t.Errorf("commission %q: banker loses = %+v", c.commission, p)
		}
	}
	// Super 6: no commission by default; an explicit 0 is accepted, any
	// other rate refused with its key.
	s6 := Rules{Game: GameSuper6}
	if s6.CommissionBP() != 0 || (Rules{}).CommissionBP() != 500 {
		t.Errorf("usual commissions: super6 %d, punto banco %d", s6.CommissionBP(), (Rules{}).CommissionBP())
	}
	s6.Commission = mustCommission(t, "0")
	if err := s6.Validate(); err != nil {
		t.Errorf("super6 with commission 0: %v", err)
	}
	s6.Commission = mustCommission(t, "4%")
	var re *RuleError
	if err := s6.Validate(); !errors.As(err, &re) || re.Key != "commission" || err.Error() != "tableau: bad rules: commission: 4%: super6 charges no commission (its banker rule replaces it); use 0 or leave it out" {
		t.Errorf("super6 with 4%%: %v", err)
	}
	if _, err := s6.Settle(bankerWins, BetBanker); !errors.Is(err, ErrRules) {
		t.Errorf("Settle under an invalid profile: %v", err)
	}
}

// TestRulesProblems: every bad rule is reported, each under its key.
func TestRulesProblems(t *testing.T) {
	r := Rules{
		Commission: Commission{set: true, bp: 2000}, TiePays: 7, PairPays: 2000,
		Side: SideRules{Pays: SidePays{Dragon: [6]float64{30, 10, -6, 4, 2, 1}, Lucky6Three: 5000}},
	}
	var keys, msgs []string
	for _, p := range r.Problems() {
		keys = append(keys, p.Key)
		msgs = append(msgs, p.Error())
	}
	want := []string{
		"tableau: bad rules: commission: 20%: at most 10%",
		"tableau: bad rules: tie_pays: 7: a tie pays 8 or 9 to 1",
		"tableau: bad rules: pair_pays: 2000: want 1 to 1000 (usually 11, some houses 12)",
		"tableau: bad rules: pays_dragon: figure 3 (by 7) -6: want more than 0, at most 1000",
		"tableau: bad rules: pays_lucky6: figure 2 (three cards) 5000: want more than 0, at most 1000",
	}
	if strings.Join(keys, " ") != "commission tie_pays pair_pays pays_dragon pays_lucky6" {
		t.Errorf("keys %v", keys)
	}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
	if err := r.Validate(); !errors.Is(err, ErrRules) || err.Error() != want[0] {
		t.Errorf("Validate = %v", err)
	}
	if ps := (Rules{Game: GameEZ, TiePays: 9, PairPays: 25}).Problems(); ps != nil {
		t.Errorf("valid profile: %v", ps)
	}
	// Given (configuration, flags): 0 is a value, not the default, for the
	// payouts and each of the seven pay tables.
	if ps := (Rules{}).ProblemsGiven(); len(ps) != 9 || ps[0].Key != "tie_pays" || ps[1].Key != "pair_pays" || ps[4].Key != "pays_big" {
		t.Errorf("ProblemsGiven of zeros: %v", ps)
	}
	if ps := (Rules{}).Problems(); ps != nil {
		t.Errorf("zero profile: %v", ps)
	}
	if s := (Rules{Commission: mustCommission(t, "4%")}).String(); s != "punto-banco tie 8:1 commission 4%" {
		t.Errorf("String = %q", s)
	}
	if s := (Rules{Commission: mustCommission(t, "5%")}).String(); s != "punto-banco tie 8:1" {
		t.Errorf("String at 5%% = %q", s)
	}
}

// A house rule the game does not use is refused with the reason, under
// every game without tie or pair bets; under the punto banco games it is
// taken.
func TestRulesUnusedByTheGame(t *testing.T) {
	for _, name := range []string{"chemin-de-fer", "banque"} {
		g, err := ParseGame(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			r    Rules
			want string
		}{
			{Rules{Game: g, PairSuitedPays: 25}, "pair_suited_pays: 25: " + name + " has no pair bets; leave it out"},
			{Rules{Game: g, PairPays: 12}, "pair_pays: 12: " + name + " has no pair bets; leave it out"},
			{Rules{Game: g, TiePays: 9}, "tie_pays: 9: " + name + " has no tie bet; leave it out"},
		} {
			ps := tc.r.Problems()
			if len(ps) != 1 || !strings.Contains(ps[0].Error(), tc.want) {
				t.Errorf("%s %+v: %v, want %q", name, tc.r, ps, tc.want)
			}
		}
		// The defaults, given, are no finding.
		if ps := (Rules{Game: g, TiePays: 8, PairPays: 11}).Problems(); len(ps) != 0 {
			t.Errorf("%s with the default pays: %v", name, ps)
		}
	}
	for _, g := range []Game{GamePuntoBanco, GameEZ, GameSuper6} {
		if ps := (Rules{Game: g, TiePays: 9, PairPays: 12, PairSuitedPays: 25}).Problems(); len(ps) != 0 {
			t.Errorf("%s: %v", g.Name(), ps)
		}
	}
}

func TestRulesValidateUnknownGame(t *testing.T) {
	if err := (Rules{Game: Game{bogusGame{}}}).Validate(); !errors.Is(err, ErrRules) {
		t.Errorf("a game outside the registry: %v, want ErrRules", err)
	}
}

// bogusGame is a game the registry does not know: invalid rules.
type bogusGame struct{}

func (bogusGame) name() string { return "bogus" }

func (bogusGame) play() engine { return engine{} }

func (bogusGame) table() *DrawTable { return nil }

func (bogusGame) params() []string { return nil }

// BogusGame is a game outside the registry, for the external tests.
var BogusGame = Game{bogusGame{}}
