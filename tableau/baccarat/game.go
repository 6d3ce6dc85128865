package baccarat

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sabot-table/sabot/tableau/internal/enum"
)

// Game is one game of the baccarat family as a value: it carries the hands
// and their dealing order, the initial cards, naturals, the rule at each
// decision point (forced draw, forced stand, or an option and whose), how
// hands compare and how bets settle. Fold, Coup, Table, `sabot check` and
// sabotd all take it (through Options.Rules.Game); the odds engine reads
// its DrawTable.
//
// Game is a small comparable value: == tells two games apart (parameters
// included). The zero Game is punto banco (GamePuntoBanco). Games are made
// by the registry (ParseGame, NewGame; the names, defaults and validation
// of every game and of its parameters live there, see GameInfos) or by the
// constructors (NewCheminDeFer).
//
// The games:
//   - "punto-banco" (zero value; also mini and midi baccarat, which deal by
//     the same rules), "super6" and "ez": player and banker, dealt P B P B,
//     the PuntoBanco tableau, every decision forced; they differ in
//     settlement only.
//   - "chemin-de-fer": punter (the "player" hand) and banker, dealt P B P B,
//     a natural on either side ends the coup, the CheminDeFer tableau with
//     options (see NewCheminDeFer); punters 1:1, the bank's win pays 1 less
//     the commission.
//   - "banque" (baccarat banque): right tableau, left tableau and banker,
//     dealt R L B R L B (see GameBanque).
type Game struct {
	def gameDef // nil: punto banco
}

// gameDef is what a game is made of. Games are defined in this package,
// one type per game (comparable: parameters are fields), so that Game
// stays comparable and cheap to copy. To add a game: a type implementing
// gameDef; its coup engine (a type with the methods of coupPlay, and an
// engineKind with its case in each of engine's methods, game_play.go);
// and a registerGame call in an init function giving its name, default
// decks and parameters (see game_banque.go, the whole of banque).
type gameDef interface {
	// name is the registry name ("chemin-de-fer").
	name() string
	// play is the game's coup engine; the zero engine for the punto
	// banco deal (the Coup's own fast path).
	play() engine
	// table is the game's drawing rules, for games of two hands drawing at
	// most one third card each (nil otherwise).
	table() *DrawTable
	// params are the game's parameters as registry words, in the order
	// of its GameInfo.Params.
	params() []string
}

// Name is the game's registry name: "punto-banco", "super6", "ez",
// "chemin-de-fer", "banque", ...
func (g Game) Name() string {
	if g.def == nil {
		return "punto-banco"
	}
	return g.def.name()
}

// String returns the name followed by the parameters that differ from the
// registry's defaults, as "chemin-de-fer punter-five=draw".
func (g Game) String() string {
	s := g.Name()
	info, ok := LookupGame(s)
	if !ok {
		return s
	}
	for i, v := range g.Params() {
		if i < len(info.Params) && v != info.Params[i].Default {
			s += " " + info.Params[i].Name + "=" + v
		}
	}
	return s
}

// Params returns the game's parameter values in the order of its
// GameInfo.Params (nil for games without parameters).
func (g Game) Params() []string {
	if g.def == nil {
		return nil
	}
	return g.def.params()
}

// DefaultDecks is the number of decks the game is usually dealt from (8
// for punto banco, 6 for chemin de fer, 3 for banque): Options.Decks 0
// means it.
func (g Game) DefaultDecks() int {
	if info, ok := LookupGame(g.Name()); ok {
		return info.DefaultDecks
	}
	return DefaultDecks
}

// DrawTable returns the game's drawing rules and true, for the games of
// two hands (punter and banker) that draw at most one third card each:
// punto banco, Super 6, EZ and chemin de fer. It is the table validation
// reads; the odds engine reads the same. Other games return false.
func (g Game) DrawTable() (DrawTable, bool) {
	if g.def == nil {
		return PuntoBanco, true
	}
	if t := g.def.table(); t != nil {
		return *t, true
	}
	return DrawTable{}, false
}

// HasOptions reports whether some decision of the game is left to a
// hand's holder (chemin de fer, banque): its coup lines then carry
// "options", and a "stand" token may be needed to close a coup.
func (g Game) HasOptions() bool {
	switch g.def.(type) {
	case nil, puntoBancoGame:
		return false
	case cheminDeFerGame:
		t, _ := g.DrawTable()
		return !t.Fixed()
	}
	return true
}

// valid reports whether g is one of the registry's games.
func (g Game) valid() bool {
	if g.def == nil {
		return true
	}
	_, ok := LookupGame(g.def.name())
	return ok
}

// MarshalText encodes the game's name (its parameters are configured
// beside it: flags, config keys).
func (g Game) MarshalText() ([]byte, error) {
	if !g.valid() {
		return nil, fmt.Errorf("%w: invalid game", ErrRules)
	}
	return []byte(g.Name()), nil
}

// UnmarshalText decodes a name with ParseGame (the game's default
// parameters).
func (g *Game) UnmarshalText(b []byte) error { return enum.UnmarshalText(g, b, ParseGame) }

// GameParam is one parameter of a game in the registry: its name (the
// flag and config key, "punter-five"), default, the words it accepts and
// what it means.
type GameParam struct {
	Name    string
	Default string
	Values  []string
	Usage   string
}

// GameInfo is a game's registry entry: its name, a one-line summary, the
// decks it is dealt from by default, its parameters, and its builder.
type GameInfo struct {
	Name string
	// Title is the game's usual name, for displays and boards: "Punto
	// Banco", "Super 6", "EZ Baccarat", "Chemin de fer", "Baccarat
	// banque", "Macao", "Victoria".
	Title        string
	Summary      string
	DefaultDecks int
	Params       []GameParam
	// build makes the game from its parameters, one word per Params
	// entry, already checked against Values.
	build func(params []string) (Game, error)
}

var gameRegistry []GameInfo

// registerGame adds a game to the registry (from an init function). A
// name registered twice panics: a programming error.
func registerGame(info GameInfo) {
	for _, g := range gameRegistry {
		if g.Name == info.Name {
			panic("tableau: game " + info.Name + " registered twice")
		}
	}
	gameRegistry = append(gameRegistry, info)
}

// GameInfos returns the registry's games in registration order.
func GameInfos() []GameInfo { return slices.Clone(gameRegistry) }

// GameNames returns the registry's game names in registration order.
func GameNames() []string { return column(gameRegistry, gameInfoName) }

// LookupGame returns the registry entry of the game named name (exact,
// lower case).
func LookupGame(name string) (GameInfo, bool) { return find(gameRegistry, name, gameInfoName) }

func gameInfoName(g GameInfo) string { return g.Name }

// GameTitle is the usual name of the game registered as name (GameInfo's
// Title), or name itself for one not registered.
func GameTitle(name string) string {
	if g, ok := LookupGame(name); ok && g.Title != "" {
		return g.Title
	}
	return name
}

// ParseGame returns the game named s (case-insensitive) with its default
// parameters. The error wraps ErrRules and lists the games.
func ParseGame(s string) (Game, error) {
	return NewGame(s, nil)
}

// NewGame returns the game named name (case-insensitive) with the given
// parameters (keys: GameParam names; a parameter not given takes its
// default). Errors wrap ErrRules and name the unknown game, the unknown
// parameter, or the bad value and what the parameter accepts.
func NewGame(name string, params map[string]string) (Game, error) {
	info, ok := LookupGame(strings.ToLower(name))
	if !ok {
		return Game{}, fmt.Errorf("%w: unknown game %q (want %s)", ErrRules, name, strings.Join(GameNames(), ", "))
	}
	words := make([]string, len(info.Params))
	for i, p := range info.Params {
		words[i] = p.Default
	}
	var unknown []string
	for k, v := range params {
		i := slices.IndexFunc(info.Params, func(p GameParam) bool { return p.Name == k })
		if i < 0 {
			unknown = append(unknown, k)
			continue
		}
		v = strings.ToLower(v)
		if !slices.Contains(info.Params[i].Values, v) {
			return Game{}, fmt.Errorf("%w: %s %s %q (want %s)", ErrRules, info.Name, k, params[k], strings.Join(info.Params[i].Values, ", "))
		}
		words[i] = v
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Game{}, fmt.Errorf("%w: %s has no parameter %s", ErrRules, info.Name, strings.Join(unknown, ", "))
	}
	return info.build(words)
}

// puntoBancoGame is the punto banco deal with a settlement profile.
type puntoBancoGame struct{ pay payProfile }

// payProfile is how a punto banco table pays the banker bet.
type payProfile uint8

const (
	payCommission payProfile = iota // punto banco: 19:20
	paySuper6                       // 1:1, 1:2 on a banker 6
	payEZ                           // 1:1, push on a Dragon 7
)

func (g puntoBancoGame) name() string {
	if int(g.pay) < len(payNames) {
		return payNames[g.pay]
	}
	return "punto-banco"
}

// payNames are the registry names of the punto banco deal's pay profiles.
var payNames = [...]string{payCommission: "punto-banco", paySuper6: "super6", payEZ: "ez"}

func (puntoBancoGame) play() engine      { return engine{} }
func (puntoBancoGame) table() *DrawTable { return &PuntoBanco }
func (puntoBancoGame) params() []string  { return nil }
func (g Game) payProfile() payProfile {
	if pb, ok := g.def.(puntoBancoGame); ok {
		return pb.pay
	}
	return payCommission
}

// The punto banco games. GamePuntoBanco is the zero Game.
var (
	// GamePuntoBanco: banker wins pay 19:20 (5% commission), player 1:1,
	// tie 8:1 or 9:1; player and banker bets push on a tie. Mini and midi
	// baccarat deal and pay the same.
	GamePuntoBanco = Game{}
	// GameSuper6: no commission; a banker win on a total of 6 pays 1:2.
	GameSuper6 = Game{puntoBancoGame{paySuper6}}
	// GameEZ: EZ Baccarat — no commission; a banker win with a three-card
	// 7 (Dragon 7) pushes banker bets; side bets Dragon 7 (40:1) and
	// Panda 8 (25:1).
	GameEZ = Game{puntoBancoGame{payEZ}}
)

// Games lists the games dealt by the punto banco tableau (punto banco,
// Super 6, EZ): the settlement profiles of one deal. GameNames lists every
// game.
var Games = []Game{GamePuntoBanco, GameSuper6, GameEZ}

// cheminDeFerGame is chemin de fer with the house's punter-five rule and
// banker table.
type cheminDeFerGame struct {
	five   Rule
	banker BankerTable
}

// cheminTables holds the chemin de fer tableaux, [punter five][banker
// table], built once: games point into it.
var cheminTables = func() (t [Option + 1][FreeTable + 1]DrawTable) {
	for f := MustStand; f <= Option; f++ {
		for b := ScarneTable; b <= FreeTable; b++ {
			t[f][b], _ = CheminDeFer(f, b) // in range
		}
	}
	return t
}()

func (cheminDeFerGame) name() string        { return "chemin-de-fer" }
func (g cheminDeFerGame) table() *DrawTable { return &cheminTables[g.five][g.banker] }
func (g cheminDeFerGame) play() engine      { return engine{kind: engineTwoHand, tab: g.table()} }
func (g cheminDeFerGame) params() []string {
	return []string{g.five.String(), g.banker.String()}
}

// NewCheminDeFer returns chemin de fer where the punter on 5 follows
// punterFive (Option in most houses; MustDraw or MustStand where the house
// fixes it) and the banker follows banker (ScarneTable or FreeTable). See
// CheminDeFer for the tableau. The error (prefixed "tableau:") names a
// value out of range.
func NewCheminDeFer(punterFive Rule, banker BankerTable) (Game, error) {
	if _, err := CheminDeFer(punterFive, banker); err != nil {
		return Game{}, err
	}
	return Game{cheminDeFerGame{punterFive, banker}}, nil
}

// GameCheminDeFer is chemin de fer with the defaults: the punter's 5 an
// option, the Scarne banker table.
var GameCheminDeFer = Game{cheminDeFerGame{Option, ScarneTable}}

func init() {
	for _, g := range Games {
		g := g
		summary := map[string]string{
			"punto-banco": "punto banco (also mini and midi baccarat): banker pays 19:20",
			"super6":      "Super 6: no commission, a banker win on 6 pays 1:2",
			"ez":          "EZ Baccarat: no commission, a banker Dragon 7 pushes; Dragon 7 and Panda 8 bets",
		}[g.Name()]
		title := map[string]string{"punto-banco": "Punto Banco", "super6": "Super 6", "ez": "EZ Baccarat"}[g.Name()]
		registerGame(GameInfo{Name: g.Name(), Title: title, Summary: summary, DefaultDecks: DefaultDecks,
			build: func([]string) (Game, error) { return g, nil }})
	}
	registerGame(GameInfo{
		Name:         "chemin-de-fer",
		Title:        "Chemin de fer",
		Summary:      "chemin de fer: punter against banker, the punter's 5 and some banker cells are options; the bank's win pays less the commission",
		DefaultDecks: 6,
		Params: []GameParam{
			{Name: "punter-five", Default: "option", Values: []string{"option", "draw", "stand"},
				Usage: "the punter's rule on 5: option, or fixed by the house to draw or stand"},
			{Name: "banker-table", Default: "scarne", Values: []string{"scarne", "free"},
				Usage: "the banker's table: scarne (options on 3 against a 9 and 5 against a 4) or free (every banker decision an option)"},
		},
		build: func(p []string) (Game, error) {
			five, err := ParseRule(p[0])
			if err != nil {
				return Game{}, err
			}
			bt, err := ParseBankerTable(p[1])
			if err != nil {
				return Game{}, err
			}
			return NewCheminDeFer(five, bt)
		},
	})
}
