package card_test

import (
	"errors"
	"testing"

	"github.com/sabot-table/sabot/tableau/card"
)

func TestParseCardRejectsControlBytes(t *testing.T) {
	// 0x16 | 0x20 is '6': a case-folding bug once read it as a rank.
	for _, s := range []string{"\x16", "\x17H", "\x12", "\x19S", "1H", "11", "AX", "A S", "", "KSS", "0", "1"} {
		if c, err := card.ParseCard(s); err == nil {
			t.Errorf("ParseCard(%q) = %v, want an error", s, c)
		}
	}
	for s, want := range map[string]string{"10h": "TH", "td": "TD", "7": "7", "as": "AS", "Kc": "KC", "q": "Q", "2D": "2D", "9s": "9S", "J": "J"} {
		c, err := card.ParseCard(s)
		if err != nil || c.String() != want {
			t.Errorf("ParseCard(%q) = %v, %v; want %s", s, c, err, want)
		}
	}
}

func TestParseBytesAgreesWithParseCard(t *testing.T) {
	for _, s := range []string{"10h", "td", "7", "as", "Kc", "q", "\x16", "1H", "", "KSS", "AX"} {
		want, err := card.ParseCard(s)
		got, ok := card.ParseBytes([]byte(s))
		if ok != (err == nil) || got != want {
			t.Errorf("ParseBytes(%q) = %v, %v; ParseCard gives %v, %v", s, got, ok, want, err)
		}
		if err != nil && !errors.Is(err, card.ErrBadCard) {
			t.Errorf("ParseCard(%q): %v does not wrap ErrBadCard", s, err)
		}
	}
	if card.ErrBadCard.Error() != "tableau: bad card" {
		t.Errorf("ErrBadCard is %q", card.ErrBadCard)
	}
}
