package tableau_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau/card"

	"pgregory.net/rapid"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
	"github.com/sabot-table/sabot/tableau/odds"
)

// genInput draws one table input of any kind, mostly cards: valid cards of
// a small shoe (so composition alerts and shoe ends come quickly), now and
// then an invalid card, with UIDs from a small set (duplicate-card and
// card-mismatch alerts).
func genInput(t *rapid.T) tableau.Input {
	switch k := rapid.IntRange(0, 99).Draw(t, "kind"); {
	case k < 60:
		in := tableau.Input{Kind: tableau.InputCard, Source: "shoe"}
		in.Card = tableau.Card{Rank: tableau.Rank(rapid.IntRange(1, 13).Draw(t, "rank")), Suit: tableau.Suit(rapid.IntRange(0, 4).Draw(t, "suit"))}
		if rapid.IntRange(0, 40).Draw(t, "invalid") == 0 {
			in.Card.Rank = 0
		}
		if rapid.Bool().Draw(t, "hasUID") {
			in.UID = fmt.Sprintf("u%d", rapid.IntRange(0, 30).Draw(t, "uid"))
		}
		return in
	case k < 68:
		return tableau.Input{Kind: tableau.InputButton}
	case k < 72:
		return tableau.Input{Kind: tableau.InputStand}
	default:
		kinds := []tableau.InputKind{tableau.InputCut, tableau.InputVoid, tableau.InputShoe, tableau.InputUnreadable,
			tableau.InputAlarm, tableau.InputOffline, tableau.InputOnline, tableau.InputAck, tableau.InputBetsOpen,
			tableau.InputBetsClosed, tableau.InputBacklog, tableau.InputRejected, tableau.InputClockJump, tableau.InputArchivePruned,
			tableau.InputDealer}
		in := tableau.Input{Kind: rapid.SampledFrom(kinds).Draw(t, "other")}
		switch in.Kind {
		case tableau.InputAlarm:
			in.Code, in.Text = "E3", rapid.SampledFrom([]string{"", "jam", "lid open"}).Draw(t, "text")
		case tableau.InputAck:
			in.Operator = "sup"
		case tableau.InputDealer: // sign-outs, a few dealers, now and then an invalid id (ignored)
			in.Dealer = rapid.SampledFrom([]string{"", "D1", "D2", "D3", "bad id"}).Draw(t, "dealer")
		}
		return in
	}
}

func genTableConfig(t *rapid.T) tableau.TableConfig {
	cfg := tableau.TableConfig{
		Table: "T",
		Fold: tableau.Options{
			Decks:   rapid.IntRange(1, 2).Draw(t, "decks"),
			Markers: rapid.Bool().Draw(t, "markers"),
			CutRule: tableau.CutRule(rapid.IntRange(0, 1).Draw(t, "cutRule")),
			Rules:   baccarat.Rules{Game: fuzzGames[rapid.IntRange(0, len(fuzzGames)-1).Draw(t, "game")]},
		},
		Misdeal:           tableau.MisdealPolicy(rapid.IntRange(0, 1).Draw(t, "misdeal")),
		RequireBetsClosed: rapid.Bool().Draw(t, "betsClosed"),
		Gate:              rapid.Bool().Draw(t, "gate"),
	}
	if rapid.Bool().Draw(t, "shifts") {
		cfg.Shifts = tableau.ShiftSchedule{Starts: []int{6 * 60, 14 * 60, 22 * 60}, Location: time.FixedZone("X", 5*3600)}
	}
	if rapid.Bool().Draw(t, "registry") {
		cfg.Registry = map[string]tableau.Card{"u1": {Rank: card.RankAce, Suit: card.Spades}, "u2": {Rank: card.Rank9}}
	}
	if rapid.IntRange(0, 4).Draw(t, "advantage") == 0 && cfg.Fold.Rules.Game.DealsPuntoBanco() { // the punto banco odds only
		// A low threshold: a bet favouring the player (often, late in a
		// 1–2 deck shoe) raises advantage alerts and the view carries them.
		cfg.AdvantageThreshold, _ = odds.AdvantageAbove(1e-9)
		if rapid.Bool().Draw(t, "anyBet") {
			cfg.AdvantageThreshold, _ = odds.AdvantageAbove(0) // any positive expectation
		}
	}
	return cfg
}

// outputsText is the text form the comparison prints: every field of
// every output, ids included (events as their JSON lines).
func outputsText(outs []tableau.Output) string { return fmt.Sprintf("%+v", outs) }

func viewJSON(t *rapid.T, tb *tableau.Table) string {
	b, err := json.Marshal(tb.View())
	if err != nil {
		t.Fatalf("encode view: %v", err)
	}
	return string(b)
}

// TestPropertySnapshotReplay: for random configurations and input
// sequences (every input kind, clock jumps included), a table restored
// from a snapshot taken after any input and fed the rest gives, after
// every input, exactly the outputs (ids, times, every field) and the view
// of the table that applied the whole sequence; and a snapshot of the
// restored table is byte-identical to the snapshot it came from.
func TestPropertySnapshotReplay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genTableConfig(t)
		ins := rapid.SliceOfN(rapid.Custom(genInput), 1, 400).Draw(t, "inputs")
		// Times: mostly forward by seconds, sometimes a jump of hours
		// either way (a clock set by NTP after boot).
		times := make([]time.Time, len(ins))
		at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		for i := range times {
			switch rapid.IntRange(0, 30).Draw(t, "clock") {
			case 0:
				at = at.Add(-time.Duration(rapid.IntRange(1, 48).Draw(t, "back")) * time.Hour)
			case 1:
				at = at.Add(time.Duration(rapid.IntRange(1, 48).Draw(t, "fwd")) * time.Hour)
			default:
				at = at.Add(time.Duration(rapid.IntRange(0, 5000).Draw(t, "ms")) * time.Millisecond)
			}
			times[i] = at
		}
		cut := rapid.IntRange(0, len(ins)).Draw(t, "snapshotAfter")

		full, err := tableau.NewTable(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var snap []byte
		var wantOuts [][]tableau.Output
		var wantViews []string
		var outs []tableau.Output
		for i, in := range ins {
			if i == cut {
				if snap, err = full.Snapshot(); err != nil {
					t.Fatalf("snapshot after %d inputs: %v", i, err)
				}
			}
			outs = full.Apply(uint64(i+1), times[i], in, outs[:0])
			wantOuts = append(wantOuts, slices.Clone(outs))
			wantViews = append(wantViews, viewJSON(t, full))
		}
		if cut == len(ins) {
			if snap, err = full.Snapshot(); err != nil {
				t.Fatal(err)
			}
		}

		restored, err := tableau.RestoreTable(cfg, snap)
		if err != nil {
			t.Fatalf("restore the snapshot taken after %d inputs: %v\n%s", cut, err, snap)
		}
		again, err := restored.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(snap) {
			t.Fatalf("snapshot of the restored table differs:\n got %s\nwant %s", again, snap)
		}
		if cut > 0 && viewJSON(t, restored) != wantViews[cut-1] {
			t.Fatalf("view right after restoring (after input %d) differs:\n got %s\nwant %s", cut, viewJSON(t, restored), wantViews[cut-1])
		}
		if restored.LastSeq() != uint64(cut) {
			t.Fatalf("restored LastSeq %d, want %d", restored.LastSeq(), cut)
		}
		for i := cut; i < len(ins); i++ {
			outs = restored.Apply(uint64(i+1), times[i], ins[i], outs[:0])
			if !reflect.DeepEqual(outs, wantOuts[i]) && !(len(outs) == 0 && len(wantOuts[i]) == 0) {
				t.Fatalf("input %d (%+v) after a snapshot at %d: outputs differ:\n got %s\nwant %s", i+1, ins[i], cut, outputsText(outs), outputsText(wantOuts[i]))
			}
			if got := viewJSON(t, restored); got != wantViews[i] {
				t.Fatalf("input %d (%+v) after a snapshot at %d: view differs:\n got %s\nwant %s", i+1, ins[i], cut, got, wantViews[i])
			}
		}
		if !reflect.DeepEqual(restored.Latched(), full.Latched()) || restored.GateLocked() != full.GateLocked() {
			t.Fatalf("latched alerts or gate differ at the end")
		}
	})
}

// TestSnapshotVersion: a snapshot of another version, or no snapshot at
// all, is refused with ErrSnapshotVersion and a message naming the found
// and the supported version; corrupt data is ErrSnapshot; nothing panics.
func TestSnapshotVersion(t *testing.T) {
	cfg := tableau.TableConfig{Table: "T"}
	tb, _ := tableau.NewTable(cfg)
	tb.Apply(1, time.Unix(0, 0), tableau.Input{Kind: tableau.InputCard, Card: tableau.Card{Rank: 5, Suit: 1}}, nil)
	snap, err := tb.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if r, err := tableau.RestoreTable(cfg, snap); err != nil || r.LastSeq() != 1 || r.View().Shoe != 1 {
		t.Fatalf("restore: %v", err)
	}
	newer := strings.Replace(string(snap), fmt.Sprintf(`"v":%d`, tableau.SnapshotVersion), fmt.Sprintf(`"v":%d`, tableau.SnapshotVersion+1), 1)
	_, err = tableau.RestoreTable(cfg, []byte(newer))
	if !errors.Is(err, tableau.ErrSnapshotVersion) {
		t.Fatalf("newer snapshot: %v", err)
	}
	want := fmt.Sprintf("found version %d, this Sabot reads version %d", tableau.SnapshotVersion+1, tableau.SnapshotVersion)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
	if _, err := tableau.RestoreTable(cfg, []byte(`{"shoe":1}`)); !errors.Is(err, tableau.ErrSnapshotVersion) {
		t.Fatalf("no version: %v", err)
	}
	for _, bad := range []string{``, `{`, `[]`, `{"v":1,"rank":[1]}`, `{"v":1,"phase":9}`,
		strings.Replace(string(snap), `"decks":8`, `"decks":0`, 1),
		strings.Replace(string(snap), `"phase":1`, `"phase":0`, 1),
		strings.Replace(string(snap), `"v":1,`, `"v":1,"unknown":2,`, 1)} {
		if _, err := tableau.RestoreTable(cfg, []byte(bad)); !errors.Is(err, tableau.ErrSnapshot) {
			t.Errorf("RestoreTable(%.60q): %v, want ErrSnapshot", bad, err)
		}
	}
}

// FuzzRestoreTable: no data makes RestoreTable panic, and a table it
// accepts takes further inputs without panicking.
func FuzzRestoreTable(f *testing.F) {
	tb, _ := tableau.NewTable(tableau.TableConfig{Table: "T", Fold: tableau.Options{Markers: true}})
	for i, in := range fuzzInputs([]byte("\x01\x05\x02\x10\x03\x20\x14\x04\x11\x05\x12\x06\x13\x07\x14\x16\x1d")) {
		tb.Apply(uint64(i+1), time.Unix(int64(i), 0), in, nil)
	}
	snap, _ := tb.Snapshot()
	f.Add(snap)
	f.Add([]byte(`{"v":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := tableau.RestoreTable(tableau.TableConfig{Table: "T", Fold: tableau.Options{Markers: true}}, data)
		if err != nil {
			return
		}
		for i, in := range fuzzInputs([]byte("\x01\x05\x02\x10\x03\x20\x14\x04\x11\x05\x16\x1d\x14\x15")) {
			r.Apply(uint64(i+100), time.Unix(int64(i), 0), in, nil)
			r.View()
		}
		if _, err := r.Snapshot(); err != nil {
			t.Fatal(err)
		}
	})
}
