//go:build linux

// Package floor is the floor harness (sabot floor-sim): it runs a floor
// of sabotd daemons, each reading its own virtual shoe on a
// pseudo-terminal, against a broker or cluster, subscribes to every
// table's messages and reports delivery, latency, loss and the processes'
// CPU and memory (Report).
package floor

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/cmd/internal/mqttclient"
	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/firmware-proto/sim"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// Config is a floor-sim run's settings (sabot floor-sim's flags).
type Config struct {
	// Brokers are the broker URLs, given to every daemon and to the
	// subscriber, in order (--broker).
	Brokers []string
	// Tables are the floor sizes run in turn, each 1 to MaxTables
	// (--tables).
	Tables []int
	// Rate is the cards a second per table, in (0, 1000] (--rate).
	Rate float64
	// Coups is the coups each table deals, 1 to MaxCoups (--coups), and
	// Decks the decks per shoe (--decks).
	Coups, Decks int
	// Sabotd is the sabotd binary (--sabotd).
	Sabotd string
	// Dir is the working directory of the daemons' state and logs, ""
	// for a temporary one (--dir); Keep keeps it (--keep).
	Dir  string
	Keep bool
	// BrokerPIDs are broker processes to measure (--broker-pid).
	BrokerPIDs []int
	// P99Max is the card latency p99 past which a run fails (--p99-max).
	P99Max time.Duration
	// Drain is how long delivery is waited for after the last shoe is
	// done, positive (--drain).
	Drain time.Duration
	// RefusalTimeout is how long a refusing broker is kept, by the
	// subscriber and the daemons, mqttclient.MinRefusalTimeout to
	// mqttclient.MaxRefusalTimeout (--refusal-timeout).
	RefusalTimeout time.Duration
	// Seed is the seed of the first table's shoes; table i deals
	// Seed+i-1 (--seed).
	Seed uint64
	// JSON prints one JSON object per run instead of text (--json).
	JSON bool
}

// Bounds of floor-sim's flags: a floor larger than MaxTables would need
// more processes and ptys than a test machine gives.
const (
	// MaxTables is the largest floor (--tables).
	MaxTables = 2000
	// MaxCoups is the most coups a table deals (--coups).
	MaxCoups = 100000
)

// StartGap is a pause after each daemon's start, for a test that spreads
// a small floor's start-up as a large floor's takes (200 daemons took 6 s
// here). Zero outside tests.
var StartGap time.Duration

// Check checks c's rate, coups, decks, drain, refusal timeout and broker
// URLs; its errors begin "floor-sim: " and name the flag.
func (c Config) Check() error {
	switch {
	case c.Rate <= 0 || c.Rate > 1000:
		return fmt.Errorf("floor-sim: --rate %g out of range (0, 1000] cards per second", c.Rate)
	case c.Coups < 1 || c.Coups > MaxCoups:
		return fmt.Errorf("floor-sim: --coups %d out of range 1..%d", c.Coups, MaxCoups)
	case c.Decks < 1 || c.Decks > baccarat.MaxDecks:
		return fmt.Errorf("floor-sim: --decks %d out of range 1..%d", c.Decks, baccarat.MaxDecks)
	case c.Drain <= 0:
		return fmt.Errorf("floor-sim: --drain %v must be positive", c.Drain)
	case c.RefusalTimeout < mqttclient.MinRefusalTimeout || c.RefusalTimeout > mqttclient.MaxRefusalTimeout:
		return fmt.Errorf("floor-sim: --refusal-timeout %v out of range %v..%v", c.RefusalTimeout, mqttclient.MinRefusalTimeout, mqttclient.MaxRefusalTimeout)
	}
	for _, b := range c.Brokers {
		if why := mqtt.BrokerURLProblem(b); why != "" {
			return fmt.Errorf("floor-sim: --broker %q: %s", b, why)
		}
	}
	return nil
}

// Run runs a floor of each size of c.Tables in turn, writing each run's
// report to w (text, or a JSON object a line with c.JSON), and stops at
// the first run that fails. It reports whether every run passed; an error
// (the floor could not be started or was interrupted: "floor-sim: ...")
// ends it.
func Run(ctx context.Context, c Config, w io.Writer) (pass bool, err error) {
	for i, n := range c.Tables {
		rep, err := runFloor(ctx, c, n, i)
		if err != nil {
			return false, err
		}
		if c.JSON {
			b, _ := json.Marshal(rep)
			fmt.Fprintf(w, "%s\n", b)
		} else {
			rep.writeText(w)
		}
		if !rep.Pass {
			return false, nil
		}
	}
	return true, nil
}

// Report is one floor-sim run's result; its JSON form is what --json
// prints. Durations are in milliseconds, CPU in percent of one core over
// the dealing, RSS in KiB.
type Report struct {
	Tables        int     `json:"tables"`
	Rate          float64 `json:"rate"`
	CoupsPerTable int     `json:"coups_per_table"`
	DealSeconds   float64 `json:"deal_s"`

	CardsExpected int            `json:"cards_expected"`
	CardsReceived int            `json:"cards_received"`
	CoupsExpected int            `json:"coups_expected"`
	CoupsReceived int            `json:"coups_received"`
	Alerts        int            `json:"alerts"`
	AlertCodes    map[string]int `json:"alert_codes,omitempty"`
	AlertsAfter   int            `json:"alerts_after_shoe_stopped"`
	// AlertCodesAfter counts by code the alerts raised once a table's
	// shoe had stopped: the link closing (shoe-offline, once per table).
	AlertCodesAfter map[string]int `json:"alert_codes_after_shoe_stopped,omitempty"`
	Voids           int            `json:"voids"`
	Duplicates      int            `json:"duplicates"`
	Lost            int            `json:"lost"`
	// LostByTable names the tables that lost something: "FLOOR-3": "2
	// cards, 1 coups".
	LostByTable map[string]string `json:"lost_by_table,omitempty"`
	// Gaps counts the cards and coups the subscriber can tell it lacks
	// from the messages' own sequences, as any consumer can without
	// knowing what was dealt: a card's in_shoe numbers the cards of its
	// shoe from 1, and every coup number of a shoe comes as a coup or a
	// void; a number below the highest received in its shoe, never
	// received, is a gap. (Lost, which compares with what was dealt,
	// also counts the trailing ones.)
	Gaps int `json:"gaps"`
	// SubscriberReconnects counts the measuring subscriber's lost
	// connections (its persistent session keeps its messages meanwhile).
	SubscriberReconnects int `json:"subscriber_reconnects"`

	CoupsPerSecond    float64 `json:"coups_per_s"`
	MessagesPerSecond float64 `json:"messages_per_s"`
	LatencyP50        float64 `json:"latency_p50_ms"`
	LatencyP99        float64 `json:"latency_p99_ms"`
	LatencyMax        float64 `json:"latency_max_ms"`
	// StartupCards were received by their daemons before every daemon
	// was online (dealt meanwhile into the shoes' rings): not in the
	// latency figures.
	StartupCards int `json:"startup_cards"`

	DaemonCPUAvg  float64     `json:"daemon_cpu_avg_pct"`
	DaemonCPUMax  float64     `json:"daemon_cpu_max_pct"`
	DaemonRSSAvg  int         `json:"daemon_rss_avg_kib"`
	DaemonRSSMax  int         `json:"daemon_rss_max_kib"`
	DaemonPeakMax int         `json:"daemon_rss_peak_max_kib"`
	Brokers       []ProcUsage `json:"brokers,omitempty"`

	P99Max float64 `json:"p99_max_ms"`
	Pass   bool    `json:"pass"`
	Reason string  `json:"reason,omitempty"`
}

// ProcUsage is one process's CPU (percent of one core over the dealing)
// and RSS (KiB, at the end and at its peak).
type ProcUsage struct {
	PID     int     `json:"pid"`
	CPU     float64 `json:"cpu_pct"`
	RSS     int     `json:"rss_kib"`
	PeakRSS int     `json:"rss_peak_kib"`
}

func (r *Report) writeText(w io.Writer) {
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL: " + r.Reason
	}
	fmt.Fprintf(w, "floor of %d tables at %g cards/s, %d coups each, dealt in %.1f s: %s\n", r.Tables, r.Rate, r.CoupsPerTable, r.DealSeconds, verdict)
	fmt.Fprintf(w, "  delivered: %d/%d cards, %d/%d coups, %d alerts (and %d once the shoes stopped), %d voids; %d duplicates, %d lost, %d gaps\n",
		r.CardsReceived, r.CardsExpected, r.CoupsReceived, r.CoupsExpected, r.Alerts, r.AlertsAfter, r.Voids, r.Duplicates, r.Lost, r.Gaps)
	if len(r.AlertCodes) > 0 {
		fmt.Fprintf(w, "  alerts: %s\n", codeCounts(r.AlertCodes))
	}
	if len(r.AlertCodesAfter) > 0 {
		fmt.Fprintf(w, "  once the shoes stopped: %s\n", codeCounts(r.AlertCodesAfter))
	}
	if len(r.LostByTable) > 0 || r.SubscriberReconnects > 0 {
		var lost []string
		for k, v := range r.LostByTable {
			lost = append(lost, k+": "+v)
		}
		sort.Strings(lost)
		fmt.Fprintf(w, "  lost by table: %s; subscriber reconnections: %d\n", strings.Join(lost, "; "), r.SubscriberReconnects)
	}
	fmt.Fprintf(w, "  rate: %.1f coups/s, %.1f messages/s\n", r.CoupsPerSecond, r.MessagesPerSecond)
	fmt.Fprintf(w, "  card → subscriber: p50 %.1f ms, p99 %.1f ms, max %.1f ms (p99 limit %.0f ms; %d cards of the start-up burst not counted)\n",
		r.LatencyP50, r.LatencyP99, r.LatencyMax, r.P99Max, r.StartupCards)
	fmt.Fprintf(w, "  per daemon: CPU %.1f%% average, %.1f%% largest; RSS %d KiB average, %d KiB largest (peak %d KiB)\n",
		r.DaemonCPUAvg, r.DaemonCPUMax, r.DaemonRSSAvg, r.DaemonRSSMax, r.DaemonPeakMax)
	for _, b := range r.Brokers {
		fmt.Fprintf(w, "  broker pid %d: CPU %.1f%%, RSS %d KiB (peak %d KiB)\n", b.PID, b.CPU, b.RSS, b.PeakRSS)
	}
}

// floorTable is one table of the floor: its shoe, its daemon and what the
// subscriber received from it.
type floorTable struct {
	name     string
	dir      string
	tokens   []tableau.Token
	cards    int // card tokens in tokens
	coups    int
	shoe     *sim.Shoe
	pty      *sim.PTY
	link     *preopenedLink
	cmd      *exec.Cmd
	log      *os.File
	cpuStart uint64
	exited   chan struct{} // closed when the daemon has exited
}

func (t *floorTable) hasExited() bool {
	select {
	case <-t.exited:
		return true
	default:
		return false
	}
}

// Tokens deals seeded shoes and keeps the tokens up to the end of
// the coups-th coup (folded by the tableau with markers), with the number
// of cards among them.
func Tokens(seed uint64, decks, coups int) ([]tableau.Token, int, error) {
	shoes := coups/40 + 1 // an 8-deck shoe deals about 80 coups; a 1-deck shoe about 8
	if decks < 8 {
		shoes = coups/(decks*7) + 1
	}
	toks, err := sim.DealShoes(seed, decks, shoes)
	if err != nil {
		return nil, 0, err
	}
	f, err := tableau.NewFold(tableau.Options{Decks: decks, Markers: true})
	if err != nil {
		return nil, 0, err
	}
	var evs []tableau.Event
	done, cards := 0, 0
	for i, tok := range toks {
		if tok.Kind == tableau.TokCard {
			cards++
		}
		evs = f.Feed(tok, evs[:0])
		for _, e := range evs {
			if e.Kind == baccarat.EventCoup {
				done++
			}
		}
		if done >= coups {
			return toks[:i+1], cards, nil
		}
	}
	return nil, 0, fmt.Errorf("floor-sim: %d shoes of seed %d deal only %d coups, want %d", shoes, seed, done, coups)
}

// maxFloorProbes bounds the probe replies remembered: brokers × topics
// (5), with room; a stray publisher under the probe's names cannot grow
// the set past it.
const maxFloorProbes = 4096

// floorProbe begins the table names of the probe messages (not a table
// of the floor: FLOOR-n).
const floorProbe = "floor-sim-probe"

// waitProbes publishes a probe to each subscribed topic (the "+" level
// as floorProbe-N) through each broker N in turn, each from its own
// short-lived client, again every second, until every probe came back to
// the subscriber or 60 s passed. Probes through every node: in a cluster
// the subscriber's interest reaches the other nodes later than its own,
// and a daemon may publish through any of them.
func waitProbes(brokers []string, sub *floorSub, topics map[string]byte) error {
	deadline := time.Now().Add(60 * time.Second)
	for i, b := range brokers {
		name := fmt.Sprintf("%s-%d", floorProbe, i+1)
		pub := paho.NewClient(paho.NewClientOptions().AddBroker(b).
			SetClientID(fmt.Sprintf("sabot-floor-probe-%d-%d", os.Getpid(), i+1)).SetCleanSession(true))
		if tok := pub.Connect(); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
			return fmt.Errorf("floor-sim: cannot connect to %s to probe the subscriptions: %v", b, tok.Error())
		}
		err := func() error {
			defer pub.Disconnect(100)
			for {
				missing := 0
				for topic := range topics {
					kind := topic[strings.LastIndexByte(topic, '/')+1:]
					sub.mu.Lock()
					ok := sub.probed[name+"/"+kind]
					sub.mu.Unlock()
					if !ok {
						missing++
						pub.Publish("sabot/"+name+"/"+kind, 1, false, `{"id":"probe"}`)
					}
				}
				if missing == 0 {
					return nil
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("floor-sim: the subscriber's subscriptions did not deliver from %s within 60 s (%d of %d topics silent)", b, missing, len(topics))
				}
				time.Sleep(time.Second)
			}
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

// floorConn is the floor's subscriber connection: a persistent session
// under one client id, subscribed to topics on every connection, feeding
// sub. Filters a broker refuses (SUBACK failure: NATS Server while its
// JetStream elects new leaders after a node's death) or leaves unanswered
// for floorSubscribeWait are asked for again, from 1 s doubling to 30 s
// (back to 1 s whenever the broker grants some).
// With several brokers, a connection on which the broker has granted none
// of the filters asked for during refusal (a SUBSCRIBE unanswered that
// long counts; the bound doubles for each broker left in a row) is left:
// it is disconnected,
// which ends its reconnections, before a new client under the same client
// id connects, trying the broker after it first; so two clients never
// fight over the session. One broker is never left.
type floorConn struct {
	brokers  []string
	clientID string
	topics   map[string]byte
	refusal  time.Duration
	sub      *floorSub

	mu         sync.Mutex
	client     paho.Client
	gen        int    // connections made (connected)
	first      int    // the index in brokers the next client tries first
	attempting string // the broker of the last connection attempt
	closed     bool
	leftInARow int // brokers left for refusing since every filter was last granted
}

// Subscription retries of the floor's subscriber (see floorConn; the
// wait as the pit console's, cmd/internal/pit).
const (
	floorSubscribeWait     = 60 * time.Second
	floorSubscribeRetryMin = time.Second
	floorSubscribeRetryMax = 30 * time.Second
)

// start connects (retrying in the background) and waits up to wait for
// the first connection.
func (f *floorConn) start(wait time.Duration) error {
	if bad := mqttclient.Unreachable(f.brokers, 2*time.Second); len(bad) == len(f.brokers) {
		return fmt.Errorf("floor-sim: no --broker answers: %s", strings.Join(bad, "; "))
	}
	f.mu.Lock()
	f.client = f.newClient()
	cl := f.client
	f.mu.Unlock()
	if tok := cl.Connect(); !tok.WaitTimeout(wait) || tok.Error() != nil {
		why := "no CONNACK (a broker that takes TCP but not this MQTT client: TLS, credentials, or not MQTT)"
		if err := tok.Error(); err != nil {
			why = err.Error()
		}
		return fmt.Errorf("floor-sim: subscriber cannot connect to %s within %v: %s", strings.Join(f.brokers, ", "), wait, why)
	}
	return nil
}

// newClient makes a client trying the brokers from f.first on. Call with
// mu held.
func (f *floorConn) newClient() paho.Client {
	opts := paho.NewClientOptions().SetClientID(f.clientID).
		SetCleanSession(false).SetAutoReconnect(true).SetConnectRetry(true).SetOrderMatters(false)
	for i := range f.brokers {
		opts.AddBroker(f.brokers[(f.first+i)%len(f.brokers)])
	}
	opts.SetConnectionAttemptHandler(func(u *url.URL, c *tls.Config) *tls.Config {
		f.mu.Lock()
		f.attempting = u.String()
		f.mu.Unlock()
		return c
	})
	opts.SetOnConnectHandler(f.connected)
	return paho.NewClient(opts)
}

// connected is the client's on-connect handler: it subscribes in the
// background.
func (f *floorConn) connected(cl paho.Client) {
	f.sub.mu.Lock()
	f.sub.connects++
	f.sub.mu.Unlock()
	f.mu.Lock()
	f.gen++
	gen, broker := f.gen, f.attempting
	f.mu.Unlock()
	go f.subscribe(cl, gen, broker)
}

// subscribe asks for every topic on connection gen of cl, to broker, and
// again for those refused, until all are granted or the connection is
// replaced or closed; with several brokers, one whose answer (or its
// absence) still grants none of the filters asked for the refusal bound
// after the first that granted none is left. The bound doubles for each
// broker left in a row, up to floorSubscribeWait.
func (f *floorConn) subscribe(cl paho.Client, gen int, broker string) {
	current := func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return !f.closed && f.gen == gen && f.client == cl
	}
	var refusing time.Time // as in the pit console's subscriber
	bounded := len(f.brokers) > 1
	pending := maps.Clone(f.topics)
	delay := floorSubscribeRetryMin
	// The refusal bound, doubled for each broker left in a row (as the
	// console's subscriber, cmd/internal/pit).
	f.mu.Lock()
	bound := mqttclient.RefusalBound(f.refusal, f.leftInARow, floorSubscribeWait)
	f.mu.Unlock()
	for {
		asked := time.Now()
		tok := cl.SubscribeMultiple(pending, f.sub.handle)
		// An unanswered SUBSCRIBE counts as refused once the bound is
		// reached.
		select {
		case <-tok.Done():
		case <-time.After(mqttclient.AnswerWait(floorSubscribeWait, bounded, refusing, asked, bound)):
		}
		if mqtt.TokenDone(tok) && tok.Error() == nil {
			refused := mqttclient.Refused(tok, pending)
			if len(refused) == 0 {
				f.mu.Lock()
				f.leftInARow = 0
				f.mu.Unlock()
				return
			}
			if len(refused) < len(pending) {
				// Progress: ask for the rest again soon.
				refusing, delay = time.Time{}, floorSubscribeRetryMin
			} else if refusing.IsZero() {
				refusing = asked
			}
			pending = refused
		} else if refusing.IsZero() {
			refusing = asked
		}
		if bounded && !refusing.IsZero() && time.Since(refusing) >= bound {
			f.mu.Lock()
			f.leftInARow++
			f.mu.Unlock()
			f.leave(cl, gen, broker)
			return
		}
		time.Sleep(delay)
		if !current() {
			return
		}
		delay = min(delay*2, floorSubscribeRetryMax)
	}
}

// leave disconnects cl, connection gen to broker, and connects a new
// client trying the broker after it first, unless cl was replaced or
// closed meanwhile.
func (f *floorConn) leave(cl paho.Client, gen int, broker string) {
	f.mu.Lock()
	ok := !f.closed && f.gen == gen && f.client == cl
	f.mu.Unlock()
	if !ok {
		return
	}
	cl.Disconnect(250) // ends its reconnections too
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || f.client != cl {
		return
	}
	for i, b := range f.brokers {
		if u, err := url.Parse(b); err == nil && u.String() == broker {
			f.first = (i + 1) % len(f.brokers)
		}
	}
	f.client = f.newClient()
	f.client.Connect() // retries in the background
}

// close disconnects (the session stays on the broker).
func (f *floorConn) close() {
	f.mu.Lock()
	f.closed = true
	cl := f.client
	f.mu.Unlock()
	cl.Disconnect(250)
}

// floorAlert is an alert the subscriber received.
type floorAlert struct {
	table, code string
	time        time.Time
}

// maxFloorAlerts bounds the alerts a run keeps (a floor without dealer
// errors raises a handful).
const maxFloorAlerts = 100000

// newFloorSub returns an empty floor subscriber, every map made.
func newFloorSub() *floorSub {
	return &floorSub{seen: map[string]bool{}, cards: map[string]int{}, coups: map[string]int{}, online: map[string]bool{},
		lastCard: map[string]time.Time{}, probed: map[string]bool{}, seqs: map[string]map[int]bool{}}
}

// floorSub is the floor's subscriber: what it received, by table.
type floorSub struct {
	mu     sync.Mutex
	seen   map[string]bool // ids (bounded by the messages the run deals)
	cards  map[string]int
	coups  map[string]int
	online map[string]bool
	probed map[string]bool // "floor-sim-probe-N/kind" whose probe came back
	// seqs follows, per "<table> <shoe id> <kind>" (card: in_shoe; coup
	// and void: the coup number), the numbers received (bounded by the
	// messages the run deals).
	seqs      map[string]map[int]bool
	lastCard  map[string]time.Time // the time of each table's latest card
	alertList []floorAlert         // at most maxFloorAlerts
	voids     int
	dups      int
	messages  int
	lat       []time.Duration
	first     time.Time
	last      time.Time
	// from is when the measurement started (every daemon online): a
	// card its daemon received before it is of the start-up burst (dealt
	// into the shoe's ring while the daemon started); its latency is
	// counted in startup, not in lat.
	from     time.Time
	startup  int
	connects int // the subscriber's connections (1 without a reconnection)
}

func (s *floorSub) handle(_ paho.Client, m paho.Message) {
	now := time.Now()
	parts := strings.Split(m.Topic(), "/")
	if len(parts) < 3 {
		return
	}
	table, kind := parts[len(parts)-2], parts[len(parts)-1]
	if strings.HasPrefix(table, floorProbe) {
		s.mu.Lock()
		if len(s.probed) < maxFloorProbes {
			s.probed[table+"/"+kind] = true
		}
		s.mu.Unlock()
		return
	}
	var p struct {
		ID     string `json:"id"`
		Time   string `json:"time"`
		Status string `json:"status"`
		Code   string `json:"code"`
		ShoeID string `json:"shoe_id"`
		Coup   int    `json:"coup"`
		InShoe int    `json:"in_shoe"`
	}
	if json.Unmarshal(m.Payload(), &p) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if kind == "status" {
		s.online[table] = p.Status == "online"
		return
	}
	s.messages++
	if s.first.IsZero() {
		s.first = now
	}
	s.last = now
	if s.seen[p.ID] {
		s.dups++
		return
	}
	s.seen[p.ID] = true
	switch kind {
	case "card":
		s.cards[table]++
		s.sequence(table+" "+p.ShoeID+" card", p.InShoe)
		if at, err := time.Parse(time.RFC3339Nano, p.Time); err == nil {
			if !s.from.IsZero() && !at.Before(s.from) {
				s.lat = append(s.lat, now.Sub(at))
			} else {
				s.startup++
			}
			if at.After(s.lastCard[table]) {
				s.lastCard[table] = at
			}
		}
	case "coup":
		s.coups[table]++
		s.sequence(table+" "+p.ShoeID+" coup", p.Coup)
	case "alert":
		at, _ := time.Parse(time.RFC3339Nano, p.Time)
		if len(s.alertList) < maxFloorAlerts {
			s.alertList = append(s.alertList, floorAlert{table, p.Code, at})
		}
	case "void":
		s.voids++
		s.sequence(table+" "+p.ShoeID+" coup", p.Coup)
	}
}

// sequence records number n of the sequence key. Call with mu held.
func (s *floorSub) sequence(key string, n int) {
	if n <= 0 {
		return
	}
	if s.seqs[key] == nil {
		s.seqs[key] = map[int]bool{}
	}
	s.seqs[key][n] = true
}

// gaps counts the numbers missing below the highest of each sequence.
// Call with mu held.
func (s *floorSub) gaps() int {
	n := 0
	for _, got := range s.seqs {
		top := 0
		for k := range got {
			top = max(top, k)
		}
		n += top - len(got)
	}
	return n
}

// stoppedAlert reports whether an alert of table raised after its latest
// card has arrived (the daemon's shoe-offline once the shoe stopped). Call
// with mu held.
func (s *floorSub) stoppedAlert(table string) bool {
	end, ok := s.lastCard[table]
	if !ok {
		return false
	}
	for _, a := range s.alertList {
		if a.table == table && a.time.After(end) {
			return true
		}
	}
	return false
}

// runFloor runs one floor of n tables and measures it.
func runFloor(ctx context.Context, c Config, n, run int) (*Report, error) {
	dir := c.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "sabot-floor-")
		if err != nil {
			return nil, fmt.Errorf("floor-sim: %w", err)
		}
		dir = d
		if !c.Keep {
			defer os.RemoveAll(d)
		}
	}
	// A run directory of its own, never one an earlier run used: its
	// daemons would replay that run's journals and go on from its last
	// state (a table whose shoe stopped at the end of that run is offline
	// in its journal, and raises shoe-online at this run's first card).
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("floor-sim: %w", err)
	}
	dir, err := os.MkdirTemp(dir, fmt.Sprintf("run%d-%dtables-", run+1, n))
	if err != nil {
		return nil, fmt.Errorf("floor-sim: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	sub := newFloorSub()
	// A persistent session: if the subscriber's connection drops under
	// load, the broker keeps its messages until it is back (removed at
	// the end by a clean connection with the same id).
	clientID := fmt.Sprintf("sabot-floor-sim-%d-%d", os.Getpid(), run)
	topics := map[string]byte{}
	for _, k := range []string{"card", "coup", "alert", "void", "status"} {
		topics["sabot/+/"+k] = 1
	}
	fc := &floorConn{brokers: c.Brokers, clientID: clientID, topics: topics, refusal: c.RefusalTimeout, sub: sub}
	if err := fc.start(30 * time.Second); err != nil {
		return nil, err
	}
	defer func() {
		fc.close()
		wipe := paho.NewClientOptions().SetClientID(clientID).SetCleanSession(true)
		for _, b := range c.Brokers {
			wipe.AddBroker(b)
		}
		w := paho.NewClient(wipe)
		if tok := w.Connect(); tok.WaitTimeout(10*time.Second) && tok.Error() == nil {
			w.Disconnect(250)
		}
	}()
	// The subscriptions are live once a probe published to each topic
	// comes back (a SUBACK is not enough: a NATS cluster under load took
	// seconds more before it delivered on a new subscription, and the
	// first coups of a floor went to nobody).
	if err := waitProbes(c.Brokers, sub, topics); err != nil {
		return nil, err
	}

	tables := make([]*floorTable, n)
	rep := &Report{Tables: n, Rate: c.Rate, CoupsPerTable: c.Coups, P99Max: float64(c.P99Max) / 1e6}
	// Each shoe starts with its daemon: started only once every daemon
	// was, the first daemons' shoes said nothing for longer than the
	// heartbeat timeout on a floor of 100 or more, and each of those
	// daemons rightly raised shoe-offline (and shoe-online when its shoe
	// spoke).
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := time.Now()
	defer func() {
		cancel()
		wg.Wait()
		for _, t := range tables {
			if t != nil {
				t.stop()
			}
		}
	}()
	for i := range tables {
		t := &floorTable{name: fmt.Sprintf("FLOOR-%d", i+1), dir: filepath.Join(dir, fmt.Sprintf("t%d", i+1))}
		tables[i] = t
		toks, cards, err := Tokens(c.Seed+uint64(i), c.Decks, c.Coups)
		if err != nil {
			return nil, err
		}
		t.tokens, t.cards, t.coups = toks, cards, c.Coups
		rep.CardsExpected += cards
		rep.CoupsExpected += c.Coups
		if err := t.start(ctx, c); err != nil {
			return nil, err
		}
		if StartGap > 0 {
			time.Sleep(StartGap)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = t.shoe.Run(ctx, t.link)
		}()
	}
	// The measurement starts when every daemon is online (its retained
	// status): cards dealt meanwhile wait in the shoes' rings, and their
	// latency counts from the daemon's receipt.
	deadline := time.Now().Add(30*time.Second + time.Duration(n)*200*time.Millisecond)
	for {
		sub.mu.Lock()
		up := 0
		for _, t := range tables {
			if sub.online[t.name] {
				up++
			}
		}
		sub.mu.Unlock()
		if up == n {
			break
		}
		for _, t := range tables {
			if t.hasExited() {
				return nil, fmt.Errorf("floor-sim: sabotd of %s exited: see %s", t.name, t.log.Name())
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("floor-sim: only %d of %d daemons came online (logs in %s)", up, n, dir)
		}
		time.Sleep(50 * time.Millisecond)
	}

	brokerStart := make([]uint64, len(c.BrokerPIDs))
	for i, pid := range c.BrokerPIDs {
		brokerStart[i], _ = procCPUTicks(pid)
	}
	for _, t := range tables {
		t.cpuStart, _ = procCPUTicks(t.cmd.Process.Pid)
	}
	measured := time.Now()
	sub.mu.Lock()
	sub.from = measured
	sub.mu.Unlock()
	wg.Wait()
	for i, err := range errs {
		if err != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("floor-sim: virtual shoe of %s: %w", tables[i].name, err)
		}
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("floor-sim: interrupted")
	}
	dealt := time.Since(start)
	rep.DealSeconds = dealt.Seconds()

	// Delivery: wait until every card and coup arrived, and each table's
	// alert of its shoe stopping (the link closing after the last card:
	// shoe-offline), or the drain time.
	drainEnd := time.Now().Add(c.Drain)
	for time.Now().Before(drainEnd) {
		sub.mu.Lock()
		complete := true
		for _, t := range tables {
			if sub.cards[t.name] < t.cards || sub.coups[t.name] < t.coups || !sub.stoppedAlert(t.name) {
				complete = false
				break
			}
		}
		sub.mu.Unlock()
		if complete {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// CPU over the dealing and the delivery; RSS now and at the peak.
	elapsed := time.Since(measured).Seconds()
	var cpuSum, rssSum float64
	for _, t := range tables {
		end, _ := procCPUTicks(t.cmd.Process.Pid)
		cpu := float64(end-t.cpuStart) / clockTicks / elapsed * 100
		rss, peak := procRSS(t.cmd.Process.Pid)
		cpuSum += cpu
		rssSum += float64(rss)
		rep.DaemonCPUMax = max(rep.DaemonCPUMax, cpu)
		rep.DaemonRSSMax = max(rep.DaemonRSSMax, rss)
		rep.DaemonPeakMax = max(rep.DaemonPeakMax, peak)
	}
	rep.DaemonCPUAvg = cpuSum / float64(n)
	rep.DaemonRSSAvg = int(rssSum / float64(n))
	for i, pid := range c.BrokerPIDs {
		end, _ := procCPUTicks(pid)
		rss, peak := procRSS(pid)
		rep.Brokers = append(rep.Brokers, ProcUsage{PID: pid, CPU: float64(end-brokerStart[i]) / clockTicks / elapsed * 100, RSS: rss, PeakRSS: peak})
	}

	sub.mu.Lock()
	defer sub.mu.Unlock()
	for _, t := range tables {
		got, gotCoups := sub.cards[t.name], sub.coups[t.name]
		rep.CardsReceived += got
		rep.CoupsReceived += gotCoups
		if lc, lk := max(0, t.cards-got), max(0, t.coups-gotCoups); lc+lk > 0 {
			rep.Lost += lc + lk
			if rep.LostByTable == nil {
				rep.LostByTable = map[string]string{}
			}
			rep.LostByTable[t.name] = fmt.Sprintf("%d cards, %d coups", lc, lk)
		}
	}
	rep.Voids, rep.Duplicates, rep.StartupCards, rep.Gaps = sub.voids, sub.dups, sub.startup, sub.gaps()
	rep.SubscriberReconnects = max(0, sub.connects-1)
	rep.AlertCodes, rep.AlertCodesAfter = map[string]int{}, map[string]int{}
	for _, a := range sub.alertList {
		// After the table's last card its shoe has stopped (every event
		// acknowledged, the link closed): the daemon says shoe-offline.
		if end, ok := sub.lastCard[a.table]; ok && a.time.After(end) {
			rep.AlertsAfter++ // the shoe stopped: shoe-offline, as it should
			rep.AlertCodesAfter[a.code]++
			continue
		}
		rep.Alerts++
		rep.AlertCodes[a.code]++
	}
	if span := sub.last.Sub(sub.first).Seconds(); span > 0 {
		rep.CoupsPerSecond = float64(rep.CoupsReceived) / span
		rep.MessagesPerSecond = float64(sub.messages) / span
	}
	if len(sub.lat) > 0 {
		sort.Slice(sub.lat, func(i, j int) bool { return sub.lat[i] < sub.lat[j] })
		q := func(p float64) float64 { return float64(sub.lat[int(p*float64(len(sub.lat)-1))]) / 1e6 }
		rep.LatencyP50, rep.LatencyP99, rep.LatencyMax = q(0.50), q(0.99), q(1)
	}
	rep.Pass = true
	switch {
	case rep.Lost > 0:
		rep.Pass, rep.Reason = false, fmt.Sprintf("%d cards and coups lost (%d of them gaps in their sequences)", rep.Lost, rep.Gaps)
	case rep.Gaps > 0:
		rep.Pass, rep.Reason = false, fmt.Sprintf("%d gaps in the cards' and coups' sequences", rep.Gaps)
	case rep.LatencyP99 > rep.P99Max:
		rep.Pass, rep.Reason = false, fmt.Sprintf("p99 %.1f ms over %.0f ms", rep.LatencyP99, rep.P99Max)
	}
	return rep, nil
}

// start writes the table's config, opens its virtual shoe's pty and starts
// its sabotd.
func (t *floorTable) start(ctx context.Context, c Config) error {
	if err := os.MkdirAll(filepath.Join(t.dir, "state"), 0o755); err != nil {
		return fmt.Errorf("floor-sim: %w", err)
	}
	shoe, err := sim.New(sim.Options{Tokens: t.tokens, Rate: c.Rate, Seed: c.Seed})
	if err != nil {
		return fmt.Errorf("floor-sim: %s: %w", t.name, err)
	}
	t.shoe = shoe
	link := filepath.Join(t.dir, "shoe")
	t.pty = sim.NewPTY(link)
	// The pty and its link exist before the daemon starts: the first
	// Open is made here and handed to the shoe's Run.
	pre, err := t.pty.Open(ctx)
	if err != nil {
		return fmt.Errorf("floor-sim: %s: pty: %w", t.name, err)
	}
	t.link = &preopenedLink{first: pre, pty: t.pty}
	var quoted []string
	for _, b := range c.Brokers {
		quoted = append(quoted, strconv.Quote(b))
	}
	conf := fmt.Sprintf(`table = %q
[shoe]
device = %q
protocol = "sabot"
[mqtt]
brokers = [%s]
refusal_timeout = %q
[display]
kind = "none"
[state]
dir = %q
clock_wait = "0s"
[http]
addr = "127.0.0.1:0"
[log]
format = "json"
level = "warn"
`, t.name, link, strings.Join(quoted, ", "), c.RefusalTimeout.String(), filepath.Join(t.dir, "state"))
	confPath := filepath.Join(t.dir, "sabotd.toml")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return fmt.Errorf("floor-sim: %w", err)
	}
	if t.log, err = os.Create(filepath.Join(t.dir, "sabotd.log")); err != nil {
		return fmt.Errorf("floor-sim: %w", err)
	}
	t.cmd = exec.Command(c.Sabotd, "--config", confPath)
	t.cmd.Stdout, t.cmd.Stderr = t.log, t.log
	t.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := t.cmd.Start(); err != nil {
		return fmt.Errorf("floor-sim: start %s for %s: %w", c.Sabotd, t.name, err)
	}
	t.exited = make(chan struct{})
	go func() { t.cmd.Wait(); close(t.exited) }()
	return nil
}

// stop ends the table's daemon (SIGTERM, then SIGKILL after 5 s) and
// removes the shoe's link.
func (t *floorTable) stop() {
	if t.cmd != nil && t.cmd.Process != nil {
		t.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-t.exited:
		case <-time.After(5 * time.Second):
			t.cmd.Process.Kill()
			<-t.exited
		}
	}
	if t.link != nil && t.link.first != nil {
		t.link.first.Close()
	}
	if t.pty != nil {
		t.pty.Remove()
	}
	if t.log != nil {
		t.log.Close()
	}
}

// preopenedLink hands the shoe's Run a pseudo-terminal opened before the
// daemon started (so the daemon finds its device), then opens new ones as
// a sim.PTY does.
type preopenedLink struct {
	first io.ReadWriteCloser
	pty   *sim.PTY
}

func (l *preopenedLink) Open(ctx context.Context) (io.ReadWriteCloser, error) {
	if c := l.first; c != nil {
		l.first = nil
		return c, nil
	}
	return l.pty.Open(ctx)
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's CPU
// times: 100 on every Linux architecture Sabot runs on.
const clockTicks = 100

// procCPUTicks returns a process's user + system CPU time in clock ticks
// (fields 14 and 15 of /proc/PID/stat, after the parenthesised name).
func procCPUTicks(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("floor-sim: /proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("floor-sim: /proc/%d/stat: %d fields", pid, len(f))
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("floor-sim: /proc/%d/stat: bad CPU times", pid)
	}
	return u + s, nil
}

// procRSS returns a process's resident set now and at its peak, in KiB
// (VmRSS and VmHWM of /proc/PID/status); 0 when unreadable.
func procRSS(pid int) (rss, peak int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.Atoi(f[1])
		switch f[0] {
		case "VmRSS:":
			rss = n
		case "VmHWM:":
			peak = n
		}
	}
	return rss, peak
}

// codeCounts lists alert codes and their counts, "code ×n" sorted by code
// and joined by ", ".
func codeCounts(m map[string]int) string {
	codes := make([]string, 0, len(m))
	for k, v := range m {
		codes = append(codes, fmt.Sprintf("%s ×%d", k, v))
	}
	sort.Strings(codes)
	return strings.Join(codes, ", ")
}
