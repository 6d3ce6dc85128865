package main

import (
	"context"
	"fmt"
	"time"

	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/tableau"
)

// messages turns the table's outputs, and the view after them, into MQTT
// messages (payloads per drivers/mqtt/README.md). Every payload is built
// from the journal: ids and times come from the causing input, so a replay
// gives byte-identical messages.
func messages(table string, rules tableau.Rules, outs []tableau.Output, view tableau.TableView, at time.Time) ([]mqtt.Message, error) {
	var msgs []mqtt.Message
	add := func(m mqtt.Message, err error) error {
		if err != nil {
			return err
		}
		msgs = append(msgs, m)
		return nil
	}
	changed := false
	for i := range outs {
		o := &outs[i]
		env := mqtt.NewEnvelope(table, o.ID, o.ShoeID, o.Time)
		var err error
		switch o.Kind {
		case tableau.OutputCard:
			c := o.Card
			idx := c.Index
			if c.Position == tableau.PositionBurn || c.Position == tableau.PositionNone {
				idx = 0
			}
			err = add(mqtt.CardMessage(mqtt.CardPayload{
				Envelope: env, Shoe: o.Shoe, Coup: o.Coup, Seq: c.InShoe,
				Position: string(c.Position), Index: idx,
				Card: c.Card.String(), Rank: c.Card.Rank.String(), Suit: c.Card.Suit.String(), Value: c.Card.Value(),
				UID: c.UID, PlayerTotal: c.PlayerTotal, BankerTotal: c.BankerTotal,
			}))
		case tableau.OutputCoup:
			err = add(mqtt.CoupMessage(coupPayload(env, rules, o.Event.Coup)))
		case tableau.OutputAlert:
			a := o.Event.Alert
			ca := mqtt.CheckAlert{Type: "alert", Shoe: a.Shoe, Coup: a.Coup, Code: string(a.Code)}
			if !a.Card.IsZero() {
				ca.Card = a.Card.String()
			}
			err = add(mqtt.AlertMessage(mqtt.NewAlertPayload(env, ca, o.Alert.Severity, o.Alert.Text, o.Alert.AwaitsAck)))
		case tableau.OutputVoid:
			v := o.Event.Void
			err = add(mqtt.VoidMessage(mqtt.VoidPayload{Envelope: env,
				CheckVoid: mqtt.CheckVoid{Type: "void", Shoe: v.Shoe, Coup: v.Coup}, Published: o.VoidsResult}))
		case tableau.OutputAck:
			source := "key"
			if o.Ack.Operator != "" && o.Ack.Operator != "ack-key" {
				source = "mqtt"
			}
			op := o.Ack.Operator
			if op == "" {
				op = "ack-key"
			}
			err = add(mqtt.AckMessage(mqtt.AckPayload{Envelope: env, AlertID: o.Ack.AlertID, Code: string(o.Ack.Code),
				Shoe: o.Shoe, Coup: o.Coup, Operator: op, Source: source}))
		}
		if err != nil {
			return nil, fmt.Errorf("mqtt payload for %s: %w", o.ID, err)
		}
		changed = true
	}
	if changed || len(outs) == 0 {
		m, err := mqtt.StateMessage(statePayload(table, view, at))
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// coupPayload builds the coup payload: the `sabot check` keys plus side-bet
// facts and the settlement of every bet the rules offer.
func coupPayload(env mqtt.Envelope, rules tableau.Rules, c tableau.CoupEvent) mqtt.CoupPayload {
	cards := func(h tableau.Hand) []string {
		s := make([]string, 0, h.N)
		for _, c := range h.Slice() {
			s = append(s, c.String())
		}
		return s
	}
	p := mqtt.CoupPayload{
		Envelope: env,
		CheckCoup: mqtt.CheckCoup{Type: "coup", Shoe: c.Shoe, Coup: c.Coup, Player: cards(c.Player), Banker: cards(c.Banker),
			PlayerTotal: c.PlayerTotal, BankerTotal: c.BankerTotal, Winner: c.Winner.String(), Natural: c.Natural,
			PlayerPair: c.PlayerPair, BankerPair: c.BankerPair},
		Rules: rules.Game.String(),
		SideBets: mqtt.SideBets{PlayerPair: c.PlayerPair, BankerPair: c.BankerPair, EitherPair: c.PlayerPair || c.BankerPair,
			Super6: c.BankerWinsOn6, Dragon7: c.Dragon7, Panda8: c.Panda8},
	}
	s := c.Settlement
	for _, b := range tableau.Bets {
		if !rules.Offers(b) {
			continue
		}
		pay := s.Of(b)
		if pay.Outcome == tableau.OutcomeNone {
			continue
		}
		name := b.String()
		switch b {
		case tableau.BetPlayerPair:
			name = "player_pair"
		case tableau.BetBankerPair:
			name = "banker_pair"
		}
		p.Settlement = append(p.Settlement, mqtt.BetSettlement{Bet: name, Outcome: pay.Outcome.String(), Net: pay.Net})
	}
	return p
}

// statePayload is the retained snapshot for late-joining scoreboards. Its
// id names the journal record it reflects.
func statePayload(table string, v tableau.TableView, at time.Time) mqtt.StatePayload {
	cards := func(h tableau.Hand) []string {
		s := make([]string, 0, h.N)
		for _, c := range h.Slice() {
			s = append(s, c.String())
		}
		return s
	}
	waiting := "deal"
	switch {
	case v.Phase == "no-shoe" || v.Phase == "burn":
		waiting = "burn"
	case v.Phase == "between":
		waiting = "deal"
		if v.CutCard && v.LastCoup > 0 && v.Coup >= v.LastCoup {
			waiting = "shoe-end"
		}
	case v.Complete || v.Voided:
		waiting = "coup-end"
	case v.Waiting == "player-third" || v.Waiting == "banker-third":
		waiting = v.Waiting
	}
	coup := v.Coup
	if v.Phase != "coup" {
		coup++
	}
	open := make([]string, 0, len(v.Alerts))
	for _, a := range v.Alerts {
		open = append(open, a.ID)
	}
	p := mqtt.StatePayload{
		Envelope:       mqtt.NewEnvelope(table, table+"/"+v.ShoeID+"/state/"+at.UTC().Format("20060102T150405.000000000Z"), v.ShoeID, at),
		Shoe:           v.Shoe,
		Coup:           coup,
		PlayerTotal:    v.PlayerTotal,
		BankerTotal:    v.BankerTotal,
		Waiting:        waiting,
		CardsDealt:     v.CardsDrawn,
		Remaining:      v.ByRank,
		CutCard:        v.CutCard,
		OpenAlerts:     open,
		OpenAlertCount: len(open),
	}
	if v.Phase == "coup" {
		p.Player, p.Banker = cards(v.Player), cards(v.Banker)
	} else {
		p.PlayerTotal, p.BankerTotal = 0, 0
	}
	return p
}

// publish hands the outputs of one input to the durable outbox.
func (d *daemon) publish(ctx context.Context, outs []tableau.Output, view tableau.TableView, at time.Time) error {
	if d.pub == nil {
		return nil
	}
	msgs, err := messages(d.cfg.Table, d.rules, outs, view, at)
	if err != nil {
		return err
	}
	if len(msgs) == 0 {
		return nil
	}
	return d.pub.Publish(ctx, msgs...)
}
