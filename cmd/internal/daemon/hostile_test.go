package daemon

// Hostile input through the real sabotd binary: what an attacker on the
// casino network, or a misbehaving neighbour, can send it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// linesTable is the config of a lines-protocol table reading a fresh
// pseudo-terminal (closed at the test's end), and the terminal's master
// side to deal on: mqtt is the [mqtt] section's body, extra more sections.
func linesTable(t *testing.T, table, mqtt, extra string) (conf string, ptmx *os.File) {
	t.Helper()
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	return fmt.Sprintf(`table = %q
[shoe]
device = %q
protocol = "lines"
[mqtt]
%s
[display]
kind = "none"
%s
[state]
dir = %q
[log]
format = "json"
`, table, tty.Name(), mqtt, extra, t.TempDir()), ptmx
}

// topicCounter counts, per topic, the messages a subscriber received.
type topicCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *topicCounter) handle(_ paho.Client, m paho.Message) {
	c.mu.Lock()
	c.n[m.Topic()]++
	c.mu.Unlock()
}

func (c *topicCounter) count(topic string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[topic]
}

// hostileClient connects to url and subscribes to filter, counting what
// arrives.
func hostileClient(t *testing.T, url, filter string) (paho.Client, *topicCounter) {
	t.Helper()
	cnt := &topicCounter{n: map[string]int{}}
	o := paho.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("hostile-%d", time.Now().UnixNano())).SetCleanSession(true)
	c := paho.NewClient(o)
	if tok := c.Connect(); !tok.WaitTimeout(testenv.Deadline(10*time.Second)) || tok.Error() != nil {
		t.Fatalf("connect %s: %v", url, tok.Error())
	}
	t.Cleanup(func() { c.Disconnect(100) })
	if tok := c.Subscribe(filter, 1, cnt.handle); !tok.WaitTimeout(testenv.Deadline(10*time.Second)) || tok.Error() != nil {
		t.Fatalf("subscribe %s: %v", filter, tok.Error())
	}
	return c, cnt
}

// TestCommandTopicOverTheTopicLimit sends one command whose topic is 65,535
// bytes, MQTT's limit: "sabot/SEC-1/cmd/" and 65,519 A's. Its reply topic
// (the command topic and "/reply") is over the limit; the client library
// cut it back to the command topic itself, and the daemon took its own
// reply for a new command, refused it, replied again, and so on, about
// 115 times a second, growing the journal by 10 MB a second, and again
// after a restart. Now the name is refused once, without a reply, and its
// record holds 64 bytes of it.
//
// The loop's absence is seen without waiting for it: after the long topic
// a valid command (an ack) is sent and its reply awaited; the daemon
// replies in order, so a reply to the long topic would have reached the
// subscriber before the ack's.
func TestCommandTopicOverTheTopicLimit(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	// On Mosquitto: the embedded broker now refuses packets over 64 KiB,
	// this one among them; the daemon must hold on any broker.
	mq := testenv.StartMosquitto(t)
	conf, _ := linesTable(t, "SEC-1", fmt.Sprintf("brokers = [%q]\ncommands = true", mq.URL), "[http]\naddr = \"127.0.0.1:0\"")
	url := mq.URL
	prefix := "sabot/SEC-1/cmd/"
	long := prefix + strings.Repeat("A", 65535-len(prefix))
	for run := 1; run <= 2; run++ { // the second on the same state directory
		p := startSabotd(t, conf)
		c, cnt := hostileClient(t, url, prefix+"#")
		n := 0
		// ack sends an ack and waits for its reply; with retry, again every
		// second until one comes (the daemon subscribes to commands after
		// it has connected: a command before that goes to nobody).
		ack := func(retry bool) {
			t.Helper()
			before := cnt.count(prefix + "ack/reply")
			end := time.Now().Add(testenv.Deadline(30 * time.Second))
			for {
				n++
				payload := fmt.Sprintf(`{"request_id":"sentinel-%d-%d","operator":"pit"}`, run, n)
				if tok := c.Publish(prefix+"ack", 1, false, payload); !tok.WaitTimeout(testenv.Deadline(10*time.Second)) || tok.Error() != nil {
					t.Fatalf("publish the ack: %v", tok.Error())
				}
				for wait := time.Now().Add(time.Second); time.Now().Before(wait) || !retry; time.Sleep(10 * time.Millisecond) {
					if cnt.count(prefix+"ack/reply") > before {
						return
					}
					if time.Now().After(end) {
						t.Fatalf("run %d: no reply to an ack", run)
					}
				}
			}
		}
		ack(true) // the daemon takes commands
		if run == 1 {
			if tok := c.Publish(long, 1, false, `{"request_id":"p1","operator":"x"}`); !tok.WaitTimeout(testenv.Deadline(10*time.Second)) || tok.Error() != nil {
				t.Fatalf("publish on the long topic: %v", tok.Error())
			}
		}
		ack(false) // replies come in order: any reply to the long topic came before this one
		want := 0
		if run == 1 {
			want = 1 // the test's own publish
		}
		if got := cnt.count(long); got != want {
			t.Errorf("run %d: %d messages on the 65,535-byte topic, want %d (the daemon answered on it)", run, got, want)
		}
		logs := p.logs.String()
		rejected := 0
		for _, l := range strings.Split(logs, "\n") {
			if strings.Contains(l, `"msg":"mqtt: command rejected"`) {
				rejected++
				if len(l) > 1024 {
					t.Errorf("run %d: a rejection's log line is %d bytes, want at most 1 KiB", run, len(l))
				}
			}
		}
		wantRejected := 0
		if run == 1 {
			wantRejected = 1
		}
		if rejected != wantRejected {
			t.Errorf("run %d: %d command rejections logged, want %d", run, rejected, wantRejected)
		}
		if _, err := p.term(); err != nil {
			t.Fatal(err)
		}
		c.Disconnect(100)
	}
}

// TestLinesShoeNoiseIsNoise writes 28,800 random bytes (30 s at 9600 baud)
// into a lines-protocol shoe's pseudo-terminal, then "zz", "AS" and "KD":
// the only card published is KD (AS is refused as the noise's possible
// tail), and a shoe-alarm alert with the code link-noise is raised. Before,
// noise became cards with no alert ("5 2 6 T Q J" in one coup).
func TestLinesShoeNoiseIsNoise(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	port := testenv.FreePort(t)
	conf, ptmx := linesTable(t, "SEC-2", fmt.Sprintf("embedded_addr = \"127.0.0.1:%d\"\n%s", port, openBroker(t)), "[http]\naddr = \"127.0.0.1:0\"")
	p := startSabotd(t, conf)
	p.waitOnline(t)
	var mu sync.Mutex
	var cards, alerts []string
	o := paho.NewClientOptions().AddBroker(fmt.Sprintf("tcp://127.0.0.1:%d", port)).SetClientID("noise-sub").SetCleanSession(true)
	c := paho.NewClient(o)
	if tok := c.Connect(); !tok.WaitTimeout(testenv.Deadline(10*time.Second)) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	defer c.Disconnect(100)
	tok := c.Subscribe("sabot/SEC-2/+", 1, func(_ paho.Client, m paho.Message) {
		mu.Lock()
		defer mu.Unlock()
		switch m.Topic() {
		case "sabot/SEC-2/card":
			cards = append(cards, string(m.Payload()))
		case "sabot/SEC-2/alert":
			alerts = append(alerts, string(m.Payload()))
		}
	})
	if !tok.WaitTimeout(testenv.Deadline(10*time.Second)) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	rng := rand.New(rand.NewPCG(21, 7))
	noise := make([]byte, 28800)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	for off := 0; off < len(noise); off += 1024 {
		if _, err := ptmx.Write(noise[off:min(off+1024, len(noise))]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ptmx.Write([]byte("\nzz\nAS\nKD\n")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the card KD", testenv.Deadline(20*time.Second), func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range cards {
			if strings.Contains(c, `"card":"KD"`) {
				return true
			}
		}
		return false
	})
	mu.Lock()
	defer mu.Unlock()
	if len(cards) != 1 {
		t.Errorf("%d cards published, want only KD:\n%s", len(cards), strings.Join(cards, "\n"))
	}
	noiseAlert := false
	for _, a := range alerts {
		if strings.Contains(a, `"code":"shoe-alarm"`) && strings.Contains(a, "link-noise") {
			noiseAlert = true
		}
	}
	if !noiseAlert {
		t.Errorf("no shoe-alarm alert with link-noise; alerts:\n%s", strings.Join(alerts, "\n"))
	}
}

// mqttPacket is one MQTT 3.1.1 control packet: the fixed header's first
// byte, the remaining length (variable-length encoding) and the body.
func mqttPacket(first byte, body []byte) []byte {
	out := []byte{first}
	n := len(body)
	for {
		b := byte(n % 128)
		n /= 128
		if n > 0 {
			b |= 0x80
		}
		out = append(out, b)
		if n == 0 {
			break
		}
	}
	return append(out, body...)
}

// mqttString is an MQTT UTF-8 string: a 2-byte length and the bytes.
func mqttString(s string) []byte { return append([]byte{byte(len(s) >> 8), byte(len(s))}, s...) }

// TestEmbeddedBrokerSlowClient: a client connects to the embedded broker
// with keep-alive 0 and a 4 KiB receive buffer, stores a 2 MiB retained
// message, subscribes to it 12 times and never reads. Every other client
// still gets its SUBACK at once, the daemon's messages are acknowledged
// (/healthz: nothing waiting, the broker acknowledging), and the slow
// client is disconnected. Before, its SUBACK write held the broker's
// retained-message lock: new subscribers waited 10 s at a time, and the
// daemon's unacknowledged messages grew while /healthz said
// broker_connected: true.
func TestEmbeddedBrokerSlowClient(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	port, httpPort := testenv.FreePort(t), testenv.FreePort(t)
	conf, ptmx := linesTable(t, "SEC-3", fmt.Sprintf("embedded_addr = \"127.0.0.1:%d\"\n%s", port, openBroker(t)), fmt.Sprintf("[http]\naddr = \"127.0.0.1:%d\"", httpPort))
	p := startSabotd(t, conf)
	p.waitOnline(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)

	// The slow client, by hand: it must never read.
	raw, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.(*net.TCPConn).SetReadBuffer(4096)
	connect := append(append(mqttString("MQTT"), 4, 0x02, 0, 0), mqttString("slow-client")...) // clean session, keep-alive 0
	big := bytes.Repeat([]byte("x"), 2<<20)
	pkts := [][]byte{mqttPacket(0x10, connect), mqttPacket(0x31, append(mqttString("junk/big"), big...))} // PUBLISH QoS 0, retained
	for i := 1; i <= 12; i++ {
		pkts = append(pkts, mqttPacket(0x82, append([]byte{0, byte(i)}, append(mqttString("junk/big"), 0)...))) // SUBSCRIBE QoS 0
	}
	go func() { // the broker may stop reading it: do not hold the test on it
		for _, b := range pkts {
			if _, err := raw.Write(b); err != nil {
				return
			}
		}
	}()

	// Other clients subscribe, one after another: each SUBACK comes at once.
	var worst time.Duration
	for i := range 8 {
		c := paho.NewClient(paho.NewClientOptions().AddBroker("tcp://" + addr).SetClientID(fmt.Sprintf("other-%d", i)).SetCleanSession(true))
		if tok := c.Connect(); !tok.WaitTimeout(testenv.Deadline(10*time.Second)) || tok.Error() != nil {
			t.Fatalf("client %d: connect: %v", i, tok.Error())
		}
		start := time.Now()
		tok := c.Subscribe("sabot/SEC-3/#", 1, func(paho.Client, paho.Message) {})
		ok := tok.WaitTimeout(testenv.Deadline(30 * time.Second))
		took := time.Since(start)
		c.Disconnect(50)
		if !ok || tok.Error() != nil {
			t.Fatalf("client %d: no SUBACK within %v: %v", i, took, tok.Error())
		}
		worst = max(worst, took)
		fmt.Fprintf(ptmx, "AS\n") // and the daemon publishes meanwhile
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("MEASURE beside a client that never reads: worst time to a SUBACK of 8 subscribers %v", worst)
	if worst > testenv.Deadline(2*time.Second) {
		t.Errorf("a subscriber waited %v for its SUBACK beside the slow client, want under %v", worst, testenv.Deadline(2*time.Second))
	}
	// The daemon's messages are taken: nothing waits in its outbox.
	var h map[string]any
	waitFor(t, "an empty outbox and the broker acknowledging", testenv.Deadline(20*time.Second), func() bool {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", httpPort))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		h = nil
		json.NewDecoder(resp.Body).Decode(&h)
		return h["outbox_backlog"] == float64(0) && h["broker_acknowledging"] == true
	})
	// And the slow client was disconnected: its socket ends.
	raw.SetReadDeadline(time.Now().Add(testenv.Deadline(30 * time.Second)))
	if _, err := io.Copy(io.Discard, raw); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the slow client's connection did not end: %v", err)
	}
}

// TestBoardServerBounds: the board's HTTP server, through the binary.
//   - One address gets 4 event streams (the 5th: 503), and with
//     [board] display set, the other addresses together get 31 of the 32
//     slots and the display the last. Before, 32 streams from one client
//     took every slot and the wall display showed "Reconnecting…".
//   - An idle keep-alive connection is closed (it was kept for ever), a
//     request whose headers do not arrive within 5 s is dropped, and
//     headers over 16 KiB are refused (about 1 MiB was read).
//   - /recall answers loopback clients, with nosniff and the CSP like every
//     other path.
func TestBoardServerBounds(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	httpPort := testenv.FreePort(t)
	conf, _ := linesTable(t, "SEC-4", fmt.Sprintf("embedded_addr = \"127.0.0.1:%d\"", testenv.FreePort(t)), fmt.Sprintf("[board]\ndisplay = \"127.0.0.2\"\n[http]\naddr = \"127.0.0.1:%d\"", httpPort))
	startSabotd(t, conf)
	base := fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	// stream opens /events from local address from; it returns the status
	// and, for a 200, the open body (closed at the test's end).
	stream := func(from string) int {
		t.Helper()
		c := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}).DialContext}}
		resp, err := c.Get(base + "/events")
		if err != nil {
			t.Fatalf("stream from %s: %v", from, err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return resp.StatusCode
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp.StatusCode
	}
	for i := range 4 {
		if code := stream("127.0.0.3"); code != 200 {
			t.Fatalf("stream %d from one address: %d", i+1, code)
		}
	}
	if code := stream("127.0.0.3"); code != http.StatusServiceUnavailable {
		t.Errorf("a 5th stream from one address: %d, want 503", code)
	}
	got := 4
	for a := 4; got < 31; a++ {
		for range 4 {
			if got == 31 {
				break
			}
			if code := stream(fmt.Sprintf("127.0.0.%d", a)); code != 200 {
				t.Fatalf("stream %d (from 127.0.0.%d): %d", got+1, a, code)
			}
			got++
		}
	}
	if code := stream("127.0.0.50"); code != http.StatusServiceUnavailable {
		t.Errorf("a 32nd stream from another address: %d, want 503 (the last slot is the display's)", code)
	}
	if code := stream("127.0.0.2"); code != 200 {
		t.Errorf("the wall display's stream with 31 others open: %d, want 200", code)
	}

	// An idle keep-alive connection is closed.
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", httpPort))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(testenv.Deadline(60 * time.Second)))
	start := time.Now()
	if _, err := io.Copy(io.Discard, conn); err != nil {
		t.Errorf("an idle keep-alive connection was not closed: %v", err)
	}
	t.Logf("MEASURE idle keep-alive connection closed after %v", time.Since(start).Round(100*time.Millisecond))
	// Headers that do not come.
	slow, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", httpPort))
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
	slow.SetReadDeadline(time.Now().Add(testenv.Deadline(30 * time.Second)))
	if _, err := io.Copy(io.Discard, slow); err != nil {
		t.Errorf("a request whose headers never end was not dropped: %v", err)
	}
	// Headers over the limit.
	req, _ := http.NewRequest("GET", base+"/healthz", nil)
	req.Header.Set("X-Big", strings.Repeat("a", 64<<10))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("64 KiB of headers: %v %v, want 431", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}
	// /recall, with the headers of every path.
	for _, path := range []string{"/recall", "/healthz", "/metrics", "/board.json"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: %d, nosniff %q, CSP %q", path, resp.StatusCode, resp.Header.Get("X-Content-Type-Options"), resp.Header.Get("Content-Security-Policy"))
		}
	}
}

// TestEmbeddedBrokerLimits: a 64 MiB PUBLISH to the embedded broker is
// refused before it is read (its client disconnected) and sabotd's RSS
// stays far under the unit's MemoryMax=128M; at most 64 clients are
// connected at once. Before, any local program could store three retained
// 64 MiB messages and take sabotd from 17.5 to 478 MB.
func TestEmbeddedBrokerLimits(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	port := testenv.FreePort(t)
	conf, _ := linesTable(t, "SEC-5", fmt.Sprintf("embedded_addr = \"127.0.0.1:%d\"\n%s", port, openBroker(t)), "[http]\naddr = \"127.0.0.1:0\"")
	p := startSabotd(t, conf)
	p.waitOnline(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	rss := func() int {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		var kib int
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
				fmt.Sscan(v, &kib)
			}
		}
		return kib
	}
	before := rss()
	for i := range 3 {
		raw, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		connect := append(append(mqttString("MQTT"), 4, 0x02, 0, 30), mqttString(fmt.Sprintf("big-%d", i))...)
		raw.Write(mqttPacket(0x10, connect))
		head := mqttPacket(0x31, append(mqttString("junk/big"), make([]byte, 64<<20)...))
		raw.SetDeadline(time.Now().Add(testenv.Deadline(30 * time.Second)))
		_, werr := raw.Write(head)
		_, rerr := io.Copy(io.Discard, raw) // the CONNACK, then the end
		raw.Close()
		if werr == nil && rerr != nil {
			t.Errorf("publish %d of 64 MiB: written, and the connection did not end: %v", i+1, rerr)
		}
	}
	after := rss()
	t.Logf("MEASURE sabotd RSS %d KiB before, %d KiB after three 64 MiB publishes", before, after)
	if after > 64<<10 {
		t.Errorf("sabotd's RSS is %d KiB after three 64 MiB publishes, want under 64 MiB (the unit caps it at 128 MiB)", after)
	}
	// Clients: at most 64 at once (sabotd's own publisher is one).
	ok := 0
	for i := range 70 {
		c := paho.NewClient(paho.NewClientOptions().AddBroker("tcp://" + addr).SetClientID(fmt.Sprintf("many-%d", i)).SetConnectTimeout(5 * time.Second))
		if tok := c.Connect(); tok.WaitTimeout(testenv.Deadline(10*time.Second)) && tok.Error() == nil {
			ok++
			defer c.Disconnect(10)
		}
	}
	if ok > 63 || ok < 60 {
		t.Errorf("%d of 70 clients connected beside sabotd's, want 63 (64 in all)", ok)
	}
}
