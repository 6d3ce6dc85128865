//go:build linux

package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/cmd/internal/floor"
	"github.com/sabot-table/sabot/drivers/testenv"
	"github.com/sabot-table/sabot/drivers/testenv/natscluster"
	"github.com/sabot-table/sabot/tableau"
)

// TestFloorTokensEndAtTheCoup checks floor.Tokens against `sabot check`:
// the transcript it keeps checks to exactly the coups asked for, with the
// cards it counted.
func TestFloorTokensEndAtTheCoup(t *testing.T) {
	for _, tc := range []struct{ decks, coups int }{{8, 1}, {8, 30}, {8, 200}, {1, 20}, {6, 90}} {
		toks, cards, err := floor.Tokens(7, tc.decks, tc.coups)
		if err != nil {
			t.Fatal(err)
		}
		var text []string
		n := 0
		for _, tok := range toks {
			text = append(text, tok.String())
			if tok.Kind == tableau.TokCard {
				n++
			}
		}
		if n != cards {
			t.Errorf("%d decks, %d coups: counted %d cards, the tokens hold %d", tc.decks, tc.coups, cards, n)
		}
		path := filepath.Join(t.TempDir(), "floor.shoe")
		if err := os.WriteFile(path, []byte(strings.Join(text, " ")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"check", "--decks", strconv.Itoa(tc.decks), path}, nil, &out, &errb)
		if code != 0 {
			t.Fatalf("%d decks, %d coups: check exit %d: %s", tc.decks, tc.coups, code, errb.String())
		}
		if got := strings.Count(out.String(), `"type":"coup"`); got != tc.coups {
			t.Errorf("%d decks: check found %d coups, want %d", tc.decks, got, tc.coups)
		}
	}
}

// TestFloorSimMosquitto is the short form of the floor measurement: three
// tables dealing at 10 cards a second on a Mosquitto broker, every card
// and coup delivered once, with the figures filled in; then the same floor with an impossible latency
// limit fails with exit status 1 naming the p99. The full measurement is
// the documented command in docs/operations.md ("Floor scale").
func TestFloorSimMosquitto(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	bin := builtSabotd(t)
	mq := testenv.StartMosquitto(t)
	args := []string{"floor-sim", "--broker", mq.URL, "--tables", "3", "--coups", "6", "--sabotd", bin,
		"--broker-pid", strconv.Itoa(mq.PID()), "--json", "--dir", t.TempDir(),
		// Delivery is asserted here, not speed: the machine running the
		// tests may be loaded (latency is measured by the documented
		// command, on a quiet machine).
		"--p99-max", "1h"}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep := runFloorJSON(t, ctx, args)
	reportFloorDelivery(t, rep)
	wantCards := 0
	for i := range 3 {
		_, cards, err := floor.Tokens(1+uint64(i), 8, 6)
		if err != nil {
			t.Fatal(err)
		}
		wantCards += cards
	}
	if rep.CardsExpected != wantCards || rep.CardsReceived != wantCards || rep.CoupsExpected != 18 || rep.CoupsReceived != 18 {
		t.Errorf("cards %d/%d (want %d), coups %d/%d (want 18)", rep.CardsReceived, rep.CardsExpected, wantCards, rep.CoupsReceived, rep.CoupsExpected)
	}
	if rep.Lost != 0 || rep.Gaps != 0 || rep.Duplicates != 0 || !rep.Pass || rep.Alerts != 0 {
		t.Errorf("lost %d, duplicates %d, alerts %v during the dealing, pass %v (%s)", rep.Lost, rep.Duplicates, rep.AlertCodes, rep.Pass, rep.Reason)
	}
	checkLinkAlerts(t, rep, 3)
	if rep.LatencyP50 <= 0 || rep.LatencyP99 < rep.LatencyP50 || rep.LatencyMax < rep.LatencyP99 {
		t.Errorf("latencies p50 %v p99 %v max %v", rep.LatencyP50, rep.LatencyP99, rep.LatencyMax)
	}
	if rep.DaemonRSSAvg < 1024 || rep.DaemonCPUAvg <= 0 || len(rep.Brokers) != 1 || rep.Brokers[0].RSS < 512 {
		t.Errorf("process figures missing: daemon RSS %d KiB CPU %.2f%%, brokers %+v", rep.DaemonRSSAvg, rep.DaemonCPUAvg, rep.Brokers)
	}

	var out, errb bytes.Buffer
	args = []string{"floor-sim", "--broker", mq.URL, "--tables", "1,2", "--coups", "2", "--sabotd", bin, "--p99-max", "1ns", "--dir", t.TempDir()}
	if code := run(ctx, args, nil, &out, &errb); code != 1 {
		t.Fatalf("floor-sim with p99 limit 1ns: exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "FAIL: p99") || strings.Contains(out.String(), "floor of 2 tables") {
		t.Errorf("want one failed run naming the p99 and no second run:\n%s", out.String())
	}
}

// TestFloorSimNATS is the short form on a 3-node NATS cluster (JetStream
// and MQTT on loopback): every daemon and the subscriber are given all
// three nodes; every card and coup is delivered once.
func TestFloorSimNATS(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	bin := builtSabotd(t)
	cl := natscluster.Start(t, natscluster.Options{})
	args := []string{"floor-sim", "--tables", "2", "--coups", "4", "--sabotd", bin, "--json", "--dir", t.TempDir(), "--p99-max", "1h"}
	for i := range cl.Len() {
		args = append(args, "--broker", cl.Node(i).URL(), "--broker-pid", strconv.Itoa(cl.Node(i).Pid()))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep := runFloorJSON(t, ctx, args)
	reportFloorDelivery(t, rep)
	if rep.CardsReceived != rep.CardsExpected || rep.CoupsReceived != 8 || rep.Lost != 0 || rep.Gaps != 0 || rep.Duplicates != 0 || rep.Alerts != 0 {
		t.Errorf("cards %d/%d, coups %d/8, lost %d %v, duplicates %d, alerts %v, subscriber reconnections %d", rep.CardsReceived, rep.CardsExpected,
			rep.CoupsReceived, rep.Lost, rep.LostByTable, rep.Duplicates, rep.AlertCodes, rep.SubscriberReconnects)
	}
	checkLinkAlerts(t, rep, 2)
	if len(rep.Brokers) != 3 {
		t.Errorf("brokers measured: %+v", rep.Brokers)
	}
}

// reportFloorDelivery reports a floor's delivery for .ci/stress: its cards
// and coups, lost, duplicated, and the longest card → subscriber latency
// (cards of the start-up burst aside, as in the report).
func reportFloorDelivery(t *testing.T, rep floor.Report) {
	t.Helper()
	testenv.ReportDelivery(t, "", testenv.Delivery{Expected: rep.CardsExpected + rep.CoupsExpected, Lost: rep.Lost,
		Duplicated: rep.Duplicates, Worst: time.Duration(rep.LatencyMax * float64(time.Millisecond))})
}

// checkLinkAlerts checks a floor's shoe link alerts, the same on every
// broker: none while the shoes deal, and once each table's shoe stopped
// (its pseudo-terminal closed) exactly one shoe-offline per table.
// runFloorJSON runs floor-sim with args (which ask for --json), fails the
// test on any exit status but 0, and returns the report it printed.
func runFloorJSON(t *testing.T, ctx context.Context, args []string) floor.Report {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(ctx, args, nil, &out, &errb); code != 0 {
		t.Fatalf("floor-sim %q: exit %d\nstdout: %s\nstderr: %s", args, code, out.String(), errb.String())
	}
	var rep floor.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	return rep
}

func checkLinkAlerts(t *testing.T, rep floor.Report, tables int) {
	t.Helper()
	if n := rep.AlertCodes["shoe-online"] + rep.AlertCodes["shoe-offline"]; n != 0 {
		t.Errorf("link alerts while dealing: %v, want none", rep.AlertCodes)
	}
	if len(rep.AlertCodesAfter) != 1 || rep.AlertCodesAfter["shoe-offline"] != tables {
		t.Errorf("alerts once the shoes stopped: %v, want shoe-offline ×%d (one per table)", rep.AlertCodesAfter, tables)
	}
}

// TestFloorSimRunsAreFresh runs a floor twice with one --dir: each run's
// daemons start from empty state directories, so the second raises no
// link alert either. (Runs used to share run1-1tables/: the second run's
// daemons replayed the first run's journals, which ended with the shoe
// offline, and raised shoe-online at their first card; the NATS sweep of
// TestFloorMeasure, after the Mosquitto one in the same directory, raised
// one per table.)
func TestFloorSimRunsAreFresh(t *testing.T) {
	bin := builtSabotd(t)
	mq := testenv.StartMosquitto(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for i := 1; i <= 2; i++ {
		args := []string{"floor-sim", "--broker", mq.URL, "--tables", "1", "--coups", "2", "--sabotd", bin, "--json", "--dir", dir, "--p99-max", "1h"}
		rep := runFloorJSON(t, ctx, args)
		if rep.Alerts != 0 || rep.Lost != 0 {
			t.Errorf("run %d: alerts while dealing %v, lost %d", i, rep.AlertCodes, rep.Lost)
		}
		checkLinkAlerts(t, rep, 1)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "run1-1tables-*"))
	if len(runs) != 2 {
		t.Errorf("run directories %v, want two", runs)
	}
}

// TestFloorSimShoesStartWithDaemons spreads a 3-table floor's start over
// 4 s, more than the Sabot protocol's 3 s heartbeat timeout, as 200 tables'
// start-up does: every shoe speaks from its daemon's start, so no daemon
// raises a link alert. (The shoes used to start only once every daemon
// had: at 200 tables and more, half the tables raised shoe-offline and
// shoe-online during the dealing.) Not parallel: it sets floor.StartGap.
func TestFloorSimShoesStartWithDaemons(t *testing.T) {
	bin := builtSabotd(t)
	mq := testenv.StartMosquitto(t)
	floor.StartGap = 2 * time.Second
	defer func() { floor.StartGap = 0 }()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{"floor-sim", "--broker", mq.URL, "--tables", "3", "--coups", "2", "--sabotd", bin, "--json", "--dir", t.TempDir(), "--p99-max", "1h"}
	rep := runFloorJSON(t, ctx, args)
	if rep.Lost != 0 || rep.Duplicates != 0 {
		t.Errorf("lost %d, duplicates %d", rep.Lost, rep.Duplicates)
	}
	checkLinkAlerts(t, rep, 3)
}

func TestFloorSimFlags(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"", "--broker is required"},
		{"--broker tcp://x:1 --tables 0", `"0" is not a number of tables`},
		{"--broker tcp://x:1 --tables 3,x", `"x" is not a number of tables`},
		{"--broker tcp://x:1 --rate 0", "--rate 0 out of range"},
		{"--broker tcp://x:1 --coups 0", "--coups 0 out of range"},
		{"--broker tcp://x:1 --decks 9", "--decks 9 out of range"},
		{"--broker tcp://x:1 --broker-pid abc", `--broker-pid "abc"`},
		{"--broker tcp://x:1 --refusal-timeout 100ms", "--refusal-timeout 100ms out of range"},
		{"--broker tcp://x:1 --sabotd /nonexistent/sabotd", "sabotd binary"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"floor-sim"}, strings.Fields(tc.args)...), nil, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// TestFloorMeasure is the full floor measurement (docs/operations.md,
// "Floor scale"): with SABOT_FLOOR=full it sweeps floors of growing size
// dealing at 10 cards a second per table on a single Mosquitto and
// reports each run, up to the first that loses anything or whose p99
// passes 100 ms; then the same on a 3-node NATS cluster. SABOT_FLOOR_TABLES overrides the sizes (a comma-separated
// list), SABOT_FLOOR_COUPS the coups per table (default 20),
// SABOT_FLOOR_RATE the cards a second per table (default 10; 1 is real
// dealing speed) and SABOT_FLOOR_P99 the latency bound (default 100ms). It is
// not part of the test command: it takes minutes and measures the
// machine, which must be otherwise idle. It measures a single Mosquitto,
// then a 3-node NATS cluster; SABOT_FLOOR_BROKER=mosquitto or nats runs
// one of them.
func TestFloorMeasure(t *testing.T) {
	if os.Getenv("SABOT_FLOOR") != "full" {
		t.Skip("the floor measurement runs with SABOT_FLOOR=full (docs/operations.md)")
	}
	tables := os.Getenv("SABOT_FLOOR_TABLES")
	if tables == "" {
		tables = "10,20,30,40,50,60,70,80,100,120,160"
	}
	coups := os.Getenv("SABOT_FLOOR_COUPS")
	if coups == "" {
		coups = "20"
	}
	bin := builtSabotd(t)
	// The daemons stand for one Pi each, every one with its own disk: their
	// state directories go on tmpfs (/dev/shm), or N daemons' fsyncs (two
	// per card) would contend for this machine's one disk and measure it,
	// not the broker. SABOT_FLOOR_DIR overrides.
	dir := os.Getenv("SABOT_FLOOR_DIR")
	if dir == "" {
		dir = t.TempDir()
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			d, err := os.MkdirTemp("/dev/shm", "sabot-floor-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(d) })
			dir = d
		}
	}
	rate := cmp.Or(os.Getenv("SABOT_FLOOR_RATE"), "10")
	p99 := cmp.Or(os.Getenv("SABOT_FLOOR_P99"), "100ms")
	common := []string{"floor-sim", "--tables", tables, "--coups", coups, "--rate", rate, "--p99-max", p99, "--sabotd", bin, "--dir", dir}
	measure := func(name string, args []string) {
		var out, errb bytes.Buffer
		code := run(context.Background(), append(common, args...), nil, &out, &errb)
		t.Logf("%s:\n%s%s", name, out.String(), errb.String())
		if code == 2 {
			t.Fatalf("floor-sim exit 2")
		}
	}
	if os.Getenv("SABOT_FLOOR_BROKER") != "nats" {
		mq := testenv.StartMosquitto(t)
		measure("single Mosquitto", []string{"--broker", mq.URL, "--broker-pid", strconv.Itoa(mq.PID())})
		if os.Getenv("SABOT_FLOOR_BROKER") == "mosquitto" {
			return
		}
	}
	cl := natscluster.Start(t, natscluster.Options{})
	var args []string
	for i := range cl.Len() {
		args = append(args, "--broker", cl.Node(i).URL(), "--broker-pid", strconv.Itoa(cl.Node(i).Pid()))
	}
	measure("3-node NATS cluster", args)
}
