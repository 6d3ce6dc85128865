package shoe

import (
	"testing"

	fwproto "github.com/sabot-table/sabot/firmware-proto"
)

// The shoe package's state and capability bits are the wire protocol's, so
// the sabot protocol passes them through unchanged.
func TestBitsMatchWire(t *testing.T) {
	pairs := []struct {
		ours, wire uint16
		name       string
	}{
		{uint16(StateLoaded), uint16(fwproto.ShoeLoaded), "loaded"},
		{uint16(StateCoverOpen), uint16(fwproto.ShoeCoverOpen), "cover-open"},
		{uint16(StateJam), uint16(fwproto.ShoeJam), "jam"},
		{uint16(StateGateLocked), uint16(fwproto.ShoeGateLocked), "gate-locked"},
		{uint16(StateNewShoe), uint16(fwproto.ShoeNew), "new-shoe"},
		{uint16(CapSuit), uint16(fwproto.CapSuit), "suit"},
		{uint16(CapUID), uint16(fwproto.CapUID), "uid"},
		{uint16(CapGate), uint16(fwproto.CapGate), "gate"},
		{uint16(CapButtons), uint16(fwproto.CapButtons), "buttons"},
		{uint16(CapDisplay), uint16(fwproto.CapDisplay), "display"},
		{uint16(CapCutCard), uint16(fwproto.CapCutCard), "cut card"},
		{uint16(CapPersist), uint16(fwproto.CapPersist), "persist"},
		{uint16(CapTimeSync), uint16(fwproto.CapTimeSync), "time sync"},
		{uint16(CapDealer), uint16(fwproto.CapDealer), "dealer"},
		{QualityUnknown, fwproto.QualityUnknown, "quality unknown"},
	}
	for _, p := range pairs {
		if p.ours != p.wire {
			t.Errorf("%s: %#x here, %#x on the wire", p.name, p.ours, p.wire)
		}
	}
}

func TestEventStrings(t *testing.T) {
	for _, tc := range []struct {
		ev   Event
		want string
	}{
		{Event{Kind: KindState, State: StateLoaded | StateCoverOpen | StateNewShoe}, "state loaded,cover-open,new-shoe"},
		{Event{Kind: KindState}, "state empty"},
		{Event{Kind: KindState, State: 0x40 | StateJam}, "state jam,0x40"},
		{Event{Kind: KindButton, Button: ButtonBurn}, "button burn released"},
		{Event{Kind: KindAlarm, Alarm: Alarm{Code: "W0x01", Warning: true}}, "alarm warning W0x01"},
		{Event{Kind: KindOnline, Info: &Info{Model: "M", Serial: "S"}}, "online M S"},
		{Event{Kind: KindOffline, Reason: "unplugged"}, "offline: unplugged"},
		{Event{Kind: KindUnreadable, Burn: true}, "unreadable burn"},
		{Event{Kind: 42}, "kind(42)"},
	} {
		if got := tc.ev.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.ev, got, tc.want)
		}
	}
}
