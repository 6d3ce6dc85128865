package mqtt

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

var (
	schemaOnce sync.Once
	schemaMap  map[string]*jsonschema.Schema
	schemaErr  error
)

// compiledSchemas compiles every schema in Schemas, keyed by file path.
func compiledSchemas(t testing.TB) map[string]*jsonschema.Schema {
	t.Helper()
	schemaOnce.Do(func() {
		entries, err := Schemas.ReadDir("schema")
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		files := map[string]string{}
		for _, e := range entries {
			path := "schema/" + e.Name()
			b, err := Schemas.ReadFile(path)
			if err != nil {
				schemaErr = err
				return
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err != nil {
				schemaErr = err
				return
			}
			id := "https://sabot-table.github.io/schema/mqtt/" + e.Name()
			if err := c.AddResource(id, doc); err != nil {
				schemaErr = err
				return
			}
			files[path] = id
		}
		schemaMap = map[string]*jsonschema.Schema{}
		for path, id := range files {
			s, err := c.Compile(id)
			if err != nil {
				schemaErr = err
				return
			}
			schemaMap[path] = s
		}
	})
	if schemaErr != nil {
		t.Fatalf("compile schemas: %v", schemaErr)
	}
	return schemaMap
}

// validatePayload checks payload against the schema of topic (relative to
// the table prefix) and the size limit.
func validatePayload(t testing.TB, topic string, payload []byte) error {
	t.Helper()
	file := SchemaFile(topic)
	if file == "" {
		t.Fatalf("no schema for topic %q", topic)
	}
	s := compiledSchemas(t)[file]
	if s == nil {
		t.Fatalf("schema %s not compiled", file)
	}
	if limit := PayloadLimit(topic); len(payload) >= limit {
		t.Errorf("%s payload is %d bytes, want < %d", topic, len(payload), limit)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(payload))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

func TestSchemasCompileAndCoverTopics(t *testing.T) {
	m := compiledSchemas(t)
	for _, topic := range []string{TopicStatus, TopicCard, TopicCoup, TopicAlert, TopicAlertAck, TopicVoid, TopicState, TopicEvent, "cmd/ack", "cmd/ack/reply"} {
		if m[SchemaFile(topic)] == nil {
			t.Errorf("topic %q: no compiled schema (file %q)", topic, SchemaFile(topic))
		}
	}
	if SchemaFile("nonsense") != "" || SchemaFile("cmd/a/b") != "" {
		t.Error("SchemaFile accepts unknown topics")
	}
}

// The schemas must reject what they are meant to reject, or validating
// against them proves nothing.
func TestSchemasRejectBadPayloads(t *testing.T) {
	good := `{"schema":1,"id":"T1/s1/1/coup/1","table":"T1","shoe_id":"s1","time":"2026-11-30T05:00:00Z",
	"type":"coup","game":"punto-banco","shoe":1,"coup":1,"player":["9S","KD"],"banker":["3H","5C"],"player_total":9,"banker_total":8,
	"winner":"player","natural":true,"player_pair":false,"banker_pair":false,"dragon7":false,"panda8":false,
	"banker_wins_on_6":false,"cards":4,"settlement":{"player":{"result":"win","net":1},"banker":{"result":"lose","net":-1},
	"tie":{"result":"lose","net":-1},"player_pair":{"result":"lose","net":-1},"banker_pair":{"result":"lose","net":-1}},
	"rules":"punto-banco","tie_pays":8}`
	if err := validatePayload(t, TopicCoup, []byte(good)); err != nil {
		t.Fatalf("good coup rejected: %v", err)
	}
	bad := map[string][2]string{
		"no id":           {`"id":"T1/s1/1/coup/1",`, ``},
		"no game":         {`"game":"punto-banco",`, ``},
		"local time":      {`"2026-11-30T05:00:00Z"`, `"2026-11-30T06:00:00+01:00"`},
		"not a time":      {`"2026-11-30T05:00:00Z"`, `"yesterday"`},
		"bad card":        {`"9S","KD"`, `"9S","1D"`},
		"total 10":        {`"player_total":9`, `"player_total":10`},
		"bad winner":      {`"winner":"player"`, `"winner":"punto"`},
		"bad outcome":     {`{"result":"win"`, `{"result":"won"`},
		"schema 2":        {`"schema":1`, `"schema":2`},
		"missing natural": {`"natural":true,`, ``},
	}
	for name, r := range bad {
		p := strings.Replace(good, r[0], r[1], 1)
		if p == good {
			t.Fatalf("%s: replacement did not apply", name)
		}
		if err := validatePayload(t, TopicCoup, []byte(p)); err == nil {
			t.Errorf("%s: schema accepted %s", name, p)
		}
	}
}

// Every code of tableau's alert table gives an alert payload the schema
// accepts, with the table's severity and latching, and the schema names it.
func TestAlertTablePayloads(t *testing.T) {
	b, err := Schemas.ReadFile("schema/alert.json")
	if err != nil {
		t.Fatal(err)
	}
	bld := NewBuilder("T1", baccarat.Rules{})
	for _, meta := range baccarat.Alerts() {
		if !strings.Contains(string(b), " "+string(meta.Code)+",") && !strings.Contains(string(b), " "+string(meta.Code)+" ") {
			t.Errorf("schema/alert.json does not name %s", meta.Code)
		}
		o := tableau.Output{Kind: tableau.OutputAlert, ID: "T1/s/0/alert/1", ShoeID: "s",
			Event: tableau.Event{Kind: baccarat.EventAlert, Alert: tableau.AlertEvent{Type: baccarat.EventAlert, Shoe: 1, Code: meta.Code}},
			Alert: meta.Code.Info("")}
		m, ok, err := bld.Output(o)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", meta.Code, ok, err)
		}
		if err := validatePayload(t, TopicAlert, m.Payload); err != nil {
			t.Errorf("%s: %v", meta.Code, err)
		}
		var p AlertPayload
		if err := json.Unmarshal(m.Payload, &p); err != nil || p.Severity != meta.Severity || p.AwaitsAck != meta.Latches || p.Text != meta.Text {
			t.Errorf("%s: payload %s", meta.Code, m.Payload)
		}
	}
}

// Every significant event gives an event payload the schema accepts, with
// the type, record, hash and shutdown flag of its journal input; inputs
// that are not events give none; the schema rejects what it should.
func TestEventPayloads(t *testing.T) {
	b := NewBuilder("T1", baccarat.Rules{})
	at := time.Date(2026, 12, 1, 10, 0, 0, 5, time.UTC)
	view := tableau.TableView{ShoeID: "s1", Coup: 7}
	sha := strings.Repeat("ab", 32)
	cases := []struct {
		in    tableau.Input
		typ   string
		clean string // "true", "false" or "" (absent)
		sha   bool
	}{
		{tableau.Input{Kind: tableau.InputEvent, Code: EventPowerUp, Text: PowerUpClean, Ref: sha}, "power-up", "true", true},
		{tableau.Input{Kind: tableau.InputEvent, Code: EventPowerUp, Text: PowerUpUnclean, Ref: sha}, "power-up", "false", true},
		{tableau.Input{Kind: tableau.InputEvent, Code: EventPowerUp, Text: PowerUpFirst, Ref: sha}, "power-up", "", true},
		{tableau.Input{Kind: tableau.InputEvent, Code: EventShutdown, Text: "SIGTERM"}, "shutdown", "", false},
		{tableau.Input{Kind: tableau.InputEvent, Code: EventConfigChange, Text: "was 0123", Ref: sha}, "config-change", "", true},
		{tableau.Input{Kind: tableau.InputEvent, Code: EventLidOpen, Source: "shoe"}, "lid-open", "", false},
		{tableau.Input{Kind: tableau.InputEvent, Code: EventLidClosed, Source: "shoe"}, "lid-closed", "", false},
		{tableau.Input{Kind: tableau.InputOnline, Source: "shoe"}, "shoe-online", "", false},
		{tableau.Input{Kind: tableau.InputOffline, Text: "no heartbeat"}, "shoe-offline", "", false},
		{tableau.Input{Kind: tableau.InputAlarm, Code: "E3", Text: "Card Not Read"}, "shoe-alarm", "", false},
		{tableau.Input{Kind: tableau.InputJournalFailed, Text: "disk full"}, "journal-failed", "", false},
		{tableau.Input{Kind: tableau.InputClockJump, Text: "+2h0m0s"}, "clock-jump", "", false},
		{tableau.Input{Kind: tableau.InputArchivePruned, Text: "journal-1-9.gz"}, "archive-pruned", "", false},
		{tableau.Input{Kind: tableau.InputDealer, Dealer: "D1042", Source: "shoe"}, "dealer-sign-in", "", false},
		{tableau.Input{Kind: tableau.InputDealer, Source: "mqtt", Operator: "pit"}, "dealer-sign-out", "", false},
		{tableau.Input{Kind: tableau.InputEvent, Code: EventOutboxDropped, Source: "mqtt", Text: "an outbox message on cmd/x/reply (2 bytes) can never be delivered"}, "outbox-dropped", "", false},
	}
	for i, c := range cases {
		m, ok, err := b.Event(c.in, uint64(100+i), at, view)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", c.typ, ok, err)
		}
		if m.Topic != TopicEvent || m.Retained {
			t.Errorf("%s: topic %q retained %v", c.typ, m.Topic, m.Retained)
		}
		if err := validatePayload(t, TopicEvent, m.Payload); err != nil {
			t.Errorf("%s: schema: %v\n%s", c.typ, err, m.Payload)
		}
		var p map[string]any
		json.Unmarshal(m.Payload, &p)
		wantID := "T1/s1/7/event/" + strconv.Itoa(100+i)
		if p["type"] != c.typ || p["id"] != wantID || p["seq"] != float64(100+i) || p["time"] != "2026-12-01T10:00:00.000000005Z" {
			t.Errorf("%s: payload %s", c.typ, m.Payload)
		}
		if got, _ := json.Marshal(p["clean_shutdown"]); (c.clean == "" && p["clean_shutdown"] != nil) || (c.clean != "" && string(got) != c.clean) {
			t.Errorf("%s: clean_shutdown %s, want %q", c.typ, got, c.clean)
		}
		if (p["sha256"] == sha) != c.sha {
			t.Errorf("%s: sha256 %v", c.typ, p["sha256"])
		}
	}
	nine, _ := tableau.ParseCard("9S")
	for _, in := range []tableau.Input{{Kind: tableau.InputCard, Card: nine}, {Kind: tableau.InputAck},
		{Kind: tableau.InputEvent, Code: "no-such-event"}, {Kind: tableau.InputDealer, Dealer: "bad id"}} {
		if _, ok, err := b.Event(in, 1, at, view); ok || err != nil {
			t.Errorf("%+v gave an event (%v)", in, err)
		}
	}
	good, _, _ := b.Event(cases[0].in, 5, at, view)
	bad := map[string][2]string{
		"bad type":              {`"type":"power-up"`, `"type":"reboot"`},
		"short sha":             {`"sha256":"` + sha, `"sha256":"` + sha[:10]},
		"upper sha":             {`"sha256":"` + sha, `"sha256":"` + strings.ToUpper(sha)},
		"no seq":                {`"seq":5,`, ``},
		"id not event":          {`/event/5"`, `/coup/5"`},
		"power-up without hash": {`"sha256":"` + sha + `",`, ``},
		"clean on shutdown":     {`"type":"power-up"`, `"type":"shutdown"`},
	}
	for name, r := range bad {
		p := strings.Replace(string(good.Payload), r[0], r[1], 1)
		if p == string(good.Payload) {
			t.Fatalf("%s: replacement did not apply to %s", name, good.Payload)
		}
		if err := validatePayload(t, TopicEvent, []byte(p)); err == nil {
			t.Errorf("%s: schema accepted %s", name, p)
		}
	}
}

// The status payload with the software identity and the journal's chain
// head is accepted; a malformed head is not.
func TestStatusPayloadAudit(t *testing.T) {
	sha := strings.Repeat("0f", 32)
	m, err := Encode(TopicStatus, true, StatusPayload{
		Envelope: NewEnvelope("T1", "T1/status/1/1", "", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)),
		Status:   StatusOnline, Version: "v0.1.0", SoftwareSHA256: sha,
		JournalHead: &JournalHead{Seq: 42, SHA256: strings.Repeat("e1", 32)},
		Conn:        1, Instance: "0123456789abcdef",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := validatePayload(t, TopicStatus, m.Payload); err != nil {
		t.Fatalf("status: %v\n%s", err, m.Payload)
	}
	for name, r := range map[string][2]string{
		"head seq 0":  {`"seq":42`, `"seq":0`},
		"head no sha": {`,"sha256":"` + strings.Repeat("e1", 32) + `"`, ``},
		"bad sw sha":  {`"software_sha256":"` + sha, `"software_sha256":"x` + sha[1:]},
	} {
		p := strings.Replace(string(m.Payload), r[0], r[1], 1)
		if p == string(m.Payload) {
			t.Fatalf("%s: replacement did not apply to %s", name, m.Payload)
		}
		if validatePayload(t, TopicStatus, []byte(p)) == nil {
			t.Errorf("%s: schema accepted %s", name, p)
		}
	}
}
