package daemon

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/drivers/mqtt"
	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
	"github.com/sabot-table/sabot/tableau"
)

func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// eventSchema compiles drivers/mqtt's event.json.
func eventSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := mqtt.Schemas.ReadFile("schema/event.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("event.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("event.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAuditEvents: three starts of sabotd on one state directory and one
// config file. The first journals and publishes power-up (first start,
// the binary's SHA-256) and config-change (the file's SHA-256), and the
// shoe coming online; /healthz and the retained status carry the binary's
// hash and the journal's chain head; a stop journals shutdown and the
// clean-shutdown marker. The second start says the previous shutdown was
// clean and journals no config change. Before the third the marker is lost
// (as after a crash) and the config file edited: power-up says unclean,
// config-change names the old hash. Every event message passes
// event.json, and every one is in the journal with the record number it
// names.
func TestAuditEvents(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	b, err := embedded.StartOpen("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r := newReceived()
	subscribe(t, b.URL(), "sabot/T-9", r)
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	state := t.TempDir()
	cfgPath := filepath.Join(t.TempDir(), "sabotd.toml")
	conf := fmt.Sprintf(`table = "T-9"
[shoe]
device = %q
protocol = "lines"
[mqtt]
brokers = [%q]
[display]
kind = "fake"
[http]
addr = "127.0.0.1:0"
[state]
dir = %q
`, tty.Name(), b.URL(), state)
	if err := os.WriteFile(cfgPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	software := sha256File(t, exe)
	schema := eventSchema(t)

	boot := func() *Main {
		t.Helper()
		m := NewMain()
		m.Stderr = &syncBuffer{}
		if err := m.Setup(Options{ConfigPath: cfgPath}); err != nil {
			t.Fatal(err)
		}
		if err := m.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		return m
	}
	waitEvents := func(n int) []map[string]any {
		t.Helper()
		uniq := func() []map[string]any { // by id, first copy
			seen := map[string]bool{}
			var out []map[string]any
			for _, e := range r.kind("event") {
				if id := e["id"].(string); !seen[id] {
					seen[id] = true
					out = append(out, e)
				}
			}
			return out
		}
		waitFor(t, fmt.Sprintf("%d event messages", n), 10*time.Second, func() bool { return len(uniq()) >= n })
		return uniq()
	}

	m := boot()
	waitShoeOnline(t, m)
	ev := waitEvents(3)
	cfgSum := sha256File(t, cfgPath)
	if ev[0]["type"] != "power-up" || ev[0]["sha256"] != software || ev[0]["clean_shutdown"] != nil || ev[0]["seq"] != 1.0 {
		t.Fatalf("first power-up %v", ev[0])
	}
	if ev[1]["type"] != "config-change" || ev[1]["sha256"] != cfgSum || ev[1]["seq"] != 2.0 {
		t.Fatalf("config-change %v", ev[1])
	}
	if ev[2]["type"] != "shoe-online" {
		t.Fatalf("shoe %v", ev[2])
	}
	// /healthz: the binary's hash and the chain head.
	var h health
	resp, err := http.Get("http://" + m.d.http.addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	head := m.d.journal.Head()
	if h.Software != software || h.JournalHead == nil || h.JournalHead.Seq != head.Seq || h.JournalHead.SHA256 != head.HashHex() || head.Seq != 3 {
		t.Fatalf("healthz %+v, head %v", h, head)
	}
	// The retained status published at the last event carries the head.
	waitFor(t, "a status with the head", 5*time.Second, func() bool {
		st := r.kind("status")
		if len(st) == 0 {
			return false
		}
		last := st[len(st)-1]
		jh, _ := last["journal_head"].(map[string]any)
		return last["software_sha256"] == software && jh != nil && jh["seq"] == 3.0 && jh["sha256"] == head.HashHex()
	})
	m.Close()
	ev = waitEvents(4)
	if ev[3]["type"] != "shutdown" || ev[3]["seq"] != 4.0 {
		t.Fatalf("shutdown %v", ev[3])
	}

	m = boot()
	waitShoeOnline(t, m)
	ev = waitEvents(6)
	if ev[4]["type"] != "power-up" || ev[4]["clean_shutdown"] != true || ev[4]["seq"] != 5.0 {
		t.Fatalf("second power-up %v", ev[4])
	}
	if ev[5]["type"] != "shoe-online" {
		t.Fatalf("second start: %v (no config change expected)", ev[5])
	}
	m.Close()
	waitEvents(7)

	// A crash leaves no marker; the config file is edited meanwhile.
	j, err := journal.Open(state, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.SetMeta(metaCleanShutdown, make([]byte, 8))
	j.Close()
	if err := os.WriteFile(cfgPath, []byte(conf+"# edited\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m = boot()
	waitShoeOnline(t, m)
	ev = waitEvents(10)
	if ev[7]["type"] != "power-up" || ev[7]["clean_shutdown"] != false {
		t.Fatalf("third power-up %v", ev[7])
	}
	if ev[8]["type"] != "config-change" || ev[8]["sha256"] != sha256File(t, cfgPath) || !strings.Contains(ev[8]["text"].(string), "was sha256 "+cfgSum) {
		t.Fatalf("second config-change %v", ev[8])
	}
	m.Close()

	// Every event message is valid and is its journal record.
	all := waitEvents(11)
	j, err = journal.Open(state, &journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	recs := map[uint64]tableau.Input{}
	j.Replay(1, func(rec journal.Record) error {
		var in tableau.Input
		json.Unmarshal(rec.Data, &in)
		recs[rec.Seq] = in
		return nil
	})
	for _, e := range all {
		raw, _ := json.Marshal(e)
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err := schema.Validate(v); err != nil {
			t.Errorf("event %s: %v", raw, err)
		}
		in := recs[uint64(e["seq"].(float64))]
		typ := e["type"].(string)
		if (in.Kind == tableau.InputEvent && in.Code != typ) || (in.Kind == tableau.InputOnline) != (typ == "shoe-online") {
			t.Errorf("event %s is record %+v", raw, in)
		}
	}
	if len(r.dupes) > 0 {
		t.Fatalf("ids with two payloads: %v", r.dupes)
	}
	// The clean stop wrote the marker at its shutdown record, the last.
	if mk, _ := j.Meta(metaCleanShutdown); len(mk) != 8 || mk[7] != byte(j.Last()) {
		t.Fatalf("marker %x, last %d", mk, j.Last())
	}
}
