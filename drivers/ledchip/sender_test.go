package ledchip

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"periph.io/x/conn/v3"
)

// recordConn is a conn.Conn that records each write and refuses one whose
// first byte is bad.
type recordConn struct {
	bad    byte
	writes [][]byte
}

func (c *recordConn) String() string      { return "rec" }
func (c *recordConn) Duplex() conn.Duplex { return conn.Half }
func (c *recordConn) Tx(w, r []byte) error {
	if w[0] == c.bad {
		return errors.New("no ACK")
	}
	c.writes = append(c.writes, append([]byte(nil), w...))
	return nil
}

// TestSender: the writes go out in order, one Tx each, and the first that
// fails stops the rest with fail's error.
func TestSender(t *testing.T) {
	c := &recordConn{bad: 0xEE}
	s := NewSender(c, func(w []byte, err error) error { return fmt.Errorf("chip: write %#02x: %w", w[0], err) })
	if err := s.Send([]byte{1, 2}, []byte{3}); err != nil {
		t.Fatal(err)
	}
	err := s.Send([]byte{4}, []byte{0xEE, 5}, []byte{6})
	if err == nil || err.Error() != "chip: write 0xee: no ACK" {
		t.Errorf("err %v, want chip: write 0xee: no ACK", err)
	}
	if want := [][]byte{{1, 2}, {3}, {4}}; !reflect.DeepEqual(c.writes, want) {
		t.Errorf("writes %v, want %v", c.writes, want)
	}
}
