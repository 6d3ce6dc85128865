package tableau

import (
	"encoding/json"
	"math"
	"strconv"
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
	case EventCoup:
		dst, ok = appendCoupJSON(dst, &e.Coup)
	case EventAlert:
		dst, ok = appendAlertJSON(dst, &e.Alert)
	case EventVoid:
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
	if v.Type != EventVoid {
		return dst, false
	}
	return append(appendHead(dst, "void", v.Shoe, v.Coup), '}'), true
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
	if a.Type != EventAlert || !plainJSONString(string(a.Code)) {
		return dst, false
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
	return append(dst, '}'), true
}

func appendHandJSON(dst []byte, h *Hand) ([]byte, bool) {
	if h.N < 0 || h.N > MaxHandCards {
		return dst, false
	}
	dst = append(dst, '[')
	for i := 0; i < h.N; i++ {
		c := h.Cards[i]
		if !c.Valid() {
			return dst, false
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, c.String()...)
		dst = append(dst, '"')
	}
	return append(dst, ']'), true
}

func appendBool(dst []byte, key string, v bool) []byte {
	dst = append(dst, key...)
	return strconv.AppendBool(dst, v)
}

func appendCoupJSON(dst []byte, c *CoupEvent) ([]byte, bool) {
	if c.Type != EventCoup || c.Winner < WinnerPlayer || c.Winner > WinnerTie {
		return dst, false
	}
	var ok bool
	dst = appendHead(dst, "coup", c.Shoe, c.Coup)
	dst = append(dst, `,"player":`...)
	if dst, ok = appendHandJSON(dst, &c.Player); !ok {
		return dst, false
	}
	dst = append(dst, `,"banker":`...)
	if dst, ok = appendHandJSON(dst, &c.Banker); !ok {
		return dst, false
	}
	dst = append(dst, `,"player_total":`...)
	dst = strconv.AppendInt(dst, int64(c.PlayerTotal), 10)
	dst = append(dst, `,"banker_total":`...)
	dst = strconv.AppendInt(dst, int64(c.BankerTotal), 10)
	dst = append(dst, `,"winner":"`...)
	dst = append(dst, c.Winner.String()...)
	dst = append(dst, '"')
	dst = appendBool(dst, `,"natural":`, c.Natural)
	dst = appendBool(dst, `,"player_pair":`, c.PlayerPair)
	dst = appendBool(dst, `,"banker_pair":`, c.BankerPair)
	dst = appendBool(dst, `,"dragon7":`, c.Dragon7)
	dst = appendBool(dst, `,"panda8":`, c.Panda8)
	dst = appendBool(dst, `,"banker_wins_on_6":`, c.BankerWinsOn6)
	dst = append(dst, `,"cards":`...)
	dst = strconv.AppendInt(dst, int64(c.Cards), 10)
	// omitzero on a struct compares it with its zero value as == does
	// (-0 equals 0, NaN equals nothing).
	s := &c.Settlement
	if *s != (Settlement{}) {
		dst = append(dst, `,"settlement":{`...)
		for _, p := range [...]struct {
			key  string
			p    *Payout
			omit bool
		}{
			{`"player":`, &s.Player, false},
			{`,"banker":`, &s.Banker, false},
			{`,"tie":`, &s.Tie, false},
			{`,"player_pair":`, &s.PlayerPair, false},
			{`,"banker_pair":`, &s.BankerPair, false},
			{`,"dragon7":`, &s.Dragon7, true},
			{`,"panda8":`, &s.Panda8, true},
		} {
			if p.omit && *p.p == (Payout{}) {
				continue
			}
			dst = append(dst, p.key...)
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
	return append(dst, '}'), true
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
