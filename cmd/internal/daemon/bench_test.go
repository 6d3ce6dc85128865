package daemon

import (
	"bytes"
	"log/slog"
	"os"
	"testing"
	"time"

	"encoding/json"

	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/drivers/board"
	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/tableau"
)

// BenchmarkCardToDisplay measures what the main loop does between a card
// event and the display frame being written, before the journal's fsync:
// the table controller applies the card, the view is taken, and the board
// composes the frame and renders it (fake MAX7219: the SPI bytes are
// encoded and recorded). Target: well under 1 ms.
func BenchmarkCardToDisplay(b *testing.B) {
	src, err := os.ReadFile("../../../tableau/testdata/clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	toks, _ := tableau.ParseTranscript(bytes.NewReader(src), "clean")
	cfg := config.Default()
	cfg.Table, cfg.Display.Kind = "B", "fake"
	g, disp := cfg.BoardTables()
	brd, err := board.Open(g, disp, &board.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer brd.Close()
	d := &daemon{board: brd, metrics: newMetrics(), log: slog.New(slog.DiscardHandler)}
	newTbl := func() *tableau.Table {
		t, err := cfg.NewTable(nil)
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	tbl := newTbl()
	var outs []tableau.Output
	at := time.Now()
	b.ReportAllocs()
	i, seq := 0, uint64(0)
	for b.Loop() {
		if i == len(toks) {
			i, tbl = 0, newTbl()
		}
		seq++
		in := tableau.TokenInput(toks[i])
		i++
		outs = tbl.Apply(seq, at, in, outs[:0])
		d.showView(tbl.View(), inputReq{in: in, recv: at})
	}
}

// BenchmarkReplay is a restart's cost per journal record already published
// (decode, table controller, message builder), over whole 8-deck shoes.
func BenchmarkReplay(b *testing.B) {
	src, _ := os.ReadFile("../../../tableau/testdata/clean-8deck.shoe")
	toks, _ := tableau.ParseTranscript(bytes.NewReader(src), "clean")
	cfg := config.Default()
	cfg.Table = "B"
	cfg.State.Dir = b.TempDir()
	j, err := journal.Open(cfg.State.Dir, &journal.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	var batch []journal.Entry
	at := time.Now()
	for len(batch) < 20000 {
		for _, tok := range toks {
			data, _ := json.Marshal(tableau.TokenInput(tok))
			batch = append(batch, journal.Entry{Time: at, Data: data})
		}
	}
	if _, err := j.AppendBatch(batch); err != nil {
		b.Fatal(err)
	}
	j.SetMark(markPublished, uint64(len(batch)))
	j.Flush()
	for b.Loop() {
		d := &daemon{cfg: cfg, journal: j, log: slog.New(slog.DiscardHandler), metrics: newMetrics()}
		d.table, _ = cfg.NewTable(nil)
		d.builder = mqtt.NewBuilder(cfg.Table, d.table.Config().Fold.Rules)
		if _, _, err := d.replay(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(batch)), "ns/record")
	j.Close()
}

// BenchmarkParseConfig loads the shipped example configuration (every key,
// a TM1637 and its options): schema check, decode, registry checks.
func BenchmarkParseConfig(b *testing.B) {
	src, err := os.ReadFile("../../../systemd/sabotd.toml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := config.Parse(src, "sabotd.toml"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseConfigManyKeys: the worst file the loader parses,
// MaxConfigSettings unknown keys in one table (the TOML library's time
// grows with the square of the keys in a table).
func BenchmarkParseConfigManyKeys(b *testing.B) {
	src := manyKeys(config.MaxConfigSettings)
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := config.Parse(src, "big.toml"); err == nil {
			b.Fatal("accepted")
		}
	}
}
