package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/sabot-table/sabot/cmd/internal/boardweb"
	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/cmd/internal/demo"
	"github.com/sabot-table/sabot/drivers/board"
	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
	"github.com/sabot-table/sabot/drivers/sdnotify"
	"github.com/sabot-table/sabot/drivers/shoe"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// daemon is a running sabotd: it owns every device and the main loop.
type daemon struct {
	cfg    config.Config
	demo   demo.Options
	stdout io.Writer
	log    *slog.Logger

	metrics *metrics
	journal *journal.Journal
	table   *tableau.Table
	rules   baccarat.Rules
	http    *httpServer
	web     *boardweb.Web // the board page (board.go); nil with [http] addr "off"
	broker  *embedded.Broker
	pub     *mqtt.Publisher
	// undeliverable counts outbox-dropped events being journaled
	// (onUndeliverable): at most maxUndeliverableEvents at once.
	undeliverable atomic.Int32
	builder       messageBuilder // *mqtt.Builder
	shoe          *shoe.Shoe
	board         *board.Board
	rs485DE       shoe.DriverEnable // [shoe] rs485_de resolved by openBoard; nil unless rs485 = "gpio"
	tempDir       string            // demo state directory, removed on close

	inputs chan inputReq
	ping   chan chan struct{}
	outs   []tableau.Output // main loop scratch
	snaps  snapState        // main loop: journal snapshots (snapshot.go)
	clock  clockwork.Clock  // the wall clock stamped on inputs; nil: the system's (clock.go)
	clocks clockState       // main loop: the previous input's clocks (clock.go)

	// clockSynced and clockPoll are waitForClock's probe (nil: the
	// system's) and polling interval (0: clockPoll); clockwait.go.
	clockSynced func() (bool, error)
	clockPoll   time.Duration

	// jfail: the journal cannot be written (main loop only; nil when it
	// can); journalProblem is its /healthz text (journalfail.go).
	jfail          *journalFailure
	journalProblem atomic.Pointer[string]

	// unqueued: messages the outbox refused, kept (main loop only) to be
	// queued again; unqueuedLost: some were dropped from memory past
	// maxUnqueuedBytes, so the published mark stays before them (see
	// mqttout.go).
	unqueued      []unqueued
	unqueuedBytes int
	unqueuedLost  atomic.Bool
	// backlogRaised and backlogCleared are the publisher's latest
	// outbox-backlog reports not yet taken by the main loop (signalled on
	// backlogSig, cap 1), which turns a raised one into a
	// tableau.InputBacklog.
	backlogMu sync.Mutex
	// shoePushMu serialises telling the publisher the shoe's state
	// (pushShoe), so that it always ends with the newest.
	shoePushMu     sync.Mutex
	backlogRaised  *mqtt.BacklogAlert
	backlogCleared *mqtt.BacklogAlert
	backlogSig     chan struct{}
	alive          atomic.Int64
	coupsSeen      atomic.Int64
	demoWatch      func(*tableau.Output) // main loop: called for cards, coups, alerts, voids, acks
	demoRun        *demo.Run
	demoScreen     *demo.Screen

	cancel     context.CancelFunc // everything
	loopCancel context.CancelFunc
	wg         sync.WaitGroup // loop and helpers
	shoeWG     sync.WaitGroup // the shoe reader

	// shoeStop bounds the wait for the shoe reader when stopping
	// (shoeStopTimeout; tests shorten it).
	shoeStop time.Duration

	done     chan struct{}
	doneOnce sync.Once
	mu       sync.Mutex
	view     tableau.TableView
	fatal    error
	stopped  bool // stop was called: fatal is final
	shoeUp   bool

	// The audit trail (audit.go): the binary's SHA-256, the config file
	// (hashed at start; "" for none) and whether the power-up event was
	// journaled (then close journals the shutdown).
	software   string
	configPath string
	auditOn    bool
	recall     *recallRing // the last coups, for /recall (recall.go); nil: none kept

	closed atomic.Bool // close has begun: later calls return nil at once
}

func newDaemon(cfg config.Config, opts demo.Options, stdout, stderr io.Writer) (*daemon, error) {
	d := &daemon{
		cfg:     cfg,
		demo:    opts,
		stdout:  stdout,
		log:     newLogger(cfg.Log, stderr),
		metrics: newMetrics(),
		done:    make(chan struct{}),
		inputs:  make(chan inputReq),
		ping:    make(chan chan struct{}),

		backlogSig: make(chan struct{}, 1),
		shoeStop:   shoeStopTimeout,
		recall:     newRecallRing(),
	}
	if opts.Enabled {
		d.log = demo.Logger(stderr)
		if opts.Rate == "fast" || !demo.IsTerminal(stdout) {
			d.cfg.Display.Kind = "none" // plain lines, no screen
		} else {
			d.demoScreen = demo.NewScreen(stdout)
		}
	}
	return d, nil
}

// stop marks the daemon as finished by itself with err (nil for success).
//
// The first call decides: a later one (a reader that fails because the
// daemon is stopping, say) does not turn a finished run into a failed one.
func (d *daemon) stop(err error) {
	d.mu.Lock()
	if !d.stopped {
		d.stopped, d.fatal = true, err
	}
	d.mu.Unlock()
	d.doneOnce.Do(func() { close(d.done) })
}

func (d *daemon) err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fatal
}

func (d *daemon) start(ctx context.Context) (err error) {
	callerCtx := ctx // a stop while waiting for the clock
	ctx, d.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if d.cfg.State.Dir == "" {
		dir, err := os.MkdirTemp("", "sabotd-demo-")
		if err != nil {
			return fmt.Errorf("state: %w", err)
		}
		d.tempDir = dir
		d.cfg.State.Dir = dir
	}
	var reg map[string]tableau.Card
	if d.cfg.Shoe.UIDRegistry != "" {
		if reg, err = config.LoadRegistry(d.cfg.Shoe.UIDRegistry); err != nil {
			return err
		}
	}
	if d.table, err = d.cfg.NewTable(reg); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	d.rules = d.table.Config().Fold.Rules
	d.builder = mqtt.NewBuilder(d.cfg.Table, d.rules)

	j, err := journal.Open(d.cfg.State.Dir, &journal.Options{Logger: d.log})
	if err != nil {
		return fmt.Errorf("state.dir: %w", err)
	}
	d.journal = j
	d.metrics.journal.Set(float64(j.Last()))
	optsJSON, _ := json.Marshal(d.table.Config().Fold)
	if err := j.SetMeta(journal.MetaTableOptions, optsJSON); err != nil {
		return fmt.Errorf("state.dir: %w", err)
	}
	if err := d.writeRecallConfig(); err != nil {
		return fmt.Errorf("state.dir: %w", err)
	}
	republish, lastRef, err := d.replay()
	if err != nil {
		return fmt.Errorf("state.dir: replaying the journal: %w", err)
	}
	d.software = d.softwareSHA256()

	if err := d.openBoard(); err != nil {
		return err
	}
	d.showView(d.table.View(), inputReq{})
	d.terminalBoard(d.table.View())
	d.metrics.dealers.note(d.table.View())

	if err := d.waitForClock(callerCtx); err != nil {
		return err
	}
	// Every local lock before the broker: the state directory's (the
	// journal and the outbox, bbolt flocks, taken above and in startMQTT
	// before it connects) and the shoe device's. A second sabotd for this
	// shoe must stop here, before it connects under the table's client id
	// and takes over the running daemon's session.
	if !d.demo.Enabled {
		if err := d.claimShoe(lastRef); err != nil {
			return err
		}
	}
	if err := d.startMQTT(ctx, republish); err != nil {
		return err
	}
	if err := d.powerUpEvents(ctx); err != nil {
		return fmt.Errorf("state.dir: %w", err)
	}
	d.auditOn = true

	if d.cfg.HTTP.Addr != "off" {
		web := d.startBoard()
		h, err := startHTTP(d.cfg.HTTP.Addr, d.metrics, d.health, web, d.log, serveRecall(d.recall.last), d.cfg.HTTP.Recall)
		if err != nil {
			web.Hub.Close()
			return err
		}
		d.http = h
		d.log.Info("http listening", "addr", h.addr, "metrics", "http://"+h.addr+"/metrics", "board", "http://"+h.addr+"/")
	}

	loopCtx, loopCancel := context.WithCancel(ctx)
	d.loopCancel = loopCancel
	d.wg.Add(1)
	go d.loop(loopCtx)

	if d.demo.Enabled {
		if err := d.startDemo(ctx); err != nil {
			return err
		}
		d.demoAnnounce()
	}
	if err := d.startShoe(ctx, lastRef); err != nil {
		return err
	}
	d.runBoard(loopCtx)
	d.runRetention(loopCtx)

	if err := sdnotify.Ready(fmt.Sprintf("table %s, journal %d records", d.cfg.Table, j.Last())); err != nil {
		d.log.Warn("systemd notify", "err", err)
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		sdnotify.RunWatchdog(ctx, d.loopResponsive)
	}()
	d.mu.Lock()
	v := d.view
	d.mu.Unlock()
	d.log.Info("sabotd started", "version", Version(), "table", d.cfg.Table, "state", d.cfg.State.Dir,
		"journal_records", j.Last(), "shoe", v.Shoe, "coup", v.Coup, "phase", v.Phase)
	return nil
}

// loopResponsive is the watchdog's health check: the main loop answers a
// ping within a second.
func (d *daemon) loopResponsive() bool {
	c := make(chan struct{})
	select {
	case d.ping <- c:
	case <-time.After(time.Second):
		return false
	}
	select {
	case <-c:
		return true
	case <-time.After(time.Second):
		return false
	}
}

func (d *daemon) startMQTT(ctx context.Context, republish []mqtt.Message) error {
	brokers := d.cfg.MQTT.Brokers
	if len(brokers) == 0 {
		// The broker logs at warning level every client that goes away;
		// keep its errors only.
		blog := slog.New(errorsOnly{d.log.Handler()}).With("component", "broker")
		b, err := embedded.Start(embedded.Options{Addr: d.cfg.MQTT.EmbeddedAddr, Logger: blog,
			PasswordFile: d.cfg.MQTT.EmbeddedPasswordFile, ACLFile: d.cfg.MQTT.EmbeddedACLFile,
			AllowAnonymous: d.cfg.MQTT.EmbeddedAllowAnonymous})
		if err != nil {
			return fmt.Errorf("mqtt.embedded_addr: %w", err)
		}
		d.broker = b
		brokers = []string{b.URL()}
		d.log.Info("embedded MQTT broker listening", "url", b.URL())
	}
	opts := mqtt.Options{
		Table:        d.cfg.Table,
		TopicPrefix:  d.cfg.MQTT.TopicPrefix,
		Brokers:      brokers,
		Username:     d.cfg.MQTT.Username,
		PasswordFile: d.cfg.MQTT.PasswordFile,
		TLS: mqtt.TLSOptions{CAFile: d.cfg.MQTT.TLSCA, CertFile: d.cfg.MQTT.TLSCert,
			KeyFile: d.cfg.MQTT.TLSKey, ServerName: d.cfg.MQTT.TLSServerName},
		StateDir:          d.cfg.State.Dir,
		MaxBacklog:        d.cfg.MQTT.BacklogLimit,
		KeepAlive:         d.cfg.MQTT.KeepAliveDuration(),
		RefusalTimeout:    d.cfg.MQTT.RefusalTimeoutDuration(),
		Version:           Version(),
		Software:          d.software,
		Rules:             &d.rules,
		Commands:          d.cfg.MQTT.Commands,
		Operators:         d.cfg.MQTT.Operators,
		OnCommand:         d.onCommand,
		OnCommandRejected: d.onCommandRejected,
		OnUndeliverable:   d.onUndeliverable,
		OnBacklog:         d.onBacklog,
		OnAck:             d.onAck,
		OnTakeover:        d.onTakeover,
		// The embedded broker listens on loopback only: no other
		// daemon's session to look for (the shoe's lock covers this Pi).
		NoTakeoverProbe: d.broker != nil,
		Logger:          d.log.With("component", "mqtt"),
	}
	if d.cfg.MQTT.PasswordFile == "" && os.Getenv("SABOT_MQTT_PASSWORD") != "" {
		opts.PasswordEnv = "SABOT_MQTT_PASSWORD"
	}
	if d.broker != nil {
		// The daemon's own client of its own broker.
		opts.Username, opts.Password = d.broker.Credentials()
		opts.PasswordFile, opts.PasswordEnv = "", ""
	}
	p, err := mqtt.New(opts)
	if err != nil {
		return err // "mqtt: ..." names the option
	}
	d.shoePushMu.Lock()
	d.pub = p
	d.shoePushMu.Unlock()
	d.pushShoe()
	if len(republish) > 0 {
		if err := p.Publish(ctx, republish...); err != nil {
			// The outbox is full (or cannot be written): start anyway, and
			// keep the messages to queue them again from the main loop.
			mark, _ := d.journal.Mark(markPublished)
			d.log.Error("mqtt: outputs of journal records after the published mark not queued; kept to queue again",
				"messages", len(republish), "after", mark, "err", err)
			for _, m := range republish {
				d.keepUnqueued(mark+1, m)
			}
		} else {
			d.journal.SetMark(markPublished, d.journal.Last())
			d.log.Info("republished outputs of journal records after the last published mark", "messages", len(republish))
		}
	}
	// The retained topics this game does not publish are cleared (a table
	// switched from punto banco to banque left the old roads retained).
	if cl := d.builder.Cleared(); len(cl) > 0 {
		if err := p.Publish(ctx, cl...); err != nil {
			d.log.Warn("mqtt: retained topics of other games not cleared", "err", err)
		}
	}
	// Not ctx: the publisher must keep delivering while Close flushes it
	// (its own Close stops it).
	p.Start(context.WithoutCancel(ctx))
	if len(d.cfg.MQTT.Brokers) > 0 {
		d.wg.Add(1)
		go func() { defer d.wg.Done(); d.checkBrokers(ctx, d.cfg.MQTT.Brokers) }()
	}
	return nil
}

// commandInputs maps each MQTT command onto the kind of input it journals.
var commandInputs = map[string]tableau.InputKind{
	mqtt.CmdAck:        tableau.InputAck,
	mqtt.CmdVoid:       tableau.InputVoid,
	mqtt.CmdNewShoe:    tableau.InputShoe,
	mqtt.CmdBetsOpen:   tableau.InputBetsOpen,
	mqtt.CmdBetsClosed: tableau.InputBetsClosed,
	mqtt.CmdDealer:     tableau.InputDealer,
	mqtt.CmdStand:      tableau.InputStand,
}

// onCommand carries out an MQTT command: it journals it as an input. Only
// the dealer command carries its dealer; the others (stand included) carry
// none.
func (d *daemon) onCommand(c mqtt.Command) error {
	in := tableau.Input{Source: "mqtt", Operator: c.Operator, Ref: "cmd:" + c.RequestID}
	kind, ok := commandInputs[c.Name]
	if !ok {
		return fmt.Errorf("unknown command %q", c.Name)
	}
	in.Kind = kind
	if c.Name == mqtt.CmdDealer {
		in.Dealer = c.Dealer
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return d.submit(ctx, in)
}

// onBacklog receives the publisher's outbox-backlog reports (from Publish,
// called by the main loop, or from the delivery goroutine): it must not
// block, so it hands the latest report to the main loop.
func (d *daemon) onBacklog(b mqtt.BacklogAlert) {
	d.metrics.backlog.Set(float64(b.Queued))
	d.backlogMu.Lock()
	if b.Raised {
		d.backlogRaised = &b
	} else {
		d.backlogCleared = &b
	}
	d.backlogMu.Unlock()
	select {
	case d.backlogSig <- struct{}{}:
	default: // already signalled; the loop reads the latest report
	}
}

// onTakeover journals the publisher's report that another daemon publishes
// as this table (the session-takeover alert: latched, displayed as E20 and
// published once this daemon is back on the broker). Called from the
// publisher's connection goroutine, which waits for it.
func (d *daemon) onTakeover(tk mqtt.Takeover) {
	in := tableau.Input{Kind: tableau.InputSessionTakeover, Source: "mqtt", Text: tk.Text}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.submit(ctx, in); err != nil {
		d.log.Warn("session-takeover alert not journaled", "err", err)
	}
}

// onAck observes the card → broker-acknowledged latency: a card message's
// time is when the daemon received the card (the journal record's time).
func (d *daemon) onAck(topic string, payload []byte) {
	if topic != mqtt.TopicCard {
		return
	}
	var env struct {
		Time string `json:"time"`
	}
	if json.Unmarshal(payload, &env) != nil {
		return
	}
	if at, err := time.Parse(time.RFC3339Nano, env.Time); err == nil {
		d.metrics.cardToAck.Observe(time.Since(at).Seconds())
	}
}

// onCommandRejected journals a command that MQTT validation refused, as an
// audit record (tableau.InputRejected: the table ignores it). A journal
// failure is logged: the command was refused either way.
func (d *daemon) onCommandRejected(c mqtt.Command, reason string) {
	in := tableau.Input{Kind: tableau.InputRejected, Source: "mqtt", Operator: c.Operator,
		Code: c.Name, Text: reason}
	if c.RequestID != "" {
		in.Ref = "cmd:" + c.RequestID
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.submit(ctx, in); err != nil {
		d.log.Warn("rejected command not journaled", "command", c.Name, "request_id", c.RequestID, "err", err)
	}
}

// maxUndeliverableEvents bounds the outbox-dropped events journaled at
// once; beyond it a drop is only logged (and counted by the publisher).
const maxUndeliverableEvents = 4

// onUndeliverable journals (and so publishes) an outbox-dropped event for
// an outbox message no broker can ever take. It is called from the
// publisher's delivery goroutine and must not wait on it: the event is
// submitted from a goroutine of its own.
func (d *daemon) onUndeliverable(topic string, size int, err error) {
	if d.undeliverable.Add(1) > maxUndeliverableEvents {
		d.undeliverable.Add(-1)
		d.log.Warn("outbox-dropped event not journaled: too many at once", "topic", topic, "bytes", size)
		return
	}
	in := tableau.Input{Kind: tableau.InputEvent, Code: mqtt.EventOutboxDropped, Source: "mqtt",
		Text: fmt.Sprintf("an outbox message on %s (%d bytes) can never be delivered; dropped: %v", topic, size, err)}
	go func() {
		defer d.undeliverable.Add(-1)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := d.submit(ctx, in); err != nil {
			d.log.Warn("outbox-dropped event not journaled", "topic", topic, "err", err)
		}
	}()
}

// buttonInputs maps each shoe button the table takes onto the kind of
// input its press journals (coup "|", void "void", new shoe "shoe", stand
// "stand").
var buttonInputs = map[shoe.Button]tableau.InputKind{
	shoe.ButtonCoup:    tableau.InputButton,
	shoe.ButtonVoid:    tableau.InputVoid,
	shoe.ButtonNewShoe: tableau.InputShoe,
	shoe.ButtonStand:   tableau.InputStand,
}

// shoeInput maps a shoe event onto the table's input (the transcript's
// semantics: coup button "|", cut card "cut", void key "void", new shoe
// "shoe"). ok is false for events the table does not take (button
// releases, the burn switch, state reports).
func shoeInput(ev shoe.Event) (in tableau.Input, ok bool) {
	in.Source = "shoe"
	if ev.BootID != 0 || ev.Seq != 0 {
		in.Ref = fmt.Sprintf("%d:%d", ev.BootID, ev.Seq)
	}
	switch ev.Kind {
	case shoe.KindCard:
		in.Kind, in.Card, in.UID = tableau.InputCard, ev.Card, ev.Card.UID
		in.Card.UID = ""
	case shoe.KindUnreadable:
		in.Kind = tableau.InputUnreadable
	case shoe.KindButton:
		if !ev.Pressed {
			return in, false
		}
		kind, taken := buttonInputs[ev.Button]
		if !taken {
			return in, false
		}
		in.Kind = kind
	case shoe.KindCutCard:
		in.Kind = tableau.InputCut
	case shoe.KindState:
		// A sabot-protocol shoe reports a freshly loaded shoe as
		// SHOE_STATE with the new-shoe flag (the transcript's "shoe").
		if ev.State&shoe.StateNewShoe == 0 {
			return in, false
		}
		in.Kind = tableau.InputShoe
	case shoe.KindAlarm:
		in.Kind, in.Code, in.Text = tableau.InputAlarm, ev.Alarm.Code, ev.Alarm.Text
		if ev.Alarm.Warning {
			in.Text = strings.TrimSpace("warning " + in.Text)
		}
	case shoe.KindOnline:
		in.Kind = tableau.InputOnline
	case shoe.KindOffline:
		in.Kind, in.Text = tableau.InputOffline, ev.Reason
	case shoe.KindDealer:
		in.Kind, in.Dealer = tableau.InputDealer, ev.Dealer
		if ev.Dealer != "" {
			if err := tableau.ValidateDealerID(ev.Dealer); err != nil {
				// A badge the table cannot use: journaled for the audit
				// trail (the shoe's event is acknowledged, resending
				// would not help); the dealer signed in stays.
				in.Kind, in.Dealer, in.Code, in.Text = tableau.InputRejected, "", "dealer", fmt.Sprintf("badge %q: %v", ev.Dealer, err)
			}
		}
	default:
		return in, false
	}
	return in, true
}

// errShoeBusy marks a shoe device another process holds: sabotd exits 2
// (see runExitCode) before it has connected to the broker.
var errShoeBusy = errors.New("the shoe device is held by another process")

// claimShoe creates the shoe driver and takes the device's lock
// (shoe.Claim) before anything else is started. A device another process
// holds is fatal (errShoeBusy); a missing one is not: the driver waits for
// it, and the table runs meanwhile with the shoe offline.
func (d *daemon) claimShoe(lastRef string) error {
	s, err := d.newShoe(lastRef)
	if err != nil {
		return err
	}
	d.shoe = s
	err = s.Claim()
	switch {
	case errors.Is(err, shoe.ErrBusy):
		return fmt.Errorf("shoe.device %q: %w (is another sabotd running for this shoe?); not connecting to the broker, so the running daemon keeps its session: %w",
			d.cfg.Shoe.Device, errShoeBusy, err)
	case errors.Is(err, shoe.ErrRS485):
		// Run opens it again and stops the daemon with this error.
	case err != nil:
		d.log.Info("shoe device not available yet; waiting for it", "device", d.cfg.Shoe.Device, "err", err)
	}
	return nil
}

func (d *daemon) newShoe(lastRef string) (*shoe.Shoe, error) {
	opts := shoe.Options{
		Path:     d.cfg.Shoe.Device,
		Protocol: d.cfg.Shoe.Protocol,
		Baud:     d.cfg.Shoe.Baud,
		DataBits: d.cfg.Shoe.DataBits,
		Parity:   d.cfg.Shoe.Parity,
		StopBits: d.cfg.Shoe.StopBits,
		Logger:   d.log.With("component", "shoe"),
	}
	if d.demoRun != nil {
		opts.Path = d.demoRun.PtyPath()
	}
	if boot, seq, ok := parseRef(lastRef); ok {
		opts.Resume = shoe.Position{BootID: boot, Seq: seq}
	}
	opts.RS485 = d.cfg.Shoe.RS485Setup()
	opts.RS485.DE = d.rs485DE
	s, err := shoe.New(opts)
	if err != nil {
		return nil, fmt.Errorf("shoe.device %q: %w", d.cfg.Shoe.Device, err)
	}
	return s, nil
}

// startShoe runs the shoe driver (created and claimed by claimShoe, or
// created here in the demo, whose pty exists only now).
func (d *daemon) startShoe(ctx context.Context, lastRef string) error {
	s := d.shoe
	if s == nil {
		var err error
		if s, err = d.newShoe(lastRef); err != nil {
			return err
		}
		d.shoe = s
	}
	d.mu.Lock()
	gate := d.view.GateLocked
	d.mu.Unlock()
	if gate {
		d.setGate(true)
	}
	d.shoeWG.Add(1)
	go func() {
		defer d.shoeWG.Done()
		lidOpen := false // the shoe's cover, as last reported (audit.go)
		err := s.Run(ctx, func(ev shoe.Event) error {
			if lid, ok := lidInput(ev, &lidOpen); ok {
				if err := d.submit(ctx, lid); err != nil {
					lidOpen = !lidOpen // not journaled: the retransmission tries again
					if errors.Is(err, errJournalFailed) {
						return fmt.Errorf("%w: %w", shoe.ErrRetryLater, err)
					}
					return err
				}
			}
			switch ev.Kind {
			case shoe.KindOnline:
				d.log.Info("shoe online", "device", d.cfg.Shoe.Device, "shoe", ev.String())
				d.setShoeUp(true)
			case shoe.KindOffline:
				d.log.Info("shoe offline", "device", d.cfg.Shoe.Device, "reason", ev.Reason)
				d.setShoeUp(false)
			}
			in, ok := shoeInput(ev)
			if !ok {
				d.log.Debug("shoe event not used", "event", ev.String())
				return nil
			}
			err := d.submit(ctx, in)
			if errors.Is(err, errJournalFailed) {
				// Not acknowledged: the shoe sends it again (journalfail.go).
				return fmt.Errorf("%w: %w", shoe.ErrRetryLater, err)
			}
			return err
		})
		if err != nil && ctx.Err() == nil && !errors.Is(err, shoe.ErrClosed) && !errors.Is(err, errStopping) {
			d.log.Error("shoe reader stopped", "err", err)
			d.stop(err)
		}
	}()
	return nil
}

func (d *daemon) setShoeUp(up bool) {
	d.mu.Lock()
	d.shoeUp = up
	d.mu.Unlock()
	if up {
		d.metrics.shoeOnline.Set(1)
	} else {
		d.metrics.shoeOnline.Set(0)
	}
	d.pushShoe()
}

// pushShoe tells the publisher the shoe's current id and state (for the
// retained status). It runs when the shoe goes up or down and once when
// the publisher is created: the shoe's device is claimed, and may come up,
// before MQTT starts, and the status must not keep the publisher's initial
// "offline" then.
func (d *daemon) pushShoe() {
	d.shoePushMu.Lock()
	defer d.shoePushMu.Unlock()
	if d.pub == nil {
		return
	}
	d.mu.Lock()
	up, id := d.shoeUp, d.view.ShoeID
	d.mu.Unlock()
	state := "offline"
	if up {
		state = "online"
	}
	d.pub.SetShoe(id, state)
}

func (d *daemon) setGate(locked bool) {
	if d.shoe == nil {
		return
	}
	state := "unlocked"
	if locked {
		state = "locked"
	}
	d.metrics.gate.WithLabelValues(state).Inc()
	if err := d.shoe.Gate(locked); err != nil && !errors.Is(err, shoe.ErrOffline) {
		d.log.Warn("shoe gate", "locked", locked, "err", err)
	}
}

func (d *daemon) health() health {
	h := health{OK: true, Table: d.cfg.Table, Version: Version()}
	d.auditHealth(&h)
	if d.journal != nil {
		h.Journal = d.journal.Last()
	}
	d.mu.Lock()
	h.ShoeOnline = d.shoeUp
	d.mu.Unlock()
	takenOver := false
	var ackWait time.Duration
	if d.pub != nil {
		st := d.pub.Status()
		h.Broker, h.Backlog, takenOver = st.Connected, st.Backlog, st.TakenOver
		h.CommandsRefused, h.CommandsRefusedQuietly, h.CommandsDropped = st.CommandsRefused, st.CommandsRefusedQuietly, st.CommandsDropped
		h.Undeliverable = st.Undeliverable
		h.BrokerAcking = !st.Connected || st.AckWait <= d.cfg.MQTT.RefusalTimeoutDuration()
		ackWait = st.AckWait
		d.metrics.backlog.Set(float64(st.Backlog))
	}
	switch {
	case d.err() != nil:
		h.OK, h.Problem = false, d.err().Error()
	case d.journalProblem.Load() != nil:
		h.OK, h.Problem = false, *d.journalProblem.Load()
	case d.unqueuedLost.Load():
		h.Problem = "MQTT outbox full too long: some outputs are only in the journal and are published after a restart"
	case !h.ShoeOnline:
		h.Problem = "shoe offline"
	case !h.Broker && takenOver:
		h.Problem = "another daemon publishes as this table on the MQTT broker (session-takeover); staying off the broker"
	case !h.Broker:
		h.Problem = "broker not connected"
	case !h.BrokerAcking:
		h.Problem = fmt.Sprintf("the broker is connected but has acknowledged none of the waiting messages for %v (%d in the outbox)", ackWait.Round(time.Second), h.Backlog)
	}
	return h
}

func (d *daemon) close() error {
	if d.closed.Swap(true) {
		return nil
	}
	sdnotify.Stopping()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), StopTimeout)
	defer cancel()
	var errs []error
	// 1. Stop reading: the shoe and the keys.
	if d.demoRun != nil {
		d.demoRun.Stop()
	}
	if d.shoe != nil {
		if err := d.shoe.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	sctx, scancel := context.WithTimeout(ctx, d.shoeStop)
	if !waitCtx(sctx, &d.shoeWG) {
		// The reader is stuck (in a read the driver cannot interrupt, or in
		// its handler): go on stopping so that the rest is released; an
		// event it still delivers fails to journal and is not acknowledged.
		d.log.Error("stop: the shoe reader did not finish in time", "waited", d.shoeStop)
		errs = append(errs, fmt.Errorf("stop: shoe reader did not finish within %v", d.shoeStop))
	}
	scancel()
	// 2. Let the main loop finish what it holds, then stop it.
	if d.loopCancel != nil {
		d.loopCancel()
	}
	if d.cancel != nil {
		d.cancel()
	}
	if !waitCtx(ctx, &d.wg) {
		errs = append(errs, errors.New("stop: main loop did not finish in time"))
	} else {
		d.shutdownEvent(ctx, "sabotd stopped (signal or service stop)")
	}
	// 3. Flush the outbox for a few seconds and publish offline.
	if d.pub != nil {
		fctx, fcancel := context.WithTimeout(ctx, 4*time.Second)
		if err := d.pub.Close(fctx); err != nil {
			errs = append(errs, err)
		}
		fcancel()
	}
	if d.broker != nil {
		d.broker.Close()
	}
	// 4. Release the display, lamps and GPIO.
	if err := d.closeBoard(); err != nil {
		errs = append(errs, err)
	}
	if d.demoRun != nil {
		if l := d.demoRun.FinalLine(); l != "" {
			fmt.Fprintln(d.stdout, l) // after the display's last redraw, so it stays on the screen
		}
	}
	if err := d.http.close(ctx); err != nil {
		errs = append(errs, err)
	}
	if d.journal != nil {
		if err := d.journal.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if d.tempDir != "" {
		os.RemoveAll(d.tempDir)
	}
	d.log.Info("sabotd stopped", "took", time.Since(start).Round(time.Millisecond))
	d.doneOnce.Do(func() { close(d.done) })
	return errors.Join(errs...)
}

// shoeStopTimeout is how long a stop waits for the shoe reader to return
// once the shoe is closed, within StopTimeout.
const shoeStopTimeout = 3 * time.Second

// waitCtx waits for wg or ctx; it reports whether wg finished.
func waitCtx(ctx context.Context, wg *sync.WaitGroup) bool {
	c := make(chan struct{})
	go func() { wg.Wait(); close(c) }()
	select {
	case <-c:
		return true
	case <-ctx.Done():
		return false
	}
}

// errorsOnly passes only error records to its handler.
type errorsOnly struct{ slog.Handler }

func (h errorsOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelError && h.Handler.Enabled(ctx, l)
}

func (h errorsOnly) WithAttrs(as []slog.Attr) slog.Handler {
	return errorsOnly{h.Handler.WithAttrs(as)}
}
func (h errorsOnly) WithGroup(name string) slog.Handler { return errorsOnly{h.Handler.WithGroup(name)} }
