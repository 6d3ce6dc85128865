package mqtt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/internal/ctxsleep"
	"github.com/sabot-table/sabot/tableau"
)

// Command names.
const (
	CmdAck        = "ack"         // acknowledge the latched alerts
	CmdVoid       = "void"        // void the current coup
	CmdNewShoe    = "new-shoe"    // start a new shoe
	CmdBetsOpen   = "bets-open"   // live dealer: betting is open
	CmdBetsClosed = "bets-closed" // live dealer: betting closed, cards may be drawn
	CmdDealer     = "dealer"      // a dealer signs in (Command.Dealer) or out ("-")
	CmdStand      = "stand"       // the hand whose turn it is declines a card (chemin de fer, banque)
)

// MaxCommand is the largest command payload accepted, in bytes.
const MaxCommand = 1024

// MaxCommandName is the longest command name answered, in bytes: the topic
// level after <prefix>/cmd/ must be 1 to MaxCommandName bytes of a–z, 0–9
// and '-' (the longest command, bets-closed, has 11). A message whose
// level is not is refused without a reply, since its reply topic would be
// no command's: one over MQTT's 65,535-byte topic limit was cut back by
// the client library to the command topic itself, and the daemon received
// its own reply as a new command, for ever. The refusal's record holds at
// most the first 64 bytes of the name.
const MaxCommandName = 32

// Refusals of commands (OnCommandRejected's record, the log line, the
// reply) are made at most rejectRate a second, in bursts of rejectBurst;
// those beyond it are only counted (Status.CommandsRefusedQuietly), and
// the next logged refusal says how many were not. A flood of bad commands
// thus grows neither the journal nor the outbox nor the log faster than
// that.
const (
	rejectRate  = 5
	rejectBurst = 20
)

// CommandReply is published on <prefix>/cmd/<name>/reply for every command
// received, accepted or not.
type CommandReply struct {
	Envelope
	Command   string `json:"command"`
	RequestID string `json:"request_id"`
	Operator  string `json:"operator"`
	Accepted  bool   `json:"accepted"`
	// Reason says why the command was rejected ("" when accepted).
	Reason string `json:"reason,omitempty"`
}

// Command subscription retries: a broker that refuses or does not answer
// the subscription (an ACL; NATS Server while its JetStream elects new
// leaders after a node's death, which it answers with a failure) is asked
// again after cmdRetryMin, doubling up to cmdRetryMax, as long as the
// connection is the publisher's current one: with several brokers, until
// connLoop leaves it after RefusalTimeout.
const (
	cmdRetryMin = time.Second
	cmdRetryMax = 30 * time.Second
)

// subscribeCommands subscribes to the command topics on c, recording the
// outcome in r; on failure it keeps trying in the background (see
// cmdRetryMin) until it succeeds, c is no longer connected or ctx ends.
func (p *Publisher) subscribeCommands(ctx context.Context, c paho.Client, r *refusal) {
	if p.trySubscribeCommands(ctx, c, r) {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		delay := cmdRetryMin
		for {
			if !ctxsleep.Sleep(ctx, delay) || !c.IsConnectionOpen() {
				return
			}
			p.mu.Lock()
			cur := p.cur
			p.mu.Unlock()
			if cur != c {
				return // a newer connection subscribes itself
			}
			if p.trySubscribeCommands(ctx, c, r) {
				p.opts.Logger.Info("mqtt: subscribed to commands", "topic", p.prefix+"/"+TopicCmd+"/+")
				return
			}
			delay = min(delay*2, cmdRetryMax)
		}
	}()
}

func (p *Publisher) trySubscribeCommands(ctx context.Context, c paho.Client, r *refusal) bool {
	topic := p.prefix + "/" + TopicCmd + "/+"
	asked := time.Now()
	tok := c.Subscribe(topic, 1, func(_ paho.Client, m paho.Message) { p.receiveCommand(m) })
	if err := waitToken(ctx, tok, p.opts.AckTimeout); err != nil {
		r.subscribed(asked, time.Now(), false)
		p.opts.Logger.Error("mqtt: cannot subscribe to commands; will retry", "topic", topic, "err", err)
		return false
	}
	if st, ok := tok.(*paho.SubscribeToken); ok {
		if q, ok := st.Result()[topic]; ok && q > 2 {
			r.subscribed(asked, time.Now(), false)
			p.opts.Logger.Error("mqtt: broker refused the command subscription (check its ACL); will retry", "topic", topic)
			return false
		}
	}
	r.subscribed(asked, time.Now(), true)
	return true
}

// cmdQueue bounds the commands waiting to be carried out, and separately
// the "busy" replies waiting to be sent for commands refused because that
// queue was full. A command beyond both is dropped with a log line and a
// count (Status.CommandsDropped): the sender gets no reply, as under any
// flood; nothing else grows.
const cmdQueue = 64

// receiveCommand is the MQTT client's handler for a command message: it
// hands the message to commandLoop and never blocks the client's goroutine
// nor starts one.
func (p *Publisher) receiveCommand(m paho.Message) {
	if m.Retained() {
		p.mu.Lock()
		checking := p.checking == m.Topic()
		p.mu.Unlock()
		if checking {
			return // heldRetained's copy, on its own subscription too
		}
	}
	select {
	case p.cmds <- m:
		return
	default:
	}
	name := cmdName(p.prefix, m.Topic())
	if !validCommandName(name) {
		p.mu.Lock()
		p.cmdsDropped++
		p.mu.Unlock()
		return // no reply topic is formed from it (see MaxCommandName)
	}
	select {
	case p.busy <- name:
		p.opts.Logger.Warn("mqtt: command queue full; command refused as busy", "topic", m.Topic())
	default:
		p.mu.Lock()
		p.cmdsDropped++
		n := p.cmdsDropped
		p.mu.Unlock()
		p.opts.Logger.Warn("mqtt: command queue and busy replies full; command dropped without reply", "topic", m.Topic(), "dropped", n)
	}
}

func cmdName(prefix, topic string) string {
	return strings.TrimPrefix(topic, prefix+"/"+TopicCmd+"/")
}

// validCommandName reports whether name may be answered on
// cmd/<name>/reply: 1 to MaxCommandName bytes of a–z, 0–9 and '-'.
func validCommandName(name string) bool {
	if name == "" || len(name) > MaxCommandName {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// isReply reports whether payload is a command reply (it has the
// "accepted" key no command has): a reply is never a command, whichever
// daemon sent it.
func isReply(payload []byte) bool {
	var r struct {
		Accepted *bool `json:"accepted"`
	}
	return json.Unmarshal(payload, &r) == nil && r.Accepted != nil
}

func (p *Publisher) commandLoop(ctx context.Context) {
	defer p.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-p.cmds:
			p.handleCommand(m.Topic(), m.Payload(), m.Retained())
		case name := <-p.busy:
			p.refuse(Command{Name: name, Received: p.opts.Now()}, "busy: too many commands at once, retry", true)
		}
	}
}

// handleCommand validates one command, gives a valid one to OnCommand, and
// replies. A message on a command topic that is no command (a level that is
// not a command name, a reply) is refused without a reply.
func (p *Publisher) handleCommand(topic string, payload []byte, retained bool) {
	name := cmdName(p.prefix, topic)
	if !validCommandName(name) {
		p.refuse(Command{Name: truncateUTF8(name, 64), Received: p.opts.Now()},
			fmt.Sprintf("topic level of %d bytes after cmd/ is not a command name (1 to %d bytes of a-z, 0-9 and -); not answered", len(name), MaxCommandName), false)
		return
	}
	if isReply(payload) {
		p.refuse(Command{Name: name, Received: p.opts.Now()}, "a command reply on a command topic; not answered", false)
		return
	}
	cmd, reason := p.validateCommand(name, payload, retained)
	if reason == "" && p.heldRetained(topic, payload) {
		reason = "retained commands are refused (a retained command would run again on every reconnect): the broker holds this one retained; clear it with an empty retained publish and send it with retain=false"
	}
	if reason != "" {
		p.refuse(cmd, reason, true)
		return
	}
	if p.opts.OnCommand == nil {
		p.reply(name, cmd, false, "commands are not handled by this daemon")
		return
	}
	if err := p.opts.OnCommand(cmd); err != nil {
		p.opts.Logger.Warn("mqtt: command refused", "command", name, "request_id", cmd.RequestID, "operator", cmd.Operator, "err", err)
		p.reply(name, cmd, false, err.Error())
		return
	}
	p.opts.Logger.Info("mqtt: command accepted", "command", name, "request_id", cmd.RequestID, "operator", cmd.Operator)
	p.reply(name, cmd, true, "")
}

// heldRetained reports whether the broker holds payload retained on the
// command topic: a command published with retain=true is delivered live
// without the retain flag (MQTT 3.1.1 section 3.3.1.3), so a live command
// gives no sign of it. The daemon asks the broker: it subscribes to the
// exact topic (the broker sends what it holds retained there, flagged)
// and then to its own status topic, whose retained status (the daemon's
// "online") comes after it on the same connection, in order; once that has
// arrived, whatever the broker held on the topic has too. It then
// unsubscribes both. When it cannot tell (not connected, a broker that
// refuses the status subscription or holds no status, no answer within
// AckTimeout) it logs that once and reports false: the command is taken.
func (p *Publisher) heldRetained(topic string, payload []byte) bool {
	p.mu.Lock()
	c := p.cur
	p.checking = topic
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.checking = ""
		p.mu.Unlock()
	}()
	if c == nil {
		return false
	}
	held := make(chan struct{}, 1)
	probed := make(chan struct{}, 1)
	status := p.prefix + "/" + TopicStatus
	ctx := context.Background()
	unsure := func(why string) bool {
		p.mu.Lock()
		first := !p.retainUnsure
		p.retainUnsure = true
		p.mu.Unlock()
		if first {
			p.opts.Logger.Warn("mqtt: cannot tell whether a command was published retained; taking it (logged once)", "topic", topic, "reason", why)
		}
		return false
	}
	defer c.Unsubscribe(topic, status)
	// QoS 0: no session state for a subscription of a moment (NATS Server
	// makes a JetStream consumer for each QoS 1 one).
	tok := c.Subscribe(topic, 0, func(_ paho.Client, m paho.Message) {
		if m.Retained() && bytes.Equal(m.Payload(), payload) {
			select {
			case held <- struct{}{}:
			default:
			}
		}
	})
	if err := waitToken(ctx, tok, p.opts.AckTimeout); err != nil {
		return unsure("subscribing to the command topic: " + err.Error())
	}
	tok = c.Subscribe(status, 0, func(_ paho.Client, m paho.Message) {
		if m.Retained() {
			select {
			case probed <- struct{}{}:
			default:
			}
		}
	})
	if err := waitToken(ctx, tok, p.opts.AckTimeout); err != nil {
		return unsure("subscribing to the status topic: " + err.Error())
	}
	if st, ok := tok.(*paho.SubscribeToken); ok && st.Result()[status] > 2 {
		return unsure("the broker refuses the status topic (let the daemon read <prefix>/<table>/status)")
	}
	select {
	case <-held:
		return true
	case <-probed:
		select {
		case <-held: // sent before the status, and dispatched in order
			return true
		default:
			return false
		}
	case <-time.After(p.opts.AckTimeout):
		return unsure("no retained status came back")
	}
}

// refuse records a refused command: a log line, OnCommandRejected and,
// with reply, the reply; at most rejectRate a second (see rejectRate),
// the rest only counted.
func (p *Publisher) refuse(cmd Command, reason string, reply bool) {
	p.mu.Lock()
	p.cmdsRefused++
	ok := p.rejectLimit.Allow()
	if !ok {
		p.cmdsQuiet++
		p.quietSince++
	}
	unlogged := p.quietSince
	if ok {
		p.quietSince = 0
	}
	p.mu.Unlock()
	if !ok {
		return
	}
	p.opts.Logger.Warn("mqtt: command rejected", "command", cmd.Name, "request_id", truncateUTF8(cmd.RequestID, 128),
		"operator", truncateUTF8(cmd.Operator, 64), "reason", reason, "unlogged_before", unlogged)
	if p.opts.OnCommandRejected != nil {
		p.opts.OnCommandRejected(cmd, reason)
	}
	if reply {
		p.reply(cmd.Name, cmd, false, reason)
	}
}

// validateCommand returns the parsed command and "" or the reason to reject.
func (p *Publisher) validateCommand(name string, payload []byte, retained bool) (Command, string) {
	cmd := Command{Name: name, Received: p.opts.Now()}
	switch name {
	case CmdAck, CmdVoid, CmdNewShoe, CmdBetsOpen, CmdBetsClosed, CmdDealer, CmdStand:
	default:
		return cmd, fmt.Sprintf("unknown command %q (want ack, void, new-shoe, bets-open, bets-closed, dealer or stand)", truncateUTF8(name, 64))
	}
	if len(payload) > MaxCommand {
		return cmd, fmt.Sprintf("payload of %d bytes exceeds the %d-byte limit", len(payload), MaxCommand)
	}
	if retained {
		return cmd, "retained commands are refused (a retained command would run again on every reconnect); publish with retain=false"
	}
	if !utf8.Valid(payload) {
		return cmd, "payload is not UTF-8"
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cmd); err != nil {
		return cmd, "bad JSON: " + err.Error()
	}
	if dec.More() {
		return cmd, "bad JSON: data after the object"
	}
	switch {
	case cmd.RequestID == "":
		return cmd, "missing field request_id"
	case cmd.Operator == "":
		return cmd, "missing field operator"
	case len(cmd.RequestID) > 128:
		return cmd, "request_id longer than 128 bytes"
	case len(cmd.Operator) > 64:
		return cmd, "operator longer than 64 bytes"
	case cmd.Table != "" && cmd.Table != p.opts.Table:
		return cmd, fmt.Sprintf("wrong table %q (this is %q)", cmd.Table, p.opts.Table)
	case len(p.opts.Operators) > 0 && !slices.Contains(p.opts.Operators, cmd.Operator):
		return cmd, fmt.Sprintf("operator %q is not authorised", cmd.Operator)
	case name != CmdDealer && cmd.Dealer != "":
		return cmd, fmt.Sprintf("field dealer belongs to the dealer command, not %s", name)
	case name == CmdDealer && cmd.Dealer == "":
		return cmd, "missing field dealer (the dealer's id, or \"-\" to sign out)"
	case name == CmdDealer && cmd.Dealer != tableau.DealerSignOut:
		if err := tableau.ValidateDealerID(cmd.Dealer); err != nil {
			return cmd, fmt.Sprintf("dealer %q: %s", truncateUTF8(cmd.Dealer, 64), strings.TrimPrefix(err.Error(), tableau.ErrDealerID.Error()+": "))
		}
	}
	key := name + "\x00" + cmd.RequestID
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.recentCmds[key] {
		return cmd, fmt.Sprintf("duplicate request_id %q (already processed)", cmd.RequestID)
	}
	p.recentCmds[key] = true
	p.recentOrder = append(p.recentOrder, key)
	if len(p.recentOrder) > 1024 {
		delete(p.recentCmds, p.recentOrder[0])
		p.recentOrder = p.recentOrder[1:]
	}
	return cmd, ""
}

// reply queues the reply in the outbox (so it survives a lost connection).
func (p *Publisher) reply(name string, cmd Command, accepted bool, reason string) {
	p.mu.Lock()
	p.statusN++
	n := p.statusN
	shoeID := p.shoeID
	p.mu.Unlock()
	id := p.opts.Table + "/cmd/" + p.bootID + "/" + strconv.Itoa(n)
	r := CommandReply{
		Envelope:  NewEnvelope(p.opts.Table, id, shoeID, p.opts.Now()),
		Command:   truncateUTF8(name, 64),
		RequestID: truncateUTF8(cmd.RequestID, 128),
		Operator:  truncateUTF8(cmd.Operator, 64),
		Accepted:  accepted,
		Reason:    truncateUTF8(reason, 512),
	}
	m, err := Encode(TopicCmd+"/"+name+"/reply", false, r)
	if err == nil {
		err = checkMessage(m)
	}
	if err == nil {
		err = p.box.append(context.Background(), []Message{m}, true)
	}
	if err != nil {
		p.opts.Logger.Error("mqtt: cannot queue command reply", "command", name, "err", err)
	}
}
