package tableau_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

var t0 = time.Date(2026, 11, 30, 21, 0, 0, 0, time.UTC)

// tableRun feeds a Table with a script: transcript tokens plus the daemon's
// own inputs written as words — "ack", "open"/"closed" (betting),
// "unread", "alarm:CODE", "off"/"on" (shoe link), "backlog" — and cards
// with a reader UID written "7H@UID". Input n gets sequence n and time
// t0+n seconds.
type tableRun struct {
	tb  *tableau.Table
	out []tableau.Output
	seq uint64
}

func newTableRun(t *testing.T, cfg tableau.TableConfig) *tableRun {
	t.Helper()
	if cfg.Table == "" {
		cfg.Table = "T1"
	}
	tb, err := tableau.NewTable(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &tableRun{tb: tb}
}

func (r *tableRun) apply(in tableau.Input) []tableau.Output {
	r.seq++
	n := len(r.out)
	r.out = r.tb.Apply(r.seq, t0.Add(time.Duration(r.seq)*time.Second), in, r.out)
	return r.out[n:]
}

func scriptInput(t *testing.T, word string) tableau.Input {
	t.Helper()
	switch {
	case word == "ack":
		return tableau.Input{Kind: tableau.InputAck, Operator: "pit boss"}
	case word == "open":
		return tableau.Input{Kind: tableau.InputBetsOpen}
	case word == "closed":
		return tableau.Input{Kind: tableau.InputBetsClosed}
	case word == "unread":
		return tableau.Input{Kind: tableau.InputUnreadable}
	case strings.HasPrefix(word, "alarm:"):
		return tableau.Input{Kind: tableau.InputAlarm, Code: word[6:], Text: "Card Not Read"}
	case word == "off":
		return tableau.Input{Kind: tableau.InputOffline}
	case word == "on":
		return tableau.Input{Kind: tableau.InputOnline}
	case word == "backlog":
		return tableau.Input{Kind: tableau.InputBacklog}
	}
	card, uid, _ := strings.Cut(word, "@")
	toks, err := tableau.ParseTranscript(strings.NewReader(card), "script")
	if err != nil || len(toks) != 1 {
		t.Fatalf("bad script word %q: %v", word, err)
	}
	in := tableau.TokenInput(toks[0])
	in.UID = uid
	return in
}

func (r *tableRun) script(t *testing.T, s string) []tableau.Output {
	t.Helper()
	n := len(r.out)
	for _, w := range strings.Fields(s) {
		r.apply(scriptInput(t, w))
	}
	return r.out[n:]
}

// events returns the coup, alert and void events among outs.
func events(outs []tableau.Output) []tableau.Event {
	var evs []tableau.Event
	for _, o := range outs {
		switch o.Kind {
		case tableau.OutputCoup, tableau.OutputAlert, tableau.OutputVoid:
			evs = append(evs, o.Event)
		}
	}
	return evs
}

// brief renders outputs compactly: "card:player1", "coup:banker",
// "alert:extra-card:5C", "void:1", "ack:<code>", "gate:locked".
func brief(outs []tableau.Output) string {
	var parts []string
	for _, o := range outs {
		switch o.Kind {
		case tableau.OutputCard:
			parts = append(parts, fmt.Sprintf("card:%s%d", o.Card.Position, o.Card.Index))
		case tableau.OutputCoup:
			parts = append(parts, "coup:"+o.Event.Coup.Winner.String())
		case tableau.OutputAlert:
			s := "alert:" + string(o.Event.Alert.Code)
			if !o.Event.Alert.Card.IsZero() {
				s += ":" + o.Event.Alert.Card.String()
			}
			parts = append(parts, s)
		case tableau.OutputVoid:
			parts = append(parts, fmt.Sprintf("void:%d", o.Event.Void.Coup))
		case tableau.OutputAck:
			parts = append(parts, "ack:"+string(o.Ack.Code))
		case tableau.OutputGate:
			if o.GateLocked {
				parts = append(parts, "gate:locked")
			} else {
				parts = append(parts, "gate:open")
			}
		}
	}
	return strings.Join(parts, " ")
}

func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

// optionsForSample mirrors `sabot check`'s defaults for a sample transcript:
// markers auto, ".decksN." in the name sets the decks, ".one-more." the cut
// rule, ".ez."/".super6." the rules.
func optionsForSample(name string, toks []tableau.Token) tableau.Options {
	opts := tableau.Options{Markers: tableau.HasMarkers(toks)}
	for _, part := range strings.Split(filepath.Base(name), ".") {
		if g, ok := gameOfPart(part); ok {
			opts.Rules.Game = g // check-chemin-de-fer.shoe, banque.*.shoe
		}
		if part == "free" { // chemin de fer's free banker table
			opts.Rules.Game, _ = baccarat.NewGame("chemin-de-fer", map[string]string{"banker-table": "free"})
		}
		switch {
		case strings.HasPrefix(part, "decks"):
			fmt.Sscanf(part, "decks%d", &opts.Decks)
		case part == "one-more":
			opts.CutRule = tableau.CutOneMore
		case part == "ez":
			opts.Rules.Game = baccarat.GameEZ
		case part == "super6":
			opts.Rules.Game = baccarat.GameSuper6
		case part == "markers-off":
			opts.Markers = false
		case part == "markers-on":
			opts.Markers = true
		}
	}
	return opts
}

// TestTableMatchesCheck feeds every sample transcript under testdata/ to a
// Table and compares its coups, alerts and voids with the sample's expected
// `sabot check` output, line by line as JSON values (expected keys must be
// present and equal; extra keys are allowed).
func TestTableMatchesCheck(t *testing.T) {
	var shoes []string
	filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p == filepath.Join("testdata", "macao") {
			return filepath.SkipDir // Macao and Victoria: `sabot check` games, no Table (macao_fold_test.go)
		}
		if err == nil && strings.HasSuffix(p, ".shoe") {
			if _, err := os.Stat(strings.TrimSuffix(p, ".shoe") + ".expected.jsonl"); err == nil {
				shoes = append(shoes, p)
			}
		}
		return nil
	})
	if len(shoes) < 6 {
		t.Fatalf("found %d sample transcripts with expected output, want at least 6", len(shoes))
	}
	for _, shoe := range shoes {
		t.Run(shoe, func(t *testing.T) {
			b, err := os.ReadFile(shoe)
			if err != nil {
				t.Fatal(err)
			}
			toks, err := tableau.ParseTranscript(bytes.NewReader(b), shoe)
			if err != nil {
				t.Fatal(err)
			}
			r := newTableRun(t, tableau.TableConfig{Fold: optionsForSample(shoe, toks)})
			for _, tok := range toks {
				r.apply(tableau.TokenInput(tok))
			}
			got := events(r.out)
			got = r.tb.Fold().End(got) // end of input, as `sabot check`
			want := readJSONLines(t, strings.TrimSuffix(shoe, ".shoe")+".expected.jsonl")
			if len(got) != len(want) {
				t.Fatalf("%d events, want %d:\n%v", len(got), len(want), got)
			}
			for i := range want {
				g := asJSON(t, got[i])
				for k, v := range want[i] {
					if !reflect.DeepEqual(g[k], v) {
						t.Errorf("line %d: %s = %v, want %v", i+1, k, g[k], v)
					}
				}
				if _, has := g["card"]; has && want[i]["card"] == nil {
					t.Errorf("line %d: unexpected card key: %v", i+1, g)
				}
			}
		})
	}
}

func TestTableIDsAndPositions(t *testing.T) {
	r := newTableRun(t, tableau.TableConfig{Table: "BAC-1", Fold: tableau.Options{Markers: true}})
	outs := r.script(t, "2H 3C 4D | 5S 5H AC 2D 7C |")
	want := "card:burn1 card:burn2 card:burn3 card:player1 card:banker1 card:player2 card:banker2 coup:banker card:none0 alert:extra-card:7C"
	if got := brief(outs); got != want {
		t.Fatalf("outputs\n got %s\nwant %s", got, want)
	}
	shoeID := "20261130T210001Z-1" // time and sequence number of the first input
	ids := []string{}
	for _, o := range outs {
		ids = append(ids, o.ID)
		if o.ShoeID != shoeID || o.Shoe != 1 {
			t.Errorf("%s: shoe %d %q", o.ID, o.Shoe, o.ShoeID)
		}
	}
	wantIDs := []string{
		"BAC-1/" + shoeID + "/0/card/1", "BAC-1/" + shoeID + "/0/card/2", "BAC-1/" + shoeID + "/0/card/3",
		"BAC-1/" + shoeID + "/1/card/1", "BAC-1/" + shoeID + "/1/card/2", "BAC-1/" + shoeID + "/1/card/3",
		"BAC-1/" + shoeID + "/1/card/4", "BAC-1/" + shoeID + "/1/coup/1", "BAC-1/" + shoeID + "/1/card/5",
		"BAC-1/" + shoeID + "/1/alert/1",
	}
	if !reflect.DeepEqual(ids, wantIDs) {
		t.Fatalf("ids\n got %v\nwant %v", ids, wantIDs)
	}
	// Totals ride along with each card: after 5S 5H AC: player 6, banker 5.
	if c := outs[5].Card; c.PlayerTotal != 6 || c.BankerTotal != 5 || c.InShoe != 6 {
		t.Fatalf("third coup card: %+v", c)
	}
	// Every output's time is its input's time.
	if !outs[7].Time.Equal(t0.Add(8 * time.Second)) { // 2D, the 8th input
		t.Fatalf("coup time %v", outs[7].Time)
	}
}

func TestTableNewShoeIDs(t *testing.T) {
	r := newTableRun(t, tableau.TableConfig{Fold: tableau.Options{Markers: true}})
	r.script(t, "2H 3C 4D | 5S 5H")
	outs := r.script(t, "shoe")
	// incomplete-coup belongs to the old shoe and carries its id.
	if brief(outs) != "alert:incomplete-coup" || outs[0].ShoeID != "20261130T210001Z-1" || outs[0].Shoe != 1 ||
		outs[0].ID != "T1/20261130T210001Z-1/1/alert/1" {
		t.Fatalf("got %s %+v", brief(outs), outs)
	}
	outs = r.script(t, "AH")
	if outs[0].ShoeID != "20261130T210007Z-7" || outs[0].Shoe != 2 || outs[0].ID != "T1/20261130T210007Z-7/0/card/1" {
		t.Fatalf("new shoe card: %+v", outs[0])
	}
}

func TestTableDaemonAlerts(t *testing.T) {
	reg := map[string]tableau.Card{}
	for uid, c := range map[string]string{"U1": "5S", "U2": "5H", "U3": "AC", "U4": "2D"} {
		card, _ := tableau.ParseCard(c)
		reg[uid] = card
	}
	for _, tc := range []struct {
		name   string
		cfg    tableau.TableConfig
		script string
		want   string
	}{
		{"duplicate uid", tableau.TableConfig{Fold: tableau.Options{Markers: true}},
			"2H@a 3C@b 4D@c | 5S@d 5H@e AC@d",
			"card:burn1 card:burn2 card:burn3 card:player1 card:banker1 card:player2 alert:duplicate-card:AC"},
		{"uid registry", tableau.TableConfig{Fold: tableau.Options{Markers: true}, Registry: reg},
			"2H 3C 4D | 5S@U1 6H@U2 AC@U3 2@U4",
			"card:burn1 card:burn2 card:burn3 card:player1 card:banker1 alert:card-mismatch:6H card:player2 card:banker2 coup:banker"},
		{"unreadable and alarm", tableau.TableConfig{Fold: tableau.Options{Markers: true}},
			"2H 3C 4D | 5S unread alarm:E3",
			"card:burn1 card:burn2 card:burn3 card:player1 alert:unreadable-card alert:shoe-alarm"},
		{"offline online", tableau.TableConfig{}, "off off on on", "alert:shoe-offline alert:shoe-online"},
		{"backlog", tableau.TableConfig{}, "backlog", "alert:outbox-backlog"},
		{"early draw", tableau.TableConfig{Fold: tableau.Options{Markers: true}, RequireBetsClosed: true},
			"2H 3C 4D | 5S 5H closed AC 2D | 9S closed 9H",
			"card:burn1 card:burn2 card:burn3 card:player1 alert:early-draw:5S card:banker1 alert:early-draw:5H card:player2 card:banker2 coup:banker card:player1 alert:early-draw:9S card:banker1"},
		{"misdeal alert-only", tableau.TableConfig{Fold: tableau.Options{Markers: true}},
			"2H 3C 4D | 5S 5H AC 2D 7C |",
			"card:burn1 card:burn2 card:burn3 card:player1 card:banker1 card:player2 card:banker2 coup:banker card:none0 alert:extra-card:7C"},
		{"misdeal void", tableau.TableConfig{Fold: tableau.Options{Markers: true}, Misdeal: tableau.MisdealVoid},
			"2H 3C 4D | 5S 5H AC 2D 7C |",
			"card:burn1 card:burn2 card:burn3 card:player1 card:banker1 card:player2 card:banker2 coup:banker card:none0 alert:extra-card:7C void:1"},
		{"gate", tableau.TableConfig{Fold: tableau.Options{Markers: true}, Gate: true},
			"2H 3C 4D | 5S 5H AC 2D 7C | 9S",
			"card:burn1 card:burn2 card:burn3 card:player1 card:banker1 card:player2 card:banker2 coup:banker gate:locked card:none0 alert:extra-card:7C gate:open card:player1"},
		{"ack", tableau.TableConfig{Fold: tableau.Options{Markers: true}},
			"2H 3C 4D | 5S 5H AC 2D 7C 8C | ack ack",
			"card:burn1 card:burn2 card:burn3 card:player1 card:banker1 card:player2 card:banker2 coup:banker card:none0 alert:extra-card:7C card:none0 alert:extra-card:8C ack:extra-card"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTableRun(t, tc.cfg)
			if got := brief(r.script(t, tc.script)); got != tc.want {
				t.Fatalf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestTableLatching(t *testing.T) {
	r := newTableRun(t, tableau.TableConfig{Fold: tableau.Options{Markers: true}})
	r.script(t, "2H 3C 4D | 5S 5H AC 2D 7C")
	l := r.tb.Latched()
	if len(l) != 1 || l[0].Code != baccarat.AlertExtraCard || l[0].Coup != 1 || l[0].Card.String() != "7C" {
		t.Fatalf("latched = %+v", l)
	}
	v := r.tb.View()
	if len(v.Alerts) != 1 || v.PlayerTotal != 6 || v.BankerTotal != 7 || v.Winner != baccarat.WinnerBanker || !v.Complete {
		t.Fatalf("view = %+v", v)
	}
	outs := r.script(t, "ack")
	if len(outs) != 1 || outs[0].Ack.AlertID != l[0].ID || outs[0].ID != l[0].ID+"/ack" || outs[0].Ack.Operator != "pit boss" {
		t.Fatalf("ack outputs = %+v", outs)
	}
	if len(r.tb.Latched()) != 0 {
		t.Fatal("alert still latched after ack")
	}
	// shoe-online is informational: it does not latch.
	r.script(t, "off on")
	if l := r.tb.Latched(); len(l) != 1 || l[0].Code != baccarat.AlertShoeOffline {
		t.Fatalf("latched after off/on = %+v", l)
	}
}

func TestTableView(t *testing.T) {
	r := newTableRun(t, tableau.TableConfig{Fold: tableau.Options{Markers: true, Decks: 1}})
	r.script(t, "2H 3C")
	v := r.tb.View()
	if v.Phase != "burn" || v.BurnDrawn != 2 || v.BurnWant != 3 || v.Remaining != 50 || v.ByRank["2"] != 3 {
		t.Fatalf("burn view = %+v", v)
	}
	r.script(t, "4D | 5S 5H AC")
	v = r.tb.View()
	if v.Phase != "coup" || v.Coup != 1 || v.PlayerTotal != 6 || v.BankerTotal != 5 || v.Waiting != "banker" || v.Complete {
		t.Fatalf("coup view = %+v", v)
	}
	r.script(t, "2D | cut")
	v = r.tb.View()
	if !v.CutCard || !v.IsLastCoup || len(v.Results) != 1 || v.Results[0].Winner != baccarat.WinnerBanker || v.Results[0].Total != 7 {
		t.Fatalf("after cut view = %+v", v)
	}
}

// TestTableReplay checks that a Table rebuilt from the same inputs, as after
// a restart, is in the same state and continues mid-coup with the same ids.
func TestTableReplay(t *testing.T) {
	script := "2H@a 3C@b 4D@c | 5S@d 5H@e AC@f 2D@g | 9S@h 9H@a"
	a := newTableRun(t, tableau.TableConfig{Fold: tableau.Options{Markers: true}})
	a.script(t, script)
	b := newTableRun(t, tableau.TableConfig{Fold: tableau.Options{Markers: true}})
	b.script(t, script)
	if !reflect.DeepEqual(a.tb.View(), b.tb.View()) {
		t.Fatal("views differ after the same inputs")
	}
	oa := a.script(t, "9C 9D |")
	ob := b.script(t, "9C 9D |")
	if !reflect.DeepEqual(oa, ob) {
		t.Fatalf("continuation differs:\n%v\n%v", oa, ob)
	}
	if brief(oa) != "card:player2 card:banker2 coup:tie" || oa[2].ID != "T1/20261130T210001Z-1/2/coup/1" {
		t.Fatalf("continuation %s %s", brief(oa), oa[2].ID)
	}
}

func TestInputJSON(t *testing.T) {
	in := tableau.Input{Kind: tableau.InputCard, Card: tableau.Card{Rank: card.Rank10, Suit: card.Hearts}, UID: "04:A2", Source: "shoe", Ref: "b1:17"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"kind":"card","card":"TH","uid":"04:A2","source":"shoe","ref":"b1:17"}` {
		t.Fatalf("json %s", b)
	}
	var back tableau.Input
	if err := json.Unmarshal(b, &back); err != nil || back != in {
		t.Fatalf("round trip %+v %v", back, err)
	}
	b, _ = json.Marshal(tableau.Input{Kind: tableau.InputAck, Operator: "sup"})
	if string(b) != `{"kind":"ack","operator":"sup"}` {
		t.Fatalf("ack json %s", b)
	}
}

func BenchmarkTableCard(b *testing.B) {
	tb, _ := tableau.NewTable(tableau.TableConfig{Table: "T", Fold: tableau.Options{Markers: true}})
	toks, _ := tableau.ParseTranscript(strings.NewReader("2H 3C 4D | 5S 5H AC 2D | 9S 9H 9C 9D |"), "b")
	var out []tableau.Output
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out = tb.Apply(uint64(i), t0, tableau.TokenInput(toks[i%len(toks)]), out[:0])
	}
}

// TestTableAdvantage feeds the EZ sample shoe whose Dragon 7 turns in the
// player's favour late in the shoe: the Table raises the same advantage
// alerts, at the same places, as `sabot check --advantage` (the fold's
// FeedAdvantages), and they do not latch.
func TestTableAdvantage(t *testing.T) {
	src, err := os.ReadFile("../cmd/sabot/testdata/ez-late-dragon7.shoe")
	if err != nil {
		t.Fatal(err)
	}
	toks, err := tableau.ParseTranscript(bytes.NewReader(src), "ez")
	if err != nil {
		t.Fatal(err)
	}
	opts := tableau.Options{Markers: true, Rules: baccarat.Rules{Game: baccarat.GameEZ}}
	const threshold = 1e-9
	f, _ := tableau.NewFold(opts)
	var want []tableau.Event
	for _, tok := range toks {
		want = f.FeedAdvantages(tok, threshold, want)
	}
	r := newTableRun(t, tableau.TableConfig{Fold: opts, AdvantageThreshold: mustAdvantage(t, threshold)})
	for _, tok := range toks {
		r.apply(tableau.TokenInput(tok))
	}
	got := events(r.out)
	nAdv := 0
	for _, e := range want {
		if e.Kind == baccarat.EventAlert && e.Alert.Code == baccarat.AlertAdvantage {
			nAdv++
		}
	}
	if nAdv == 0 {
		t.Fatal("the sample shoe raised no advantage alert")
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].String() != want[i].String() {
			t.Fatalf("event %d: %s, want %s", i, got[i], want[i])
		}
	}
	for _, o := range r.out {
		if o.Kind == tableau.OutputAlert && o.Event.Alert.Code == baccarat.AlertAdvantage &&
			(o.Alert.AwaitsAck || !strings.Contains(o.Alert.Text, " bet expectation +")) {
			t.Fatalf("advantage output %+v", o.Alert)
		}
	}
	if len(r.tb.Latched()) != 0 {
		t.Fatalf("advantage alerts latched: %v", r.tb.Latched())
	}
}

// TestTableLongRun deals many shoes through one Table, as a daemon does
// over months: the per-shoe bookkeeping does not grow.
func TestTableLongRun(t *testing.T) {
	src, err := os.ReadFile("testdata/clean-8deck.shoe")
	if err != nil {
		t.Fatal(err)
	}
	toks, _ := tableau.ParseTranscript(bytes.NewReader(src), "clean")
	r := newTableRun(t, tableau.TableConfig{Fold: tableau.Options{Markers: true}})
	var coups []int
	for shoe := 0; shoe < 30; shoe++ {
		for _, tok := range toks {
			r.apply(tableau.TokenInput(tok))
		}
		r.apply(tableau.Input{Kind: tableau.InputShoe})
		coups = append(coups, len(events(r.out)))
		r.out = r.out[:0]
	}
	for i, n := range coups {
		if n != coups[0] {
			t.Fatalf("shoe %d gave %d events, shoe 1 gave %d", i+1, n, coups[0])
		}
	}
	if n := tableau.TableCounters(r.tb); n > 3*len(toks) {
		t.Fatalf("%d output counters kept after 30 shoes", n)
	}
}

// TestTableLiveAdvantage feeds the late-Dragon-7 EZ shoe through a Table
// and checks the live advantage check after every card: the view's list
// equals the odds engine's verdict on the decks less every card drawn so
// far, it changes inside coups (not only on their first card), and late in
// the shoe it holds Dragon 7 with the player's edge the README quotes.
func TestTableLiveAdvantage(t *testing.T) {
	const threshold = 0.01
	f, err := os.Open("../cmd/sabot/testdata/ez-late-dragon7.shoe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	toks, err := tableau.ParseTranscript(f, "ez-late-dragon7.shoe")
	if err != nil {
		t.Fatal(err)
	}
	rules := baccarat.Rules{Game: baccarat.GameEZ, TiePays: 8}
	r := newTableRun(t, tableau.TableConfig{
		Fold:               tableau.Options{Decks: 8, Rules: rules, Markers: true},
		AdvantageThreshold: mustAdvantage(t, threshold),
	})
	off := newTableRun(t, tableau.TableConfig{Fold: tableau.Options{Decks: 8, Rules: rules, Markers: true}})
	var drawn []tableau.Card
	var prev []odds.AdvantageBet
	changedMidCoup := 0
	for _, tok := range toks {
		r.apply(tableau.TokenInput(tok))
		off.apply(tableau.TokenInput(tok))
		if tok.Kind == tableau.TokShoe {
			drawn = drawn[:0]
		}
		if tok.Kind != tableau.TokCard {
			continue
		}
		drawn = append(drawn, tok.Card)
		v := r.tb.View()
		var want []odds.AdvantageBet
		rc, err := baccarat.NewRankCounts(8, drawn)
		if err != nil {
			t.Fatal(err)
		}
		bets, err := odds.Advantages(nil, &rc, rules, threshold)
		if err == nil {
			for _, b := range bets {
				want = append(want, odds.AdvantageBet{Bet: odds.OddsKey(b.Bet), EV: b.EV})
			}
		}
		if !reflect.DeepEqual(v.Advantage, want) {
			t.Fatalf("after card %d (%s): view advantage %+v, want %+v", len(drawn), tok.Card, v.Advantage, want)
		}
		if v.Phase == "coup" && v.Player.Len()+v.Banker.Len() > 1 && !reflect.DeepEqual(v.Advantage, prev) {
			changedMidCoup++
		}
		prev = v.Advantage
		if got := off.tb.View().Advantage; got != nil {
			t.Fatalf("advantage check off, but the view has %+v", got)
		}
	}
	if changedMidCoup == 0 {
		t.Error("the live advantage never changed after a card inside a coup: not recomputed after every card")
	}
	// Before coup 81 the README's worked example gives Dragon 7 about
	// +56.5%; by the end of the shoe Dragon 7 is still far above 1%.
	last := r.tb.View().Advantage
	found := false
	for _, a := range last {
		if a.Bet == "dragon7" && a.EV > 0.3 {
			found = true
		}
	}
	if !found {
		t.Errorf("end of the late-Dragon-7 shoe: live advantage %+v, want dragon7 above +30%%", last)
	}
}

// Between coups, the view says the last coup was voided (the display and
// the scoreboard must not show it as a result) until the next coup starts.
func TestTableViewAfterVoid(t *testing.T) {
	for _, markers := range []bool{false, true} {
		r := newTableRun(t, tableau.TableConfig{Fold: tableau.Options{Markers: markers}})
		script := "shoe 2H 3C 4D 9S 9H 9C 9D"
		if markers {
			script = "shoe 2H 3C 4D | 9S 9H 9C 9D"
		}
		for _, w := range strings.Fields(script + " void") {
			r.apply(scriptInput(t, w))
		}
		if markers {
			r.apply(scriptInput(t, "|"))
		}
		v := r.tb.View()
		if !v.Voided || v.Player.Len() != 0 || v.Banker.Len() != 0 || v.Complete || v.Coup != 1 || v.Phase != "between" {
			t.Errorf("markers %v: view after the void: voided %v, player %v, banker %v, complete %v, coup %d, phase %s",
				markers, v.Voided, v.Player, v.Banker, v.Complete, v.Coup, v.Phase)
		}
		r.apply(scriptInput(t, "5S"))
		if v := r.tb.View(); v.Voided || v.Coup != 2 || v.Player.Len() != 1 {
			t.Errorf("markers %v: the next coup: voided %v, coup %d, player %v", markers, v.Voided, v.Coup, v.Player)
		}
	}
}

// mustAdvantage is odds.AdvantageAbove(v) for a valid v.
func mustAdvantage(t testing.TB, v float64) odds.AdvantageThreshold {
	t.Helper()
	a, err := odds.AdvantageAbove(v)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
