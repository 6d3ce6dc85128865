//go:build linux

package main

// sabot floor-sim: the floor harness, run by cmd/internal/floor.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sabot-table/sabot/cmd/internal/floor"
	"github.com/sabot-table/sabot/drivers/mqtt"
)

func init() {
	register(&command{
		name:    "floor-sim",
		summary: "run a floor of sabotd tables with virtual shoes against a broker and measure delivery",
		run:     runFloorSim,
	})
}

const floorSimUsage = `usage: sabot floor-sim --broker URL [--broker URL ...] [--tables N[,N...]] [--rate CARDS_PER_S]
                      [--coups M] [--broker-pid PID ...] [--p99-max 100ms] [flags]

Starts N sabotd daemons (tables FLOOR-1 … FLOOR-N), each reading its own
virtual shoe (the Sabot protocol on a pseudo-terminal, dealt in this
process at --rate cards per second) and publishing to the given broker or
cluster (every --broker URL is given to every daemon, in order). A
subscriber on the same brokers receives every table's cards, coups,
alerts and voids; a broker that refuses its subscriptions (or a daemon's,
or PUBACKs) for --refusal-timeout is left for the next --broker. Each table deals M coups of seeded shoes; when every
shoe's events have been acknowledged and delivered (or --drain has
passed), it reports:

  delivered coups and messages per second, for the whole floor;
  card → subscriber latency p50/p99/max: from the "time" of the card
    message (when the daemon received the card) to its arrival at the
    subscriber;
  CPU (percent of one core over the dealing) and RSS (now and peak) per
    daemon, average and largest, and for each --broker-pid;
  loss: cards and coups expected but not received, and duplicates;
    gaps: those the subscriber can tell it lacks from the messages' own
    sequences (a card's in_shoe, the coup numbers of a shoe).

With a list (--tables 10,20,40) it runs each size in turn and stops at the
first that fails. A run fails when anything is lost or p99 exceeds
--p99-max. Exit status: 0 every run passed, 1 a run failed, 2 bad flags or
the floor could not be started.

Flags:
`

func parseFloorSimFlags(args []string, stderr io.Writer) (floor.Config, error) {
	c := floor.Config{}
	fs := newFlagSet("floor-sim", floorSimUsage, stderr)
	var tables string
	var pids []string
	fs.Var(listFlag{&c.Brokers}, "broker", "broker `URL` (tcp://host:port); repeat for a cluster's nodes")
	fs.StringVar(&tables, "tables", "4", "tables on the floor; a comma-separated list runs each size in turn")
	fs.Float64Var(&c.Rate, "rate", 10, "cards per second per table (about 1 is real dealing speed)")
	fs.IntVar(&c.Coups, "coups", 30, "coups each table deals")
	fs.IntVar(&c.Decks, "decks", 8, "decks per shoe")
	fs.StringVar(&c.Sabotd, "sabotd", "", "the sabotd `binary` (default: sabotd beside this program, else in PATH)")
	fs.StringVar(&c.Dir, "dir", "", "working `directory` for the daemons' state and logs (default: a temporary one, removed)")
	fs.Var(listFlag{&pids}, "broker-pid", "`PID` of a broker process to measure; repeat for a cluster")
	fs.DurationVar(&c.P99Max, "p99-max", 100*time.Millisecond, "a run fails when the card latency p99 exceeds this")
	fs.DurationVar(&c.Drain, "drain", 30*time.Second, "how long to wait for delivery after the last shoe is done")
	fs.DurationVar(&c.RefusalTimeout, "refusal-timeout", mqtt.DefaultRefusalTimeout, "a broker refusing the subscriber's subscriptions (or a daemon's, or its PUBACKs) this long is left for the next --broker (one broker is never left); the daemons' [mqtt] refusal_timeout")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the first table's shoes (table i deals seed+i-1)")
	fs.BoolVar(&c.JSON, "json", false, "print one JSON object per run instead of text")
	fs.BoolVar(&c.Keep, "keep", false, "keep the working directory")
	if err := parseFlags(fs, args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("floor-sim: unexpected argument %q", fs.Arg(0))
	}
	if len(c.Brokers) == 0 {
		return c, errors.New("floor-sim: --broker is required (a broker or the nodes of a cluster)")
	}
	for _, f := range strings.Split(tables, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > floor.MaxTables {
			return c, fmt.Errorf("floor-sim: --tables %q: %q is not a number of tables 1..%d", tables, f, floor.MaxTables)
		}
		c.Tables = append(c.Tables, n)
	}
	for _, p := range pids {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return c, fmt.Errorf("floor-sim: --broker-pid %q is not a process id", p)
		}
		c.BrokerPIDs = append(c.BrokerPIDs, n)
	}
	if err := c.Check(); err != nil {
		return c, err
	}
	if c.Sabotd == "" {
		c.Sabotd = findSabotd()
	}
	if _, err := exec.LookPath(c.Sabotd); err != nil {
		return c, fmt.Errorf("floor-sim: sabotd binary: %w (give --sabotd PATH)", err)
	}
	return c, nil
}

func runFloorSim(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c, err := parseFloorSimFlags(args, stderr)
	if code, exit := flagsExit(err, stderr, ""); exit { // its errors say "floor-sim:"
		return code
	}
	pass, err := floor.Run(ctx, c, stdout)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if !pass {
		return 1
	}
	return 0
}

// findSabotd returns sabotd beside the running sabot (both are in
// /usr/bin from the package), or "sabotd" to be looked up in PATH.
func findSabotd() string {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "sabotd")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "sabotd"
}
