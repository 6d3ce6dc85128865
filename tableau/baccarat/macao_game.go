package baccarat

import (
	"fmt"
	"strconv"
)

// macaoGame is Macao or Victoria as a Game of the registry. Its coups are
// not a Coup's: a MacaoFold folds them (NewFold refuses the game), so its
// engine is never used.
type macaoGame struct{ r MacaoRules }

func (g macaoGame) name() string    { return g.r.Name() }
func (macaoGame) play() engine      { return engine{} } // unused: NewFold refuses Macao games
func (macaoGame) table() *DrawTable { return nil }
func (g macaoGame) params() []string {
	refuse := "on"
	if g.r.NoRefuse {
		refuse = "off"
	}
	return []string{strconv.Itoa(g.r.seats()), g.r.Count.String(), refuse, g.r.Equal.String(), g.r.Pays.String()}
}

// NewMacaoGame returns Macao (r.Victoria false) or Victoria under r as a
// Game. Errors wrap ErrMacaoRules.
func NewMacaoGame(r MacaoRules) (Game, error) {
	if err := r.Validate(); err != nil {
		return Game{}, err
	}
	r.Seats = r.seats()
	return Game{macaoGame{r}}, nil
}

// Macao returns the game's Macao or Victoria rules and true, or false for
// the other games. Such a game is folded by MacaoFold (with
// MacaoOptions.Rules these rules), not by Fold or Table: it is a `sabot
// check` game only.
func (g Game) Macao() (MacaoRules, bool) {
	m, ok := g.def.(macaoGame)
	return m.r, ok
}

// ErrCheckOnly is wrapped by NewFold's error for a game it does not fold
// (Macao and Victoria: see MacaoFold).
var ErrCheckOnly = fmt.Errorf("%w: a sabot check game only, folded by MacaoFold (not dealt from a smart shoe)", ErrRules)

// macaoParams are the registry parameters of Macao and Victoria, in
// macaoGame.params order.
var macaoParams = []GameParam{
	{Name: "seats", Default: strconv.Itoa(DefaultMacaoSeats), Values: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"},
		Usage: "punters' seats against the banker"},
	{Name: "count", Default: "modulo", Values: []string{"modulo", "bust"},
		Usage: "counting: modulo 10, or bust (a hand over 9 busts at once and loses)"},
	{Name: "refuse-tens", Default: "on", Values: []string{"on", "off"},
		Usage: "a ten or court card just drawn may be refused (\"refuse\")"},
	{Name: "equal", Default: "banker", Values: []string{"banker", "push"},
		Usage: "equal totals and equal cards: the banker wins, or push"},
	{Name: "pays", Default: "3-2", Values: []string{"3-2", "2-1"},
		Usage: "a winning natural 9 and natural 8 pay 3:1 and 2:1 (3-2), or 2:1 and 1:1 (2-1)"},
}

// buildMacao makes Macao or Victoria from its registry words.
func buildMacao(victoria bool, p []string) (Game, error) {
	seats, err := strconv.Atoi(p[0])
	if err != nil {
		return Game{}, fmt.Errorf("%w: seats %q", ErrMacaoRules, p[0])
	}
	r := MacaoRules{Victoria: victoria, Seats: seats, NoRefuse: p[2] == "off"}
	if r.Count, err = ParseMacaoCount(p[1]); err != nil {
		return Game{}, err
	}
	if r.Equal, err = ParseMacaoEqual(p[3]); err != nil {
		return Game{}, err
	}
	if r.Pays, err = ParseMacaoPayTable(p[4]); err != nil {
		return Game{}, err
	}
	return NewMacaoGame(r)
}

func init() {
	registerGame(GameInfo{
		Name:         "macao",
		Title:        "Macao",
		Summary:      "Macao (sabot check only): each seat and the banker get one card, then draw until they stand; naturals pay 3:1 and 2:1",
		DefaultDecks: DefaultMacaoDecks,
		Params:       macaoParams,
		build:        func(p []string) (Game, error) { return buildMacao(false, p) },
	})
	registerGame(GameInfo{
		Name:         "victoria",
		Title:        "Victoria",
		Summary:      "Victoria (sabot check only): Macao with two initial cards a hand; a natural of a pair pays 1:1",
		DefaultDecks: DefaultMacaoDecks,
		Params:       macaoParams,
		build:        func(p []string) (Game, error) { return buildMacao(true, p) },
	})
}
