package daemon

import (
	"testing"

	"github.com/sabot-table/sabot/drivers/shoe"
	"github.com/sabot-table/sabot/tableau"
)

// Shoe events map onto the transcript's semantics: in particular a sabot
// shoe's SHOE_STATE with the new-shoe flag is "shoe" (the virtual shoe
// sends the transcript's "shoe" that way), other state reports are not
// table input.
func TestShoeInputMapping(t *testing.T) {
	for _, tc := range []struct {
		ev   shoe.Event
		kind tableau.InputKind
		ok   bool
	}{
		{shoe.Event{Kind: shoe.KindState, State: shoe.StateLoaded | shoe.StateNewShoe, BootID: 7, Seq: 2}, tableau.InputShoe, true},
		{shoe.Event{Kind: shoe.KindState, State: shoe.StateLoaded | shoe.StateCoverOpen}, "", false},
		{shoe.Event{Kind: shoe.KindButton, Button: shoe.ButtonNewShoe, Pressed: true}, tableau.InputShoe, true},
		{shoe.Event{Kind: shoe.KindButton, Button: shoe.ButtonCoup, Pressed: true}, tableau.InputButton, true},
		{shoe.Event{Kind: shoe.KindCutCard}, tableau.InputCut, true},
		{shoe.Event{Kind: shoe.KindButton, Button: shoe.ButtonStand, Pressed: true}, tableau.InputStand, true},
		{shoe.Event{Kind: shoe.KindButton, Button: shoe.ButtonStand, Pressed: false}, "", false},
	} {
		in, ok := shoeInput(tc.ev)
		if ok != tc.ok || (ok && in.Kind != tc.kind) {
			t.Errorf("%v: got %q %v, want %q %v", tc.ev, in.Kind, ok, tc.kind, tc.ok)
		}
	}
	if in, _ := shoeInput(shoe.Event{Kind: shoe.KindState, State: shoe.StateNewShoe, BootID: 7, Seq: 2}); in.Ref != "7:2" {
		t.Errorf("ref %q", in.Ref)
	}
}
