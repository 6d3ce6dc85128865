package boardweb

import (
	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// State is the board page's data: the body of /board.json and of
// every "board" server-sent event.
type State struct {
	Table string `json:"table"`
	// Game is the game's name as the board shows it ([board] game, or the
	// rule profile's name).
	Game string `json:"game"`
	// GameID is the game's registry name ("punto-banco", "super6", "ez",
	// "chemin-de-fer", "banque"): the page's wording and layout follow it
	// (chemin de fer's punter; banque's right and left tableaux).
	GameID string `json:"game_id"`
	// Lang is the configured label language ("en" or "zh"); the page's
	// ?lang= overrides it.
	Lang   string `json:"lang"`
	Limits Limits `json:"limits"`
	// Assets identifies the page's embedded assets: a page loaded from an
	// older build reloads itself when it changes.
	Assets string `json:"assets"`

	Shoe   int    `json:"shoe"`
	ShoeID string `json:"shoe_id"`
	// Phase is "no-shoe", "burn", "between" or "coup".
	Phase string `json:"phase"`
	Coup  int    `json:"coup"`
	// Player and Banker are the current coup's cards and totals (the last
	// coup's between coups).
	// In banque Player is the right tableau and Left the left one (nil in
	// the other games).
	Player Hand  `json:"player"`
	Banker Hand  `json:"banker"`
	Left   *Hand `json:"left,omitempty"`
	// Waiting is the hand whose third card the tableau waits for (must or
	// may draw): "player-third", "banker-third", in banque "right-third",
	// "left-third", "banker-third"; or "" (none, or the coup is complete).
	Waiting string `json:"waiting,omitempty"`
	// Winner is "player", "banker" or "tie" once the coup is complete
	// (empty in banque, where each tableau has its own result).
	Winner string `json:"winner,omitempty"`
	// RightWinner and LeftWinner are a complete banque coup's results:
	// "right" (or "left"), "banker" or "tie".
	RightWinner string `json:"right_winner,omitempty"`
	LeftWinner  string `json:"left_winner,omitempty"`
	Natural     bool   `json:"natural"`
	Voided      bool   `json:"voided"`
	BurnDrawn   int    `json:"burn_drawn"`
	BurnWant    int    `json:"burn_want"`
	CutCard     bool   `json:"cut_card"`
	IsLastCoup  bool   `json:"is_last_coup"`
	CardsDrawn  int    `json:"cards_drawn"`
	CardsLeft   int    `json:"cards_left"`

	// Alerts are the most recent alerts of the daemon's run (at most
	// RecentAlerts, newest first) and the latched ones still awaiting
	// acknowledgement.
	Alerts []Alert `json:"alerts"`
	// AlertCount counts the alerts awaiting acknowledgement.
	AlertCount int `json:"alert_count"`

	ShoeOnline bool   `json:"shoe_online"`
	Broker     Broker `json:"broker"`

	// Roads are the current shoe's roads, ask-road and statistics: the
	// object `sabot roads` prints and MQTT publishes on
	// <prefix>/<table>/roads (display.BuildRoads; at most
	// display.MaxRoadsJSON bytes).
	Roads display.Roads `json:"roads"`
	// NoRoads: the game has no roads (banque, whose coups have a result
	// per tableau, not one winner): Roads is empty and the page shows none.
	NoRoads bool `json:"no_roads,omitempty"`
}

// Limits are the table limits shown on the board ([board] keys; 0:
// not shown).
type Limits struct {
	Currency string `json:"currency"`
	Min      int    `json:"min"`
	Max      int    `json:"max"`
	TieMax   int    `json:"tie_max"`
	PairMax  int    `json:"pair_max"`
}

// LimitsOf are the limits the [board] table gives.
func LimitsOf(b config.BoardConfig) Limits {
	return Limits{Currency: b.Currency, Min: b.MinBet, Max: b.MaxBet, TieMax: b.TieMax, PairMax: b.PairMax}
}

// Hand is one hand on the board.
type Hand struct {
	Cards []string `json:"cards"` // in dealing order, "9S", "TH", "7" (rank-only)
	Total int      `json:"total"`
}

// Alert is one alert on the board.
type Alert struct {
	ID   string `json:"id"`
	Code string `json:"code"` // "extra-card", ...
	// Display is the error code the LED display shows ("E1").
	Display string `json:"display"`
	Text    string `json:"text"`
	Shoe    int    `json:"shoe"`
	Coup    int    `json:"coup"`
	// Acknowledged: the supervisor has acknowledged it (or it did not wait
	// for acknowledgement).
	Acknowledged bool `json:"acknowledged"`
}

// Broker is the MQTT link's state.
type Broker struct {
	Connected bool `json:"connected"`
	// Backlog is the outbox backlog once it reaches BacklogShown
	// messages, else 0 (a message or two always in flight is not news, and
	// would change the board every few milliseconds).
	Backlog int `json:"backlog"`
}

// BacklogShown is the outbox backlog from which the board shows it.
const BacklogShown = 10

// GameName is the game's name on the board: [board] game, or the game's
// usual name.
func GameName(cfg config.Config) string {
	if cfg.Board.Game != "" {
		return cfg.Board.Game
	}
	if cfg.Game == "" {
		return baccarat.GameTitle("punto-banco")
	}
	return baccarat.GameTitle(cfg.Game)
}

// Facts are the board state's parts that come from the configuration and
// the build, not from the table's view.
type Facts struct {
	Table, Game, GameID, Lang string
	Limits                    Limits
	Assets                    string // the assets' version (Assets)
	Banque                    bool   // the game is banque: no roads
}

// Build makes the board's state from the table's view v, the status k and
// the alerts to list (Web.AlertList).
func Build(f Facts, v tableau.TableView, k StatusKey, alerts []Alert) State {
	s := State{
		Table: f.Table, Game: f.Game, GameID: f.GameID, Lang: f.Lang, Limits: f.Limits,
		Assets: f.Assets,
		Shoe:   v.Shoe, ShoeID: v.ShoeID, Phase: v.Phase, Coup: v.Coup,
		Voided: v.Voided, BurnDrawn: v.BurnDrawn, BurnWant: v.BurnWant, CutCard: v.CutCard,
		IsLastCoup: v.IsLastCoup, CardsDrawn: v.CardsDrawn, CardsLeft: v.Remaining,
		AlertCount: v.AlertCount, ShoeOnline: k.ShoeOnline,
		Broker: Broker{Connected: k.Broker, Backlog: k.Backlog},
	}
	if f.Banque {
		s.NoRoads = true
	} else {
		s.Roads = display.ViewRoads(v)
	}
	if v.Phase == "coup" || v.Phase == "between" {
		s.Player = handOf(v.Player, v.PlayerTotal)
		s.Banker = handOf(v.Banker, v.BankerTotal)
		if v.Complete && !v.Voided {
			s.Winner = v.Winner.String()
			s.Natural = v.Natural
		} else if v.Waiting == "player-third" || v.Waiting == "banker-third" {
			s.Waiting = v.Waiting
		}
		if v.Voided {
			s.Player, s.Banker = Hand{Cards: []string{}}, Hand{Cards: []string{}}
		}
	} else {
		s.Player, s.Banker = Hand{Cards: []string{}}, Hand{Cards: []string{}}
	}
	if v.Banque {
		banqueState(&s, v)
	}
	s.Alerts = alerts
	return s
}

// banqueState fills a banque table's parts of the board state: the left
// tableau, whose third card is awaited (right, left or banker: a banque
// coup's draws are options, so the tableau waits for a card or a stand),
// and each tableau's result once the coup is complete.
func banqueState(s *State, v tableau.TableView) {
	left := Hand{Cards: []string{}}
	if (v.Phase == "coup" || v.Phase == "between") && !v.Voided {
		left = handOf(v.Left, v.LeftTotal)
	}
	s.Left = &left
	s.Winner, s.Natural = "", false
	side := func(w baccarat.Winner, name string) string {
		if w == baccarat.WinnerPlayer {
			return name
		}
		return w.String()
	}
	switch {
	case s.Phase != "coup" && s.Phase != "between", v.Voided:
	case v.Complete:
		s.RightWinner, s.LeftWinner = side(v.RightWinner, "right"), side(v.LeftWinner, "left")
		s.Natural = v.Natural
	default:
		switch v.Waiting {
		case "player-third":
			s.Waiting = "right-third"
		case "left-third", "banker-third":
			s.Waiting = v.Waiting
		}
	}
}

// handOf is a hand as the board shows it: its cards in dealing order
// (at most baccarat.MaxHandCards) and total.
func handOf(h baccarat.Hand, total int) Hand {
	b := Hand{Cards: make([]string, 0, baccarat.MaxHandCards), Total: total}
	for i := 0; i < h.N && i < baccarat.MaxHandCards; i++ {
		b.Cards = append(b.Cards, h.Cards[i].String())
	}
	return b
}
