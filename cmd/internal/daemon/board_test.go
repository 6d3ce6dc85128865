package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sabot-table/sabot/cmd/internal/boardweb"
	"github.com/sabot-table/sabot/cmd/internal/config"
	"github.com/sabot-table/sabot/cmd/internal/demo"
	"github.com/sabot-table/sabot/drivers/testenv"
	"github.com/sabot-table/sabot/tableau"
)

// bootBoardDaemon starts an in-process daemon on a "lines" pty shoe with
// the embedded broker and returns it and the pty's master end; top goes
// first in the config, extra last.
func bootBoardDaemon(t *testing.T, top, extra string) (*Main, io.Writer) {
	t.Helper()
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	conf := fmt.Sprintf(`table = "T-9"
%s
[shoe]
device = %q
protocol = "lines"
[mqtt]
embedded_addr = "127.0.0.1:0"
[state]
dir = %q
%s`, top, tty.Name(), t.TempDir(), extra)
	m, _ := bootDaemon(t, conf)
	waitShoeOnline(t, m)
	return m, ptmx
}

// sseReader reads "board" events from an event stream.
type sseReader struct {
	resp *http.Response
	sc   *bufio.Scanner
}

func openEvents(t *testing.T, url string) *sseReader {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		t.Fatalf("GET %s: %s %q", url, resp.Status, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return &sseReader{resp: resp, sc: sc}
}

// next returns the next board state, failing after d.
func (r *sseReader) next(t *testing.T, d time.Duration) boardweb.State {
	t.Helper()
	got := make(chan boardweb.State, 1)
	errc := make(chan error, 1)
	go func() {
		event := ""
		for r.sc.Scan() {
			line := r.sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "board":
				var s boardweb.State
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &s); err != nil {
					errc <- err
					return
				}
				got <- s
				return
			}
		}
		errc <- fmt.Errorf("stream ended: %v", r.sc.Err())
	}()
	select {
	case s := <-got:
		return s
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(d):
		t.Fatalf("no board event within %v", d)
	}
	return boardweb.State{}
}

// TestBoardEvents: the event stream starts with the whole state, sends a
// new one for every card and coup, carries the roads, the cards, the
// configured limits and game, and the alerts with their text.
func TestBoardEvents(t *testing.T) {
	m, shoe := bootBoardDaemon(t, `rules = "ez"`, "[board]\nlang = \"zh\"\ncurrency = \"HK$\"\nmin_bet = 100\nmax_bet = 20000\n")
	base := "http://" + m.d.http.addr
	ev := openEvents(t, base+"/events")
	s := ev.next(t, 5*time.Second)
	// health() sees the link come up as the shoe driver reports it; the
	// board's hub polls that status (boardStatusPoll), so the first state
	// may still show the shoe offline: wait for the next.
	for deadline := time.Now().Add(10 * time.Second); !s.ShoeOnline && time.Now().Before(deadline); {
		s = ev.next(t, 5*time.Second)
	}
	if s.Table != "T-9" || s.Game != "EZ Baccarat" || s.Lang != "zh" || s.Phase != "no-shoe" ||
		s.Limits != (boardweb.Limits{Currency: "HK$", Min: 100, Max: 20000}) || !s.ShoeOnline || s.Assets == "" {
		t.Fatalf("first state %+v", s)
	}
	// A burn of 1 + 2 cards, then a coup: player 9 (natural), banker 3.
	for _, tok := range strings.Fields("shoe 2C 5D 7H | 4S 2H 5C AD") {
		fmt.Fprintf(shoe, "%s\r\n", tok)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.Roads.BeadPlate != "P" {
		if time.Now().After(deadline) {
			t.Fatalf("state never showed the coup: %+v", s)
		}
		s = ev.next(t, 5*time.Second)
	}
	if s.Player.Total != 9 || strings.Join(s.Player.Cards, " ") != "4S 5C" || s.Banker.Total != 3 ||
		strings.Join(s.Banker.Cards, " ") != "2H AD" || s.Winner != "player" || !s.Natural || s.Coup != 1 {
		t.Fatalf("coup state %+v", s)
	}
	if g := s.Roads.Grids.BigRoad; len(g) != 6 || g[0][0] != "P" || s.Roads.Stats.Naturals != 1 {
		t.Fatalf("roads %+v", s.Roads)
	}
	// A surplus card before the coup button: extra-card, with its text.
	fmt.Fprintf(shoe, "9C\r\n")
	for len(s.Alerts) == 0 {
		s = ev.next(t, 5*time.Second)
	}
	a := s.Alerts[0]
	if a.Code != "extra-card" || a.Display != "E1" || a.Text == "" || a.Acknowledged || s.AlertCount != 1 {
		t.Fatalf("alert %+v (count %d)", a, s.AlertCount)
	}
	// /board.json is the same state.
	resp, err := http.Get(base + "/board.json")
	if err != nil {
		t.Fatal(err)
	}
	var j boardweb.State
	json.NewDecoder(resp.Body).Decode(&j)
	resp.Body.Close()
	if j.AlertCount != 1 || j.Roads.BeadPlate != "P" {
		t.Fatalf("board.json %+v", j)
	}
}

// TestBoardReadOnly: the page, its assets, its JSON and its event stream
// answer GET and HEAD only; every other method is refused with 405 and
// changes nothing (no journal record).
func TestBoardReadOnly(t *testing.T) {
	m, _ := bootBoardDaemon(t, "", "")
	base := "http://" + m.d.http.addr
	before := m.d.journal.Last()
	for _, path := range []string{"/", "/events", "/board.json", "/assets/board.js", "/assets/index.html", "/healthz", "/metrics", "/scoreboard"} {
		for _, method := range []string{"POST", "PUT", "DELETE", "PATCH"} {
			req, _ := http.NewRequest(method, base+path, strings.NewReader(`{"command":"void"}`))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(resp.Header.Get("Allow"), "GET") {
				t.Errorf("%s %s: %s (Allow %q), want 405", method, path, resp.Status, resp.Header.Get("Allow"))
			}
		}
	}
	// A path the board does not have is 404, whatever the method.
	resp, err := http.Post(base+"/cmd/void", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /cmd/void: %s", resp.Status)
	}
	if after := m.d.journal.Last(); after != before {
		t.Errorf("journal went from %d to %d records", before, after)
	}
	// The page and its assets: the page's security headers, and nothing
	// the browser would fetch from elsewhere.
	for _, path := range []string{"/", "/assets/board.js", "/assets/board.css"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") != boardCSP || len(body) < 500 {
			t.Errorf("GET %s: %s, CSP %q, %d bytes", path, resp.Status, resp.Header.Get("Content-Security-Policy"), len(body))
		}
	}
}

// external matches a URL or protocol-relative reference to another host,
// an @import or a font file.
var external = regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}|@import|url\(|\.woff2?|\.ttf`)

// TestBoardAssetsOffline: every asset is embedded and refers to nothing
// outside the daemon (the page works with no network).
func TestBoardAssetsOffline(t *testing.T) {
	sub, version := boardweb.Assets()
	n := 0
	fs.WalkDir(sub, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		n++
		b, _ := fs.ReadFile(sub, path)
		if m := external.Find(b); m != nil {
			t.Errorf("%s refers to %q", path, m)
		}
		return nil
	})
	if n != 3 || len(version) != 12 {
		t.Errorf("%d assets, version %q", n, version)
	}
}

// TestBoardClientBound: at most boardweb.MaxClients event streams; the next
// is refused with 503 and Retry-After; a stream that closes frees its
// place; closing the daemon ends every stream.
func TestBoardClientBound(t *testing.T) {
	m, _ := bootBoardDaemon(t, "", "")
	url := "http://" + m.d.http.addr + "/events"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var bodies []io.ReadCloser
	for i := range boardweb.MaxClients {
		// boardweb.MaxClientsPerAddr from each loopback address.
		from := &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(1+i/boardweb.MaxClientsPerAddr))}
		c := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: from}).DialContext}}
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		resp, err := c.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("stream %d: %v %v", len(bodies)+1, err, resp)
		}
		bodies = append(bodies, resp.Body)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("stream %d: %s, Retry-After %q", boardweb.MaxClients+1, resp.Status, resp.Header.Get("Retry-After"))
	}
	bodies[0].Close()
	waitFor(t, "a free place", 5*time.Second, func() bool {
		return m.d.web.Hub.Clients() < boardweb.MaxClients
	})
	ev := openEvents(t, url)
	ev.next(t, 5*time.Second)
	start := time.Now()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("closing with %d open streams took %v", boardweb.MaxClients, took)
	}
	for _, b := range bodies[1:] {
		if _, err := io.Copy(io.Discard, b); err != nil && !strings.Contains(err.Error(), "closed") {
			t.Errorf("stream after close: %v", err)
		}
	}
}

// TestBoardConfig: the [board] keys are checked with their key and line.
func TestBoardConfig(t *testing.T) {
	base := "table = \"T\"\n[shoe]\ndevice = \"/dev/x\"\n[board]\n"
	for _, c := range []struct{ body, want string }{
		{`lang = "fr"`, `x.toml:5: board.lang: "fr": must be "en" or "zh"`},
		{"min_bet = 500\nmax_bet = 100", `x.toml:5: board.min_bet: 500 is above board.max_bet 100`},
		{`tie_max = -1`, `x.toml:5: board.tie_max: -1: must be 0 (not shown) to 1000000000`},
		{`game = "` + strings.Repeat("百", 41) + `"`, `x.toml:5: board.game: 41 characters: at most 40 fit the board`},
		{`currency = "DOLLARS!!"`, `x.toml:5: board.currency: "DOLLARS!!": at most 8 characters`},
	} {
		_, err := config.Parse([]byte(base+c.body), "x.toml")
		if err == nil || err.Error() != "config: "+c.want {
			t.Errorf("%s: got %v, want %s", c.body, err, c.want)
		}
	}
	cfg, err := config.Parse([]byte(base+"game = \"Mini Baccarat\"\nlang = \"zh\"\nmin_bet = 10\nmax_bet = 1000"), "x.toml")
	if err != nil || boardweb.GameName(cfg) != "Mini Baccarat" || cfg.Board.Lang != "zh" || boardweb.LimitsOf(cfg.Board).Max != 1000 {
		t.Fatalf("%+v %v", cfg.Board, err)
	}
	if cfg, _ := config.Parse([]byte(base), "x.toml"); boardweb.GameName(cfg) != "Punto Banco" || cfg.Board.Lang != "en" {
		t.Errorf("defaults %+v", cfg.Board)
	}
}

// TestDemoPrintsAddresses: --demo prints the board's URL and the embedded
// broker's address first (its log shows only warnings), and the board is
// there, filling with the demo's coups.
func TestDemoPrintsAddresses(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	m := NewMain()
	out, logs := &syncBuffer{}, &syncBuffer{}
	m.Stdout, m.Stderr = out, logs
	if err := m.Setup(Options{Demo: demo.Options{Enabled: true, Coups: 20, Rate: "fast", Seed: 3}}); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	lines := strings.SplitN(out.String(), "\n", 3)
	if len(lines) < 3 {
		t.Fatalf("demo output:\n%s", out.String())
	}
	board := regexp.MustCompile(`^board:  (http://127\.0\.0\.1:\d+/)  \(\?lang=zh for Chinese labels\)$`).FindStringSubmatch(lines[0])
	broker := regexp.MustCompile(`^broker: tcp://127\.0\.0\.1:(\d+)  \(mosquitto_sub -p (\d+) -t 'sabot/DEMO-1/#' -v\)$`).FindStringSubmatch(lines[1])
	if board == nil || broker == nil || broker[1] != broker[2] || "tcp://127.0.0.1:"+broker[1] != m.d.broker.URL() {
		t.Fatalf("first lines %q, %q", lines[0], lines[1])
	}
	select {
	case <-m.Done():
	case <-time.After(60 * time.Second):
		t.Fatalf("demo did not finish; log:\n%s", logs.String())
	}
	// The board's hub builds its state from the main loop's notice, after
	// the coup: the last coup can reach it just after the demo is done
	// (19 of 20 seen once under load), so wait for it.
	var s boardweb.State
	read := func() bool {
		resp, err := http.Get(board[1] + "board.json")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		s = boardweb.State{}
		json.NewDecoder(resp.Body).Decode(&s)
		return s.Roads.Stats.Coups >= 20
	}
	for end := time.Now().Add(testenv.Deadline(5 * time.Second)); !read() && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	if s.Table != "DEMO-1" || s.Roads.Stats.Coups != 20 || len(s.Roads.BeadPlate) != 20 {
		t.Fatalf("demo board: %d coups, bead plate %q", s.Roads.Stats.Coups, s.Roads.BeadPlate)
	}
}

// BenchmarkBoardEncode is the cost of one board state (what every card
// and coup costs the daemon besides the page's own work): the view of a
// whole 8-deck shoe (84 coups), its roads and the JSON. Sent once per
// change, shared by every client.
func BenchmarkBoardEncode(b *testing.B) {
	src, err := os.ReadFile("../../../tableau/testdata/clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	toks, err := tableau.ParseTranscript(strings.NewReader(string(src)), "clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	cfg := config.Default()
	cfg.Table = "T-1"
	tbl, err := cfg.NewTable(nil)
	if err != nil {
		b.Fatal(err)
	}
	var outs []tableau.Output
	for i, tok := range toks {
		in := tableau.Input{Kind: map[tableau.TokenKind]tableau.InputKind{tableau.TokCard: tableau.InputCard,
			tableau.TokShoe: tableau.InputShoe, tableau.TokMarker: tableau.InputButton, tableau.TokCut: tableau.InputCut,
			tableau.TokVoid: tableau.InputVoid}[tok.Kind], Card: tok.Card}
		outs = tbl.Apply(uint64(i+1), time.Unix(0, 0), in, outs[:0])
	}
	d := &daemon{cfg: cfg, view: tbl.View(), web: &boardweb.Web{}}
	d.web.Files, d.web.Version = boardweb.Assets()
	state, _ := d.encodeBoard()
	var s boardweb.State
	if err := json.Unmarshal(state, &s); err != nil || s.Roads.Stats.Coups != 84 {
		b.Fatalf("state of %d bytes: %d coups, %v", len(state), s.Roads.Stats.Coups, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		d.encodeBoard()
	}
	b.ReportMetric(float64(len(state)), "bytes/state")
}
