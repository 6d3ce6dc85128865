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
			if !sleepCtx(ctx, delay) || !c.IsConnectionOpen() {
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
	select {
	case p.cmds <- m:
		return
	default:
	}
	name := cmdName(p.prefix, m.Topic())
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

func (p *Publisher) commandLoop(ctx context.Context) {
	defer p.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-p.cmds:
			p.handleCommand(m.Topic(), m.Payload(), m.Retained())
		case name := <-p.busy:
			p.reply(name, Command{}, false, "busy: too many commands at once, retry")
		}
	}
}

// handleCommand validates one command, gives a valid one to OnCommand, and
// replies.
func (p *Publisher) handleCommand(topic string, payload []byte, retained bool) {
	name := cmdName(p.prefix, topic)
	cmd, reason := p.validateCommand(name, payload, retained)
	if reason != "" {
		p.opts.Logger.Warn("mqtt: command rejected", "command", name, "request_id", cmd.RequestID, "operator", cmd.Operator, "reason", reason)
		if p.opts.OnCommandRejected != nil {
			p.opts.OnCommandRejected(cmd, reason)
		}
		p.reply(name, cmd, false, reason)
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
		err = p.box.append(context.Background(), []Message{m}, true)
	}
	if err != nil {
		p.opts.Logger.Error("mqtt: cannot queue command reply", "command", name, "err", err)
	}
}
