package tableau

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/sabot-table/sabot/tableau/baccarat"
)

// AppendJSON appends the event's JSON form — exactly the bytes
// json.Marshal(e) gives — to dst and returns the extended slice. It is the
// hot path of `sabot check` (one line per event): the usual coup, alert and
// void events are written field by field without reflection or allocation;
// anything unusual (an invalid card or kind, a string that JSON must
// escape, a non-finite number) goes through json.Marshal, so the output and
// the errors are always json.Marshal's. On error dst is returned unchanged.
func (e *Event) AppendJSON(dst []byte) ([]byte, error) {
	n := len(dst)
	var ok bool
	switch e.Kind {
	case baccarat.EventCoup:
		if e.Macao == nil { // a Macao coup line goes through json.Marshal
			dst, ok = appendCoupJSON(dst, &e.Coup)
		}
	case baccarat.EventAlert:
		dst, ok = appendAlertJSON(dst, &e.Alert)
	case baccarat.EventVoid:
		dst, ok = appendVoidJSON(dst, &e.Void)
	}
	if ok {
		return dst, nil
	}
	b, err := json.Marshal(e)
	if err != nil {
		return dst[:n], err
	}
	return append(dst[:n], b...), nil
}

// appendHead appends {"type":"T","shoe":S,"coup":C.
func appendHead(dst []byte, typ string, shoe, coup int) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, typ...)
	dst = append(dst, `","shoe":`...)
	dst = strconv.AppendInt(dst, int64(shoe), 10)
	dst = append(dst, `,"coup":`...)
	return strconv.AppendInt(dst, int64(coup), 10)
}

func appendVoidJSON(dst []byte, v *VoidEvent) ([]byte, bool) {
	if v.Type != baccarat.EventVoid {
		return dst, false
	}
	return appendDealerJSON(appendHead(dst, "void", v.Shoe, v.Coup), v.Dealer)
}

// appendDealerJSON appends ,"dealer":"ID" when id is set, and the closing
// brace; false when id needs escaping (never for a valid id).
func appendDealerJSON(dst []byte, id string) ([]byte, bool) {
	if id != "" {
		if !plainJSONString(id) {
			return dst, false
		}
		dst = append(dst, `,"dealer":"`...)
		dst = append(dst, id...)
		dst = append(dst, '"')
	}
	return append(dst, '}'), true
}

// plainJSONString reports whether json.Marshal writes s as `"` + s + `"`:
// printable ASCII without the characters it escapes.
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b < 0x20 || b >= 0x7f, b == '"', b == '\\', b == '<', b == '>', b == '&':
			return false
		}
	}
	return true
}

func appendAlertJSON(dst []byte, a *AlertEvent) ([]byte, bool) {
	if a.Type != baccarat.EventAlert || !plainJSONString(string(a.Code)) || a.Declared != 0 || a.Computed != 0 {
		return dst, false // a result-mismatch: encoding/json, with "declared" and "computed"
	}
	dst = appendHead(dst, "alert", a.Shoe, a.Coup)
	dst = append(dst, `,"code":"`...)
	dst = append(dst, a.Code...)
	dst = append(dst, '"')
	if !a.Card.IsZero() {
		if !a.Card.Valid() {
			return dst, false
		}
		dst = append(dst, `,"card":"`...)
		dst = append(dst, a.Card.String()...)
		dst = append(dst, '"')
	}
	if b := a.AdvantageBet; b != nil {
		if !plainJSONString(b.Bet) {
			return dst, false
		}
		dst = append(dst, `,"bet":"`...)
		dst = append(dst, b.Bet...)
		dst = append(dst, `","ev":`...)
		var ok bool
		if dst, ok = appendJSONFloat(dst, b.EV); !ok {
			return dst, false
		}
	}
	return appendDealerJSON(dst, a.Dealer)
}

func appendHandJSON(dst []byte, h *baccarat.Hand) ([]byte, bool) {
	dst, err := h.AppendJSON(dst)
	return dst, err == nil
}

func appendBool(dst []byte, key string, v bool) []byte {
	dst = append(dst, key...)
	return strconv.AppendBool(dst, v)
}

func appendCoupJSON(dst []byte, c *baccarat.CoupEvent) ([]byte, bool) {
	// The punto banco games only (chemin de fer's options and banque's
	// own shape go through json.Marshal).
	if c.Type != baccarat.EventCoup || c.Winner < baccarat.WinnerPlayer || c.Winner > baccarat.WinnerTie || !c.Game.DealsPuntoBanco() || !c.Options.IsZero() {
		return dst, false
	}
	var ok bool
	dst = append(dst, `{"type":"coup","game":"`...)
	dst = append(dst, c.Game.Name()...)
	dst = append(dst, `","shoe":`...)
	dst = strconv.AppendInt(dst, int64(c.Shoe), 10)
	dst = append(dst, `,"coup":`...)
	dst = strconv.AppendInt(dst, int64(c.Coup), 10)
	dst = append(dst, `,"player":`...)
	if dst, ok = appendHandJSON(dst, &c.Player); !ok {
		return dst, false
	}
	dst = append(dst, `,"banker":`...)
	if dst, ok = appendHandJSON(dst, &c.Banker); !ok {
		return dst, false
	}
	// totals and winner, then the six flags: prebuilt texts.
	if uint(c.PlayerTotal) <= 9 && uint(c.BankerTotal) <= 9 {
		dst = append(dst, totalsJSON[c.PlayerTotal][c.BankerTotal][c.Winner]...)
	} else {
		dst = append(dst, `,"player_total":`...)
		dst = strconv.AppendInt(dst, int64(c.PlayerTotal), 10)
		dst = append(dst, `,"banker_total":`...)
		dst = strconv.AppendInt(dst, int64(c.BankerTotal), 10)
		dst = append(dst, `,"winner":"`...)
		dst = append(dst, c.Winner.String()...)
		dst = append(dst, '"')
	}
	dst = append(dst, flagsJSON[flagBits(c.Natural, c.PlayerPair, c.BankerPair, c.Dragon7, c.Panda8, c.BankerWinsOn6)]...)
	dst = append(dst, `,"cards":`...)
	dst = strconv.AppendInt(dst, int64(c.Cards), 10)
	// omitzero on a struct compares it with its zero value as == does
	// (-0 equals 0, NaN equals nothing).
	s := &c.Settlement
	if *s != (baccarat.Settlement{}) {
		dst = append(dst, `,"settlement":{`...)
		if s.Player == (baccarat.Payout{}) { // the keys after it start with a comma
			return dst, false
		}
		for i, p := range [...]struct {
			p    *baccarat.Payout
			omit bool
		}{
			{&s.Player, false}, {&s.Banker, true}, {&s.Tie, true}, {&s.PlayerPair, true},
			{&s.BankerPair, true}, {&s.Dragon7, true}, {&s.Panda8, true},
			{&s.PerfectPair, true}, {&s.EitherPair, true}, {&s.Big, true}, {&s.Small, true},
			{&s.DragonPlayer, true}, {&s.DragonBanker, true}, {&s.Lucky6, true},
		} {
			if p.omit && *p.p == (baccarat.Payout{}) {
				continue
			}
			if t := payoutJSON(i, *p.p); t != "" {
				dst = append(dst, t...)
				continue
			}
			dst = append(dst, payoutKeys[i]...)
			dst = append(dst, `{"result":"`...)
			dst = append(dst, p.p.Outcome.String()...)
			dst = append(dst, `","net":`...)
			if dst, ok = appendJSONFloat(dst, p.p.Net); !ok {
				return dst, false
			}
			dst = append(dst, '}')
		}
		dst = append(dst, '}')
	}
	return appendDealerJSON(dst, c.Dealer)
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest representation, in 'f' form unless the exponent is below -6 or
// at least 21, with a one-digit negative exponent not zero-padded. It
// reports false for NaN and ±Inf (which JSON cannot hold).
func appendJSONFloat(dst []byte, f float64) ([]byte, bool) {
	switch f { // the usual payouts first
	case -1:
		return append(dst, "-1"...), true
	case 1:
		return append(dst, '1'), true
	case 0.95:
		return append(dst, "0.95"...), true
	case 11:
		return append(dst, "11"...), true
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, false
	}
	// Fast path for the payouts (-1, 0.95, 0.5, 11, 40, …): a value that is
	// exactly the float nearest a decimal with at most two fraction
	// digits, below 10^12 in size, is written as that decimal (it is the
	// shortest that reads back as f: no other such decimal is as near).
	if k := math.Round(f * 100); k/100 == f && math.Abs(k) < 1e14 && !(k == 0 && math.Signbit(f)) {
		c := int64(k)
		if c < 0 {
			dst = append(dst, '-')
			c = -c
		}
		dst = strconv.AppendInt(dst, c/100, 10)
		if frac := c % 100; frac != 0 {
			dst = append(dst, '.', byte('0'+frac/10))
			if frac%10 != 0 {
				dst = append(dst, byte('0'+frac%10))
			}
		}
		return dst, true
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

// Prebuilt JSON texts for the parts of a coup line that take few values,
// written by the same code as the general path (see init), so that the
// hot path appends one string where it would append several.
var (
	// totalsJSON[p][b][w]: `,"player_total":p,"banker_total":b,"winner":"w"`.
	totalsJSON [10][10][baccarat.WinnerTie + 1]string
	// flagsJSON[bits]: the six flags from "natural" to "banker_wins_on_6"
	// (bit 0 natural … bit 5 banker_wins_on_6).
	flagsJSON [64]string
	// payoutTexts[field][outcome][net]: a settlement entry (key included,
	// with its leading comma after the first) for a usual net value.
	payoutTexts [len(payoutKeys)][baccarat.Push + 1][len(usualNets)]string
)

// payoutKeys are the settlement keys in order, as appendCoupJSON writes them.
var payoutKeys = [14]string{`"player":`, `,"banker":`, `,"tie":`, `,"player_pair":`, `,"banker_pair":`, `,"dragon7":`, `,"panda8":`,
	`,"perfect_pair":`, `,"either_pair":`, `,"big":`, `,"small":`, `,"dragon_player":`, `,"dragon_banker":`, `,"lucky6":`}

// usualNets are the nets the rule profiles pay (per unit staked).
var usualNets = [...]float64{-1, 0, 0.5, 0.95, 1, 8, 9, 11, 25, 40}

func flagBits(b ...bool) int {
	n := 0
	for i, v := range b {
		if v {
			n |= 1 << i
		}
	}
	return n
}

// payoutJSON returns the prebuilt text of settlement entry field for p, or
// "" if p's net is not a usual one (or -0, which JSON writes "-0").
func payoutJSON(field int, p baccarat.Payout) string {
	if p.Outcome > baccarat.Push || math.Signbit(p.Net) && p.Net == 0 {
		return ""
	}
	for i, n := range usualNets {
		if p.Net == n {
			return payoutTexts[field][p.Outcome][i]
		}
	}
	return ""
}

func init() {
	for p := range 10 {
		for b := range 10 {
			for w := baccarat.WinnerPlayer; w <= baccarat.WinnerTie; w++ {
				t := append([]byte(`,"player_total":`), strconv.Itoa(p)...)
				t = append(append(t, `,"banker_total":`...), strconv.Itoa(b)...)
				t = append(append(append(t, `,"winner":"`...), w.String()...), '"')
				totalsJSON[p][b][w] = string(t)
			}
		}
	}
	for bits := range 64 {
		var t []byte
		for i, key := range [...]string{`,"natural":`, `,"player_pair":`, `,"banker_pair":`, `,"dragon7":`, `,"panda8":`, `,"banker_wins_on_6":`} {
			t = appendBool(t, key, bits&(1<<i) != 0)
		}
		flagsJSON[bits] = string(t)
	}
	for f, key := range payoutKeys {
		for o := baccarat.OutcomeNone; o <= baccarat.Push; o++ {
			for i, n := range usualNets {
				t := append(append([]byte(key), `{"result":"`...), o.String()...)
				t = append(t, `","net":`...)
				t, _ = appendJSONFloat(t, n)
				payoutTexts[f][o][i] = string(append(t, '}'))
			}
		}
	}
}
