package mqtt

import (
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"
)

// Any command payload is either accepted with the required fields within
// their limits, or rejected with a reason; nothing panics, and the reply
// built from it is valid JSON under MaxPayload.
func FuzzValidateCommand(f *testing.F) {
	f.Add("ack", []byte(`{"request_id":"r1","operator":"alice"}`), false)
	f.Add("void", []byte(`{"request_id":"r1","operator":"alice","table":"T1"}`), false)
	f.Add("new-shoe", []byte(`{"request_id":"","operator":"alice"}`), true)
	f.Add("explode", []byte(`not json`), false)
	f.Add("bets-closed", []byte(`{"request_id":"r1","operator":"alice"} {}`), false)
	f.Add("ack", []byte("\xff\xfe"), false)
	f.Fuzz(func(t *testing.T, name string, payload []byte, retained bool) {
		p := &Publisher{opts: Options{Table: "T1", Operators: []string{"alice"}, Now: time.Now}, recentCmds: map[string]bool{}}
		cmd, reason := p.validateCommand(name, payload, retained)
		if reason == "" {
			if cmd.RequestID == "" || cmd.Operator != "alice" || len(cmd.RequestID) > 128 || len(payload) > MaxCommand || retained ||
				(cmd.Table != "" && cmd.Table != "T1") || !utf8.Valid(payload) {
				t.Fatalf("accepted %q %q: %+v", name, payload, cmd)
			}
		}
		r := CommandReply{Command: truncateUTF8(name, 64), RequestID: truncateUTF8(cmd.RequestID, 128),
			Operator: truncateUTF8(cmd.Operator, 64), Reason: truncateUTF8(reason, 512)}
		m, err := Encode("cmd/x/reply", false, r)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(m.Payload) {
			t.Fatalf("reply not JSON: %s", m.Payload)
		}
	})
}

// A corrupt outbox record is an error, never a panic; a valid one round-trips.
func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte{1, 0, 4, 'c', 'o', 'u', 'p', '{', '}'})
	f.Add([]byte{0, 0xff, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, v []byte) {
		r, err := decodeRecord(7, v)
		if err != nil {
			return
		}
		back := encodeRecord(Message{Topic: r.topic, Payload: r.payload, Retained: r.retained})
		r2, err := decodeRecord(7, back)
		if err != nil || r2.topic != r.topic || string(r2.payload) != string(r.payload) || r2.retained != r.retained {
			t.Fatalf("round trip of %q: %+v / %+v, %v", v, r, r2, err)
		}
	})
}
